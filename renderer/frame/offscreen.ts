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
  // A frame drawn before a host sort's order arrived (the CPU strategy), or drawn by the
  // tiles draw's fallback, is drawn again once the order is in or the pair buffers
  // have grown (a live view does that on its next frame; a one-shot render waits),
  // unless the caller wants the first frame as it was drawn (`firstFrame`).
  for (let attempt = 0; ; attempt++) {
    const encoder = device.createCommandEncoder({ label: 'renderOffscreen.encoder' });
    renderer.encodeFrame(encoder, texture.createView(), camera, { ...settings, targetStorage: storage });
    device.queue.submit([encoder.finish()]);
    renderer.submitted();
    if (!(await renderer.settle()) || options.firstFrame || attempt >= 2) break;
  }
  // The blended alpha is coverage; the image is colour over an opaque background.
  const rgba = await readTextureRgba(device, texture, true);
  texture.destroy();
  return { width, height, rgba };
}

/**
 * Reads an 8-bit RGBA or BGRA texture back: tightly packed RGBA8 (BGRA swapped), row 0 at
 * the top, alpha as stored (`opaque`: 255). After the work that drew it was submitted.
 */
export async function readTextureRgba(device: GPUDevice, texture: GPUTexture, opaque = false): Promise<Uint8Array> {
  const { width, height, format } = texture;
  if (format !== 'rgba8unorm' && format !== 'bgra8unorm') throw new Error(`readTextureRgba: format ${format} is not 8-bit RGBA/BGRA`);
  const bytesPerRow = Math.ceil((width * 4) / 256) * 256;
  const readback = device.createBuffer({ label: 'readTextureRgba.readback', size: bytesPerRow * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder({ label: 'readTextureRgba.encoder' });
  encoder.copyTextureToBuffer({ texture }, { buffer: readback, bytesPerRow }, { width, height });
  device.queue.submit([encoder.finish()]);
  await readback.mapAsync(GPUMapMode.READ);
  const src = new Uint8Array(readback.getMappedRange());
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) rgba.set(src.subarray(y * bytesPerRow, y * bytesPerRow + width * 4), y * width * 4);
  readback.unmap();
  readback.destroy();
  if (format === 'bgra8unorm') {
    for (let i = 0; i < rgba.length; i += 4) [rgba[i], rgba[i + 2]] = [rgba[i + 2]!, rgba[i]!];
  }
  if (opaque) for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
  return rgba;
}
