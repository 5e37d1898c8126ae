/**
 * A Viewer driven in Node by the GPU tests (viewer-api, viewer-objects, scene-object,
 * lod-objects, viewer-pick): its events awaited, its frames counted, a condition waited
 * for, and navigator.gpu set to Dawn's so that createViewer finds a device of its own
 * (renderer/gpu/browser-device.ts asks navigator.gpu).
 */
import { nodeGpuObject } from '../../renderer/gpu/node-gpu';
import type { Viewer } from '../../renderer/api/viewer';

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
