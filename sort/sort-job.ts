/** What every sorter checks and derives from a SortJob before recording it. */
import type { SortJob, SortTimestamps } from './types.ts';

/** Where a job's live count sits, as a storage binding can reach it. */
export interface CountWindow {
  /** The job's count offset in bytes (default 0). */
  countOffset: number;
  /** Start of the aligned binding window that holds the count. */
  windowOffset: number;
  windowSize: number;
  /** Index of the count (u32) inside the window. */
  countIndex: number;
}

/**
 * Checks a job against a sorter's capacity and locates its count: storage bindings
 * start at `minStorageBufferOffsetAlignment`, so the sorters bind the aligned window
 * holding the count and read it at `countIndex`. Throws a RangeError naming the
 * sorter and the bad field.
 */
export function jobCountWindow(sorter: string, device: GPUDevice, job: SortJob, capacity: number): CountWindow {
  const countOffset = job.countOffset ?? 0;
  const bytes = capacity * 4;
  for (const [what, b] of [['keys', job.keys], ['values', job.values]] as const) {
    if (b.size < bytes) throw new RangeError(`${sorter}: job.${what} holds ${b.size} bytes, the capacity needs ${bytes}`);
  }
  if (countOffset % 4 !== 0 || countOffset < 0 || countOffset + 4 > job.count.size) {
    throw new RangeError(`${sorter}: countOffset ${countOffset} is not a u32 inside the count buffer (${job.count.size} bytes)`);
  }
  const align = device.limits.minStorageBufferOffsetAlignment;
  const windowOffset = Math.floor(countOffset / align) * align;
  const windowSize = Math.min(job.count.size - windowOffset, align);
  return { countOffset, windowOffset, windowSize, countIndex: (countOffset - windowOffset) / 4 };
}

/** Throws a RangeError naming the sorter unless keyBits is an integer in 1..32. */
export function checkKeyBits(sorter: string, keyBits: number): void {
  if (!Number.isInteger(keyBits) || keyBits < 1 || keyBits > 32) {
    throw new RangeError(`${sorter}: keyBits must be an integer in 1..32, got ${keyBits}`);
  }
}

/** A sort's timestamps as the writes of its (single) compute pass. */
export function passTimestampWrites(timestamps: SortTimestamps | undefined): GPUComputePassTimestampWrites | undefined {
  return (
    timestamps && {
      querySet: timestamps.querySet,
      beginningOfPassWriteIndex: timestamps.beginIndex,
      endOfPassWriteIndex: timestamps.endIndex,
    }
  );
}
