/**
 * The coverage counter of the raster floor (SplatRenderer.measureCoverage), which lets
 * docs/PERFORMANCE.md split the draw into area and per-splat costs:
 * - `contributing` equals the number of (splat, pixel) pairs whose alpha passes the
 *   forward model's fragment test, counted on the CPU with the reference's functions;
 * - `covered` orders the geometries by their area (octagon < hexagon < rectangle <
 *   3-sigma quad; the triangle above the rectangle), never below `contributing`.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import type { DrawGeometry } from '../../renderer/draw/quads/quads-draw';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { loadScene } from '../../scenes/load';
import { covariance3D, fragmentAlpha, makeCameraFrame, projectSplat } from '../reference/forward-model';
import { useGpu, withValidation } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';

const ctx = useGpu();

describe('coverage counter', () => {
  it.runIf(haveSharedScenes())('counts the contributing fragments the CPU counts, and each geometry\'s area', async () => {
    const { device } = ctx.gpu;
    const cloud = await loadScene(fs.readFileSync(sharedScene('inria_sh3_tile_6831.ply')), 'inria_sh3_tile_6831.ply');
    const w = 160, h = 120;
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, w / h);
    const cam = frameCamera(pose, w, h, cloud.bounds);

    // CPU: pixel centres inside each drawn splat's footprint whose alpha passes the test.
    const frame = makeCameraFrame({ ...pose, near: cam.near, far: cam.far }, w, h);
    let expected = 0;
    for (let i = 0; i < cloud.count; i++) {
      const p = projectSplat(frame, cloud.positions.subarray(3 * i, 3 * i + 3), covariance3D(cloud.scales.subarray(3 * i, 3 * i + 3), cloud.rotations.subarray(4 * i, 4 * i + 4)));
      if (!p) continue;
      const [cx, cy] = p.center;
      const r = p.radius;
      for (let py = Math.max(0, Math.ceil(cy - r - 0.5)); py <= Math.min(h - 1, Math.floor(cy + r - 0.5)); py++) {
        for (let px = Math.max(0, Math.ceil(cx - r - 0.5)); px <= Math.min(w - 1, Math.floor(cx + r - 0.5)); px++) {
          if (fragmentAlpha(cloud.opacities[i], p.conic, px + 0.5 - cx, py + 0.5 - cy) > 0) expected++;
        }
      }
    }

    const counts = await withValidation(device, async () => {
      const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4');
      renderer.setScene(cloud);
      const target = device.createTexture({ size: { width: w, height: h }, format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT });
      const out: Partial<Record<DrawGeometry, { covered: number; contributing: number }>> = {};
      for (const geometry of ['quad', 'rect', 'hex', 'oct', 'tri'] as DrawGeometry[]) {
        out[geometry] = await renderer.measureCoverage(target.createView(), cam, {
          shDegree: 3, splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0], geometry,
        });
      }
      target.destroy();
      renderer.destroy();
      return out as Record<DrawGeometry, { covered: number; contributing: number }>;
    });
    console.log(`contributing: CPU ${expected}; GPU covered/contributing ` + Object.entries(counts).map(([g, c]) => `${g} ${c.covered}/${c.contributing}`).join(', '));

    expect(expected).toBeGreaterThan(10_000);
    for (const c of Object.values(counts)) {
      // f32 on the GPU vs f64 here: fragments on the contour may go either way.
      expect(Math.abs(c.contributing - expected)).toBeLessThanOrEqual(expected * 1e-3);
      expect(c.covered).toBeGreaterThanOrEqual(c.contributing);
    }
    expect(counts.oct.covered).toBeLessThan(counts.hex.covered);
    expect(counts.hex.covered).toBeLessThan(counts.rect.covered);
    expect(counts.rect.covered).toBeLessThanOrEqual(counts.quad.covered);
    expect(counts.tri.covered).toBeGreaterThan(counts.rect.covered);
    // The octagon is within ~10% of the contour's own area (regular octagon / circle = 1.055).
    expect(counts.oct.covered).toBeLessThan(counts.oct.contributing * 1.15);
  });
});
