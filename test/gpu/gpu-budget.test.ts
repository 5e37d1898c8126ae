/**
 * Paging and the GPU budget on a real adapter (lavapipe), under lowered per-binding
 * limits: the scene's arrays and the draws' records paged over several bindings
 * draw the same bytes as one binding each (both draws, every draw order, every GPU
 * sort; a page seam inside the scene, and a count that ends exactly at a seam); the
 * uploads land page by page exactly as packed whole (seams inside an upload slice);
 * a scene whose pages are more than a shader stage binds is refused with
 * GpuBudgetError before anything is allocated, the scene already set keeps
 * rendering, and the way out the error names (a lower SH degree) fits, loads and
 * draws what the full scene draws at that degree.
 */
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { GpuBudgetError } from '../../renderer/frame/gpu-budget';
import { packCompact, packScene } from '../../renderer/gpu-scene/compact-pack';
import { PRECISIONS, type ScenePrecision } from '../../renderer/gpu-scene/scene-precision';
import type { PagedBuffer } from '../../renderer/gpu-scene/paging';
import { GpuScene, UPLOAD_CHUNK } from '../../renderer/gpu-scene/gpu-scene';
import { readBuffer } from '../../renderer/gpu/node-gpu';
import { generateSynthetic } from '../../scenes/generate';
import type { FrameSettings } from '../../renderer/stage/frame-uniforms';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
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

/** The GpuBudgetError `refused` throws (it must throw one). */
function budgetErrorOf(refused: () => void): GpuBudgetError {
  let err: unknown;
  try {
    refused();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(GpuBudgetError);
  return err as GpuBudgetError;
}

/** A renderer whose scenes are kept at `precision`. */
function rendererAt(precision: ScenePrecision, ...args: ConstructorParameters<typeof SplatRenderer>): SplatRenderer {
  const r = new SplatRenderer(...args);
  r.precision = precision;
  return r;
}

describe('paging and the GPU budget (lavapipe, lowered binding limits)', () => {
  const N = 8000;
  const ply = writeSplatPly(generateDefaultScene(N));
  const limited = (bytes: number, stage?: number) => ({
    maxStorageBufferBindingSize: bytes,
    maxBufferSize: ctx.gpu.device.limits.maxBufferSize,
    ...(stage === undefined ? {} : { maxStorageBuffersPerShaderStage: stage }),
  });
  const GPU_SORTS = ['radix4', 'radix16', 'onesweep', 'bitonic'] as const;

  // Full at 200 KB a binding: SH3 (96 B) in pages of 2,083 splats, covariances (32 B) of 6,250, draw records
  // (48 B) of 4,166, tile records (32 B) of 6,250; centres unpaged. Compact at 100 KB: SH3 (48 B) 2,083,
  // centres (16 B) 6,250, draw records 2,083, tile records (32 B) 3,125; covariances (8 B) unpaged.
  const CASES: Record<ScenePrecision, { limit: number; shPage: number; pages: Record<string, number> }> = {
    full: { limit: 200_000, shPage: 2083, pages: { centers: 1, covs: 2, sh: 4 } },
    compact: { limit: 100_000, shPage: 2083, pages: { centers: 2, covs: 1, sh: 4 } },
  };

  it.each(PRECISIONS)('arrays paged over several bindings draw the same bytes as one binding each (%s): both draws, every order, every GPU sort, a seam inside and a count ending at one', async (precision) => {
    const { device } = ctx.gpu;
    const { limit, shPage, pages } = CASES[precision];
    const full = await loadScene(ply, 'big.ply');
    // Exactly four SH pages: the scene ends at a seam (its other arrays paged as the 8,000 splats': the same pipelines).
    const atSeam = await loadScene(writeSplatPly(generateDefaultScene(4 * shPage)), 'seam.ply');
    await withValidation(device, async () => {
      for (const cloud of [full, atSeam]) {
        for (const drawName of ['quads', 'tiles'] as const) {
          // Every GPU sort on the scene with a seam inside; radix4 on the one ending at a seam.
          for (const sort of cloud === full ? GPU_SORTS : (['radix4'] as const)) {
            const whole = rendererAt(precision, device, 'rgba8unorm', sort, drawName);
            const paged = rendererAt(precision, device, 'rgba8unorm', sort, drawName, {}, limited(limit));
            whole.setScene(cloud);
            paged.setScene(cloud);
            const wp = whole.scenePaging!, pp = paged.scenePaging!;
            expect([wp.centers.pages, wp.covs.pages, wp.sh.pages]).toEqual([1, 1, 1]);
            if (cloud === full) expect({ centers: pp.centers.pages, covs: pp.covs.pages, sh: pp.sh.pages }).toEqual(pages);
            else expect([pp.sh.pages, pp.sh.pageSplats, pp.sh.count, pp.centers.pages, pp.covs.pages]).toEqual([4, shPage, 4 * shPage, pages.centers, pages.covs]);
            const variants: [string, Partial<FrameSettings>][] =
              drawName === 'tiles'
                ? [['tiles', {}]]
                : sort === 'radix4'
                  ? [['b2f', { drawOrder: 'back-to-front' }], ['f2b', { drawOrder: 'front-to-back' }], ['list', { drawOrder: 'back-to-front', listDraw: true }]]
                  : [['b2f', { drawOrder: 'back-to-front' }]];
            for (const [name, extra] of variants) {
              for (const degree of sort === 'radix4' ? [0, 3] : [3]) {
                const a = await draw(whole, cloud, degree, extra);
                const b = await draw(paged, cloud, degree, extra);
                if (degree === 3 && cloud === full && sort === 'radix4') writeTestPng(`paged-${name}-${precision}.png`, b, W, H);
                expect(Math.max(...b), 'draws something').toBeGreaterThan(0);
                expect(maxDiff(a, b), `${cloud.source.name} ${drawName} ${sort} ${name} SH${degree}`).toBe(0);
              }
            }
            whole.destroy();
            paged.destroy();
          }
        }
      }
    });
  });

  it("unpaged, every pipeline of both draws fits WebGPU's default of 8 storage buffers a shader stage; paged past it, the scene is refused, not a validation error", async () => {
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
    // The limit is enforced on this device.
    device.pushErrorScope('validation');
    device.createBindGroupLayout({ entries: Array.from({ length: 9 }, (_, binding) => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' as const } })) });
    expect((await device.popErrorScope())?.message).toMatch(/storage/i);
    const cloud = generateDefaultScene(3000);
    await withValidation(device, async () => {
      for (const drawName of ['quads', 'tiles'] as const) {
        for (const precision of PRECISIONS) {
          const r = rendererAt(precision, device, 'rgba8unorm', 'radix4', drawName);
          r.setScene(cloud);
          const orders: Partial<FrameSettings>[] = drawName === 'tiles' ? [{}] : [{ drawOrder: 'back-to-front' }, { drawOrder: 'front-to-back' }, { listDraw: true, drawOrder: 'back-to-front' }];
          for (const extra of orders) expect(Math.max(...(await draw(r, cloud, 3, extra)))).toBeGreaterThan(0);
          // Paged (full at 100 KB a binding: SH3 in 3 pages, quads records in 2; compact at 50 KB: SH3 3, quads records 3,
          // tile records 2): 9 to 11 storage buffers, too many for this device.
          const paged = rendererAt(precision, device, 'rgba8unorm', 'radix4', drawName, {}, limited(precision === 'full' ? 100_000 : 50_000));
          expect(() => paged.setScene(cloud)).toThrow(GpuBudgetError);
          expect(paged.cloud).toBeNull();
          paged.destroy();
          r.destroy();
        }
      }
    });
    device.destroy();
  });

  it('refuses a scene whose pages are more than a stage binds, with the numbers, keeps the scene on screen, and loads at the suggested degree (tiles)', async () => {
    const { device } = ctx.gpu;
    // Full, 200 KB a binding, 11 storage buffers a stage: SH3 in 4 pages + covariances 2 + centres 1 + tile records 2
    // + 3 = 12, over; SH2 (56 B) in 3 pages: 11, fits.
    const full = await loadScene(ply, 'big.ply');
    const sh2 = await loadScene(ply, 'big.ply', { maxShDegree: 2 });
    expect(full.shDegree).toBe(3);
    expect(sh2.shDegree).toBe(2);
    expect(sh2.sh.length * 16).toBe(full.sh.length * 9); // 27 of 48 floats a splat: the CPU copy shrinks too

    await withValidation(device, async () => {
      const lowered = rendererAt('full', device, 'rgba8unorm', 'radix4', 'tiles', {}, limited(200_000, 11));
      // The way out fits: loaded with SH degree 2 it is accepted (paged) and drawn.
      lowered.setScene(sh2);
      expect(lowered.scenePaging!.sh.pages).toBe(3);
      const before = await draw(lowered, sh2, 2);
      writeTestPng('budget-sh2.png', before, W, H);

      const e = budgetErrorOf(() => lowered.setScene(full));
      expect(e.message).toBe(
        'big.ply: 8,000 splats of SH degree 3 need 12 storage buffers in one shader stage (SH in 4 pages, covariances in 2 pages, tile records in 2 pages of at most 200 KB), ' +
          'the adapter allows 11 (maxStorageBuffersPerShaderStage): reload with SH degree 2 (?sh=2; --sh 2 in npm run render)',
      );
      expect([e.suggestedShDegree, e.needed, e.available, e.limit]).toEqual([2, 12, 11, 'maxStorageBuffersPerShaderStage']);
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

  it("a draw switch counts the pages of the scene on screen at its own precision: full quads fit 11 buffers a stage, full tiles (12) are refused and the quads stay", async () => {
    const { device } = ctx.gpu;
    const full = await loadScene(ply, 'big.ply');
    await withValidation(device, async () => {
      // Full at 200 KB: quads' prepare pass binds SH 4 + covariances 2 + centres 1 + records 2 + 2 = 11; the tiles
      // draw's project pass SH 4 + 2 + 1 + tile records 2 + 3 = 12 (at the default, compact, it would count 9).
      const r = rendererAt('full', device, 'rgba8unorm', 'radix4', 'quads', {}, limited(200_000, 11));
      r.setScene(full);
      r.precision = 'compact'; // the next scene's precision: not the one on screen
      expect(() => r.setDraw('tiles')).toThrow(/need 12 storage buffers in one shader stage/);
      expect(r.draw).toBe('quads');
      expect(Math.max(...(await draw(r, full, 3)))).toBeGreaterThan(0);
      r.destroy();
    });
  });

  it("the sort's keys and values in pages (sort/paged-sort.ts) draw the same bytes as in one binding: every sort, both quads orders, tiles beside them, a scene ending at a seam", async () => {
    const { device } = ctx.gpu;
    const full = await loadScene(ply, 'big.ply');
    // 2 pages of 4,096 exactly.
    const atSeam = await loadScene(writeSplatPly(generateDefaultScene(2 * 4096)), 'seam.ply');
    // Pages of 4,096 keys (16 KB) while the scene's arrays stay whole: 8,000 splats in 2 pages, the last of 3,904;
    // the tiles draw's pairs (~11,000 here) in pages of 4,096 too, at most 5 (lavapipe's 16 storage buffers a stage:
    // the project pass binds 3 scene pages, 1 records page, the keys' and values' pages and a counter).
    const sortPaged = { ...limited(device.limits.maxStorageBufferBindingSize), sortPageBytes: 16384 };
    await withValidation(device, async () => {
      for (const cloud of [full, atSeam]) {
        for (const sort of cloud === full ? ([...GPU_SORTS, 'cpu'] as const) : (['radix16'] as const)) {
          for (const drawName of sort === 'cpu' ? (['quads'] as const) : (['quads', 'tiles'] as const)) {
            const whole = rendererAt('compact', device, 'rgba8unorm', sort, drawName);
            const paged = rendererAt('compact', device, 'rgba8unorm', sort, drawName, {}, sortPaged);
            whole.setScene(cloud);
            paged.setScene(cloud);
            expect(whole.debugBuffers!.keys.length).toBe(1);
            expect(paged.debugBuffers!.keys.length).toBe(Math.ceil(cloud.count / 4096));
            const orders: [string, Partial<FrameSettings>][] =
              drawName === 'tiles' ? [['tiles', {}]] : [['b2f', { drawOrder: 'back-to-front' }], ['f2b', { drawOrder: 'front-to-back' }]];
            for (const [name, extra] of orders) {
              // The CPU sort's order arrives a frame late: the same frame count on both.
              const a = await draw(whole, cloud, 3, extra);
              const b = await draw(paged, cloud, 3, extra);
              if (drawName === 'tiles') {
                // The pairs (more than a page of 4,096) in pages, and the tiles' own picture (not the fallback's).
                const st = paged.tileStatus!;
                console.log(`tiles, pairs in pages of 4,096: ${JSON.stringify({ capacity: st.capacity, max: st.maxCapacity, needed: st.last?.needed, fallback: st.last?.fallback })}`);
                expect(st.last!.needed).toBeGreaterThan(2 * 4096);
                expect(st.last!.fallback).toBeFalsy();
              }
              if (sort === 'radix4' && cloud === full) writeTestPng(`sort-paged-${name}.png`, b, W, H);
              expect(Math.max(...b), 'draws something').toBeGreaterThan(0);
              expect(maxDiff(a, b), `${cloud.source.name} ${drawName} ${sort} ${name}`).toBe(0);
            }
            whole.destroy();
            paged.destroy();
          }
        }
      }
    });
  });

  it("a scene packed in the loader's worker draws the picture of one packed here, both draws; a new renderer (a lost device's recovery) draws it again from what the first kept", async () => {
    const { device } = ctx.gpu;
    const full = await loadScene(ply, 'big.ply');
    const packed = packScene(full);
    const lite = { ...full, sh: new Float32Array(0) };
    await withValidation(device, async () => {
      for (const drawName of ['quads', 'tiles'] as const) {
        const here = rendererAt('compact', device, 'rgba8unorm', 'radix4', drawName);
        here.setScene(full);
        const want = await draw(here, full, 3);
        here.destroy();
        const fromWorker = rendererAt('compact', device, 'rgba8unorm', 'radix4', drawName);
        fromWorker.adoptScene(await fromWorker.prepareScene(lite, async () => {}, undefined, undefined, packed));
        expect(fromWorker.scenePacked).toBe(packed);
        expect(maxDiff(await draw(fromWorker, lite, 3), want), `${drawName} from the worker's packing`).toBe(0);
        // recovery.ts: a new renderer, the kept cloud (without SH) and the kept packed scene.
        const again = rendererAt('compact', device, 'rgba8unorm', 'radix4', drawName);
        again.adoptScene(await again.prepareScene(fromWorker.cloud!, async () => {}, undefined, undefined, fromWorker.scenePacked));
        fromWorker.destroy();
        expect(maxDiff(await draw(again, lite, 3), want), `${drawName} uploaded again`).toBe(0);
        again.destroy();
      }
    });
  });

  /** A paged array's bytes, its pages read back and joined. */
  async function pagedBytes(device: GPUDevice, b: PagedBuffer): Promise<Buffer> {
    const parts = await Promise.all(b.buffers.map(async (buf) => Buffer.from(await readBuffer(device, buf))));
    return Buffer.concat(parts);
  }

  it.each(PRECISIONS)('the chunked upload (%s): a scene of more than one chunk lands on the GPU exactly as packed whole, unpaged and paged with seams inside a chunk', async (precision) => {
    const { device } = ctx.gpu;
    const n = UPLOAD_CHUNK + 1234;
    const cloud = generateSynthetic(n);
    const bytes = (a: Float32Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    // 640 KB a binding: centres in pages of 40,000 splats; full covariances of 20,000 and SH3 of 6,666; compact SH3 of 13,333.
    for (const bindingBytes of [undefined, 640_000]) {
      const scene = await withValidation(device, () => new GpuScene(device, cloud, bindingBytes, { precision }));
      if (bindingBytes) expect(scene.centers.buffers.length).toBe(2);
      if (bindingBytes) expect(scene.sh.buffers.length).toBe(precision === 'full' ? 11 : 6);
      const whole = packWhole(cloud, scene);
      const want = { centers: bytes(whole.centers), covs: bytes(whole.covs), sh: bytes(whole.sh) };
      for (const key of ['centers', 'covs', 'sh'] as const) {
        const got = await pagedBytes(device, scene[key]);
        expect(got.length, key).toBe(want[key].length);
        expect(Buffer.compare(got, want[key]), `${key} at ${bindingBytes ?? 'the device limit'}`).toBe(0);
      }
      scene.destroy();
    }
  });

  it.each(PRECISIONS)("the page's upload (GpuScene.create, %s): slices with pauses between them, the same bytes as the upload in one go, paged", async (precision) => {
    const { device } = ctx.gpu;
    const n = 20_000;
    const cloud = generateSynthetic(n);
    let pauses = 0;
    const reported: number[] = [];
    // A budget of 0 ms pauses after every slice of 5,000 splats; pages of 12,000 centres (192 KB), a seam inside a slice.
    const scene = await GpuScene.create(device, cloud, 12_000 * 16, async () => void pauses++, { chunk: 5000, budgetMs: 0, progress: (u) => reported.push(u), precision });
    expect(scene.centers.paging).toMatchObject({ pages: 2, pageSplats: 12_000 });
    // Compact: the pass over the cloud for its ranges pauses too (slices of 8 chunks).
    expect(pauses).toBe(Math.ceil(n / 5000) + (precision === 'compact' ? Math.ceil(n / 40_000) : 0));
    // Before each pause, the splats written so far (the page's "% uploaded").
    expect(reported).toEqual([5000, 10_000, 15_000, 20_000]);
    const whole = packWhole(cloud, scene);
    const bytes = (a: Float32Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    const want = { centers: bytes(whole.centers), covs: bytes(whole.covs), sh: bytes(whole.sh) };
    for (const key of ['centers', 'covs', 'sh'] as const) {
      expect(Buffer.compare(await pagedBytes(device, scene[key]), want[key]), key).toBe(0);
    }
    scene.destroy();
    if (precision === 'compact') {
      // Packed already (the loader's worker: packScene), from a cloud without its SH: the same bytes, the same report.
      const packed = packScene(cloud);
      const lite = { ...cloud, sh: new Float32Array(0) };
      const fromPacked = await GpuScene.create(device, lite, 12_000 * 16, async () => {}, { chunk: 5000, budgetMs: 0, precision, packed });
      expect(fromPacked.packed).toBe(packed);
      expect(fromPacked.packReport).toEqual(scene.packReport);
      for (const key of ['centers', 'covs', 'sh'] as const) {
        expect(Buffer.compare(await pagedBytes(device, fromPacked[key]), want[key]), `${key} from the packed scene`).toBe(0);
      }
      fromPacked.destroy();
    }
  });
});
