/**
 * Composing with a host's depth (EncodeOptions.hostDepth, docs/API.md "Composing with a
 * host"): the tiles draw stops each pixel's blend at the host's depth. A host depth
 * surface cutting a real scene (inria_sh3_tile_1971), its view depth a ramp across the
 * image from the scene's 30th to its 70th depth percentile, written as the host's NDC z
 * (depth32float, the host's own near and far, standard and reversed-Z), hides exactly
 * the splats behind it: the picture matches the CPU reference with the same depth limit
 * (test/reference/raster.ts depthLimit) at >= 40 dB, drawn over the host's picture (a
 * target cleared to one colour: the reference's background), and the uncut reference is clearly
 * further (the test can fail). Without a host depth the frame is the plain one.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer, type HostDepth } from '../../renderer/frame/splat-renderer';
import { loadScene } from '../../scenes/load';
import { psnr, rasterizeReference } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { rgbaOf, rgbOf } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const MIN_PSNR = 40;
const W = 128, H = 96;
const HOST = { near: 0.05, far: 100 };
/** The host's picture before the splats: one colour (as a host's clear). */
const HOST_COLOR: [number, number, number] = [0.2, 0.3, 0.5];

/**
 * One frame drawn over a host's picture (a target cleared to HOST_COLOR, as a host's pass
 * leaves it) and read back; drawn again, on a cleared target, while the renderer asks
 * (the tiles draw's first frame grows its pair buffers), as renderOffscreen does.
 */
async function overHost(device: GPUDevice, renderer: SplatRenderer, cam: ReturnType<typeof frameCamera>, settings: Parameters<SplatRenderer['encodeFrame']>[3]): Promise<Uint8Array> {
  const texture = device.createTexture({ size: { width: W, height: H }, format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC | GPUTextureUsage.STORAGE_BINDING });
  const buffer = device.createBuffer({ size: W * H * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  for (let attempt = 0; ; attempt++) {
    const encoder = device.createCommandEncoder();
    const [r, g, b] = HOST_COLOR;
    encoder.beginRenderPass({ colorAttachments: [{ view: texture.createView(), loadOp: 'clear', clearValue: { r, g, b, a: 1 }, storeOp: 'store' }] }).end();
    renderer.encodeFrame(encoder, texture.createView(), cam, { ...settings, targetStorage: true });
    encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow: W * 4 }, { width: W, height: H });
    device.queue.submit([encoder.finish()]);
    renderer.submitted();
    if (!(await renderer.settle()) || attempt >= 2) break;
  }
  await buffer.mapAsync(GPUMapMode.READ);
  const rgba = new Uint8Array(buffer.getMappedRange().slice(0));
  buffer.destroy();
  texture.destroy();
  return rgba;
}

/**
 * The host's depth pass: a full-screen triangle whose fragment at pixel centre x writes
 * the NDC z of the view depth d0 + (d1 - d0) x / W (the ramp `limit` of the test), as a
 * host's mesh pass writes its depth (a depth32float texture cannot be written by a copy).
 */
function writeHostDepth(device: GPUDevice, texture: GPUTexture, d0: number, d1: number, reversed: boolean): void {
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
    depthStencil: { format: 'depth32float', depthWriteEnabled: true, depthCompare: 'always' },
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginRenderPass({ colorAttachments: [], depthStencilAttachment: { view: texture.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'store' } });
  pass.setPipeline(pipeline);
  pass.draw(3);
  pass.end();
  device.queue.submit([encoder.finish()]);
}

/** An r32float texture's texels (rows of 128 floats: bytesPerRow a multiple of 256 at W = 128). */
async function readR32(device: GPUDevice, texture: GPUTexture): Promise<Uint8Array> {
  const buffer = device.createBuffer({ size: W * H * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow: W * 4 }, { width: W, height: H });
  device.queue.submit([encoder.finish()]);
  await buffer.mapAsync(GPUMapMode.READ);
  const bytes = new Uint8Array(buffer.getMappedRange().slice(0));
  buffer.destroy();
  return bytes;
}

describe('host depth (tiles draw)', () => {
  it.runIf(haveSharedScenes())('a host depth ramp cutting inria_sh3_tile_1971 hides the splats behind it, as the reference (standard and reversed-Z); the output depth matches the reference', async () => {
    const { device } = ctx.gpu;
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

    const images = await withValidation(device, async () => {
      const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'tiles');
      renderer.setScene(cloud);
      const out: Record<string, Uint8Array> = {};
      for (const reversed of [false, true]) {
        const texture = device.createTexture({ label: 'test.hostDepth', size: { width: W, height: H }, format: 'depth32float', usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT });
        writeHostDepth(device, texture, d0, d1, reversed);
        const hostDepth: HostDepth = { view: texture.createView(), ...HOST, reversed };
        // Standard: also the depth for the host (outputDepth, the same convention).
        const output = reversed ? null : device.createTexture({ label: 'test.outputDepth', size: { width: W, height: H }, format: 'r32float', usage: GPUTextureUsage.STORAGE_BINDING | GPUTextureUsage.COPY_SRC });
        const outputDepth = output ? { outputDepth: { view: output.createView(), ...HOST } } : {};
        out[reversed ? 'reversed' : 'standard'] = await overHost(device, renderer, cam, { ...settings, hostDepth, ...outputDepth });
        if (output) {
          out.depth = await readR32(device, output);
          output.destroy();
        }
        texture.destroy();
      }
      out.plain = (await renderOffscreen(renderer, cam, settings)).rgba;
      renderer.destroy();
      return out;
    });
    writeTestPng('host-depth-tiles-gpu.png', images.standard!, W, H);
    writeTestPng('host-depth-tiles-reference.png', rgbaOf(cut), W, H);
    const pStandard = psnr(rgbOf(images.standard!), cut);
    const pReversed = psnr(rgbOf(images.reversed!), cut);
    const pUncut = psnr(rgbOf(images.standard!), whole);
    const pPlain = psnr(rgbOf(images.plain!), whole);
    const pCutVsWhole = psnr(cut, whole);
    console.log(`host depth (tiles): PSNR ${pStandard.toFixed(1)} dB (standard), ${pReversed.toFixed(1)} dB (reversed-Z) vs the cut reference; ${pUncut.toFixed(1)} dB vs the uncut one; the cut vs the uncut reference ${pCutVsWhole.toFixed(1)} dB; no host depth vs the uncut reference ${pPlain.toFixed(1)} dB`);
    expect(pCutVsWhole).toBeLessThan(36);
    expect(pStandard).toBeGreaterThan(MIN_PSNR);
    expect(pReversed).toBeGreaterThan(MIN_PSNR);
    expect(pUncut).toBeLessThan(36);
    expect(pPlain).toBeGreaterThan(MIN_PSNR);

    // The output depth: per pixel the depth where the opacity reaches 0.5, as the host's
    // NDC z; back to a view depth, against the reference's (the GPU's is the record's
    // 16-bit depth: within 2/65535 of the frame's depth range; pixels whose crossing is a
    // near tie may pick the neighbouring splat, so 98% of them are asked to agree).
    const z = new Float32Array(images.depth!.buffer);
    const half = cutRef.halfDepth!;
    const tolerance = (2 * (cam.far - cam.near)) / 65535 + 1e-4 * d1;
    let agree = 0, crossing = 0;
    for (let j = 0; j < W * H; j++) {
      const d = z[j]! >= 1 ? Infinity : HOST.near / (1 - z[j]! * (1 - HOST.near / HOST.far));
      if (Number.isFinite(half[j]!)) crossing++;
      if (d === half[j] || Math.abs(d - half[j]!) <= tolerance) agree++;
    }
    console.log(`output depth: ${agree} of ${W * H} pixels agree with the reference (${crossing} reach opacity 0.5)`);
    expect(crossing).toBeGreaterThan((W * H) / 4);
    expect(agree).toBeGreaterThan(0.98 * W * H);
  });
});
