import type { EncodeOptions, FrameCamera, FrameSettings, SplatRenderer } from './splat-renderer';
import { canBlendInto } from '../draw/tiles/tile-pipelines';

export interface OffscreenImage {
  width: number;
  height: number;
  /** Tightly packed RGBA8, row 0 at the top, straight colour over the background (alpha 255). */
  rgba: Uint8Array;
}

/**
 * Renders one frame into an offscreen texture of the renderer's format and reads it
 * back: the headless path (render CLI, golden images, tests). Same pipeline as the
 * page; only the target differs.
 */
export async function renderOffscreen(
  renderer: SplatRenderer,
  camera: FrameCamera,
  settings: FrameSettings & EncodeOptions,
  options: { firstFrame?: boolean } = {},
): Promise<OffscreenImage> {
  const device = renderer.device;
  const { width, height } = camera;
  const format = renderer.format;
  if (format !== 'rgba8unorm' && format !== 'bgra8unorm') {
    throw new Error(`renderOffscreen: format ${format} is not 8-bit RGBA/BGRA`);
  }
  // A target the tiles draw can write directly (no image copied onto it), as a canvas configured for it.
  const storage = canBlendInto(device, format);
  const texture = device.createTexture({
    label: 'renderOffscreen.target',
    size: { width, height },
    format,
    usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC | (storage ? GPUTextureUsage.STORAGE_BINDING : 0),
  });
  const bytesPerRow = Math.ceil((width * 4) / 256) * 256;
  const readback = device.createBuffer({
    label: 'renderOffscreen.readback',
    size: bytesPerRow * height,
    usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
  });
  // A frame drawn before a host sort's order arrived (the CPU strategy), or drawn by the
  // tiles draw's fallback, is drawn again once the order is in or the pair buffers
  // have grown (a live view does that on its next frame; a one-shot render waits),
  // unless the caller wants the first frame as it was drawn (`firstFrame`).
  for (let attempt = 0; ; attempt++) {
    const encoder = device.createCommandEncoder({ label: 'renderOffscreen.encoder' });
    renderer.encodeFrame(encoder, texture.createView(), camera, { ...settings, targetStorage: storage });
    encoder.copyTextureToBuffer({ texture }, { buffer: readback, bytesPerRow }, { width, height });
    device.queue.submit([encoder.finish()]);
    renderer.submitted();
    if (!(await renderer.settle()) || options.firstFrame || attempt >= 2) break;
  }
  await readback.mapAsync(GPUMapMode.READ);
  const src = new Uint8Array(readback.getMappedRange());
  const rgba = new Uint8Array(width * height * 4);
  const swap = format === 'bgra8unorm';
  for (let y = 0; y < height; y++) {
    const row = src.subarray(y * bytesPerRow, y * bytesPerRow + width * 4);
    const out = rgba.subarray(y * width * 4, (y + 1) * width * 4);
    out.set(row);
    if (swap) {
      for (let x = 0; x < width * 4; x += 4) {
        out[x] = row[x + 2];
        out[x + 2] = row[x];
      }
    }
    // The blended alpha is coverage; the image is colour over an opaque background.
    for (let x = 3; x < width * 4; x += 4) out[x] = 255;
  }
  readback.unmap();
  readback.destroy();
  texture.destroy();
  return { width, height, rgba };
}
