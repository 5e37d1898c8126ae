/**
 * A viewer's recovery from a lost device it made itself (gpu/device-recovery.ts
 * has the retries and the loss window): stops drawing, says so, ends a load in
 * flight, asks for a new device (same requirements: gpu/browser-device.ts),
 * makes everything GPU-side again on it (target, renderer with the same sort and
 * draw, profiler, read-backs, auto's state), uploads the scene from the cloud
 * kept on the CPU (or reopens its source when there is none) and draws on with
 * the same settings and camera. Losses that come too often, or a device that
 * cannot be made, are said once and the viewer stops trying.
 */
import { createBrowserDevice } from '../gpu/browser-device';
import { MAX_RECOVERIES, retryWithBackoff } from '../gpu/device-recovery';
import { GpuBudgetError } from '../frame/gpu-budget';
import { SplatRenderer, type PreparedScene } from '../frame/splat-renderer';
import { listStrategies } from '../order/strategies';
import { DrawnOrderProbe } from '../profile/benchmark-path';
import { softwareAdapterNote, startingStrategy } from '../profile/auto-strategy';
import { budgetLine } from './load-sh';
import { DeviceLostDuringLoad, lostLoadLine } from './scene-open';
import { abortBenchmark } from './benchmark';
import { yieldToPage } from './tasks';
import type { Viewer } from './viewer';

export async function recover(v: Viewer, info: GPUDeviceLostInfo): Promise<void> {
  const token = ++v.recoveryToken;
  const lost = v.gpu;
  const message = info.message.trim().replace(/\.$/, '');
  const lead = `The GPU device was lost (${info.reason}${message ? `: ${message}` : ''})`;
  console.warn(`${lead}: recovering`);
  v.gpuLost = true;
  // A load in flight ends (its line says why); the scene on screen stays.
  v.loader.stop((name) => new DeviceLostDuringLoad(lostLoadLine(v, name)));
  // Work on the lost device that would wait for it: a benchmark, a sort or draw trial.
  abortBenchmark(v);
  v.drawAuto.trial = null;
  v.auto.deviceLost();
  if (!v.losses.allow(performance.now())) {
    v.say(`${lead}, ${MAX_RECOVERIES + 1} times within a minute: not trying again; reload the page`);
    return;
  }
  v.say(`${lead}: recovering…`, 'info', 'device', true);
  let device: GPUDevice;
  try {
    ({ device } = await retryWithBackoff(() => createBrowserDevice(), { stopped: () => token !== v.recoveryToken }));
  } catch (err) {
    if (token !== v.recoveryToken) return;
    // Said once; no more attempts (gpuLost stays: no frames on a lost device).
    v.say(`${lead}; ${(err instanceof Error ? err.message : String(err)).replace(/\.$/, '')}: reload the page`);
    return;
  }
  if (token !== v.recoveryToken) {
    v.ownDestroy.add(device);
    device.destroy();
    return;
  }
  // From here a loss of the new device is a loss like any other (a new recovery supersedes this one).
  v.attachDevice(device);
  v.softwareNote = softwareAdapterNote(device.adapterInfo ?? {});
  const old = v.renderer;
  // A streamed LOD scene's chunks were on the lost device: its source opens again (below), nothing is uploaded from the CPU.
  const cloud = v.lodStream ? null : old.cloud;
  let renderer: SplatRenderer;
  try {
    renderer = new SplatRenderer(device, v.target.format, old.strategy, old.draw, {}, v.budgetLimits);
  } catch {
    // The old strategy or draw is not available on this device: the adapter's default.
    const first = startingStrategy(device.adapterInfo ?? {}, device.features, listStrategies(device));
    renderer = new SplatRenderer(device, v.target.format, first, 'quads', {}, v.budgetLimits);
  }
  renderer.precision = old.precision;
  let prepared: PreparedScene | null = null;
  let uploadError: unknown = null;
  if (cloud) {
    try {
      // From what was kept: the packed scene the loader's worker made (the cloud then lacks its SH), or the cloud.
      prepared = await renderer.prepareScene(cloud, yieldToPage, undefined, undefined, old.scenePacked);
    } catch (err) {
      uploadError = err;
    }
  }
  if (token !== v.recoveryToken) {
    prepared?.destroy();
    renderer.destroy();
    return;
  }
  // The switch: the new renderer takes the scene; what the user changed meanwhile follows.
  if (prepared) renderer.adoptScene(prepared);
  v.renderer = renderer;
  if (old.strategy !== renderer.strategy) v.tryChange(() => renderer.setStrategy(old.strategy));
  if (old.draw !== renderer.draw) v.tryChange(() => renderer.setDraw(old.draw));
  old.destroy();
  v.profiler.destroy();
  v.countReadback.destroy();
  v.probe?.destroy();
  v.makeFrameHelpers(device);
  v.lodStream?.destroy();
  v.lodStream = null;
  v.probe = prepared && cloud ? new DrawnOrderProbe(device, cloud.count) : null;
  v.auto.deviceChanged(device);
  // The draw's auto: a trial in flight runs again; its picks so far stay.
  v.drawAuto.apply();
  v.gpuInFlight = 0;
  v.queueClock.reset();
  v.countPending = false;
  const waiters = v.frameWaiters;
  v.frameWaiters = [];
  for (const w of waiters) w();
  v.deviceGeneration++;
  v.gpuLost = false;
  v.ownDestroy.add(lost);
  lost.destroy(); // lost already: frees what it may still hold
  v.changed(true);
  const lostLoad = v.lostLoad;
  v.lostLoad = null;
  if (uploadError) {
    const why = uploadError instanceof GpuBudgetError ? budgetLine(uploadError) : uploadError instanceof Error ? uploadError.message : String(uploadError);
    v.say(`${lead}: a new device is drawing, but the scene could not be put on it: ${why}`);
  } else {
    const line = `${lead}: recovered${lostLoad ? `; ${lostLoad}` : ''}`;
    // Gone after a while, unless another line replaced it.
    v.emit('message', { text: line, kind: 'info', action: 'device', hideAfterMs: 6000 });
  }
  // No cloud was kept (none on screen when the device went): the scene's source opens again, in the same view.
  if (!cloud && v.source !== null) {
    const pose = v.controller.pose;
    v.load(v.source).then(
      () => v.setPose(pose),
      () => undefined,
    );
  }
}
