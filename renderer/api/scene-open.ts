/**
 * A viewer's loads, from the source to the switch: files and URLs are read and
 * parsed in the loader's worker while the scene on screen keeps drawing; the
 * cloud is uploaded in slices (the page runs between them), its order probe and
 * first view made, and only then does the switch swap references. A failed,
 * cancelled or superseded load leaves the scene on screen and rejects.
 */
import type { SplatCloud } from '../../scenes/splat-cloud';
import type { BodyView } from '../camera/framing';
import type { PackedScene } from '../gpu-scene/compact-pack';
import type { SplatRenderer } from '../frame/splat-renderer';
import { DrawnOrderProbe } from '../profile/benchmark-path';
import { checkDeclaredSize, loadErrorLine } from './error-lines';
import { loadOptionsFor } from './load-sh';
import { SceneLoadCancelled, SceneLoader } from './scene-loader';
import { normalizeSource, type SceneInput } from './sources';
import { nextPaint, stepsInTasks, yieldToPage } from './tasks';
import type { ReadyScene } from './scene-holder';
import { isLodSource } from './lod-source';
import type { LodStreamView } from './lod-stream';
import type { LoadSource } from './scene-load-protocol';
import type { RenderSettings } from './settings';
import type { RenderTarget } from './targets';
import type { Voice } from './voice';
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

/** The device loads upload to (device-link.ts). */
export interface LoadDevice {
  readonly device: GPUDevice;
  readonly lost: boolean;
  /** One more each time a lost device was replaced. */
  readonly generation: number;
}

/** What loads need of their viewer. */
export interface LoadHooks {
  settings: RenderSettings;
  target: RenderTarget;
  voice: Voice;
  link: LoadDevice;
  renderer(): SplatRenderer;
  /** The splat budget a streamed LOD scene opens with. */
  lodBudget(): number;
  /** A new scene's first view (view-camera.ts). */
  bodyViewSteps(cloud: SplatCloud): Generator<void, BodyView, void>;
  /**
   * The switch: shows `cloud`, made ready (`ready`), opened from `source` (`lod`: a streamed LOD scene's;
   * `keepObjects`: opened again after a lost device, beside the placed objects put back already).
   */
  show(source: SceneInput, cloud: SplatCloud, id: string, ready: ReadyScene, lod?: LodStreamView, keepObjects?: boolean): void;
  /** A load the device loss ended: its line, said again in the recovered line (recovery.ts). */
  lostLoad(line: string): void;
}

export class SceneLoads {
  /** The loads so far, oldest first: when each started, its cloud arrived, it was shown; how it ended. */
  readonly records: LoadRecord[] = [];
  /** The HUD's loading line while a load runs, else null. */
  loading: string | null = null;
  private readonly loader = new SceneLoader();
  private token = 0;
  /** The load in flight's abort (every phase, the GPU upload included) and its scene's name. */
  private flight: { controller: AbortController; name: string } | null = null;
  private ended = false;

  constructor(private readonly hooks: LoadHooks) {}

  /** Stops the load in flight, if any, in whatever phase it is (its promise rejects with SceneLoadCancelled). */
  cancel(): void {
    const flight = this.flight;
    this.loader.cancel();
    if (flight && !flight.controller.signal.aborted) flight.controller.abort(new SceneLoadCancelled(flight.name));
  }

  /** The device was lost: a load in flight ends (its line says why); the scene on screen stays. */
  deviceLost(): void {
    this.loader.stop((name) => new DeviceLostDuringLoad(this.lostLine(name)));
  }

  /** No load goes on. */
  destroy(): void {
    this.ended = true;
    this.token++;
    this.cancel();
  }

  /** The line of a load the device loss ended. */
  private lostLine(name: string): string {
    const cloud = this.hooks.renderer().cloud;
    const kept = cloud ? `${cloud.source.name} stays on screen` : 'nothing else is open';
    return `${name}: not loaded: the GPU device was lost during the load; ${kept}`;
  }

  /** The loaders' options for the load SH degree. */
  private loadOptions(): { maxShDegree?: 0 | 1 | 2 | 3 } {
    return loadOptionsFor(this.hooks.settings.loadSh as 0 | 1 | 2 | 3);
  }

  /** Viewer.load; `keepObjects`: a lost device's recovery opening a streamed LOD scene again (the placed objects stay). */
  async open(input: SceneInput, options: { signal?: AbortSignal; name?: string; keepObjects?: boolean }): Promise<void> {
    const { hooks } = this;
    const { voice, link } = hooks;
    const emit = voice.emit;
    const token = ++this.token;
    const source = normalizeSource(input, this.loadOptions(), options.name);
    const id = source.id;
    if (source.kind === 'load' && isLodSource(source.load)) return this.openLod(input, source.load, id, token, options.signal, options.keepObjects);
    // A device lost while this load runs ends it (recovery keeps the scene on screen).
    const generation = link.generation;
    const lostSince = () => link.lost || generation !== link.generation;
    const endIfLost = (name: string) => {
      if (lostSince()) throw new DeviceLostDuringLoad(this.lostLine(name));
    };
    const name = source.kind === 'generated' ? source.spec : source.load.name;
    // A newer choice replaces a load in flight (its worker stops at once, and its GPU
    // upload at its next slice: superseded, the token check ends it quietly).
    this.loader.cancel();
    this.flight?.controller.abort(new SceneLoadCancelled(this.flight.name));
    // This load's abort, in every phase (the GPU upload included): the host's signal or cancel().
    const abort = new AbortController();
    const flight = (this.flight = { controller: abort, name });
    const aborted = () => {
      if (this.flight === flight) this.cancel();
    };
    const superseded = () => token !== this.token;
    let record: LoadRecord | null = null;
    const setLoading = (line: string | null) => {
      this.loading = line;
      voice.change();
    };
    options.signal?.addEventListener('abort', aborted);
    try {
      if (options.signal?.aborted) throw new SceneLoadCancelled(name);
      let cloud: SplatCloud;
      let packed: PackedScene | null = null;
      if (source.kind === 'generated') {
        setLoading(`Generating ${source.spec}…`);
        voice.say(`Generating ${source.spec}…`, 'info', 'load', true);
        endIfLost(source.spec);
        // Made in the loader's worker, packed there when compact: the page never holds its float SH.
        const made = await this.loader.load(
          { kind: 'generated', name: source.spec, spec: source.spec, options: this.loadOptions(), pack: hooks.renderer().precision === 'compact' },
          () => undefined,
        );
        cloud = made.cloud;
        packed = made.packed;
      } else {
        const load = source.load;
        voice.unsay('load');
        emit('progress', { name: load.name, phase: 'read', bytes: 0, ...(source.size === undefined ? {} : { totalBytes: source.size }), splats: 0 });
        record = { name: load.name, startedAt: performance.now(), readyAt: null, shownAt: null, switchMs: null, outcome: 'loading' };
        this.records.push(record);
        endIfLost(load.name); // opened while the viewer is replacing its device
        let checked = false;
        // Compact scenes are packed in the worker: the page never holds the float SH.
        const loaded = await this.loader.load({ ...load, pack: hooks.renderer().precision === 'compact' }, (p) => {
          if (token !== this.token) return;
          // The header's count and degree, as soon as known: a scene the GPU cannot hold is
          // refused now, not after its whole body is parsed (a 6M-splat file: 30 s, 1.4 GB).
          if (p.declared && !checked) {
            checked = true;
            try {
              // A header that claims more splats than the file holds is a short file, not a scene too big for the GPU.
              checkDeclaredSize(load.name, p.declared, p.totalBytes ?? source.size);
              hooks.renderer().assertFits(load.name, p.declared.splats, p.declared.shDegree);
            } catch (e) {
              if (e instanceof Error) return this.loader.stop(() => e);
              throw e;
            }
          }
          emit('progress', {
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
        if (token === this.token) {
          // The GPU upload of a large scene takes a while (in slices): the progress says so.
          emit('progress', { name: load.name, phase: 'upload', bytes: source.size ?? 0, splats: 0, totalSplats: cloud.count });
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
      const prepared = await hooks.renderer().prepareScene(cloud, yieldToPage, (uploaded) => {
        if (token !== this.token || source.kind === 'generated') return;
        emit('progress', { name, phase: 'upload', bytes: source.size ?? 0, splats: uploaded, totalSplats: cloud.count });
      }, abort.signal, packed); // Cancel stops the upload at its next slice and frees what it made
      let probe: DrawnOrderProbe | null = null;
      let ready: ReadyScene | null = null;
      try {
        await yieldToPage();
        probe = new DrawnOrderProbe(link.device, cloud.count);
        ready = { prepared, probe, view: await stepsInTasks(hooks.bodyViewSteps(cloud)) };
        await yieldToPage();
      } finally {
        if (!ready || superseded() || abort.signal.aborted || lostSince() || this.ended) {
          probe?.destroy();
          prepared.destroy();
        }
      }
      abort.signal.throwIfAborted(); // cancelled while its first view was worked out
      if (superseded() || this.ended) {
        if (record) record.outcome = 'superseded';
        throw new SceneLoadCancelled(name);
      }
      // Made on a device lost since: the new device has none of it.
      endIfLost(cloud.source.name);
      const switchAt = performance.now();
      this.loading = null;
      if (this.flight === flight) this.flight = null;
      hooks.show(input, cloud, id, ready);
      const shownAt = performance.now();
      if (record) Object.assign(record, { shownAt, switchMs: shownAt - switchAt, outcome: 'shown' });
      voice.unsay('load');
    } catch (err) {
      if (this.flight === flight) this.flight = null;
      if (record && record.outcome === 'loading') record.outcome = token !== this.token ? 'superseded' : err instanceof SceneLoadCancelled ? 'cancelled' : 'failed';
      if (token !== this.token || this.ended) throw err instanceof SceneLoadCancelled ? err : new SceneLoadCancelled(name);
      this.loading = null;
      // One line a page user can act on, the loader's long form as its details (error-lines.ts).
      const { text: msg, details } = loadErrorLine(err);
      // Said again in the recovered line should it come after this one.
      if (err instanceof DeviceLostDuringLoad && link.lost) hooks.lostLoad(msg);
      if (err instanceof SceneLoadCancelled) {
        const cloud = hooks.renderer().cloud;
        voice.say(`${msg}; ${cloud ? `${cloud.source.name} stays on screen` : 'nothing else is open'}`, 'info', 'load');
      } else {
        console.warn(`scene load failed: ${msg}`);
        voice.say(msg, 'error', 'load', false, details);
      }
      emit('error', { name, error: err });
      voice.change();
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
  private async openLod(input: SceneInput, load: LoadSource, id: string, token: number, signal?: AbortSignal, keepObjects = false): Promise<void> {
    const { hooks } = this;
    const { voice, settings } = hooks;
    const name = load.name;
    const superseded = () => token !== this.token || signal?.aborted === true || this.ended;
    this.loader.cancel();
    voice.say(`Streaming ${name}…`, 'info', 'load', true);
    try {
      if (signal?.aborted) throw new SceneLoadCancelled(name);
      const { width, height } = hooks.target;
      const up = upVector(settings.upAxis);
      const { LodStreamView } = await import('./lod-stream');
      const renderer = hooks.renderer();
      const { view, first } = await LodStreamView.open(
        hooks.link.device,
        load,
        {
          budget: hooks.lodBudget(),
          bindingBytes: renderer.bindingBytes,
          precision: renderer.precision,
          ...(load.options ? { load: load.options } : {}),
          onError: (file, e) => console.warn(`lod: ${file}: ${e instanceof Error ? e.message : String(e)}`),
        },
        (bound) => frameCamera(fitPose(bound, up, settings.fovyDeg, width / Math.max(1, height)), width, height, bound),
      );
      if (superseded()) {
        first.destroy();
        view.destroy();
        throw new SceneLoadCancelled(name);
      }
      const cloud = first.cloud;
      const ready: ReadyScene = { prepared: hooks.renderer().prepareGpuScene(first), probe: new DrawnOrderProbe(hooks.link.device, cloud.count), view: await stepsInTasks(hooks.bodyViewSteps(cloud)) };
      this.loading = null;
      hooks.show(input, cloud, id, ready, view, keepObjects);
      voice.unsay('load');
    } catch (err) {
      if (superseded()) throw err instanceof SceneLoadCancelled ? err : new SceneLoadCancelled(name);
      const { text: msg, details } = loadErrorLine(err);
      console.warn(`scene load failed: ${msg}`);
      voice.say(msg, 'error', 'load', false, details);
      voice.emit('error', { name, error: err });
      voice.change();
      throw err;
    }
  }
}
