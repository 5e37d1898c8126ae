/**
 * Auto's probes (profile/auto-draw.ts DrawTrial): a window of the view drawn with
 * windowCamera is the same pixels as that part of the full frame, with either draw;
 * a window outside the view draws only the background; and the draw not in use,
 * probed through SplatRenderer.prepareProbeDraw / encodeProbeFrame, draws its own
 * picture while the draw in use stays, and becomes the draw in use on setDraw.
 */
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera, windowCamera } from '../../renderer/camera/frame-camera';
import type { FrameCamera } from '../../renderer/frame/splat-renderer';
import { readTextureRgba, renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { generateDefaultScene } from '../../scenes/generate';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { rgbOf } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const settings = { shDegree: 1, splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0] as [number, number, number], sort: true };
const W = 128;
const H = 96;

/** The w x h region at (x, y) of a W-wide RGBA image. */
function crop(rgba: Uint8Array, x: number, y: number, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h * 4);
  for (let r = 0; r < h; r++) out.set(rgba.subarray(((y + r) * W + x) * 4, ((y + r) * W + x + w) * 4), r * w * 4);
  return out;
}

/** One frame of the probe path (encodeProbeFrame) into a w x h texture, read back as RGBA over an opaque background. */
async function probeImage(device: GPUDevice, renderer: SplatRenderer, camera: FrameCamera): Promise<Uint8Array> {
  const { width, height } = camera;
  const texture = device.createTexture({ size: { width, height }, format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
  // The draw's first frames size its buffers from what they counted: draw until it has settled.
  for (let i = 0; i < 4; i++) {
    const encoder = device.createCommandEncoder();
    renderer.encodeProbeFrame(encoder, texture.createView(), camera, settings);
    device.queue.submit([encoder.finish()]);
    renderer.probeSubmitted();
    await device.queue.onSubmittedWorkDone();
    await new Promise((r) => setTimeout(r, 20));
  }
  const rgba = await readTextureRgba(device, texture, true);
  texture.destroy();
  return rgba;
}

describe("auto's probes: windows of the view", () => {
  it('a window is the same pixels as that part of the full frame (quads and tiles); one outside the view is background; the probed draw is its own', async () => {
    const { device } = ctx.gpu;
    const cloud = generateDefaultScene(3000);
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 50, W / H);
    const full = frameCamera(pose, W, H, cloud.bounds);
    const windows = [
      { x: 40, y: 24, width: 32, height: 24 },
      { x: 60, y: 40, width: 40, height: 36 },
    ];
    await withValidation(device, async () => {
      const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix16');
      renderer.setScene(cloud);
      for (const draw of ['quads', 'tiles'] as const) {
        renderer.setDraw(draw);
        const whole = (await renderOffscreen(renderer, full, settings)).rgba;
        writeTestPng(`window-full-${draw}.png`, whole, W, H);
        for (const win of windows) {
          const part = (await renderOffscreen(renderer, windowCamera(full, win), settings)).rgba;
          writeTestPng(`window-${win.x}-${win.y}-${draw}.png`, part, win.width, win.height);
          const p = psnr(rgbOf(part), rgbOf(crop(whole, win.x, win.y, win.width, win.height)));
          expect(p).toBeGreaterThan(45);
          // Not an empty corner: the window shows splats.
          const lit = rgbOf(part).filter((v) => v > 0.08).length / 3;
          console.log(`${draw}: window ${win.width}x${win.height} at ${win.x},${win.y}: ${p.toFixed(1)} dB against the full frame's pixels, ${((100 * lit) / (win.width * win.height)).toFixed(0)}% lit`);
          expect(lit).toBeGreaterThan(win.width * win.height * 0.1);
        }
        const outside = (await renderOffscreen(renderer, windowCamera(full, { x: W + 8, y: 0, width: 16, height: 16 }), settings)).rgba;
        expect(rgbOf(outside).every((v) => v === 0)).toBe(true);
      }
      // quads in use; tiles probed on the side: tiles' picture, quads still in use, then adopted by setDraw.
      renderer.setDraw('tiles');
      const tilesWhole = (await renderOffscreen(renderer, full, settings)).rgba;
      renderer.setDraw('quads');
      renderer.prepareProbeDraw('tiles');
      const win = windows[0]!;
      const probed = await probeImage(device, renderer, windowCamera(full, win));
      expect(renderer.draw).toBe('quads');
      expect(psnr(rgbOf(probed), rgbOf(crop(tilesWhole, win.x, win.y, win.width, win.height)))).toBeGreaterThan(45);
      renderer.setDraw('tiles');
      expect(renderer.tileStatus?.capacity).toBeGreaterThan(0);
      expect(psnr(rgbOf((await renderOffscreen(renderer, full, settings)).rgba), rgbOf(tilesWhole))).toBeGreaterThan(60);
      renderer.destroy();
    });
  });
});
