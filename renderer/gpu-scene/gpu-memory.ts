/**
 * GPU memory as a limit: WebGPU says nothing ahead of how much a device holds, so
 * the buffers of a scene are made inside an out-of-memory error scope
 * (allocateOrThrow) and a failure is a typed GpuMemoryError naming the bytes, with
 * everything made for the scene released. And sizes for people (formatBytes).
 */
/** Bytes for people: "2.1 GB", "640 MB", "12 KB" (powers of 1000, as the figures of a file manager). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(bytes >= 1e8 ? 0 : 1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(0)} KB`;
  return `${bytes} B`;
}

/**
 * The GPU could not allocate a scene's buffers (the device's out-of-memory error
 * while they were made): the limit past the bindings is the device's memory in all,
 * which WebGPU does not report ahead. Nothing of the scene stays allocated.
 */
export class GpuMemoryError extends Error {
  override name = 'GpuMemoryError';

  /**
   * @param what - what was being allocated ("the scene's buffers", "the sort and draw buffers")
   * @param bytes - their size
   */
  constructor(
    scene: string,
    count: number,
    readonly what: string,
    readonly bytes: number,
    deviceMessage: string,
  ) {
    super(
      `${scene}: ${count.toLocaleString('en-US')} splats need ${formatBytes(bytes)} of GPU memory for ${what}, the GPU could not allocate it ` +
        `(out of memory: ${deviceMessage.split('\n')[0]}): open a smaller scene, or reload with a lower SH degree (?sh=N); the scene on screen stays`,
    );
  }
}

/**
 * Runs `make` (synchronous buffer creation) inside an out-of-memory error scope.
 * @throws GpuMemoryError (after `release(made)`) when the device ran out of memory meanwhile
 */
export async function allocateOrThrow<T>(device: GPUDevice, make: () => T, release: (made: T) => void, describe: { scene: string; count: number; what: string; bytes: number }): Promise<T> {
  device.pushErrorScope('out-of-memory');
  let made: T;
  try {
    made = make();
  } catch (e) {
    void device.popErrorScope();
    throw e;
  }
  // Popped in the task it was pushed in: no other code's errors land in it.
  const err = await device.popErrorScope();
  if (err) {
    release(made);
    throw new GpuMemoryError(describe.scene, describe.count, describe.what, describe.bytes, err.message);
  }
  return made;
}

