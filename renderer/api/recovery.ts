/**
 * A viewer's recovery from a lost device it made itself (gpu/device-recovery.ts
 * has the retries and the loss window): stops drawing, says so, ends the work on
 * the lost device (a load in flight, a benchmark, auto's trials), asks for a new
 * device (same requirements: gpu/browser-device.ts), has everything GPU-side made
 * again on it (the scene from the cloud kept on the CPU, or its source opened
 * again; the frames' profiler and read-backs; auto's state) and draws on with
 * the same settings and camera. Losses that come too often, or a device that
 * cannot be made, are said once and the viewer stops trying.
 */
import { createBrowserDevice } from '../gpu/browser-device';
import { LossWindow, MAX_RECOVERIES, retryWithBackoff } from '../gpu/device-recovery';
import { GpuBudgetError } from '../frame/gpu-budget';
import type { DeviceLink } from './device-link';
import { budgetLine } from './load-sh';
import type { Voice } from './voice';

/** What a recovery has the viewer do. */
export interface RecoveryHooks {
  /** Work on the lost device that would wait for it stops: a load in flight (its error says why), a benchmark, auto's trials. */
  stopWork(): void;
  /**
   * The scene and everything GPU-side made again on `device` (attached already);
   * null when `stale()` said a newer recovery took over (nothing kept). `uploadError`:
   * the scene could not be put on it; `reopen`: no cloud was kept, its source opens again.
   */
  remake(device: GPUDevice, stale: () => boolean): Promise<{ uploadError: unknown; reopen: boolean } | null>;
  /** The new device draws: redraw, figures start over. */
  changed(): void;
  /** The scene's source opens again, in the same view. */
  reopen(): void;
}

export class DeviceRecovery {
  private readonly losses = new LossWindow();
  /** Bumped by each recovery and by destroy(): an older one stops at its next step. */
  private token = 0;
  /** The line of a load the loss ended, said again in the recovered line. */
  private lostLoad: string | null = null;

  constructor(
    private readonly link: DeviceLink,
    private readonly voice: Voice,
    private readonly hooks: RecoveryHooks,
  ) {}

  /** A load ended by the loss: `line` is said again once recovered. */
  loadLost(line: string): void {
    this.lostLoad = line;
  }

  async recover(info: GPUDeviceLostInfo): Promise<void> {
    const { link, voice, hooks } = this;
    const token = ++this.token;
    const stale = () => token !== this.token;
    const lost = link.device;
    const message = info.message.trim().replace(/\.$/, '');
    const lead = `The GPU device was lost (${info.reason}${message ? `: ${message}` : ''})`;
    console.warn(`${lead}: recovering`);
    link.lost = true;
    hooks.stopWork();
    if (!this.losses.allow(performance.now())) {
      voice.say(`${lead}, ${MAX_RECOVERIES + 1} times within a minute: not trying again; reload the page`);
      return;
    }
    voice.say(`${lead}: recovering…`, 'info', 'device', true);
    let device: GPUDevice;
    try {
      ({ device } = await retryWithBackoff(() => createBrowserDevice(), { stopped: stale }));
    } catch (err) {
      if (stale()) return;
      // Said once; no more attempts (lost stays: no frames on a lost device).
      voice.say(`${lead}; ${(err instanceof Error ? err.message : String(err)).replace(/\.$/, '')}: reload the page`);
      return;
    }
    if (stale()) {
      link.destroyOwn(device);
      return;
    }
    // From here a loss of the new device is a loss like any other (a new recovery supersedes this one).
    link.attach(device);
    const remade = await hooks.remake(device, stale);
    if (!remade) return;
    link.generation++;
    link.lost = false;
    link.destroyOwn(lost); // lost already: frees what it may still hold
    hooks.changed();
    const lostLoad = this.lostLoad;
    this.lostLoad = null;
    const { uploadError } = remade;
    if (uploadError) {
      const why = uploadError instanceof GpuBudgetError ? budgetLine(uploadError) : uploadError instanceof Error ? uploadError.message : String(uploadError);
      voice.say(`${lead}: a new device is drawing, but the scene could not be put on it: ${why}`);
    } else {
      const line = `${lead}: recovered${lostLoad ? `; ${lostLoad}` : ''}`;
      // Gone after a while, unless another line replaced it.
      voice.emit('message', { text: line, kind: 'info', action: 'device', hideAfterMs: 6000 });
    }
    // No cloud was kept (none on screen when the device went): the scene's source opens again.
    if (remade.reopen) hooks.reopen();
  }

  /** A recovery in flight stops at its next step. */
  destroy(): void {
    this.token++;
  }
}
