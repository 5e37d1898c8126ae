/**
 * The project pass on a real adapter against a CPU computation: every splat in front
 * of the near plane whose 3-sigma sphere touches the frustum and whose opacity can
 * reach the fragment test's 1/255 is appended once, with its depth key; nothing else
 * is (so a splat under 1/255 is never sorted nor drawn).
 */
import { describe, expect, it } from 'vitest';
import { readBuffer } from '../../renderer/gpu/node-gpu';
import { fitPose, nearFar, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { FrameUniforms, type FrameCamera, type FrameSettings } from '../../renderer/stage/frame-uniforms';
import { covariance3D, depthKey, makeCameraFrame, projectCovariance, transformPoint } from '../reference/forward-model';
import type { ScenePrecision } from '../../renderer/gpu-scene/scene-precision';
import { GpuScene } from '../../renderer/gpu-scene/gpu-scene';
import { ProjectPass } from '../../renderer/project/project-pass';
import { PagedBuffer, sortPagingFor } from '../../renderer/gpu-scene/paging';
import { generateSynthetic } from '../../scenes/generate';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { readPagesU32, useGpu, withValidation } from '../support/gpu';

const ctx = useGpu();

/**
 * A scene on the GPU with a project pass over it and its (key, id) and draw-argument
 * buffers: `run` projects once with a camera and settings and reads back what was
 * appended (the draw arguments, the keys, the ids).
 */
function projectRig(device: GPUDevice, cloud: SplatCloud, precision: ScenePrecision = 'full', sortBindingBytes = Infinity) {
  // Full by default: the cases below test the cull's arithmetic on the cloud's exact values.
  const scene = new GpuScene(device, cloud, undefined, { precision });
  const uniforms = new FrameUniforms(device);
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC;
  // The keys and ids in pages under a small binding limit (sortBindingBytes), as a scene
  // of more splats than a binding holds u32s has them.
  const keys = new PagedBuffer(device, 'test.keys', sortPagingFor(cloud.count, sortBindingBytes), usage);
  const values = new PagedBuffer(device, 'test.values', sortPagingFor(cloud.count, sortBindingBytes), usage);
  const readPages = (b: PagedBuffer) => readPagesU32(device, b.buffers, b.paging.pageSplats, cloud.count);
  const drawArgs = device.createBuffer({ label: 'test.drawArgs', size: 16, usage: usage | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
  const pass = new ProjectPass(device, { frame: uniforms.buffer, scene, keys, values, drawArgs }, cloud.count);
  return {
    async run(cam: FrameCamera, settings: FrameSettings) {
      device.queue.writeBuffer(drawArgs, 0, new Uint32Array([4, 0, 0, 0]));
      uniforms.write(cam, settings, scene);
      const enc = device.createCommandEncoder();
      pass.encode(enc);
      device.queue.submit([enc.finish()]);
      return {
        args: new Uint32Array(await readBuffer(device, drawArgs)),
        keys: await readPages(keys),
        ids: await readPages(values),
        pages: keys.paging.pages,
      };
    },
    destroy() {
      scene.destroy();
      uniforms.destroy();
      keys.destroy();
      values.destroy();
      drawArgs.destroy();
    },
  };
}

describe('project pass (depth keys + frustum cull + append)', () => {
  for (const [cull, sortBindingBytes] of [[true, Infinity], [false, Infinity], [true, 16384]] as const) {
    const paged = sortBindingBytes < Infinity ? `, keys and ids in pages of ${sortBindingBytes / 4} (a binding of ${sortBindingBytes} bytes)` : '';
    it(`matches the CPU ${cull ? 'with' : 'without'} culling${paged}`, async () => {
      const { device } = ctx.gpu;
      const cloud = generateSynthetic(20_000, 7);
      // Every 5th splat below the fragment test's 1/255 (never drawn), every 7th exactly at it
      // (kept: it reaches 1/255 at its centre), every 11th just above.
      const MIN_ALPHA = Math.fround(1 / 255);
      for (let i = 0; i < cloud.count; i++) {
        if (i % 5 === 0) cloud.opacities[i] = (i % 3) * 0.0015;
        else if (i % 7 === 0) cloud.opacities[i] = MIN_ALPHA;
        else if (i % 11 === 0) cloud.opacities[i] = 0.0040;
      }
      const width = 320, height = 200;
      // A close-up from inside the scene: many splats behind the camera or off screen.
      const fit = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, width / height);
      const pose = { ...fit, eye: [fit.target[0] + (fit.eye[0] - fit.target[0]) * 0.3, fit.target[1] + (fit.eye[1] - fit.target[1]) * 0.3, fit.target[2] + (fit.eye[2] - fit.target[2]) * 0.3] as [number, number, number] };
      const cam = frameCamera(pose, width, height, cloud.bounds);
      expect(nearFar(pose, cloud.bounds).near).toBeCloseTo(cam.near);

      await withValidation(device, async () => {
        const rig = projectRig(device, cloud, 'full', sortBindingBytes);
        const { args, keys: gpuKeys, ids: gpuIds, pages } = await rig.run(cam, { shDegree: 3, splatScale: 1, cull, keyBits: 32 });
        // Paged: the appended pairs cross at least one page seam.
        if (paged) expect(args[1]).toBeGreaterThan(sortBindingBytes / 4);
        expect(pages).toBe(paged ? Math.ceil(cloud.count / (sortBindingBytes / 4)) : 1);

        // CPU: the same test in double precision; splats within a hair of a plane may go either way.
        const tx = Math.tan((pose.fovyDeg * Math.PI) / 360) * (width / height);
        const ty = Math.tan((pose.fovyDeg * Math.PI) / 360);
        const expected = new Map<number, number>();
        const borderline = new Set<number>();
        for (let i = 0; i < cloud.count; i++) {
          const p = [cloud.positions[3 * i], cloud.positions[3 * i + 1], cloud.positions[3 * i + 2]];
          const v = transformPoint(cam.view, p);
          const d = -v[2];
          const r = 3 * Math.max(cloud.scales[3 * i], cloud.scales[3 * i + 1], cloud.scales[3 * i + 2]);
          const margins = [d - cam.near];
          if (cull) {
            margins.push(r - (Math.abs(v[0]) - d * tx) / Math.sqrt(1 + tx * tx));
            margins.push(r - (Math.abs(v[1]) - d * ty) / Math.sqrt(1 + ty * ty));
            margins.push(cam.far - (d - r));
          }
          if (margins.some((m) => Math.abs(m) < 1e-4 * (1 + Math.abs(d)))) borderline.add(i);
          if (margins.every((m) => m > 0) && cloud.opacities[i] >= MIN_ALPHA) expected.set(i, depthKey(d));
        }
        const count = args[1];
        expect(args[0]).toBe(4);
        expect(count).toBeGreaterThan(100);
        expect(count).toBeLessThan(cloud.count);
        const seen = new Set<number>();
        for (let j = 0; j < count; j++) {
          const id = gpuIds[j];
          expect(seen.has(id)).toBe(false);
          seen.add(id);
          expect(cloud.opacities[id], `splat ${id} under 1/255 appended`).toBeGreaterThanOrEqual(MIN_ALPHA);
          const want = expected.get(id);
          if (want === undefined) {
            expect(borderline.has(id), `splat ${id} appended but outside`).toBe(true);
            continue;
          }
          // f32 on the GPU vs f64 here: a few ulps of depth.
          expect(Math.abs(gpuKeys[j] - want)).toBeLessThanOrEqual(64);
        }
        // The cases above were exercised: kept at and above the threshold, dropped below it.
        expect([...seen].some((id) => id % 7 === 0 && id % 5 !== 0)).toBe(true);
        expect([...seen].some((id) => id % 11 === 0 && id % 5 !== 0 && id % 7 !== 0)).toBe(true);
        for (const id of expected.keys()) {
          if (!seen.has(id)) expect(borderline.has(id), `splat ${id} visible but not appended`).toBe(true);
        }
        rig.destroy();
      });
    });
  }
});

describe('the contribution cull (FrameSettings.minContribution)', () => {
  it("drops exactly the splats whose alpha integrated over the screen is under the threshold", async () => {
    const { device } = ctx.gpu;
    const cloud = generateSynthetic(20_000, 11);
    const width = 320, height = 200;
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, width / height);
    const cam = frameCamera(pose, width, height, cloud.bounds);
    const frame = makeCameraFrame({ ...pose, near: cam.near, far: cam.far }, width, height);
    // The CPU contribution of each splat in front of the near plane: opacity 2 pi sqrt(det)
    // of its pixel covariance (the forward model's EWA, low-pass included).
    const contribution = new Float64Array(cloud.count).fill(-1);
    for (let i = 0; i < cloud.count; i++) {
      const p = [cloud.positions[3 * i], cloud.positions[3 * i + 1], cloud.positions[3 * i + 2]];
      const t = transformPoint(cam.view, p);
      if (!(-t[2] > cam.near) || !(cloud.opacities[i] >= Math.fround(1 / 255))) continue;
      const cov = covariance3D([cloud.scales[3 * i], cloud.scales[3 * i + 1], cloud.scales[3 * i + 2]], [cloud.rotations[4 * i], cloud.rotations[4 * i + 1], cloud.rotations[4 * i + 2], cloud.rotations[4 * i + 3]]);
      const proj = projectCovariance(cov, [t[0], t[1], t[2]], frame);
      contribution[i] = proj ? cloud.opacities[i] * 2 * Math.PI * Math.sqrt(proj.det) : 0;
    }
    const positive = [...contribution].filter((c) => c >= 0).sort((a, b) => a - b);
    const threshold = positive[Math.floor(positive.length / 2)]!; // about half dropped

    await withValidation(device, async () => {
      const rig = projectRig(device, cloud);
      const appended = async (minContribution: number) => {
        const { args, ids } = await rig.run(cam, { shDegree: 3, splatScale: 1, cull: false, keyBits: 32, minContribution });
        return new Set(ids.subarray(0, args[1]));
      };
      const all = await appended(0);
      const kept = await appended(threshold);
      expect(all.size).toBe(positive.length);
      expect(kept.size).toBeGreaterThan(positive.length * 0.3);
      expect(kept.size).toBeLessThan(positive.length * 0.7);
      let borderline = 0;
      for (let i = 0; i < cloud.count; i++) {
        const c = contribution[i];
        if (c < 0) {
          expect(all.has(i), `splat ${i} behind the near plane or under 1/255 appended`).toBe(false);
          continue;
        }
        // f32 on the GPU vs f64 here: within a part in 10^4 of the threshold either way.
        if (Math.abs(c - threshold) <= 1e-4 * threshold) {
          borderline++;
          continue;
        }
        expect(kept.has(i), `splat ${i}: contribution ${c} vs threshold ${threshold}`).toBe(c >= threshold);
      }
      expect(borderline).toBeLessThan(20);
      rig.destroy();
    });
  });
});
