/**
 * A viewer and its device: the target configured for it, the binding limits
 * scenes are checked against (the device's, or lower where the host asked), its
 * uncaptured errors said, and its loss: a device the viewer made is handed to
 * `recover` (recovery.ts), the host's is reported and the viewer stops drawing.
 */
import { canBlendInto } from '../draw/tiles/tile-pipelines';
import type { BudgetLimits } from '../frame/gpu-budget';
import type { RenderTarget } from './targets';
import type { Voice } from './voice';

export class DeviceLink {
  /** The device drawing now. */
  device!: GPUDevice;
  /** The device is lost: no frames until a new one draws (recovery.ts), or ever (the host's). */
  lost = false;
  /** The tiles draw writes the canvas directly (its format can be a storage texture on this device). */
  canvasStorage = false;
  /** The binding limits scenes are checked against: the device's, or lower where asked. */
  budgetLimits!: BudgetLimits;
  /** 0 for the first device, one more each time a lost device has been replaced and the scene is on the new one. */
  generation = 0;
  /** Devices this viewer destroyed itself: their loss is no loss. */
  private readonly ownDestroy = new WeakSet<GPUDevice>();
  private readonly listeners: (() => void)[] = [];
  private ended = false;

  constructor(
    device: GPUDevice,
    private readonly target: RenderTarget,
    private readonly voice: Voice,
    /** The device is the viewer's own: a loss is recovered from (`recover`), and destroy() destroys it. */
    readonly ownsDevice: boolean,
    private readonly budgetLimitsOverride: BudgetLimits | undefined,
    /** A device the viewer made was lost (recovery.ts). */
    private readonly recover: (info: GPUDeviceLostInfo) => void,
  ) {
    this.attach(device);
  }

  /** Draws with `device` from now on: the target configured, the binding limits, its errors and its loss watched. */
  attach(device: GPUDevice): void {
    this.device = device;
    // The tiles draw writes the canvas directly where its format can be a storage texture.
    this.canvasStorage = canBlendInto(device, this.target.format);
    this.target.configure(device, this.canvasStorage);
    const own = { maxStorageBufferBindingSize: device.limits.maxStorageBufferBindingSize, maxBufferSize: device.limits.maxBufferSize };
    const o = this.budgetLimitsOverride;
    this.budgetLimits = o
      ? { maxStorageBufferBindingSize: Math.min(own.maxStorageBufferBindingSize, o.maxStorageBufferBindingSize), maxBufferSize: Math.min(own.maxBufferSize, o.maxBufferSize) }
      : own;
    const onError = (e: Event) => {
      if (device !== this.device || this.ended) return;
      const err = (e as GPUUncapturedErrorEvent).error;
      console.error('WebGPU error:', err.message);
      this.voice.say(`GPU error: ${err.message}`);
    };
    device.addEventListener('uncapturederror', onError);
    this.listeners.push(() => device.removeEventListener('uncapturederror', onError));
    // Any loss but the viewer's own destroy is reported; a device the viewer made is replaced.
    void device.lost.then((info) => {
      if (device !== this.device || this.ownDestroy.has(device) || this.ended) return;
      this.voice.emit('devicelost', { reason: info.reason, message: info.message });
      if (this.ownsDevice) this.recover(info);
      else {
        this.lost = true;
        this.voice.say(`The GPU device was lost (${info.reason}); this viewer draws with the page's device: make the viewer again with a new one`);
      }
    });
  }

  /** Destroys a device of the viewer's own (lost, or no longer wanted): no loss is reported for it. */
  destroyOwn(device: GPUDevice): void {
    this.ownDestroy.add(device);
    device.destroy();
  }

  /** "vendor / architecture description" of the adapter. */
  adapterLine(): string {
    const info = this.device.adapterInfo;
    return info ? `${info.vendor} / ${info.architecture} ${info.description ?? ''}`.trim() : 'unknown';
  }

  /** Stops watching; the target let go of; the device destroyed when the viewer made it. */
  destroy(): void {
    this.ended = true;
    for (const off of this.listeners.splice(0)) off();
    this.target.unconfigure();
    if (this.ownsDevice) this.destroyOwn(this.device);
  }
}
