/**
 * Issue 33 on the GPU (real WGSL on lavapipe, both draws): scenes with absurd
 * splats - scales of Inf or 1e38 in every tenth splat, one splat of log-scale 20,
 * DC colours of +-1e30 in every tenth splat, higher-band SH of 1e30 in every tenth -
 * written to a PLY and loaded: the picture stays within 25 dB of the clean scene's
 * (the loaders drop implausible scales and clamp colour outliers, scenes/robust.ts),
 * and the compact layout stays within 40 dB of full precision (its ranges are
 * robust, renderer/gpu-scene/compact-pack.ts). What the same splats drew before
 * (scales clamped to 65504 and kept, colours clamped to 65504) is logged beside.
 * Small images: lavapipe is slow.
 */
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector, type CameraPose } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import type { ScenePrecision } from '../../renderer/gpu-scene/scene-precision';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { generateDefaultScene } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import { MAX_ABS_SH, MAX_SCALE } from '../../scenes/sanitize';
import { shCoeffCount, type SplatCloud } from '../../scenes/splat-cloud';
import { writeSplatPly } from '../../scenes/write-ply';
import fs from 'node:fs';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { rgbOf } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const W = 96, H = 72;
const MIN_VS_CLEAN = 25;
const MIN_COMPACT_VS_FULL = 40;
const settings = { splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0] as [number, number, number] };
const DRAWS = ['quads', 'tiles'] as const;

async function render(cloud: SplatCloud, pose: CameraPose, precision: ScenePrecision): Promise<Uint8Array[]> {
  const { device } = ctx.gpu;
  return withValidation(device, async () => {
    const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4', DRAWS[0]);
    renderer.precision = precision;
    renderer.setScene(cloud);
    const cam = frameCamera(pose, W, H, cloud.bounds);
    const out: Uint8Array[] = [];
    for (const draw of DRAWS) {
      renderer.setDraw(draw);
      out.push((await renderOffscreen(renderer, cam, { ...settings, shDegree: cloud.shDegree })).rgba);
    }
    renderer.destroy();
    return out;
  });
}

const copy = (c: SplatCloud): SplatCloud => ({ ...c, positions: c.positions.slice(), scales: c.scales.slice(), rotations: c.rotations.slice(), opacities: c.opacities.slice(), sh: c.sh.slice() });

/** The corruptions of the issue, applied to a copy of a clean cloud. */
const CORRUPTIONS: [string, (c: SplatCloud) => void][] = [
  ['scales Inf in every tenth splat', (c) => { for (let i = 3; i < c.count; i += 10) c.scales[i * 3 + (i % 3)] = Infinity; }],
  ['scales 1e38 in every tenth splat', (c) => { for (let i = 3; i < c.count; i += 10) c.scales.fill(1e38, i * 3, i * 3 + 3); }],
  ['one splat of log-scale 20', (c) => c.scales.fill(Math.exp(20), 3 * Math.floor(c.count / 2), 3 * Math.floor(c.count / 2) + 3)],
  ['DC colours +-1e30 in every tenth splat', (c) => { const K3 = shCoeffCount(c.shDegree) * 3; for (let i = 3; i < c.count; i += 10) c.sh[i * K3 + (i % 3)] = i % 20 === 3 ? 1e30 : -1e30; }],
  ['higher-band SH 1e30 in every tenth splat', (c) => { const K3 = shCoeffCount(c.shDegree) * 3; if (K3 > 3) for (let i = 3; i < c.count; i += 10) c.sh[i * K3 + 3 + (i % (K3 - 3))] = 1e30; }],
];

/** What the pre-issue-33 loaders made of a corrupted cloud: scales clamped to 65504, |SH| to 65504, nothing dropped. */
function clampedOnly(c: SplatCloud): SplatCloud {
  const out = copy(c);
  for (let i = 0; i < out.scales.length; i++) if (!(out.scales[i]! <= MAX_SCALE)) out.scales[i] = MAX_SCALE;
  for (let i = 0; i < out.sh.length; i++) out.sh[i] = Math.max(-MAX_ABS_SH, Math.min(MAX_ABS_SH, out.sh[i]!));
  return out;
}

async function scenes(): Promise<[string, SplatCloud][]> {
  const out: [string, SplatCloud][] = [['default:3000', generateDefaultScene(3000)]];
  if (haveSharedScenes()) {
    for (const f of ['inria_sh3_tile_1971.ply', 'playbot_31k_sh2_reordered.ply']) out.push([f, await loadScene(new Uint8Array(fs.readFileSync(sharedScene(f))), f)]);
  }
  return out;
}

describe('absurd splats: within 25 dB of the clean scene, compact within 40 dB of full', () => {
  it('every corruption of the issue, on a generated and two real scenes, quads and tiles', async () => {
    for (const [name, source] of await scenes()) {
      // The clean scene as a file and back, so that both sides went through the same loader.
      const clean = await loadScene(writeSplatPly(source), `${name}.ply`);
      const pose = fitPose(robustBounds(clean.positions), upVector('-y'), 60, W / H);
      const want = await render(clean, pose, 'full');
      for (const [what, corrupt] of CORRUPTIONS) {
        const bad = copy(source);
        corrupt(bad);
        const loaded = await loadScene(writeSplatPly(bad), `${name}-bad.ply`);
        const full = await render(loaded, pose, 'full');
        const compact = await render(loaded, pose, 'compact');
        const before = await render(clampedOnly(bad), pose, 'full');
        const line: string[] = [];
        DRAWS.forEach((draw, k) => {
          const vsClean = psnr(rgbOf(full[k]!), rgbOf(want[k]!));
          const compactVsFull = psnr(rgbOf(compact[k]!), rgbOf(full[k]!));
          const beforeVsClean = psnr(rgbOf(before[k]!), rgbOf(want[k]!));
          line.push(`${draw}: vs clean ${vsClean.toFixed(1)} dB (clamped only: ${beforeVsClean.toFixed(1)} dB), compact vs full ${compactVsFull.toFixed(1)} dB`);
          if (vsClean < MIN_VS_CLEAN || compactVsFull < MIN_COMPACT_VS_FULL) writeTestPng(`absurd-${name}-${what.replace(/\W+/g, '-')}-${draw}.png`, full[k]!, W, H);
          expect(vsClean, `${name}, ${what}, ${draw}: vs clean`).toBeGreaterThanOrEqual(MIN_VS_CLEAN);
          expect(compactVsFull, `${name}, ${what}, ${draw}: compact vs full`).toBeGreaterThanOrEqual(MIN_COMPACT_VS_FULL);
        });
        console.log(`${name}, ${what} (${JSON.stringify(loaded.sanitized?.reasons)}): ${line.join('; ')}`);
      }
    }
  });
});
