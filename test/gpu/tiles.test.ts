/**
 * The compute tile rasteriser (renderer/draw/tiles) in isolation, against the
 * CPU reference rasteriser of the forward model (test/reference/raster.ts).
 *
 * Bound: 40 dB PSNR against the reference. The tile path blends in f32 and rounds
 * once to 8 bits (the quad path rounds after every blend), keeps colours as f16 and
 * stops a pixel once its transmittance is under 1e-4; none of that costs more than
 * a fraction of a dB. A wrong footprint (dropped tiles), key layout, range or
 * order shows up as whole missing tiles or wrong occlusion, far under 40 dB.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector, type CameraPose } from '../../renderer/camera/camera';
import { generateDefaultScene } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import { computeBounds, type SplatCloud } from '../../scenes/splat-cloud';
import { getSorterFactory, listSorters } from '../../sort/registry';
import type { SorterFactory } from '../../sort/types';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { TileHarness, referenceRgb, rgbaOf, rgbOf, trackAllocations, type TileSettings } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const MIN_PSNR = 40;

async function compare(name: string, cloud: SplatCloud, pose: CameraPose, w: number, h: number, s: TileSettings, sorter = 'radix4') {
  const { device } = ctx.gpu;
  const gpu = await withValidation(device, async () => {
    const harness = new TileHarness(device, cloud, getSorterFactory(sorter));
    const img = await harness.render(pose, w, h, s, 'rgba8unorm', true);
    expect(harness.tiles.status.overflowed).toBe(false);
    harness.destroy();
    return img;
  });
  const ref = referenceRgb(cloud, pose, w, h, s);
  writeTestPng(`tiles-${name}-gpu.png`, gpu, w, h);
  writeTestPng(`tiles-${name}-reference.png`, rgbaOf(ref.rgb), w, h);
  const p = psnr(rgbOf(gpu), ref.rgb);
  console.log(`tiles ${name} (${sorter}): PSNR ${p.toFixed(1)} dB vs reference, ${ref.drawn} splats drawn`);
  return { p, gpu, ref };
}

/** A hand-made cloud of the awkward cases around a camera at (0, 0, -4) looking at the origin. */
function edgeCaseCloud(): SplatCloud {
  const splats: { p: number[]; s: number[]; q: number[]; o: number; c: number[] }[] = [];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  // Ordinary content: small splats in a slab around the origin.
  for (let i = 0; i < 300; i++) {
    const a = rnd() * Math.PI * 2;
    splats.push({
      p: [rnd() * 3 - 1.5, rnd() * 2 - 1, rnd() - 0.5],
      s: [0.02 + rnd() * 0.1, 0.02 + rnd() * 0.1, 0.02 + rnd() * 0.05],
      q: [Math.cos(a / 2), 0, 0, Math.sin(a / 2)],
      o: 0.2 + rnd() * 0.8,
      c: [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5],
    });
  }
  // Huge: covers the whole screen (every tile), behind the rest, half transparent.
  splats.push({ p: [0.2, -0.1, 1.5], s: [4, 3, 0.5], q: [1, 0, 0, 0], o: 0.5, c: [0.8, -0.3, 0.2] });
  // Long and thin, rotated: spans many tiles diagonally.
  splats.push({ p: [0, 0, -0.8], s: [2.5, 0.015, 0.015], q: [Math.cos(0.3), 0, 0, Math.sin(0.3)], o: 0.95, c: [-0.4, 0.9, 0.1] });
  // Centres just off screen (|ndc| about 1.1-1.25) whose tails reach in.
  for (const [x, y] of [[2.6, 0], [-2.6, 0.5], [0, 2.7], [1.5, -2.6]]) {
    splats.push({ p: [x, y, 0], s: [0.5, 0.5, 0.5], q: [1, 0, 0, 0], o: 0.9, c: [0.3, 0.3, -0.4] });
  }
  // Far off screen (culled) and behind the camera (culled).
  splats.push({ p: [30, 0, 0], s: [0.5, 0.5, 0.5], q: [1, 0, 0, 0], o: 1, c: [1, 1, 1] });
  splats.push({ p: [0, 0, -6], s: [0.5, 0.5, 0.5], q: [1, 0, 0, 0], o: 1, c: [1, 1, 1] });
  // Under 1/255 opacity: can never show.
  splats.push({ p: [0, 0, -1], s: [0.5, 0.5, 0.5], q: [1, 0, 0, 0], o: 0.003, c: [2, 2, 2] });
  // Very close to the camera: large on screen.
  splats.push({ p: [-0.3, 0.2, -3.2], s: [0.3, 0.2, 0.2], q: [1, 0, 0, 0], o: 0.4, c: [0.1, 0.1, 0.6] });
  const n = splats.length;
  const cloud: SplatCloud = {
    count: n,
    shDegree: 0,
    positions: new Float32Array(splats.flatMap((s) => s.p)),
    scales: new Float32Array(splats.flatMap((s) => s.s)),
    rotations: new Float32Array(splats.flatMap((s) => s.q)),
    opacities: new Float32Array(splats.map((s) => s.o)),
    sh: new Float32Array(splats.flatMap((s) => s.c)),
    bounds: { min: [0, 0, 0], max: [0, 0, 0] },
    source: { name: 'edge-cases', format: 'generated' },
  };
  cloud.bounds = computeBounds(cloud.positions);
  return cloud;
}

const EDGE_POSE: CameraPose = { eye: [0, 0, -4], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 };
const EDGE_SETTINGS: TileSettings = { shDegree: 0, splatScale: 1, background: [0.1, 0.15, 0.2] };

describe('tile rasteriser vs CPU reference', () => {
  it.runIf(haveSharedScenes())('real scene inria_sh3_tile_1971 (SH3), 128x96', async () => {
    const bytes = fs.readFileSync(sharedScene('inria_sh3_tile_1971.ply'));
    const cloud = await loadScene(bytes, 'inria_sh3_tile_1971.ply');
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 128 / 96);
    const { p, ref } = await compare('inria1971', cloud, pose, 128, 96, { shDegree: 3, splatScale: 1, background: [0, 0, 0] });
    expect(ref.drawn).toBeGreaterThan(cloud.count / 4);
    expect(ref.rgb.reduce((a, v) => a + v, 0) / ref.rgb.length).toBeGreaterThan(0.02);
    expect(p).toBeGreaterThan(MIN_PSNR);
  });

  it('splats spanning many tiles, huge, thin, off-screen, behind the camera, below 1/255; 100x70 (partial tiles)', async () => {
    const cloud = edgeCaseCloud();
    const { p, ref } = await compare('edges', cloud, EDGE_POSE, 100, 70, EDGE_SETTINGS);
    expect(ref.drawn).toBeGreaterThan(300);
    expect(p).toBeGreaterThan(MIN_PSNR);
  });

  it('every sorter of the registry gives the same image (generated scene, SH1, splat scale 0.7)', async () => {
    const cloud = generateDefaultScene(2000);
    const fit = fitPose(robustBounds(cloud.positions), upVector('-y'), 50, 96 / 64);
    const pose: CameraPose = { ...fit, eye: [fit.eye[0] + 3, fit.eye[1] - 2, fit.eye[2]] };
    const s: TileSettings = { shDegree: 1, splatScale: 0.7, background: [0.2, 0.2, 0.25] };
    for (const f of listSorters(ctx.gpu.device)) {
      const { p } = await compare(`default2000-${f.name}`, cloud, pose, 96, 64, s, f.name);
      expect(p, f.name).toBeGreaterThan(MIN_PSNR);
    }
  });

  it('16 depth bits in the key (the key-bits setting) stays close to the reference', async () => {
    const cloud = edgeCaseCloud();
    const { p } = await compare('edges-16bit', cloud, EDGE_POSE, 100, 70, { ...EDGE_SETTINGS, depthBits: 16 });
    expect(p).toBeGreaterThan(MIN_PSNR);
  });

  it('draws onto a bgra8unorm target (the browser canvas format) the same picture', async () => {
    const { device } = ctx.gpu;
    const cloud = edgeCaseCloud();
    const [rgba, bgra] = await withValidation(device, async () => {
      const h = new TileHarness(device, cloud, getSorterFactory('radix4'));
      const a = await h.render(EDGE_POSE, 100, 70, EDGE_SETTINGS, 'rgba8unorm', true);
      const b = await h.render(EDGE_POSE, 100, 70, EDGE_SETTINGS, 'bgra8unorm');
      h.destroy();
      return [a, b];
    });
    expect(Buffer.from(bgra).equals(Buffer.from(rgba))).toBe(true);
  });

  it('the subgroup-culled blend draws the plain blend\'s picture, bit for bit (real scene, and the edge cases)', async () => {
    const { device } = ctx.gpu;
    expect(device.features.has('subgroups'), 'the test adapter has subgroups').toBe(true);
    const scenes: [SplatCloud, CameraPose, number, number, TileSettings][] = [[edgeCaseCloud(), EDGE_POSE, 100, 70, EDGE_SETTINGS]];
    if (haveSharedScenes()) {
      const cloud = await loadScene(fs.readFileSync(sharedScene('inria_sh3_tile_1971.ply')), 'inria_sh3_tile_1971.ply');
      scenes.push([cloud, fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 4 / 3), 160, 120, { shDegree: 3, splatScale: 1, background: [0.1, 0, 0.2] }]);
    }
    const saved = process.env.SPLAT_BLEND_SUBGROUPS;
    try {
      for (const [cloud, pose, w, h, s] of scenes) {
        const images = await withValidation(device, async () => {
          const out: Uint8Array[] = [];
          for (const flag of ['1', '0']) {
            process.env.SPLAT_BLEND_SUBGROUPS = flag;
            const harness = new TileHarness(device, cloud, getSorterFactory('radix4'));
            out.push(await harness.render(pose, w, h, s, 'rgba8unorm', true));
            harness.destroy();
          }
          return out;
        });
        expect(Buffer.from(images[0]).equals(Buffer.from(images[1])), cloud.source.name).toBe(true);
      }
    } finally {
      if (saved === undefined) delete process.env.SPLAT_BLEND_SUBGROUPS;
      else process.env.SPLAT_BLEND_SUBGROUPS = saved;
    }
  });

  it('an empty scene draws the background', async () => {
    const { device } = ctx.gpu;
    const empty: SplatCloud = {
      count: 0, shDegree: 0, positions: new Float32Array(0), scales: new Float32Array(0), rotations: new Float32Array(0),
      opacities: new Float32Array(0), sh: new Float32Array(0), bounds: { min: [0, 0, 0], max: [0, 0, 0] },
      source: { name: 'empty', format: 'generated' },
    };
    const img = await withValidation(device, async () => {
      const h = new TileHarness(device, empty, getSorterFactory('onesweep'));
      const out = await h.render(EDGE_POSE, 40, 30, { ...EDGE_SETTINGS, background: [0.2, 0.4, 0.6] });
      expect(h.tiles.status.last).toMatchObject({ needed: 0, kept: 0, wrapped: false, visible: 0, fallback: false, activeTiles: 0 });
      h.destroy();
      return out;
    });
    for (let i = 0; i < img.length; i += 4) {
      expect([img[i], img[i + 1], img[i + 2], img[i + 3]]).toEqual([51, 102, 153, 255]);
    }
  });
});

describe('tile rasteriser pair buffers', () => {
  it('overflow on the first frame of a camera jump: that frame is drawn whole (fallback), equal to the unconstrained picture; then the buffers grow', async () => {
    const { device } = ctx.gpu;
    const cloud = edgeCaseCloud();
    const away: CameraPose = { ...EDGE_POSE, target: [0, 0, -10] }; // looking away from the scene
    const ref = referenceRgb(cloud, EDGE_POSE, 100, 70, EDGE_SETTINGS);
    await withValidation(device, async () => {
      const free = new TileHarness(device, cloud, getSorterFactory('radix4'));
      const unconstrained = await free.render(EDGE_POSE, 100, 70, EDGE_SETTINGS, 'rgba8unorm', true);
      const freeNeed = free.tiles.status.last!.needed;
      free.destroy();
      const h = new TileHarness(device, cloud, getSorterFactory('radix4'), { initialPairs: 200 });
      await h.render(away, 100, 70, EDGE_SETTINGS);
      const s0 = h.tiles.status;
      expect(s0.overflowed).toBe(false);
      expect(s0.last!.needed).toBeLessThan(200);
      // The jump: ~3.6x the pairs the buffers hold, in one frame.
      const jumped = await h.render(EDGE_POSE, 100, 70, EDGE_SETTINGS);
      const s1 = h.tiles.status;
      expect(s1.last!.needed).toBe(freeNeed);
      expect(s1.last!.needed).toBeGreaterThan(3 * 200);
      expect(s1.last!.fallback).toBe(true);
      expect(s1.last!.kept).toBe(s1.last!.visible); // the fallback sorted one key per visible splat
      expect(s1.overflowed).toBe(true);
      expect(s1.capped).toBe(false);
      writeTestPng('tiles-jump-fallback.png', jumped, 100, 70);
      const pRef = psnr(rgbOf(jumped), ref.rgb);
      const pSame = psnr(rgbOf(jumped), rgbOf(unconstrained));
      console.log(`tiles camera jump: ${s1.last!.needed} pairs needed, capacity 200: fallback frame PSNR ${pRef.toFixed(1)} dB vs reference, ${pSame.toFixed(1)} dB vs the unconstrained tiles image`);
      expect(pRef).toBeGreaterThan(MIN_PSNR);
      expect(pSame).toBeGreaterThan(45);
      // The buffers grew for the next frame: the tiles again.
      expect(s1.capacity).toBeGreaterThanOrEqual(s1.last!.needed);
      const next = await h.render(EDGE_POSE, 100, 70, EDGE_SETTINGS);
      const s2 = h.tiles.status;
      expect(s2.overflowed).toBe(false);
      expect(s2.last!.fallback).toBe(false);
      expect(s2.grows).toBe(1);
      expect(Buffer.from(next).equals(Buffer.from(unconstrained))).toBe(true);
      h.destroy();
    });
  });

  it('capped at the limit: every frame is the fallback, complete, and flagged as capped', async () => {
    const { device } = ctx.gpu;
    const cloud = edgeCaseCloud();
    const ref = referenceRgb(cloud, EDGE_POSE, 100, 70, EDGE_SETTINGS);
    await withValidation(device, async () => {
      const h = new TileHarness(device, cloud, getSorterFactory('onesweep'), { initialPairs: 100, maxPairs: 300 });
      for (let i = 0; i < 3; i++) {
        const img = await h.render(EDGE_POSE, 100, 70, EDGE_SETTINGS);
        const s = h.tiles.status;
        expect(s.capacity).toBe(300);
        expect(s.capped).toBe(true);
        expect(s.overflowed).toBe(true);
        expect(s.last!.fallback).toBe(true);
        expect(psnr(rgbOf(img), ref.rgb)).toBeGreaterThan(MIN_PSNR);
      }
      h.destroy();
    });
  });

  it('the pair buffers shrink back once the need has stayed far below the capacity', async () => {
    const { device } = ctx.gpu;
    const cloud = edgeCaseCloud();
    const far: CameraPose = { ...EDGE_POSE, eye: [0, 0, -60] };
    await withValidation(device, async () => {
      const h = new TileHarness(device, cloud, getSorterFactory('radix4'), { initialPairs: 256, shrinkAfter: 3 });
      await h.render(EDGE_POSE, 320, 240, EDGE_SETTINGS, 'rgba8unorm', true);
      const grown = h.tiles.status;
      expect(grown.grows).toBe(1);
      expect(grown.capacity).toBeGreaterThan(2048);
      for (let i = 0; i < 4; i++) await h.render(far, 320, 240, EDGE_SETTINGS);
      const s = h.tiles.status;
      console.log(`tiles shrink: capacity ${grown.capacity} (needed ${grown.last!.needed}) -> ${s.capacity} (needing ${s.last!.needed})`);
      expect(s.shrinks).toBe(1);
      expect(s.capacity).toBeLessThan(grown.capacity);
      expect(s.capacity).toBeGreaterThanOrEqual(256);
      h.destroy();
    });
  });

  it('a sorter that cannot hold the capacity (as bitonic, padding to a power of two, near the binding limit) lowers the limit instead of failing', async () => {
    const { device } = ctx.gpu;
    const radix4 = getSorterFactory('radix4');
    // radix4 that, like bitonic at the device's limit, refuses more than 1,000 pairs.
    const small: SorterFactory = {
      ...radix4,
      create: (d, capacity) => {
        if (capacity > 1000) throw new RangeError(`test sorter: ${capacity} pairs do not fit`);
        return radix4.create(d, capacity);
      },
    };
    const cloud = edgeCaseCloud();
    await withValidation(device, async () => {
      const h = new TileHarness(device, cloud, small, { initialPairs: 5000 });
      expect(h.tiles.status.capacity).toBe(625); // 5000 -> 2500 -> 1250 -> 625
      expect(h.tiles.status.maxCapacity).toBe(625);
      const img = await h.render(EDGE_POSE, 100, 70, EDGE_SETTINGS, 'rgba8unorm', true);
      expect(h.tiles.status.capped).toBe(true); // the view needs ~730 pairs: flagged, not silent
      expect(img.length).toBe(100 * 70 * 4);
      h.destroy();
    });
  });

  it('leaves no GPU buffer or texture alive: growth, resize, sorter switches, destroy', async () => {
    const { device } = ctx.gpu;
    const cloud = edgeCaseCloud();
    const track = trackAllocations(device);
    try {
      await withValidation(device, async () => {
        const h = new TileHarness(device, cloud, getSorterFactory('radix4'), { initialPairs: 64 });
        await h.render(EDGE_POSE, 100, 70, EDGE_SETTINGS);
        await h.render(EDGE_POSE, 64, 48, EDGE_SETTINGS);
        for (const f of [...listSorters(device), getSorterFactory('radix4')]) {
          h.tiles.setSorter(f);
          await h.render(EDGE_POSE, 64, 48, EDGE_SETTINGS);
        }
        expect(h.tiles.status.grows).toBeGreaterThan(0);
        h.destroy();
      });
      expect(track.live()).toEqual([]);
    } finally {
      track.stop();
    }
  });
});
