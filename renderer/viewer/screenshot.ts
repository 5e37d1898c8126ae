/**
 * Screenshots: a PNG of the canvas as shown, or of an offscreen render at a
 * multiple of its resolution (renderer/pipeline/offscreen.ts: the same pipeline
 * into a texture of its own, read back). Both download at once.
 */
import type { OffscreenImage } from '../pipeline/offscreen';

/**
 * A PNG of a WebGPU canvas. Call it in the same task as the frame's submit: the
 * canvas' texture is readable until the frame is presented, after which a WebGPU
 * canvas may read back blank.
 */
export function canvasToPng(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('screenshot: the canvas gave no image'))), 'image/png'),
  );
}

/** A PNG of an offscreen render's pixels. */
export function imageToPng(img: OffscreenImage): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = img.width;
  canvas.height = img.height;
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('screenshot: no 2D canvas to encode the PNG'));
  ctx.putImageData(new ImageData(new Uint8ClampedArray(img.rgba.buffer as ArrayBuffer, img.rgba.byteOffset, img.rgba.byteLength), img.width, img.height), 0, 0);
  return canvasToPng(canvas);
}

/** `splatview-garden-2026-11-24-164012.png`, `...@2x.png`: the scene name made file-safe, the local time. */
export function screenshotName(scene: string, scale: number, date = new Date()): string {
  const safe = scene.replace(/\.[a-z0-9]+$/i, '').replace(/[^a-z0-9_-]+/gi, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'view';
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  return `splatview-${safe}-${stamp}${scale !== 1 ? `@${scale}x` : ''}.png`;
}

/** Offers `blob` as a download named `name`. */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}

/** Enters or leaves fullscreen for the whole page (panel and HUD stay visible). */
export function toggleFullscreen(doc: Document = document): void {
  if (doc.fullscreenElement) void doc.exitFullscreen().catch(() => undefined);
  else void doc.documentElement.requestFullscreen?.().catch(() => undefined);
}
