/**
 * The GPU budget on a real adapter (lavapipe), under lowered per-binding limits:
 * an SH buffer over the limit is split over two bindings and draws the same bytes
 * as unsplit (both draws); a scene whose SH does not fit even two bindings is
 * refused with GpuBudgetError before anything is allocated, the scene already set
 * keeps rendering, and the way out the error names (loading with a lower SH
 * degree) fits, loads and draws what the full scene draws at that degree.
 */
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { GpuBudgetError, sceneBuffers } from '../../renderer/pipeline/gpu-budget';
import { packCompact } from '../../renderer/pipeline/compact-pack';
import { PRECISIONS, sceneLayout, type ScenePrecision } from '../../renderer/pipeline/scene-precision';
import { GpuScene, UPLOAD_CHUNK } from '../../renderer/pipeline/gpu-scene';
import { readBuffer } from '../../renderer/gpu/node-gpu';
import { generateSynthetic } from '../../scenes/generate';
import type { FrameSettings } from '../../renderer/pipeline/frame-uniforms';
import { renderOffscreen } from '../../renderer/pipeline/offscreen';
import { SplatRenderer } from '../../renderer/pipeline/splat-renderer';
import { generateDefaultScene } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { writeSplatPly } from '../../scenes/write-ply';
import { useGpu, withValidation } from '../support/gpu';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const W = 128, H = 96;

async function draw(renderer: SplatRenderer, cloud: SplatCloud, shDegree: number, extra: Partial<FrameSettings> = {}): Promise<Uint8Array> {
  const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, W / H);
  const img = await renderOffscreen(renderer, frameCamera(pose, W, H, cloud.bounds), { shDegree, splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0], ...extra });
  return img.rgba;
}

/** The scene's packing in one go, in its precision (what its buffers must hold). */
function packWhole(cloud: SplatCloud, scene: GpuScene): { centers: Float32Array | Uint32Array; covs: Float32Array | Uint32Array; sh: Uint32Array } {
  return scene.decode ? packCompact(cloud, scene.decode, scene.shStride) : GpuScene.pack(cloud, scene.shStride);
}

function maxDiff(a: Uint8Array, b: Uint8Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** A renderer whose scenes are kept at `precision`. */
function rendererAt(precision: ScenePrecision, ...args: ConstructorParameters<typeof SplatRenderer>): SplatRenderer {
  const r = new SplatRenderer(...args);
  r.precision = precision;
  return r;
}

describe('GPU budget (lavapipe, lowered binding limit)', () => {
  const N = 8000;
  const ply = writeSplatPly(generateDefaultScene(N));
  // The refusal cases' figures are the full layout's (their renderers are made with 'full').
  const shBytes = (d: number, precision: ScenePrecision = 'full') => sceneBuffers(N, d, 'quads', precision).find((b) => b.name === 'SH')!.bytes;
  const limited = (bytes: number) => ({ maxStorageBufferBindingSize: bytes, maxBufferSize: ctx.gpu.device.limits.maxBufferSize });

  it.each(PRECISIONS)('an SH buffer over the limit is split over two bindings and draws the same bytes as unsplit (%s): quads (each order, strips and list) and tiles', async (precision) => {
    const { device } = ctx.gpu;
    // Full: 768 KB of SH3 against 400 KB a binding: 4,166 splats in the first buffer, 3,834 in the second.
    // Compact: 384 KB against 300 KB: 6,250 and 1,750. Its SH3 is 48 B a splat, as the quads draw's records:
    // a binding too small for its SH is too small for those, so only the tiles draw (32-byte records) splits it.
    const limit = precision === 'full' ? 400_000 : 300_000;
    expect(shBytes(3, precision)).toBe(precision === 'full' ? 768_000 : 384_000);
    const full = await loadScene(ply, 'big.ply');
    await withValidation(device, async () => {
      for (const drawName of precision === 'full' ? (['quads', 'tiles'] as const) : (['tiles'] as const)) {
        const whole = rendererAt(precision, device, 'rgba8unorm', 'radix4', drawName);
        const split = rendererAt(precision, device, 'rgba8unorm', 'radix4', drawName, {}, limited(limit));
        whole.setScene(full);
        split.setScene(full);
        expect(whole.shSplit).toBe(N);
        expect(split.shSplit).toBe(Math.floor(limit / (shBytes(3, precision) / N)));
        const variants: [string, Partial<FrameSettings>][] =
          drawName === 'tiles'
            ? [['tiles', {}]]
            : [['b2f', { drawOrder: 'back-to-front' }], ['f2b', { drawOrder: 'front-to-back' }], ['list', { drawOrder: 'back-to-front', listDraw: true }]];
        for (const [name, extra] of variants) {
          for (const degree of [0, 3]) {
            const a = await draw(whole, full, degree, extra);
            const b = await draw(split, full, degree, extra);
            if (degree === 3) writeTestPng(`budget-split-${name}-${precision}.png`, b, W, H);
            expect(maxDiff(a, b), `${name} SH${degree}`).toBe(0);
          }
        }
        whole.destroy();
        split.destroy();
      }
    });
  });

  it("every pipeline of both draws, with both SH bindings, fits WebGPU's default of 8 storage buffers a shader stage", async () => {
    const own = ctx.gpu.device;
    // A second device, on a fresh adapter of the same GPU (an adapter makes one device), with every storage-buffer limit left at WebGPU's default.
    const adapter = await globalThis.__dawnGpu!.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) throw new Error('no second adapter');
    const requiredLimits: Record<string, number> = {};
    for (const name of ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX'] as const) {
      requiredLimits[name] = own.limits[name];
    }
    const device = await adapter.requestDevice({ requiredFeatures: [...own.features].filter((f) => adapter.features.has(f)) as GPUFeatureName[], requiredLimits, label: 'gpu-budget.default-storage-limit' });
    expect(device.limits.maxStorageBuffersPerShaderStage).toBe(8);
    // The limit is enforced on this device (what the quads prepare pass had before its control buffer: 9).
    device.pushErrorScope('validation');
    device.createBindGroupLayout({ entries: Array.from({ length: 9 }, (_, binding) => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' as const } })) });
    expect((await device.popErrorScope())?.message).toMatch(/storage/i);
    const cloud = generateDefaultScene(3000);
    await withValidation(device, async () => {
      // Split (SH3 of 3,000 splats: 288 KB against 200 KB a binding; compact, tiles: 144 KB against 100 KB) so that
      // both SH buffers are real; compact quads unsplit (its 48-byte records are as large as its SH: see above).
      const cases = [['quads', 'full', 200_000, 2083], ['tiles', 'full', 200_000, 2083], ['quads', 'compact', undefined, 3000], ['tiles', 'compact', 100_000, 2083]] as const;
      for (const [drawName, precision, bytes, split] of cases) {
        const limits = bytes === undefined ? undefined : { maxStorageBufferBindingSize: bytes, maxBufferSize: device.limits.maxBufferSize };
        const r = rendererAt(precision, device, 'rgba8unorm', 'radix4', drawName, {}, limits);
        r.setScene(cloud);
        expect(r.shSplit).toBe(split);
        const orders: Partial<FrameSettings>[] = drawName === 'tiles' ? [{}] : [{ drawOrder: 'back-to-front' }, { drawOrder: 'front-to-back' }, { listDraw: true, drawOrder: 'back-to-front' }];
        for (const extra of orders) expect(Math.max(...(await draw(r, cloud, 3, extra)))).toBeGreaterThan(0);
        r.destroy();
      }
    });
    device.destroy();
  });

  it('refuses an SH3 scene whose SH does not fit two bindings, with the numbers, keeps the scene on screen, and loads at the suggested degree (tiles)', async () => {
    const { device } = ctx.gpu;
    // 384 KB of SH3 a binding against 300 KB; degree 2 needs 224 KB a binding (448 KB: itself split);
    // the covariances and tile records (256 KB) fit.
    const limit = 300_000;
    expect(shBytes(3) / 2).toBeGreaterThan(limit);
    expect(shBytes(2) / 2).toBeLessThan(limit);
    expect(shBytes(2)).toBeGreaterThan(limit);
    const full = await loadScene(ply, 'big.ply');
    const sh2 = await loadScene(ply, 'big.ply', { maxShDegree: 2 });
    expect(full.shDegree).toBe(3);
    expect(sh2.shDegree).toBe(2);
    expect(sh2.sh.length * 16).toBe(full.sh.length * 9); // 27 of 48 floats a splat: the CPU copy shrinks too

    await withValidation(device, async () => {
      const lowered = rendererAt('full', device, 'rgba8unorm', 'radix4', 'tiles', {}, limited(limit));
      // The way out fits: loaded with SH degree 2 it is accepted (split) and drawn.
      lowered.setScene(sh2);
      expect(lowered.shSplit).toBe(Math.floor(limit / 56));
      const before = await draw(lowered, sh2, 2);
      writeTestPng('budget-sh2.png', before, W, H);

      let err: unknown;
      try {
        lowered.setScene(full);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(GpuBudgetError);
      const e = err as GpuBudgetError;
      expect(e.message).toBe(
        'big.ply: 8,000 splats of SH degree 3 need 768 KB of SH (384 KB in each of 2 bindings), the adapter allows 300 KB per binding (maxStorageBufferBindingSize): reload with SH degree 2 (?sh=2; --sh 2 in npm run render)',
      );
      expect(e.suggestedShDegree).toBe(2);
      // Nothing changed: the scene on screen is still the SH2 one and draws the same picture.
      expect(lowered.cloud).toBe(sh2);
      expect(maxDiff(await draw(lowered, sh2, 2), before)).toBe(0);
      lowered.destroy();

      // The same file at full degree, on the device's own limits, drawn at SH degree 2: the same picture.
      const unlimited = rendererAt('full', device, 'rgba8unorm', 'radix4', 'tiles');
      unlimited.setScene(full);
      const fullAt2 = await draw(unlimited, full, 2);
      const fullAt3 = await draw(unlimited, full, 3);
      writeTestPng('budget-sh3.png', fullAt3, W, H);
      unlimited.destroy();
      expect(maxDiff(fullAt2, before)).toBeLessThanOrEqual(1);
      // And the higher bands do show at degree 3 (the comparison above is not vacuous).
      expect(maxDiff(fullAt3, fullAt2)).toBeGreaterThan(8);
    });
  });

  it('the quads draw is checked too (its 48-byte records are over: no SH degree helps), and a device limit itself is honoured', async () => {
    const { device } = ctx.gpu;
    const full = await loadScene(ply, 'big.ply');
    await withValidation(device, async () => {
      const r = rendererAt('full', device, 'rgba8unorm', 'radix4', 'quads', {}, limited(300_000));
      expect(() => r.setScene(full)).toThrow(
        'big.ply: 8,000 splats of SH degree 3 need 768 KB of SH (384 KB in each of 2 bindings), the adapter allows 300 KB per binding (maxStorageBufferBindingSize): this adapter binds at most 6,250 splats (at SH degree 0): open a smaller scene',
      );
      expect(r.cloud).toBeNull();
      r.destroy();
      const ok = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'tiles');
      ok.setScene(full);
      expect(ok.cloud).toBe(full);
      ok.destroy();
    });
  });

  it.each(PRECISIONS)('the chunked upload (%s): a scene of more than one chunk lands on the GPU exactly as packed whole, unsplit and split inside a chunk', async (precision) => {
    const { device } = ctx.gpu;
    const n = UPLOAD_CHUNK + 1234;
    const cloud = generateSynthetic(n);
    const bytes = (a: Float32Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    // Unsplit, then split at 40,000 splats: chunk 0 straddles the split, chunk 1 lies in sh1 at an offset.
    for (const splitAt of [n, 40_000]) {
      const stride = sceneLayout(cloud.shDegree, precision).shStride;
      const scene = await withValidation(device, () => new GpuScene(device, cloud, splitAt === n ? undefined : splitAt * stride * 4, { precision }));
      expect(scene.shSplit).toBe(splitAt);
      const whole = packWhole(cloud, scene);
      const want = {
        centers: bytes(whole.centers),
        covs: bytes(whole.covs),
        sh0: bytes(whole.sh.subarray(0, splitAt * stride)),
        sh1: bytes(whole.sh.subarray(splitAt * stride)),
      };
      for (const key of ['centers', 'covs', 'sh0', 'sh1'] as const) {
        let got = Buffer.from(await readBuffer(device, scene[key]));
        // Unsplit, sh1 is the 16-byte buffer nothing reads.
        if (key === 'sh1' && splitAt === n) {
          expect(got.length).toBe(16);
          got = got.subarray(0, 0);
        }
        expect(got.length, key).toBe(want[key].length);
        expect(Buffer.compare(got, want[key]), `${key} split at ${splitAt}`).toBe(0);
      }
      scene.destroy();
    }
  });

  it.each(PRECISIONS)("the page's upload (GpuScene.create, %s): slices with pauses between them, the same bytes as the upload in one go", async (precision) => {
    const { device } = ctx.gpu;
    const n = 20_000;
    const cloud = generateSynthetic(n);
    const stride = sceneLayout(cloud.shDegree, precision).shStride;
    let pauses = 0;
    const reported: number[] = [];
    // A budget of 0 ms pauses after every slice of 5,000 splats; split at 12,000, inside a slice.
    const scene = await GpuScene.create(device, cloud, 12_000 * stride * 4, async () => void pauses++, { chunk: 5000, budgetMs: 0, progress: (u) => reported.push(u), precision });
    expect(scene.shSplit).toBe(12_000);
    // Compact: the pass over the cloud for its ranges pauses too (slices of 8 chunks).
    expect(pauses).toBe(Math.ceil(n / 5000) + (precision === 'compact' ? Math.ceil(n / 40_000) : 0));
    // Before each pause, the splats written so far (the page's "% uploaded").
    expect(reported).toEqual([5000, 10_000, 15_000, 20_000]);
    const whole = packWhole(cloud, scene);
    const bytes = (a: Float32Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    const want = { centers: bytes(whole.centers), covs: bytes(whole.covs), sh0: bytes(whole.sh.subarray(0, 12_000 * stride)), sh1: bytes(whole.sh.subarray(12_000 * stride)) };
    for (const key of ['centers', 'covs', 'sh0', 'sh1'] as const) {
      expect(Buffer.compare(Buffer.from(await readBuffer(device, scene[key])), want[key]), key).toBe(0);
    }
    scene.destroy();
  });
});
