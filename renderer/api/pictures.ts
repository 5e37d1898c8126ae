/**
 * Pictures of a viewer's view: the splat under the pointer (camera/pick.ts, on
 * the CPU), a PNG of the canvas as drawn (taken in the task of the next frame's
 * submit, frame.ts), and offscreen renders at a multiple of the target's
 * resolution (pipeline/offscreen.ts: the same pipeline into a texture of its own).
 */
import { frameCamera } from '../camera/frame-camera';
import { pickSplat } from '../camera/pick';
import { renderOffscreen, type OffscreenImage } from '../frame/offscreen';
import { hexToRgb } from './settings';
import { imageToPng } from './targets';
import type { Viewer } from './viewer';

export function pick(v: Viewer, x: number, y: number): readonly number[] | null {
  const cloud = v.cloud;
  const cam = v.lastCamera;
  if (!cloud || !cam) return null;
  const sx = cam.width / Math.max(1, v.target.cssWidth);
  const sy = cam.height / Math.max(1, v.target.cssHeight);
  return pickSplat(cloud, cam, x * sx, y * sy, v.settings.splatScale)?.point ?? null;
}

export async function screenshot(v: Viewer, scale: number): Promise<Blob> {
  if (scale === 1 && v.target.element) {
    v.dirty = true;
    return new Promise((resolve, reject) => v.shotWaiters.push({ resolve, reject }));
  }
  return imageToPng(await readPixels(v, scale));
}

export function screenshotScale(v: Viewer, scale: number): number {
  const max = v.gpu.limits.maxTextureDimension2D;
  return Math.max(1, Math.min(scale, Math.floor(max / Math.max(v.target.width, v.target.height))));
}

export function readPixels(v: Viewer, scale: number): Promise<OffscreenImage> {
  const cloud = v.cloud;
  if (!cloud) return Promise.reject(new Error('screenshot: no scene is open'));
  const k = screenshotScale(v, scale);
  const camera = frameCamera(v.controller.pose, v.target.width * k, v.target.height * k, cloud.bounds);
  const s = v.settings;
  return renderOffscreen(v.renderer, camera, {
    shDegree: s.shDegree,
    splatScale: s.splatScale,
    cull: s.cull,
    keyBits: s.keyBits,
    background: hexToRgb(s.background),
    sort: true,
  });
}
