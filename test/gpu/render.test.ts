/**
 * Render correctness: the GPU pipeline (project -> radix4 -> draw, rgba8unorm) against
 * the CPU reference rasteriser of the same forward model (test/reference/raster.ts),
 * and a golden image of the generated default scene.
 *
 * Tolerance: the GPU blends in 8-bit unorm, rounding after every blend, and keeps SH
 * coefficients as f16; the reference blends in f64. Measured on lavapipe the PSNR is
 * far above the bound below; a wrong projection, orientation, SH sign or sort order
 * drops it under 20 dB.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector, type CameraPose } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { generateDefaultScene } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { rasterizeReference, psnr, maxAbsError } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { rgbOf } from '../support/tile-render';

const ctx = useGpu();
const OUT = path.resolve(__dirname, '../../test-output');
const GOLDEN = path.resolve(__dirname, '../golden/default-160x120.png');
const MIN_PSNR_VS_REFERENCE = 32;
const MIN_PSNR_VS_GOLDEN = 40;

interface Settings { shDegree: number; splatScale: number; background: [number, number, number] }

async function renderGpu(cloud: SplatCloud, pose: CameraPose, w: number, h: number, s: Settings): Promise<Uint8Array> {
  const { device } = ctx.gpu;
  return withValidation(device, async () => {
    const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4');
    renderer.setScene(cloud);
    const img = await renderOffscreen(renderer, frameCamera(pose, w, h, cloud.bounds), { ...s, cull: true, keyBits: 32 });
    renderer.destroy();
    return img.rgba;
  });
}

function writePng(file: string, rgba: Uint8Array, w: number, h: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const png = new PNG({ width: w, height: h });
  png.data = Buffer.from(rgba);
  fs.writeFileSync(file, PNG.sync.write(png));
}

function compareWithReference(name: string, cloud: SplatCloud, pose: CameraPose, w: number, h: number, s: Settings) {
  return async () => {
    const gpu = await renderGpu(cloud, pose, w, h, s);
    const cam = frameCamera(pose, w, h, cloud.bounds);
    const ref = rasterizeReference(cloud, { ...pose, near: cam.near, far: cam.far }, { width: w, height: h, ...s });
    const refRgb = ref.rgb.map((v) => Math.min(1, Math.max(0, v)));
    const refRgba = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      for (let c = 0; c < 3; c++) refRgba[4 * i + c] = Math.round(refRgb[3 * i + c] * 255);
      refRgba[4 * i + 3] = 255;
    }
    writePng(path.join(OUT, `${name}-gpu.png`), gpu, w, h);
    writePng(path.join(OUT, `${name}-reference.png`), refRgba, w, h);
    const gpuRgb = rgbOf(gpu);
    const p = psnr(gpuRgb, refRgb);
    console.log(`${name}: PSNR ${p.toFixed(1)} dB, max abs error ${maxAbsError(gpuRgb, refRgb).toFixed(3)}, ${ref.drawn} splats drawn`);
    // Not a blank image on both sides (which would match trivially).
    expect(ref.drawn).toBeGreaterThan(cloud.count / 4);
    expect(refRgb.reduce((a, v) => a + v, 0) / refRgb.length).toBeGreaterThan(0.02);
    expect(p).toBeGreaterThan(MIN_PSNR_VS_REFERENCE);
  };
}

describe('GPU render vs CPU reference rasteriser', () => {
  it.runIf(haveSharedScenes())('real scene inria_sh3_tile_1971 (SH3), 128x96', async () => {
    const bytes = fs.readFileSync(sharedScene('inria_sh3_tile_1971.ply'));
    const cloud = await loadScene(bytes, 'inria_sh3_tile_1971.ply');
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 128 / 96);
    await compareWithReference('inria1971', cloud, pose, 128, 96, { shDegree: 3, splatScale: 1, background: [0, 0, 0] })();
  });

  it('generated scene from an oblique view, SH1, splat scale 0.7, grey background', async () => {
    const cloud = generateDefaultScene(3000);
    const fit = fitPose(robustBounds(cloud.positions), upVector('-y'), 50, 160 / 100);
    const pose: CameraPose = { ...fit, eye: [fit.eye[0] + 3, fit.eye[1] - 2, fit.eye[2]] };
    await compareWithReference('default3000', cloud, pose, 160, 100, { shDegree: 1, splatScale: 0.7, background: [0.2, 0.2, 0.25] })();
  });
});

describe('golden image', () => {
  it('default scene (8,000 splats) at 160x120 matches test/golden/default-160x120.png', async () => {
    const cloud = generateDefaultScene(8000);
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 160 / 120);
    const rgba = await renderGpu(cloud, pose, 160, 120, { shDegree: 3, splatScale: 1, background: [0, 0, 0] });
    writePng(path.join(OUT, 'golden-default-actual.png'), rgba, 160, 120);
    if (process.env.UPDATE_GOLDEN) {
      writePng(GOLDEN, rgba, 160, 120);
      console.log(`wrote ${GOLDEN}`);
    }
    expect(fs.existsSync(GOLDEN), 'golden image missing: run with UPDATE_GOLDEN=1 and look at it').toBe(true);
    const golden = PNG.sync.read(fs.readFileSync(GOLDEN));
    expect([golden.width, golden.height]).toEqual([160, 120]);
    const p = psnr(rgbOf(rgba), rgbOf(new Uint8Array(golden.data)));
    console.log(`golden: PSNR ${p.toFixed(1)} dB`);
    expect(p).toBeGreaterThan(MIN_PSNR_VS_GOLDEN);
  });
});
