import { TIMESTAMPS_PER_FRAME, writtenOnly, type FrameTimestamps as StageSlots } from '../renderer/stage/frame-stages';

/**
 * One frame's timestamp queries for the benchmarks (frame.ts, lod-frame.ts): the
 * query set the frame writes (renderer/stage/frame-stages.ts rows), its resolve
 * into a buffer, and the read-back after the frame is submitted. Null where the
 * device has no 'timestamp-query'.
 */
export class FrameTimestamps {
  readonly querySet: GPUQuerySet;
  private readonly resolveBuffer: GPUBuffer;
  private readonly readback: GPUBuffer;

  private constructor(device: GPUDevice) {
    const bytes = TIMESTAMPS_PER_FRAME * 8;
    this.querySet = device.createQuerySet({ label: 'bench.queries', type: 'timestamp', count: TIMESTAMPS_PER_FRAME });
    this.resolveBuffer = device.createBuffer({ label: 'bench.resolve', size: bytes, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readback = device.createBuffer({ label: 'bench.readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  }

  static create(device: GPUDevice): FrameTimestamps | null {
    return device.features.has('timestamp-query') ? new FrameTimestamps(device) : null;
  }

  private frame: StageSlots | null = null;

  /** Where this frame's stages write (renderer.encodeFrame's `timestamps`): read() then keeps only the slots they wrote. */
  begin(): StageSlots {
    this.frame = { querySet: this.querySet, base: 0 };
    return this.frame;
  }

  /** Records the resolve and the copy to the read-back, after the frame's passes. */
  resolve(encoder: GPUCommandEncoder): void {
    encoder.resolveQuerySet(this.querySet, 0, TIMESTAMPS_PER_FRAME, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readback, 0, TIMESTAMPS_PER_FRAME * 8);
  }

  /** The frame's timestamps, once its commands are done (after submit). */
  async read(): Promise<ArrayLike<bigint>> {
    await this.readback.mapAsync(GPUMapMode.READ);
    const stamps = new BigUint64Array(this.readback.getMappedRange().slice(0));
    this.readback.unmap();
    const frame = this.frame;
    this.frame = null;
    return frame ? writtenOnly(stamps, frame.written ?? 0) : stamps;
  }
}
