/** The counters' size: COUNTER_WORDS u32 of shaders/draw/tiles/tiles_common.wgsl. */
export const COUNTER_BYTES = 32;

/**
 * Reads the tile rasteriser's GPU counters (COUNTER_BYTES) back without stalling a frame:
 * a few mappable buffers in a ring. A frame copies its counters into a free one
 * (none free: that frame is not read); after the frame is submitted the copy is
 * mapped, and the words reach `onRead` whenever the GPU is done.
 *
 *   free -> encoded (copy recorded) -> mapping (after submit) -> free
 */
export class CounterReadback {
  private readonly slots: { buffer: GPUBuffer; state: 'free' | 'encoded' | 'mapping' }[];
  private readonly pending = new Set<Promise<void>>();
  private destroyed = false;

  constructor(
    device: GPUDevice,
    private readonly onRead: (words: Uint32Array) => void,
    slots = 3,
  ) {
    this.slots = Array.from({ length: slots }, (_, i) => ({
      buffer: device.createBuffer({ label: `CounterReadback.slot${i}`, size: COUNTER_BYTES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ }),
      state: 'free' as const,
    }));
  }

  /** Records the copy of `counters` (COUNTER_BYTES at 0) into a free slot, if there is one. */
  capture(encoder: GPUCommandEncoder, counters: GPUBuffer): void {
    // A slot still `encoded` belongs to a frame the caller has submitted without
    // saying so: map it now (a later frame is being encoded, so it was submitted).
    this.submitted();
    const slot = this.slots.find((s) => s.state === 'free');
    if (!slot) return;
    encoder.copyBufferToBuffer(counters, 0, slot.buffer, 0, COUNTER_BYTES);
    slot.state = 'encoded';
  }

  /** The frame holding the recorded copy was submitted: start its readback. */
  submitted(): void {
    for (const slot of this.slots) {
      if (slot.state !== 'encoded') continue;
      slot.state = 'mapping';
      const p = slot.buffer.mapAsync(GPUMapMode.READ).then(
        () => {
          if (this.destroyed) return;
          const words = new Uint32Array(slot.buffer.getMappedRange().slice(0));
          slot.buffer.unmap();
          slot.state = 'free';
          this.onRead(words);
        },
        () => {
          // Destroyed or device lost: the slot is gone with it.
        },
      );
      this.pending.add(p);
      void p.finally(() => this.pending.delete(p));
    }
  }

  /** Resolves when every readback started so far has been delivered. */
  async settle(): Promise<void> {
    this.submitted();
    await Promise.all([...this.pending]);
  }

  destroy(): void {
    this.destroyed = true;
    for (const s of this.slots) s.buffer.destroy();
  }
}
