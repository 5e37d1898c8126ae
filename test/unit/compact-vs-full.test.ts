/**
 * The compact resident format (renderer/gpu-scene/compact-pack.ts) against the full
 * one on the CPU reference (test/reference/raster.ts): every shared real scene is
 * packed, decoded as the shaders decode it (decodeCompact) and rendered by the
 * forward model beside the original cloud, on the scene's fitted view. Issue 17's
 * bar is 45 dB between compact and full; the images are clamped to 0..1 as shown.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { compactDecodeOf, decodeCompact, packCompact, PackTally } from '../../renderer/gpu-scene/compact-pack';
import { sceneLayout } from '../../renderer/gpu-scene/scene-precision';
import { loadScene } from '../../scenes/load';
import { psnr, rasterizeReference, toPng } from '../reference/raster';
import { haveSharedScenes, SHARED_SCENES, sharedScene } from '../support/shared-scenes';

const OUT = path.resolve(__dirname, '../../test-output');
const MIN_PSNR = 45;
const W = 160, H = 120;

const clamp01 = (a: Float32Array) => a.map((v) => Math.min(1, Math.max(0, v)));

describe.skipIf(!haveSharedScenes())('compact vs full on the CPU reference', () => {
  const files = haveSharedScenes() ? fs.readdirSync(SHARED_SCENES).filter((f) => f.endsWith('.ply')) : [];
  it.each(files)('%s: >= 45 dB', async (file) => {
    const cloud = await loadScene(new Uint8Array(fs.readFileSync(sharedScene(file))), file);
    const d = compactDecodeOf(cloud);
    const stride = sceneLayout(cloud.shDegree, 'compact').shStride;
    const tally = new PackTally();
    const compact = decodeCompact(packCompact(cloud, d, stride, 0, cloud.count, undefined, tally), d, cloud, stride);
    expect(tally.dropped).toBe(0);
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, W / H);
    const cam = frameCamera(pose, W, H, cloud.bounds);
    const spec = { ...pose, near: cam.near, far: cam.far };
    const full = clamp01(rasterizeReference(cloud, spec, { width: W, height: H }).rgb);
    const small = clamp01(rasterizeReference(compact, spec, { width: W, height: H }).rgb);
    const db = psnr(full, small);
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, `compact-cpu-${file}.png`), toPng(small, W, H));
    console.log(`${file}: compact vs full (CPU reference, ${W}x${H}) ${db.toFixed(1)} dB; packing: ${JSON.stringify(tally.report())}`);
    expect(db).toBeGreaterThanOrEqual(MIN_PSNR);
  }, 120_000);
});
