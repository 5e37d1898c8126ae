/**
 * The tile rasteriser again on SwiftShader (SPLAT_GPU=swiftshader, set by this vitest
 * project): 256 invocations and 32 KiB of workgroup memory at most, subgroups of 4,
 * workgroups run in an order of its own. The blend's 16x16 workgroup and its 9 KiB
 * batch, the key pass's 256-wide scan and the present pass must run there as they do
 * on lavapipe: the same bound against the CPU reference. Small sizes (SwiftShader is slow).
 */
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { generateDefaultScene } from '../../scenes/generate';
import { getSorterFactory } from '../../sort/registry';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { TileHarness, referenceRgb, rgbOf } from '../support/tile-render';

const ctx = useGpu();

describe('tile rasteriser (swiftshader)', () => {
  it('matches the CPU reference on a generated scene, onto a bgra8unorm target, and grows its pair buffers', async () => {
    const { device } = ctx.gpu;
    expect(ctx.gpu.info.vendor).toBe('google');
    expect(device.limits.maxComputeInvocationsPerWorkgroup).toBe(256);
    const cloud = generateDefaultScene(600);
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 72 / 40);
    const s = { shDegree: 2, splatScale: 1, background: [0.1, 0.1, 0.1] as [number, number, number] };
    const ref = referenceRgb(cloud, pose, 72, 40, s);
    await withValidation(device, async () => {
      const h = new TileHarness(device, cloud, getSorterFactory('onesweep'), { initialPairs: 64 });
      await h.render(pose, 72, 40, s, 'bgra8unorm');
      expect(h.tiles.status.overflowed).toBe(true);
      const img = await h.render(pose, 72, 40, s, 'bgra8unorm');
      expect(h.tiles.status.overflowed).toBe(false);
      const p = psnr(rgbOf(img), ref.rgb);
      console.log(`tiles on SwiftShader: PSNR ${p.toFixed(1)} dB vs reference`);
      expect(p).toBeGreaterThan(40);
      h.destroy();
    });
  });
});
