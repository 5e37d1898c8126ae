/**
 * The GPU budget on a real adapter (lavapipe): a scene whose SH buffer exceeds a
 * (lowered) per-binding limit is refused with GpuBudgetError before anything is
 * allocated, the scene already set keeps rendering, and the way out the error names
 * (loading with a lower SH degree) fits, loads and draws what the full scene draws
 * at that degree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { GpuBudgetError, sceneBuffers } from '../../renderer/pipeline/gpu-budget';
import { GpuScene, UPLOAD_CHUNK } from '../../renderer/pipeline/gpu-scene';
import { readBuffer } from '../../renderer/gpu/node-gpu';
import { generateSynthetic } from '../../scenes/generate';
import { renderOffscreen } from '../../renderer/pipeline/offscreen';
import { SplatRenderer } from '../../renderer/pipeline/splat-renderer';
import { generateDefaultScene } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { writeSplatPly } from '../../scenes/write-ply';
import { useGpu, withValidation } from '../support/gpu';

const ctx = useGpu();
const OUT = path.resolve(__dirname, '../../test-output');
const W = 128, H = 96;

function writePng(file: string, rgba: Uint8Array): void {
  fs.mkdirSync(OUT, { recursive: true });
  const png = new PNG({ width: W, height: H });
  png.data = Buffer.from(rgba);
  fs.writeFileSync(path.join(OUT, file), PNG.sync.write(png));
}

async function draw(renderer: SplatRenderer, cloud: SplatCloud, shDegree: number): Promise<Uint8Array> {
  const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, W / H);
  const img = await renderOffscreen(renderer, frameCamera(pose, W, H, cloud.bounds), { shDegree, splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0] });
  return img.rgba;
}

function maxDiff(a: Uint8Array, b: Uint8Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe('GPU budget (lavapipe, lowered binding limit)', () => {
  const N = 8000;
  const ply = writeSplatPly(generateDefaultScene(N));
  const shBytes = (d: number) => sceneBuffers(N, d).find((b) => b.name === 'SH')!.bytes;
  // Between SH degree 1 (192 KB) and degree 2 (448 KB); every other buffer (covariances 256 KB) fits.
  const limit = 400_000;

  it('refuses the SH3 scene with the numbers, keeps the scene on screen, and loads at the suggested degree', async () => {
    const { device } = ctx.gpu;
    expect(shBytes(3)).toBe(768_000);
    expect(shBytes(1)).toBeLessThan(limit);
    expect(shBytes(2)).toBeGreaterThan(limit);
    const full = await loadScene(ply, 'big.ply');
    const sh1 = await loadScene(ply, 'big.ply', { maxShDegree: 1 });
    expect(full.shDegree).toBe(3);
    expect(sh1.shDegree).toBe(1);
    expect(sh1.sh.length * 4).toBe(full.sh.length); // 12 of 48 floats a splat: the CPU copy shrinks too

    await withValidation(device, async () => {
      const lowered = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'quads', {}, { maxStorageBufferBindingSize: limit, maxBufferSize: device.limits.maxBufferSize });
      // The way out fits: loaded with SH degree 1 it is accepted and drawn.
      lowered.setScene(sh1);
      const before = await draw(lowered, sh1, 1);
      writePng('budget-sh1.png', before);

      let err: unknown;
      try {
        lowered.setScene(full);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(GpuBudgetError);
      const e = err as GpuBudgetError;
      expect(e.message).toBe(
        'big.ply: 8,000 splats of SH degree 3 need 768 KB of SH in one buffer, the adapter allows 400 KB per binding (maxStorageBufferBindingSize): reload with SH degree 1 (?sh=1; --sh 1 in npm run render)',
      );
      expect(e.suggestedShDegree).toBe(1);
      // Nothing changed: the scene on screen is still the SH1 one and draws the same picture.
      expect(lowered.cloud).toBe(sh1);
      expect(maxDiff(await draw(lowered, sh1, 1), before)).toBe(0);
      lowered.destroy();

      // The same file at full degree, on the device's own limits, drawn at SH degree 1: the same picture.
      const unlimited = new SplatRenderer(device, 'rgba8unorm', 'radix4');
      unlimited.setScene(full);
      const fullAt1 = await draw(unlimited, full, 1);
      const fullAt3 = await draw(unlimited, full, 3);
      writePng('budget-sh3.png', fullAt3);
      unlimited.destroy();
      expect(maxDiff(fullAt1, before)).toBeLessThanOrEqual(1);
      // And the higher bands do show at degree 3 (the comparison above is not vacuous).
      expect(maxDiff(fullAt3, fullAt1)).toBeGreaterThan(8);
    });
  });

  it('the tiles draw is checked too, and a device limit itself is honoured (no lowering: it fits)', async () => {
    const { device } = ctx.gpu;
    const full = await loadScene(ply, 'big.ply');
    await withValidation(device, async () => {
      const r = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'tiles', {}, { maxStorageBufferBindingSize: limit, maxBufferSize: device.limits.maxBufferSize });
      expect(() => r.setScene(full)).toThrow(GpuBudgetError);
      expect(r.cloud).toBeNull();
      r.destroy();
      const ok = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'tiles');
      ok.setScene(full);
      expect(ok.cloud).toBe(full);
      ok.destroy();
    });
  });

  it('the chunked upload: a scene of more than one chunk lands on the GPU exactly as packed whole', async () => {
    const { device } = ctx.gpu;
    const n = UPLOAD_CHUNK + 1234;
    const cloud = generateSynthetic(n);
    const scene = await withValidation(device, () => new GpuScene(device, cloud));
    const whole = GpuScene.pack(cloud, scene.shStride);
    for (const key of ['centers', 'covs', 'sh'] as const) {
      const got = new Uint8Array(await readBuffer(device, scene[key]));
      const want = new Uint8Array(whole[key].buffer, whole[key].byteOffset, whole[key].byteLength);
      expect(got.length).toBe(want.length);
      expect(Buffer.compare(Buffer.from(got), Buffer.from(want)), key).toBe(0);
    }
    scene.destroy();
  });
});
