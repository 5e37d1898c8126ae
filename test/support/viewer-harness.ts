/**
 * A Viewer driven in Node by the GPU tests (viewer-api, viewer-objects, scene-object,
 * lod-objects, viewer-pick): its events awaited, its frames counted, a condition waited
 * for, navigator.gpu set to Dawn's so that createViewer finds a device of its own
 * (renderer/gpu/browser-device.ts asks navigator.gpu), and its picture held to the test's.
 */
import { expect } from 'vitest';
import { nodeGpuObject } from '../../renderer/gpu/node-gpu';
import type { Viewer } from '../../renderer/api/viewer';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import type { EncodeOptions, FrameCamera, FrameSettings, SplatRenderer } from '../../renderer/frame/splat-renderer';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { psnr } from '../reference/raster';
import { withValidation } from './gpu';
import { writeTestPng } from './test-png';
import { rgbOf } from './tile-render';

export function nextEvent(v: Viewer, type: string): Promise<CustomEvent> {
  return new Promise((resolve) => v.addEventListener(type, (e) => resolve(e as CustomEvent), { once: true }));
}

/** Until `n` more frames are drawn. */
export async function frames(v: Viewer, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextEvent(v, 'frame');
}

/** Until `cond()` holds, polled every 20 ms; throws naming `what` after `ms`. */
export async function until(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** navigator.gpu set to Dawn's (navigator made when Node has none); returns what puts it back. */
export function installNavigatorGpu(): () => void {
  const g = globalThis as { navigator?: { gpu?: GPU } };
  const hadNavigator = 'navigator' in globalThis;
  const before = g.navigator?.gpu;
  if (!g.navigator) Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true, writable: true });
  Object.defineProperty(g.navigator!, 'gpu', { value: nodeGpuObject(), configurable: true, writable: true });
  return () => {
    if (hadNavigator) Object.defineProperty(g.navigator!, 'gpu', { value: before, configurable: true, writable: true });
    else delete (globalThis as { navigator?: unknown }).navigator;
  };
}

/**
 * The Viewer's picture (readPixels) against the test's own: `draw` renders what the viewer
 * should show with the camera of its last frame and its frame settings (its SH degree, splat
 * scale, culling and key bits; a black background; sorted). Held to at least `minPsnr` dB,
 * named `what`; `figure(psnr)` (by default "`what` N dB") is pushed onto `figures` first; under the bound both pictures
 * are written, `<prefix>-<what>-got.png` and `-want.png`. Returns the viewer's pixels.
 */
export async function viewerPictureCheck(
  v: Viewer,
  device: GPUDevice,
  check: {
    what: string;
    prefix: string;
    minPsnr: number;
    figures: string[];
    figure?: (psnr: number) => string;
    draw: (camera: FrameCamera, settings: FrameSettings & EncodeOptions) => Promise<Uint8Array>;
  },
): Promise<Uint8Array> {
  const got = await v.readPixels();
  const camera = v.parts.loop.lastCamera!;
  const s = v.settings;
  const expected = await withValidation(device, () => check.draw(camera, { shDegree: s.shDegree, splatScale: s.splatScale, cull: s.cull, keyBits: s.keyBits, background: [0, 0, 0], sort: true }));
  const p = psnr(rgbOf(got.rgba), rgbOf(expected));
  check.figures.push(check.figure ? check.figure(p) : `${check.what} ${p.toFixed(1)} dB`);
  if (p < check.minPsnr) {
    const name = `${check.prefix}-${check.what.replace(/\W+/g, '-')}`;
    writeTestPng(`${name}-got.png`, got.rgba, got.width, got.height);
    writeTestPng(`${name}-want.png`, expected, got.width, got.height);
  }
  expect(p, check.what).toBeGreaterThanOrEqual(check.minPsnr);
  return got.rgba;
}

/** A viewerPictureCheck `draw`: the test's renderer `ref` drawing the cloud `want`. */
export function cloudDraw(ref: SplatRenderer, want: SplatCloud): (camera: FrameCamera, settings: FrameSettings & EncodeOptions) => Promise<Uint8Array> {
  return async (camera, settings) => {
    ref.setScene(want);
    return (await renderOffscreen(ref, camera, settings)).rgba;
  };
}
