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
  if (!timestamps) return undefined;
  const { querySet, beginIndex, endIndex } = timestamps;
  return beginIndex === undefined ? { querySet, endOfPassWriteIndex: endIndex } : { querySet, beginningOfPassWriteIndex: beginIndex, endOfPassWriteIndex: endIndex };
}

export interface Grid {
  x: number;
  y: number;
}

/**
 * A grid of w workgroups as x * y within the per-dimension limit: the rule of `fn grid` in
 * shaders/sort/sort_prelude.wgsl, which the prepare kernels follow on the GPU
 * (test/gpu/sort-prelude.test.ts runs both and compares).
 */
export function grid2d(w: number, maxPerDim: number): Grid {
  if (w === 0) return { x: 0, y: 1 };
  const y = Math.ceil(w / maxPerDim);
  return { x: Math.ceil(w / y), y };
}

/** What a sorter keeps per job: bindings made for the job's buffers and count offset. */
export interface JobEntry<B> {
  keys: GPUBuffer;
  values: GPUBuffer;
  count: GPUBuffer;
  countOffset: number;
  /** Set by sorters whose bindings depend on the key width too. */
  keyBits?: number;
  /** The uniform buffer made for the job (destroyed with the cache). */
  info: GPUBuffer;
  bindings: B;
}

/**
 * The bindings of the last few jobs a sorter saw, so that a frame loop sorting the same
 * buffers creates nothing per frame. An entry matches a job with the same buffers and
 * count offset (and key width, where the entry records one).
 */
export class JobCache<B> {
  private entries: JobEntry<B>[] = [];

  constructor(private readonly size = 4) {}

  /** The entry for `job`, made by `make` when there is none. */
  get(job: SortJob, make: () => JobEntry<B>): JobEntry<B> {
    const countOffset = job.countOffset ?? 0;
    const hit = this.entries.find(
      (e) =>
        e.keys === job.keys &&
        e.values === job.values &&
        e.count === job.count &&
        e.countOffset === countOffset &&
        (e.keyBits === undefined || e.keyBits === job.keyBits),
    );
    if (hit) return hit;
    const entry = make();
    // An evicted entry's buffer may still be used by a recorded, unsubmitted command
    // buffer: it is left to the garbage collector, not destroyed.
    this.entries = [entry, ...this.entries].slice(0, this.size);
    return entry;
  }

  /** Destroys the entries' uniform buffers (the sorter's destroy). */
  clear(): void {
    for (const e of this.entries) e.info.destroy();
    this.entries = [];
  }
}

/**
 * The two data bind groups of a sort that ping-pongs between the job's buffers and the
 * sorter's own (bindings 0..3: srcKeys, srcValues, dstKeys, dstValues, `bytes` each).
 */
export function pingPongGroups(
  device: GPUDevice,
  layout: GPUBindGroupLayout,
  label: string,
  job: SortJob,
  ownKeys: GPUBuffer,
  ownValues: GPUBuffer,
  bytes: number,
): { jobToOwn: GPUBindGroup; ownToJob: GPUBindGroup } {
  const group = (member: string, buffers: GPUBuffer[]) =>
    device.createBindGroup({
      label: `${label}.${member}`,
      layout,
      entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer, size: bytes } })),
    });
  return {
    jobToOwn: group('jobToOwnGroup', [job.keys, job.values, ownKeys, ownValues]),
    ownToJob: group('ownToJobGroup', [ownKeys, ownValues, job.keys, job.values]),
  };
}
