/**
 * A viewer's load, from the source to the switch: files and URLs are read and
 * parsed in the loader's worker while the scene on screen keeps drawing; the
 * cloud is uploaded in slices (the page runs between them), its order probe and
 * first view made, and only then does the switch swap references. A failed,
 * cancelled or superseded load leaves the scene on screen and rejects.
 */
import type { SplatCloud } from '../../scenes/splat-cloud';
import type { PackedScene } from '../gpu-scene/compact-pack';
import { GpuBudgetError } from '../frame/gpu-budget';
import { DrawnOrderProbe } from '../profile/benchmark-path';
import { budgetLine } from './load-sh';
import { SceneLoadCancelled } from './scene-loader';
import { normalizeSource, type SceneInput } from './sources';
import { nextPaint, stepsInTasks, yieldToPage } from './tasks';
import type { ReadyScene, Viewer } from './viewer';
import { isLodSource } from './lod-source';
import type { LoadSource } from './scene-load-protocol';
import { fitPose, upVector } from '../camera/camera';
import { frameCamera } from '../camera/frame-camera';

/** A load that a lost GPU device ended (the scene on screen stays; the viewer recovers). */
export class DeviceLostDuringLoad extends Error {
  override name = 'DeviceLostDuringLoad';
}

/** One load: when it started, its cloud arrived, it was shown, how long the switch took (ms), how it ended. */
export interface LoadRecord {
  name: string;
  startedAt: number;
  readyAt: number | null;
  shownAt: number | null;
  switchMs: number | null;
  outcome: 'loading' | 'shown' | 'failed' | 'cancelled' | 'superseded';
}

/** The line of a load the device loss ended. */
export function lostLoadLine(v: Viewer, name: string): string {
  const kept = v.cloud ? `${v.cloud.source.name} stays on screen` : 'nothing else is open';
  return `${name}: not loaded: the GPU device was lost during the load; ${kept}`;
}

export async function openSource(v: Viewer, input: SceneInput, options: { signal?: AbortSignal; name?: string }): Promise<void> {
  const token = ++v.loadToken;
  const source = normalizeSource(input, v.loadOptions(), options.name);
  const id = source.id;
  if (source.kind === 'load' && isLodSource(source.load)) return openLodSource(v, input, source.load, id, token, options.signal);
  // A device lost while this load runs ends it (recover keeps the scene on screen).
  const generation = v.deviceGeneration;
  const lostSince = () => v.gpuLost || generation !== v.deviceGeneration;
  const endIfLost = (name: string) => {
    if (lostSince()) throw new DeviceLostDuringLoad(lostLoadLine(v, name));
  };
  const name = source.kind === 'generated' ? source.spec : source.load.name;
  // A newer choice replaces a load in flight (its worker stops at once, and its GPU
  // upload at its next slice: superseded, the token check ends it quietly).
  v.loader.cancel();
  v.loadAbort?.controller.abort(new SceneLoadCancelled(v.loadAbort.name));
  // This load's abort, in every phase (the GPU upload included): the host's signal or cancelLoad().
  const abort = new AbortController();
  const flight = (v.loadAbort = { controller: abort, name });
  const aborted = () => {
    if (v.loadAbort === flight) v.cancelLoad();
  };
  const superseded = () => token !== v.loadToken;
  let record: LoadRecord | null = null;
  const setLoading = (line: string | null) => {
    v.loading = line;
    v.emit('change', { clearGraph: false });
  };
  options.signal?.addEventListener('abort', aborted);
  try {
    if (options.signal?.aborted) throw new SceneLoadCancelled(name);
    let cloud: SplatCloud;
    let packed: PackedScene | null = null;
    if (source.kind === 'generated') {
      setLoading(`Generating ${source.spec}…`);
      v.say(`Generating ${source.spec}…`, 'info', 'load', true);
      endIfLost(source.spec);
      // Made in the loader's worker, packed there when compact: the page never holds its float SH.
      const made = await v.loader.load(
        { kind: 'generated', name: source.spec, spec: source.spec, options: v.loadOptions(), pack: v.renderer.precision === 'compact' },
        () => undefined,
      );
      cloud = made.cloud;
      packed = made.packed;
    } else {
      const load = source.load;
      v.unsay('load');
      v.emit('progress', { name: load.name, phase: 'read', bytes: 0, ...(source.size === undefined ? {} : { totalBytes: source.size }), splats: 0 });
      record = { name: load.name, startedAt: performance.now(), readyAt: null, shownAt: null, switchMs: null, outcome: 'loading' };
      v.loads.push(record);
      endIfLost(load.name); // opened while the viewer is replacing its device
      let checked = false;
      // Compact scenes are packed in the worker: the page never holds the float SH.
      const loaded = await v.loader.load({ ...load, pack: v.renderer.precision === 'compact' }, (p) => {
        if (token !== v.loadToken) return;
        // The header's count and degree, as soon as known: a scene the GPU cannot hold is
        // refused now, not after its whole body is parsed (a 6M-splat file: 30 s, 1.4 GB).
        if (p.declared && !checked) {
          checked = true;
          try {
            v.renderer.assertFits(load.name, p.declared.splats, p.declared.shDegree);
          } catch (e) {
            if (e instanceof GpuBudgetError) return v.loader.stop(() => e);
            throw e;
          }
        }
        v.emit('progress', {
          name: load.name,
          phase: 'read',
          bytes: p.bytes,
          ...(p.totalBytes === undefined ? {} : { totalBytes: p.totalBytes }),
          splats: p.splats,
          ...(p.declared ? { totalSplats: p.declared.splats } : {}),
        });
      });
      cloud = loaded.cloud;
      packed = loaded.packed;
      record.readyAt = performance.now();
      if (token === v.loadToken) {
        // The GPU upload of a large scene takes a while (in slices): the progress says so.
        v.emit('progress', { name: load.name, phase: 'upload', bytes: source.size ?? 0, splats: 0, totalSplats: cloud.count });
        await nextPaint();
      }
    }
    abort.signal.throwIfAborted(); // cancelled while the bar painted
    if (superseded()) {
      if (record) record.outcome = 'superseded';
      throw new SceneLoadCancelled(name);
    }
    endIfLost(cloud.source.name);
    // Everything the new scene needs before it is shown is made here, a task at a time,
    // while the scene on screen keeps drawing; the switch then only swaps references.
    const prepared = await v.renderer.prepareScene(cloud, yieldToPage, (uploaded) => {
      if (token !== v.loadToken || source.kind === 'generated') return;
      v.emit('progress', { name, phase: 'upload', bytes: source.size ?? 0, splats: uploaded, totalSplats: cloud.count });
    }, abort.signal, packed); // Cancel stops the upload at its next slice and frees what it made
    let probe: DrawnOrderProbe | null = null;
    let ready: ReadyScene | null = null;
    try {
      await yieldToPage();
      probe = new DrawnOrderProbe(v.gpu, cloud.count);
      ready = { prepared, probe, view: await stepsInTasks(v.bodyViewSteps(cloud)) };
      await yieldToPage();
    } finally {
      if (!ready || superseded() || abort.signal.aborted || lostSince() || v.destroyed) {
        probe?.destroy();
        prepared.destroy();
      }
    }
    abort.signal.throwIfAborted(); // cancelled while its first view was worked out
    if (superseded() || v.destroyed) {
      if (record) record.outcome = 'superseded';
      throw new SceneLoadCancelled(name);
    }
    // Made on a device lost since: the new device has none of it.
    endIfLost(cloud.source.name);
    const switchAt = performance.now();
    v.source = input;
    v.loading = null;
    if (v.loadAbort === flight) v.loadAbort = null;
    v.setScene(cloud, id, ready);
    const shownAt = performance.now();
    if (record) Object.assign(record, { shownAt, switchMs: shownAt - switchAt, outcome: 'shown' });
    v.unsay('load');
  } catch (err) {
    if (v.loadAbort === flight) v.loadAbort = null;
    if (record && record.outcome === 'loading') record.outcome = token !== v.loadToken ? 'superseded' : err instanceof SceneLoadCancelled ? 'cancelled' : 'failed';
    if (token !== v.loadToken || v.destroyed) throw err instanceof SceneLoadCancelled ? err : new SceneLoadCancelled(name);
    v.loading = null;
    const msg = err instanceof GpuBudgetError ? budgetLine(err) : err instanceof Error ? err.message : String(err);
    // Said again in the recovered line should it come after this one.
    if (err instanceof DeviceLostDuringLoad && v.gpuLost) v.lostLoad = msg;
    if (err instanceof SceneLoadCancelled) {
      v.say(`${msg}; ${v.cloud ? `${v.cloud.source.name} stays on screen` : 'nothing else is open'}`, 'info', 'load');
    } else {
      console.warn(`scene load failed: ${msg}`);
      v.say(msg, 'error', 'load');
    }
    v.emit('error', { name, error: err });
    v.emit('change', { clearGraph: false });
    throw err;
  } finally {
    options.signal?.removeEventListener('abort', aborted);
  }
}

/**
 * A streamed LOD manifest (lod-meta.json, lod-stream.ts): shown once its coarsest
 * level is in (framed on the whole scene), then streamed each frame (frame.ts) within
 * the viewer's splat budget. A newer load or the signal ends it before the switch.
 */
async function openLodSource(v: Viewer, input: SceneInput, load: LoadSource, id: string, token: number, signal?: AbortSignal): Promise<void> {
  const name = load.name;
  const superseded = () => token !== v.loadToken || signal?.aborted === true || v.destroyed;
  v.loader.cancel();
  v.say(`Streaming ${name}…`, 'info', 'load', true);
  try {
    if (signal?.aborted) throw new SceneLoadCancelled(name);
    const { width, height } = v.target;
    const up = upVector(v.settings.upAxis);
    const { LodStreamView } = await import('./lod-stream');
    const { view, first } = await LodStreamView.open(
      v.gpu,
      load,
      {
        budget: v.lodBudget,
        bindingBytes: v.renderer.bindingBytes,
        precision: v.renderer.precision,
        ...(load.options ? { load: load.options } : {}),
        onError: (file, e) => console.warn(`lod: ${file}: ${e instanceof Error ? e.message : String(e)}`),
      },
      (bound) => frameCamera(fitPose(bound, up, v.settings.fovyDeg, width / Math.max(1, height)), width, height, bound),
    );
    if (superseded()) {
      first.destroy();
      view.destroy();
      throw new SceneLoadCancelled(name);
    }
    const cloud = first.cloud;
    const ready: ReadyScene = { prepared: v.renderer.prepareGpuScene(first), probe: new DrawnOrderProbe(v.gpu, cloud.count), view: await stepsInTasks(v.bodyViewSteps(cloud)) };
    v.source = input;
    v.loading = null;
    v.setScene(cloud, id, ready);
    v.lodStream = view;
    v.unsay('load');
  } catch (err) {
    if (superseded()) throw err instanceof SceneLoadCancelled ? err : new SceneLoadCancelled(name);
    const msg = err instanceof Error ? err.message : String(err);
    console.warn(`scene load failed: ${msg}`);
    v.say(msg, 'error', 'load');
    v.emit('error', { name, error: err });
    v.emit('change', { clearGraph: false });
    throw err;
  }
}
