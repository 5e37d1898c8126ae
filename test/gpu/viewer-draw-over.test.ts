/**
 * Viewer.drawOver (docs/API.md "Composing with a host") through the library in Node: a
 * host sharing the viewer's device (createViewer({ device })) has drawn its picture (a
 * colour) and its depth (a ramp cutting inria_sh3_tile_1971, test/support/host-scene.ts)
 * for its own camera, given as its matrices (view, a WebGPU [0, 1] projection, standard
 * and reversed-Z) or as a pose; the viewer draws its scene over them for that camera.
 * Both draws match the CPU reference with the same cut (>= 40 dB); without the host's
 * depth nothing is hidden (the uncut reference); the tiles draw writes a depth for the
 * host, the quads draw refuses to (CompositionRefused); a colour of another format is
 * refused.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CompositionRefused, createViewer, type DrawOverOptions, type Viewer } from '../../renderer/api/index';
import { projectionMatrix, viewMatrix } from '../../renderer/camera/camera';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { H, HOST, HOST_COLOR, hostScene, readR32, W, writeHostDepth } from '../support/host-scene';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { rgbOf } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const MIN_PSNR = 40;

/** The host's WebGPU reversed-Z projection: z = near (far - d) / (d (far - near)). */
function reversedProjection(fovyDeg: number, aspect: number, near: number, far: number): Float32Array {
  const p = projectionMatrix(fovyDeg, aspect, near, far);
  p[10] = near / (far - near);
  p[14] = (near * far) / (far - near);
  return p;
}

/** `draw` called over a host colour cleared to HOST_COLOR, three times (the tiles draw's first frames size its buffers), read back. */
async function hostFrame(device: GPUDevice, draw: (color: GPUTexture) => void): Promise<Uint8Array> {
  const color = device.createTexture({ size: { width: W, height: H }, format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
  const buffer = device.createBuffer({ size: W * H * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  for (let i = 0; i < 3; i++) {
    const [r, g, b] = HOST_COLOR;
    const encoder = device.createCommandEncoder();
    encoder.beginRenderPass({ colorAttachments: [{ view: color.createView(), loadOp: 'clear', clearValue: { r, g, b, a: 1 }, storeOp: 'store' }] }).end();
    device.queue.submit([encoder.finish()]);
    draw(color);
    await device.queue.onSubmittedWorkDone();
  }
  const encoder = device.createCommandEncoder();
  encoder.copyTextureToBuffer({ texture: color }, { buffer, bytesPerRow: W * 4 }, { width: W, height: H });
  device.queue.submit([encoder.finish()]);
  await buffer.mapAsync(GPUMapMode.READ);
  const rgba = new Uint8Array(buffer.getMappedRange().slice(0));
  buffer.destroy();
  color.destroy();
  return rgba;
}

describe.runIf(haveSharedScenes())('Viewer.drawOver: the scene over a host picture and depth, for the host camera', () => {
  it('quads and tiles: cut by the host depth as the reference (matrices standard and reversed-Z, a pose), nothing hidden without it; tiles writes a depth for the host, quads refuses', async () => {
    const device = ctx.gpu.device;
    const { pose, d0, d1, cut, whole, cutRef } = await hostScene();
    const bytes = fs.readFileSync(sharedScene('inria_sh3_tile_1971.ply'));
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const viewer: Viewer = await createViewer({ width: 16, height: 16 }, { device, scene: buffer, sort: 'radix4', draw: 'quads', background: '#000000', controls: false, shDegree: 3 });
    await viewer.ready;
    expect(viewer.format).toBe('rgba8unorm');
    const view = viewMatrix(pose);
    const standard = { view, projection: projectionMatrix(pose.fovyDeg, W / H, HOST.near, HOST.far) };
    const reversed = { view, projection: reversedProjection(pose.fovyDeg, W / H, HOST.near, HOST.far) };
    const depthOf = (isReversed: boolean, format: GPUTextureFormat = 'depth32float') => {
      const texture = device.createTexture({ size: { width: W, height: H }, format, usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT });
      writeHostDepth(device, texture, d0, d1, isReversed);
      return texture;
    };
    const [depthStd, depthRev] = [depthOf(false), depthOf(true)];
    const output = device.createTexture({ size: { width: W, height: H }, format: 'r32float', usage: GPUTextureUsage.STORAGE_BINDING | GPUTextureUsage.COPY_SRC });
    const figures: string[] = [];
    try {
      await withValidation(device, async () => {
        for (const draw of ['quads', 'tiles'] as const) {
          expect(viewer.setDraw(draw)).toBe(true);
          const cases: [string, (color: GPUTexture) => DrawOverOptions, Float32Array][] = [
            ['matrices', (color) => ({ color, camera: standard, depth: { texture: depthStd } }), cut],
            ['matrices, reversed-Z', (color) => ({ color, camera: reversed, depth: { texture: depthRev } }), cut],
            ['pose', (color) => ({ color, camera: pose, depth: { texture: depthStd, ...HOST } }), cut],
            ['no host depth', (color) => ({ color, camera: standard }), whole],
          ];
          for (const [name, options, reference] of cases) {
            const rgba = await hostFrame(device, (color) => viewer.drawOver(options(color)));
            if (name === 'matrices') writeTestPng(`draw-over-${draw}.png`, rgba, W, H);
            const db = psnr(rgbOf(rgba), reference);
            figures.push(`${draw} ${name} ${db.toFixed(1)} dB`);
            expect(db, `${draw}, ${name}`).toBeGreaterThan(MIN_PSNR);
          }
          const withOutput = (color: GPUTexture): DrawOverOptions => ({ color, camera: standard, depth: { texture: depthStd }, outputDepth: { texture: output } });
          if (draw === 'quads') {
            await hostFrame(device, (color) => expect(() => viewer.drawOver(withOutput(color))).toThrow(CompositionRefused));
          } else {
            await hostFrame(device, (color) => viewer.drawOver(withOutput(color)));
            // The host's NDC z back to a view depth, against the reference's opacity-0.5 depth (its planes the projection's).
            const z = new Float32Array((await readR32(device, output)).buffer);
            const half = cutRef.halfDepth!;
            let agree = 0;
            for (let j = 0; j < W * H; j++) {
              const d = z[j]! >= 1 ? Infinity : HOST.near / (1 - z[j]! * (1 - HOST.near / HOST.far));
              if (d === half[j] || Math.abs(d - half[j]!) <= 0.01 * d1) agree++;
            }
            figures.push(`tiles outputDepth: ${agree} of ${W * H} pixels agree`);
            expect(agree).toBeGreaterThan(0.95 * W * H);
          }
        }
        const bgra = device.createTexture({ size: { width: W, height: H }, format: 'bgra8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT });
        expect(() => viewer.drawOver({ color: bgra, camera: standard })).toThrow(/rgba8unorm/);
        bgra.destroy();
      });
    } finally {
      console.log(`drawOver vs the reference: ${figures.join('; ')}`);
      depthStd.destroy();
      depthRev.destroy();
      output.destroy();
      viewer.destroy();
    }
  });
});
