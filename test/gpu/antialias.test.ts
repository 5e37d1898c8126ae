/**
 * The anti-aliased mode (FrameSettings.antialias: Mip-Splatting's 2D filter, each
 * splat's opacity scaled by sqrt(det(cov2D - 0.3 I) / det(cov2D))) in both draws,
 * against the CPU reference with the same mode (test/reference/raster.ts).
 *
 * The scene is mostly sub-pixel splats, where the factor matters most (a splat of
 * 0.1 px sigma is dimmed ~30x): a draw that ignored the mode, or applied it to the
 * record but not to the 1/255 contour or footprint, or not to the culls, is far from
 * the reference. Bound: 40 dB, as tiles.test.ts and draw-strategies.test.ts; the
 * AA-off reference must be clearly further (the test can fail).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector, type CameraPose } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { loadScene } from '../../scenes/load';
import { computeBounds, type SplatCloud } from '../../scenes/splat-cloud';
import { getSorterFactory } from '../../sort/registry';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { referenceRgb, rgbaOf, rgbOf, TileHarness } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const MIN_PSNR = 40;

/**
 * A slab of 3000 splats around the origin seen from (0, 0, -4) (fy ~ 83 px at 128x96):
 * scales 0.001..0.03, so sigma on screen ~0.02..0.6 px (sub-pixel: raw cov2D well
 * under the 0.3 px^2 low-pass), random roll, opacity 0.3..1, SH degree 0 colours;
 * and a few larger splats (sigma ~ several px), which the mode barely changes.
 */
function tinySplatCloud(): SplatCloud {
  const n = 3000, big = 40;
  let seed = 11;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const positions = new Float32Array((n + big) * 3);
  const scales = new Float32Array((n + big) * 3);
  const rotations = new Float32Array((n + big) * 4);
  const opacities = new Float32Array(n + big);
  const sh = new Float32Array((n + big) * 3);
  for (let i = 0; i < n + big; i++) {
    positions.set([rnd() * 4 - 2, rnd() * 3 - 1.5, rnd() - 0.5], i * 3);
    const s = i < n ? 0.001 + 0.029 * rnd() ** 2 : 0.05 + 0.1 * rnd();
    scales.set([s, s * (0.3 + 0.7 * rnd()), s * (0.3 + 0.7 * rnd())], i * 3);
    const a = rnd() * Math.PI * 2;
    rotations.set([Math.cos(a / 2), 0, 0, Math.sin(a / 2)], i * 4);
    opacities[i] = 0.3 + 0.7 * rnd();
    sh.set([rnd() * 2 - 0.5, rnd() * 2 - 0.5, rnd() * 2 - 0.5], i * 3);
  }
  return {
    count: n + big, shDegree: 0, positions, scales, rotations, opacities, sh,
    bounds: computeBounds(positions),
    source: { name: 'tiny-splats', format: 'generated' },
  };
}

const TINY_POSE: CameraPose = { eye: [0, 0, -4], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 };

/** Both draws of one SplatRenderer, AA on. */
async function bothDraws(cloud: SplatCloud, pose: CameraPose, w: number, h: number, shDegree: number, extra: { minContribution?: number } = {}) {
  const { device } = ctx.gpu;
  const s = { shDegree, splatScale: 1, cull: true, keyBits: 32, background: [0.1, 0.1, 0.15] as [number, number, number], antialias: true, ...extra };
  return withValidation(device, async () => {
    const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4');
    renderer.setScene(cloud);
    const cam = frameCamera(pose, w, h, cloud.bounds);
    const quads = await renderOffscreen(renderer, cam, s);
    const off = await renderOffscreen(renderer, cam, { ...s, antialias: false });
    renderer.setDraw('tiles');
    const tiles = await renderOffscreen(renderer, cam, s);
    renderer.destroy();
    return { quads: quads.rgba, tiles: tiles.rgba, quadsOff: off.rgba, settings: s };
  });
}

async function check(name: string, cloud: SplatCloud, pose: CameraPose, w: number, h: number, shDegree: number) {
  const { quads, tiles, quadsOff, settings } = await bothDraws(cloud, pose, w, h, shDegree);
  const ref = referenceRgb(cloud, pose, w, h, settings);
  const refOff = referenceRgb(cloud, pose, w, h, { ...settings, antialias: false });
  writeTestPng(`aa-${name}-quads.png`, quads, w, h);
  writeTestPng(`aa-${name}-tiles.png`, tiles, w, h);
  writeTestPng(`aa-${name}-reference.png`, rgbaOf(ref.rgb), w, h);
  writeTestPng(`aa-${name}-reference-off.png`, rgbaOf(refOff.rgb), w, h);
  const pQ = psnr(rgbOf(quads), ref.rgb);
  const pT = psnr(rgbOf(tiles), ref.rgb);
  const pQoff = psnr(rgbOf(quads), refOff.rgb);
  const pToff = psnr(rgbOf(tiles), refOff.rgb);
  const pOff = psnr(rgbOf(quadsOff), refOff.rgb);
  const pRefs = psnr(ref.rgb, refOff.rgb);
  console.log(
    `${name} AA: vs AA reference quads ${pQ.toFixed(1)} dB, tiles ${pT.toFixed(1)} dB; vs AA-off reference quads ${pQoff.toFixed(1)}, tiles ${pToff.toFixed(1)}; ` +
      `AA off quads vs AA-off reference ${pOff.toFixed(1)} dB; the two references ${pRefs.toFixed(1)} dB apart; drawn ${ref.drawn} (AA) / ${refOff.drawn} (off)`,
  );
  return { pQ, pT, pQoff, pToff, pOff, pRefs };
}

describe('the anti-aliased mode in both draws vs the CPU reference', () => {
  it('sub-pixel splats (3000 tiny + 40 larger), 128x96: both draws match the AA reference, not the AA-off one', async () => {
    const r = await check('tiny', tinySplatCloud(), TINY_POSE, 128, 96, 0);
    expect(r.pQ).toBeGreaterThan(MIN_PSNR);
    expect(r.pT).toBeGreaterThan(MIN_PSNR);
    expect(r.pOff).toBeGreaterThan(MIN_PSNR); // the switch goes back off
    // The mode is a large change here: the AA-off picture is far from the AA one.
    expect(r.pRefs).toBeLessThan(30);
    expect(r.pQoff).toBeLessThan(r.pQ - 10);
    expect(r.pToff).toBeLessThan(r.pT - 10);
  });

  it.runIf(haveSharedScenes())('real scene inria_sh3_tile_6831 (SH3), 160x120', async () => {
    const bytes = fs.readFileSync(sharedScene('inria_sh3_tile_6831.ply'));
    const cloud = await loadScene(bytes, 'inria_sh3_tile_6831.ply');
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 160 / 120);
    const r = await check('6831', cloud, pose, 160, 120, 3);
    expect(r.pQ).toBeGreaterThan(MIN_PSNR);
    expect(r.pT).toBeGreaterThan(MIN_PSNR);
  });

  it('with the contribution cull: both draws drop the same splats (the cull uses the AA opacity in both)', async () => {
    const cloud = tinySplatCloud();
    const all = await bothDraws(cloud, TINY_POSE, 128, 96, 0);
    const culled = await bothDraws(cloud, TINY_POSE, 128, 96, 0, { minContribution: 0.5 });
    const p = psnr(rgbOf(culled.quads), rgbOf(culled.tiles));
    const cost = psnr(rgbOf(culled.quads), rgbOf(all.quads));
    console.log(`tiny AA, cull under 0.5 px: tiles vs quads ${p.toFixed(1)} dB; culled vs not ${cost.toFixed(1)} dB`);
    expect(p).toBeGreaterThan(MIN_PSNR);
    expect(cost).toBeLessThan(p - 3);
  });

  it('the tile rasteriser alone (TileHarness, FrameUniforms antialias) matches the AA reference', async () => {
    const { device } = ctx.gpu;
    const cloud = tinySplatCloud();
    const s = { shDegree: 0, splatScale: 1, background: [0, 0, 0] as [number, number, number], antialias: true };
    const img = await withValidation(device, async () => {
      const h = new TileHarness(device, cloud, getSorterFactory('radix4'));
      const out = await h.render(TINY_POSE, 96, 64, s, 'rgba8unorm', true);
      h.destroy();
      return out;
    });
    const p = psnr(rgbOf(img), referenceRgb(cloud, TINY_POSE, 96, 64, s).rgb);
    const pOff = psnr(rgbOf(img), referenceRgb(cloud, TINY_POSE, 96, 64, { ...s, antialias: false }).rgb);
    console.log(`tiny, tile harness AA: ${p.toFixed(1)} dB vs AA reference, ${pOff.toFixed(1)} dB vs AA-off`);
    expect(p).toBeGreaterThan(MIN_PSNR);
    expect(pOff).toBeLessThan(p - 10);
  });
});
