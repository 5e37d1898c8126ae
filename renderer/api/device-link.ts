/**
 * A viewer and its device: the target configured for it, the binding limits
 * scenes are checked against (the device's, or lower where the host asked), its
 * uncaptured errors said, and its loss: a device the viewer made is replaced
 * (recovery.ts), the host's is reported and the viewer stops drawing.
 */
import { canBlendInto } from '../draw/tiles/tile-pipelines';
import { recover } from './recovery';
import type { Viewer } from './viewer';

export function attachDevice(v: Viewer, device: GPUDevice): void {
  v.gpu = device;
  // The tiles draw writes the canvas directly where its format can be a storage texture.
  v.canvasStorage = canBlendInto(device, v.target.format);
  v.target.configure(device, v.canvasStorage);
  const own = { maxStorageBufferBindingSize: device.limits.maxStorageBufferBindingSize, maxBufferSize: device.limits.maxBufferSize };
  const o = v.budgetLimitsOverride;
  v.budgetLimits = o
    ? { maxStorageBufferBindingSize: Math.min(own.maxStorageBufferBindingSize, o.maxStorageBufferBindingSize), maxBufferSize: Math.min(own.maxBufferSize, o.maxBufferSize) }
    : own;
  const onError = (e: Event) => {
    if (device !== v.gpu || v.destroyed) return;
    const err = (e as GPUUncapturedErrorEvent).error;
    console.error('WebGPU error:', err.message);
    v.say(`GPU error: ${err.message}`);
  };
  device.addEventListener('uncapturederror', onError);
  v.listeners.push(() => device.removeEventListener('uncapturederror', onError));
  // Any loss but the viewer's own destroy is reported; a device the viewer made is replaced.
  void device.lost.then((info) => {
    if (device !== v.gpu || v.ownDestroy.has(device) || v.destroyed) return;
    v.emit('devicelost', { reason: info.reason, message: info.message });
    if (v.ownsDevice) void recover(v, info);
    else {
      v.gpuLost = true;
      v.say(`The GPU device was lost (${info.reason}); this viewer draws with the page's device: make the viewer again with a new one`);
    }
  });
}
