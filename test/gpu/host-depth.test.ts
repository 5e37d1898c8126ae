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
 * The quads draw, the same: its polygons at their splat centres' depths in the host's NDC
 * convention, tested by the hardware against the host's depth as a read-only attachment
 * (depth32float standard and reversed-Z, depth24plus-stencil8); outputDepth refused.
 */
import { describe, expect, it } from 'vitest';
import type { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { CompositionRefused, SplatRenderer, type HostDepth } from '../../renderer/frame/splat-renderer';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { H, HOST, HOST_COLOR, hostScene, readR32, W, writeHostDepth } from '../support/host-scene';
import { haveSharedScenes } from '../support/shared-scenes';
import { rgbaOf, rgbOf } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const MIN_PSNR = 40;

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

describe('host depth (tiles draw)', () => {
  it.runIf(haveSharedScenes())('a host depth ramp cutting inria_sh3_tile_1971 hides the splats behind it, as the reference (standard and reversed-Z); the output depth matches the reference', async () => {
    const { device } = ctx.gpu;
    const { cloud, cam, d0, d1, settings, cutRef, cut, whole } = await hostScene();

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

describe('host depth (quads draw)', () => {
  it.runIf(haveSharedScenes())('the same host depth ramp as a read-only depth attachment hides the splats behind it, as the reference (depth32float standard and reversed-Z, depth24plus-stencil8); outputDepth is refused', async () => {
    const { device } = ctx.gpu;
    const { cloud, cam, d0, d1, settings, cut, whole } = await hostScene();
    const cases = [
      { name: 'depth32float', format: 'depth32float', reversed: false },
      { name: 'depth32float reversed-Z', format: 'depth32float', reversed: true },
      { name: 'depth24plus-stencil8', format: 'depth24plus-stencil8', reversed: false },
    ] as const;
    const images = await withValidation(device, async () => {
      const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'quads');
      renderer.setScene(cloud);
      const out: Uint8Array[] = [];
      for (const c of cases) {
        const texture = device.createTexture({ label: 'test.hostDepth', size: { width: W, height: H }, format: c.format, usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT });
        writeHostDepth(device, texture, d0, d1, c.reversed);
        const hostDepth: HostDepth = { view: texture.createView({ aspect: 'depth-only' }), texture, ...HOST, reversed: c.reversed };
        out.push(await overHost(device, renderer, cam, { ...settings, hostDepth }));
        texture.destroy();
      }
      const plain = (await renderOffscreen(renderer, cam, settings)).rgba;
      const output = device.createTexture({ size: { width: W, height: H }, format: 'r32float', usage: GPUTextureUsage.STORAGE_BINDING });
      let refused: unknown = null;
      try {
        renderer.encodeFrame(device.createCommandEncoder(), output.createView(), cam, { ...settings, outputDepth: { view: output.createView(), ...HOST } });
      } catch (e) {
        refused = e;
      }
      output.destroy();
      renderer.destroy();
      return { out, plain, refused };
    });
    writeTestPng('host-depth-quads-gpu.png', images.out[0]!, W, H);
    const figures = cases.map((c, i) => ({ name: c.name, db: psnr(rgbOf(images.out[i]!), cut) }));
    const pUncut = psnr(rgbOf(images.out[0]!), whole);
    const pPlain = psnr(rgbOf(images.plain), whole);
    console.log(`host depth (quads): PSNR ${figures.map((f) => `${f.db.toFixed(1)} dB (${f.name})`).join(', ')} vs the cut reference; ${pUncut.toFixed(1)} dB vs the uncut one; no host depth vs the uncut reference ${pPlain.toFixed(1)} dB`);
    for (const f of figures) expect(f.db, f.name).toBeGreaterThan(MIN_PSNR);
    expect(pUncut).toBeLessThan(36);
    expect(pPlain).toBeGreaterThan(MIN_PSNR);
    expect(images.refused).toBeInstanceOf(CompositionRefused);
    expect(String(images.refused)).toMatch(/tiles/);
  });
});
