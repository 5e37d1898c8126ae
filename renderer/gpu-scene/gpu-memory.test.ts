import { describe, expect, it } from 'vitest';
import { generateSynthetic } from '../../scenes/generate';
import { allocateOrThrow, GpuMemoryError } from './gpu-memory';
import { GpuScene } from './gpu-scene';

/** A device whose every error scope ends in an out-of-memory error (or none), counting what it made and freed. */
function fakeDevice(oom: boolean) {
  const stats = { made: 0, destroyed: 0, scopes: 0 };
  const device = {
    createBuffer: () => {
      stats.made++;
      return { destroy: () => void stats.destroyed++ };
    },
    pushErrorScope: () => void stats.scopes++,
    popErrorScope: async () => {
      stats.scopes--;
      return oom ? { message: 'Out of memory\nat createBuffer' } : null;
    },
    queue: { writeBuffer: () => {}, onSubmittedWorkDone: async () => {} },
    limits: { maxStorageBufferBindingSize: 2 ** 27, maxBufferSize: 2 ** 30 },
  };
  return { device: device as unknown as GPUDevice, stats };
}

describe('GPU memory: an allocation the device cannot hold', () => {
  (globalThis as { GPUBufferUsage?: unknown }).GPUBufferUsage ??= { STORAGE: 128, COPY_DST: 8, COPY_SRC: 4 };

  it('allocateOrThrow: the made thing released, a typed error with the bytes and the way out; balanced scopes', async () => {
    const { device, stats } = fakeDevice(true);
    let released = 0;
    const err = await allocateOrThrow(device, () => 'made', () => void released++, { scene: 'big.ply', count: 6_000_000, what: "the scene's buffers", bytes: 432_000_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(GpuMemoryError);
    expect(err.message).toBe(
      "big.ply: 6,000,000 splats need 432 MB of GPU memory for the scene's buffers, the GPU could not allocate it (out of memory: Out of memory): open a smaller scene, or reload with a lower SH degree (?sh=N); the scene on screen stays",
    );
    expect([released, stats.scopes]).toEqual([1, 0]);
    const ok = fakeDevice(false);
    expect(await allocateOrThrow(ok.device, () => 'made', () => void released++, { scene: 's', count: 1, what: 'x', bytes: 1 })).toBe('made');
    expect(released).toBe(1);
    // A throwing make pops its scope too.
    await expect(allocateOrThrow(ok.device, () => { throw new Error('boom'); }, () => {}, { scene: 's', count: 1, what: 'x', bytes: 1 })).rejects.toThrow('boom');
    expect(ok.stats.scopes).toBe(0);
  });

  it("GpuScene.create on a device out of memory: every page it made destroyed, nothing uploaded, GpuMemoryError", async () => {
    const { device, stats } = fakeDevice(true);
    const cloud = generateSynthetic(5000);
    // 1 KB bindings: the arrays in many pages.
    const err = await GpuScene.create(device, cloud, 1024, async () => {}, { precision: 'full' }).catch((e) => e);
    expect(err).toBeInstanceOf(GpuMemoryError);
    expect(err.bytes).toBe(5000 * 144);
    expect(stats.made).toBeGreaterThan(3);
    expect(stats.destroyed).toBe(stats.made);
  });
});
