/**
 * The host-depth tests' scene and host (test/gpu/host-depth.test.ts, the renderer's;
 * test/gpu/viewer-draw-over.test.ts, Viewer.drawOver's): inria_sh3_tile_1971 at W x H,
 * a host depth ramp cutting it (written as a host's depth pass writes it), the CPU
 * references with and without the cut, over the host's colour.
 */
import fs from 'node:fs';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { loadScene } from '../../scenes/load';
import { rasterizeReference } from '../reference/raster';
import { sharedScene } from './shared-scenes';

export const W = 128, H = 96;
/** The host projection's planes. */
export const HOST = { near: 0.05, far: 100 };
/** The host's picture before the splats: one colour (as a host's clear). */
export const HOST_COLOR: [number, number, number] = [0.2, 0.3, 0.5];

/**
 * The host's depth pass: a full-screen triangle whose fragment at pixel centre x writes
 * the NDC z of the view depth d0 + (d1 - d0) x / W (the ramp `limit` of the test), as a
 * host's mesh pass writes its depth (a depth32float texture cannot be written by a copy).
 */
export function writeHostDepth(device: GPUDevice, texture: GPUTexture, d0: number, d1: number, reversed: boolean): void {
  const stencil = texture.format.includes('stencil');
  const f = (v: number) => v.toPrecision(17).replace(/e\+?/, 'e');
  const { near: n, far: fa } = HOST;
  const module = device.createShaderModule({
    label: 'test.hostDepth.module',
    code: `
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let p = vec2f(f32((i << 1u) & 2u), f32(i & 2u));
  return vec4f(p * 4.0 - 1.0, 0.5, 1.0);
}
@fragment fn fs(@builtin(position) pos: vec4f) -> @builtin(frag_depth) f32 {
  let d = ${f(d0)} + ${f(d1 - d0)} * pos.x / ${f(W)};
  return ${reversed ? `${f(n)} * (${f(fa)} - d) / (d * ${f(fa - n)})` : `${f(fa)} * (d - ${f(n)}) / (d * ${f(fa - n)})`};
}`,
  });
  const pipeline = device.createRenderPipeline({
    label: 'test.hostDepth',
    layout: 'auto',
    vertex: { module, entryPoint: 'vs' },
    fragment: { module, entryPoint: 'fs', targets: [] },
    depthStencil: { format: texture.format, depthWriteEnabled: true, depthCompare: 'always' },
  });
  const encoder = device.createCommandEncoder();
  const stencilOps = stencil ? { stencilLoadOp: 'clear' as const, stencilStoreOp: 'store' as const } : {};
  const pass = encoder.beginRenderPass({ colorAttachments: [], depthStencilAttachment: { view: texture.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'store', ...stencilOps } });
  pass.setPipeline(pipeline);
  pass.draw(3);
  pass.end();
  device.queue.submit([encoder.finish()]);
}

/** An r32float texture's texels (rows of 128 floats: bytesPerRow a multiple of 256 at W = 128). */
export async function readR32(device: GPUDevice, texture: GPUTexture): Promise<Uint8Array> {
  const buffer = device.createBuffer({ size: W * H * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow: W * 4 }, { width: W, height: H });
  device.queue.submit([encoder.finish()]);
  await buffer.mapAsync(GPUMapMode.READ);
  const bytes = new Uint8Array(buffer.getMappedRange().slice(0));
  buffer.destroy();
  return bytes;
}

/**
 * The scene both draws are cut in: inria_sh3_tile_1971 fitted at W x H, a host depth ramp
 * across the image from its 30th to its 70th depth percentile, the references with
 * (`cutRef`, `cut`: clamped) and without (`whole`) that cut, over HOST_COLOR.
 */
export async function hostScene() {
  const cloud = await loadScene(fs.readFileSync(sharedScene('inria_sh3_tile_1971.ply')), 'inria_sh3_tile_1971.ply');
  const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, W / H);
  const cam = frameCamera(pose, W, H, cloud.bounds);
  // The splats' view depths along the camera's forward axis: the ramp's ends.
  const fwd = pose.target.map((t, a) => t - pose.eye[a]!);
  const len = Math.hypot(...fwd);
  const depths: number[] = [];
  for (let i = 0; i < cloud.count; i++) {
    let d = 0;
    for (let a = 0; a < 3; a++) d += (cloud.positions[i * 3 + a]! - pose.eye[a]!) * (fwd[a]! / len);
    if (d > cam.near) depths.push(d);
  }
  depths.sort((a, b) => a - b);
  const [d0, d1] = [depths[Math.floor(depths.length * 0.3)]!, depths[Math.floor(depths.length * 0.7)]!];
  const limit = (px: number) => d0 + ((d1 - d0) * (px + 0.5)) / W;

  // The background setting is not used over a host (its picture is): the plain frame draws it.
  const settings = { shDegree: 3, splatScale: 1, cull: true, keyBits: 32, background: HOST_COLOR };
  const spec = { ...pose, near: cam.near, far: cam.far };
  const clamp = (rgb: Float32Array) => rgb.map((v) => Math.min(1, Math.max(0, v)));
  // Over the host's picture (HOST_COLOR where no splat is): the reference's background.
  const cutRef = rasterizeReference(cloud, spec, { width: W, height: H, shDegree: 3, depthLimit: limit, halfDepth: true, background: HOST_COLOR });
  const cut = clamp(cutRef.rgb);
  const whole = clamp(rasterizeReference(cloud, spec, { width: W, height: H, shDegree: 3, background: HOST_COLOR }).rgb);
  return { cloud, pose, cam, d0, d1, settings, cutRef, cut, whole };
}
