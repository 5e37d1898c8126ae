/**
 * The viewer: one scene on one target (a canvas, or a texture headless), drawn
 * every animation frame with the camera, the sort and the draw of its settings.
 * Loads in a worker (the scene on screen keeps drawing; a failed load leaves it),
 * frames new scenes, measures `auto` sort and draw, profiles every frame,
 * recovers from a lost device it made itself, and takes screenshots. An
 * EventTarget: see events.ts. Made by createViewer (create-viewer.ts).
 *
 * The pieces of its work each have a module: scene-open.ts (a load, to the
 * switch), draw-auto.ts (the draw's auto), recovery.ts (a lost device),
 * benchmark.ts (the benchmark flight), frame.ts (one frame).
 */
import { DEFAULT_LOD_BUDGET } from './lod-source';
import type { LodStreamView } from './lod-stream';
import type { LodStats } from '../lod/lod-scene';
import type { ScenePrecision } from '../gpu-scene/scene-precision';
import { defaultForward, fitPose, length, normalize, sub, upVector, type CameraPose, type UpAxis } from '../camera/camera';
import { CameraController } from '../camera/controller';
import { bodyViewSteps, type BodyView } from '../camera/framing';
import { frameCamera } from '../camera/frame-camera';
import { LossWindow } from '../gpu/device-recovery';
import { DrawArgs } from '../stage/draw-args';
import { DRAW_NAMES, type DrawName } from '../draw/draw-strategies';
import type { BudgetLimits } from '../frame/gpu-budget';
import type { OffscreenImage } from '../frame/offscreen';
import { SplatRenderer, type PreparedScene } from '../frame/splat-renderer';
import { listStrategies, strategyByName, type StrategyInfo } from '../order/strategies';
import { AUTO_DRAW, decideDraw, type DrawChoice, type DrawSetting } from '../profile/auto-draw';
import { AutoRun } from '../profile/auto-run';
import { AUTO_STRATEGY, softwareAdapterNote, startingStrategy, type AutoChoice } from '../profile/auto-strategy';
import { QueueClock } from '../profile/queue-clock';
import { adapterKey, AutoPicks, isPickOf, type KeyValueStore } from '../profile/auto-picks';
import type { BenchmarkRow } from '../profile/benchmark-report';
import { DrawnOrderProbe } from '../profile/benchmark-path';
import type { FrameSample } from '../profile/frame-stats';
import { LiveFigures } from '../profile/live-figures';
import { GpuProfiler } from '../profile/profiler';
import type { SplatCloud } from '../../scenes/splat-cloud';
import type { MessageAction, ViewerEventMap, ViewerEventName } from './events';
import { refusedChoiceLine } from './refused-choice';
import { DrawAuto } from './draw-auto';
import { encodeFrame } from './frame';
import { loadOptionsFor } from './load-sh';
import { SceneLoadCancelled, SceneLoader } from './scene-loader';
import { openSource, type LoadRecord } from './scene-open';
import { defaultSettings, type RenderSettings } from './settings';
import type { SceneInput } from './sources';
import type { RenderTarget } from './targets';
import { attachDevice } from './device-link';
import { pick, readPixels, screenshot, screenshotScale } from './pictures';
import { startBenchmark, type Benchmark } from './benchmark';

/** Runs a generator of steps to its end at once. */
export function stepsRun<T>(steps: Generator<void, T, void>): T {
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/** A scene made ready to show without a long task: set up on the GPU, with its order probe and its first view. */
export interface ReadyScene {
  prepared: PreparedScene;
  probe: DrawnOrderProbe;
  view: BodyView;
}

/** The camera as hosts see it: eye, target, up and vertical field of view (degrees). */
export interface ViewerCamera {
  eye: readonly number[];
  target: readonly number[];
  up: readonly number[];
  fovy: number;
}

/** What the viewer is made with (internal: createViewer fills it). */
export interface ViewerInit {
  device: GPUDevice;
  target: RenderTarget;
  /** The device is the host's: a loss is reported (devicelost), not recovered from, and destroy() leaves it. */
  ownsDevice: boolean;
  settings?: Partial<RenderSettings>;
  /** Binding limits lower than the device's (to try a smaller adapter). */
  budgetLimits?: BudgetLimits;
  /** Where the draw setting came from (the draw note words it). */
  drawSource?: 'default' | 'saved' | 'link';
  /** Where the sort setting came from (the sort note words it). */
  sortSource?: 'link' | 'choice';
  /** How scenes are kept on the GPU (scene-precision.ts): 'compact' (default, half the memory) or 'full'. */
  precision?: ScenePrecision;
  /** Where auto's sort and draw picks are kept across visits (by adapter and scene size); none: this viewer's memory only. */
  autoPicksStore?: KeyValueStore | null;
  /** Schedules the next frame (default requestAnimationFrame, or a 16 ms timer without one). */
  schedule?: (cb: (now: number) => void) => void;
}

export class Viewer extends EventTarget {
  /** The live settings each frame reads (see settings.ts). */
  readonly settings: RenderSettings;
  /** @internal */ gpu!: GPUDevice;
  /** @internal */ renderer: SplatRenderer;
  /** @internal */ readonly controller: CameraController;
  /** @internal */ profiler!: GpuProfiler;
  /** @internal */ countReadback!: GPUBuffer;
  /** @internal */ probe: DrawnOrderProbe | null = null;
  /** @internal */ readonly figures = new LiveFigures();
  /** @internal */ readonly loader = new SceneLoader();
  /** @internal */ readonly auto: AutoRun;
  /** @internal */ readonly drawAuto: DrawAuto;
  /** @internal */ readonly target: RenderTarget;
  /** @internal */ readonly ownsDevice: boolean;
  /** @internal */ readonly ownDestroy = new WeakSet<GPUDevice>();
  /** @internal */ gpuLost = false;
  /** @internal */ readonly losses = new LossWindow();
  /** @internal */ recoveryToken = 0;
  /** @internal */ canvasStorage = false;
  /** @internal */ lastCamera: ReturnType<typeof frameCamera> | null = null;
  /** @internal */ shotWaiters: { resolve: (b: Blob) => void; reject: (e: unknown) => void }[] = [];
  /** @internal */ lastTime = 0;
  /** @internal */ countPending = false;
  /** @internal */ lastCountRead = 0;
  /** @internal */ loadToken = 0;
  /** @internal The load in flight's abort (every phase, the GPU upload included) and its scene's name. */
  loadAbort: { controller: AbortController; name: string } | null = null;
  /** @internal */ dirty = true;
  /** @internal */ submittedFrames = 0;
  /** @internal */ gpuInFlight = 0;
  /** @internal */ bench: Benchmark | null = null;
  /** @internal */ frameWaiters: (() => void)[] = [];
  /** @internal */ lostLoad: string | null = null;
  /** @internal */ source: SceneInput | null = null;
  /** @internal The streamed LOD scene on screen (lod-stream.ts), or null. */
  lodStream: LodStreamView | null = null;
  /** @internal The splat budget a streamed LOD scene opens with (ViewerOptions.lodBudget). */
  lodBudget = DEFAULT_LOD_BUDGET;
  /** @internal */ sceneFirstFrameId: number | null = null;
  /** @internal */ destroyed = false;
  /** @internal */ readonly schedule: (cb: (now: number) => void) => void;
  /** @internal */ readonly listeners: (() => void)[] = [];
  /** @internal */ budgetLimitsOverride: BudgetLimits | undefined;
  /** @internal */ lastSample: FrameSample | null = null;
  /** @internal */ softwareNote: string | null;
  /** @internal The queue's frames and trial sorts: the frame's own time, which no auto trial sort exceeds (queue-clock.ts). */
  readonly queueClock = new QueueClock();

  /** The binding limits scenes are checked against: the device's, or lower where asked. */
  budgetLimits!: BudgetLimits;
  /** 0 for the first device, one more each time a lost device has been replaced and the scene is on the new one. */
  deviceGeneration = 0;
  /** Frames submitted so far. */
  framesRendered = 0;
  /** Frames whose GPU work completed. */
  framesCompleted = 0;
  /** The identity of the scene on screen (a URL, `file:NAME`, a generated spec), or null. */
  sceneId: string | null = null;
  /** Identities of the scenes shown so far, in order. */
  readonly scenesShown: string[] = [];
  /** The loads so far, oldest first: when each started, its cloud arrived, it was shown; how it ended. */
  readonly loads: LoadRecord[] = [];
  /** performance.now() of the current scene's first submitted frame, or null before it. */
  sceneFirstFrameAt: number | null = null;
  /** performance.now() when the GPU finished the current scene's first frame, or null before. */
  sceneFirstFrameDoneAt: number | null = null;
  /** The last benchmark's rows. */
  lastBenchmark: BenchmarkRow[] | null = null;
  /** Settles when the first scene (createViewer's options.scene) is shown, or its load failed. */
  ready: Promise<void> = Promise.resolve();
  /** The HUD's loading line while a load runs, else null. */
  loading: string | null = null;

  constructor(init: ViewerInit) {
    super();
    this.target = init.target;
    this.ownsDevice = init.ownsDevice;
    this.budgetLimitsOverride = init.budgetLimits;
    this.schedule =
      init.schedule ?? (typeof requestAnimationFrame === 'function' ? (cb) => void requestAnimationFrame(cb) : (cb) => void setTimeout(() => cb(performance.now()), 16));
    const device = init.device;
    this.attachDevice(device);
    const strategies = listStrategies(device);
    const names = [AUTO_STRATEGY, ...strategies.map((s) => s.name)];
    // The host's object itself, defaults filled in (a panel edits it in place).
    const given = init.settings ?? {};
    this.settings = Object.assign(given, { ...defaultSettings(), ...given });
    if (!names.includes(this.settings.sorter)) this.settings.sorter = AUTO_STRATEGY;
    const adapter = device.adapterInfo ?? {};
    this.softwareNote = softwareAdapterNote(adapter);
    // Until auto has measured: the prior for this adapter (the fastest known on software adapters).
    const first = this.settings.sorter === AUTO_STRATEGY ? startingStrategy(adapter, device.features, strategies) : this.settings.sorter;
    // Picks by adapter and scene size (in the host's store, if given): a size measured before is not measured again.
    const picksKey = adapterKey(adapter);
    const store = init.autoPicksStore ?? null;
    this.drawAuto = new DrawAuto(this, init.drawSource ?? 'default', new AutoPicks<DrawChoice>('draw', picksKey, isPickOf<DrawChoice>(DRAW_NAMES), store));
    // The tiles draw sorts on the GPU: with a host sort strategy it falls back to quads (decideDraw).
    const firstDraw = decideDraw(this.settings.draw, this.drawAuto.source, { name: first, host: !strategyByName(first).sorter }, null, this.drawAuto.prior());
    this.drawAuto.note = firstDraw.note;
    this.drawAuto.wanted = firstDraw.measure;
    this.renderer = new SplatRenderer(device, this.target.format, first, firstDraw.draw, {}, this.budgetLimits);
    if (init.precision) this.renderer.precision = init.precision;
    this.auto = new AutoRun(
      device,
      strategies,
      {
        // Each trial sort within the viewer's own frame time (trial-pacing.ts).
        frameMs: () => this.queueClock.frameMs,
        queued: (submitAt, done) => this.queueClock.completed(submitAt, done),
        software: () => this.softwareNote !== null,
        frameDone: () => this.nextFrameDone(),
        noted: () => this.emit('change', { clearGraph: false }),
        apply: (name) => {
          if (this.renderer.strategy === name) return;
          this.renderer.setStrategy(name);
          this.sortChanged();
          this.changed(true);
        },
        active: () => this.settings.sorter === AUTO_STRATEGY && this.bench === null,
      },
      new AutoPicks<AutoChoice>('sort', picksKey, isPickOf<AutoChoice>(strategies.map((s) => s.name)), store),
    );
    if (this.settings.sorter === AUTO_STRATEGY) this.auto.note = `auto: starting with ${first}${this.softwareNote ? ' (fastest known on software GPUs)' : ''}; measuring once a scene is on screen`;
    else if (init.sortSource === 'link') this.auto.note = `${first}: chosen by the link (?sort=)`;
    else this.auto.note = `${first}: your choice (remembered; pick auto to measure and choose)`;
    this.controller = new CameraController({ eye: [0, 0, -5], target: [0, 0, 0], up: upVector(this.settings.upAxis), fovyDeg: this.settings.fovyDeg });
    this.makeFrameHelpers(device);
    this.schedule((t) => this.frame(t));
  }

  // ---- events ----

  /** @internal */
  emit<K extends ViewerEventName>(type: K, detail: ViewerEventMap[K]['detail']): void {
    if (!this.destroyed) this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** @internal A line for the host's status bar (the `message` event), owned by `action`. */
  say(text: string, kind: 'error' | 'info' = 'error', action: MessageAction = 'device', progress = false): void {
    this.emit('message', { text, kind, action, ...(progress ? { progress } : {}) });
  }

  /** @internal `action` succeeded: an earlier action's line no longer holds (the `message` event with null). */
  unsay(action: MessageAction): void {
    this.emit('message', { text: null, kind: 'info', action });
  }

  // ---- what is on screen ----

  /** The device drawing now (a new one after a loss this viewer recovered from). */
  get device(): GPUDevice {
    return this.gpu;
  }

  /** The scene on screen: its name, splat count and SH degree, or null. */
  get scene(): { name: string; splats: number; shDegree: number } | null {
    const c = this.renderer.cloud;
    return c ? { name: c.source.name, splats: c.count, shDegree: c.shDegree } : null;
  }

  /** @internal The cloud on screen (kept on the CPU for picking and recovery). */
  get cloud(): SplatCloud | null {
    return this.renderer.cloud;
  }

  /** The sort strategy drawing now (auto's pick, or the one set). */
  get strategy(): string {
    return this.renderer.strategy;
  }

  /** The draw strategy in use. */
  get draw(): DrawName {
    return this.renderer.draw;
  }

  /** The sort strategies this device offers. */
  get strategies(): StrategyInfo[] {
    return listStrategies(this.gpu);
  }

  /** What auto picked and why, or the chosen sort. */
  get strategyNote(): string {
    return this.auto.note;
  }

  /** The draw's auto pick and why, or the chosen draw. */
  get drawNote(): string {
    return this.drawAuto.note;
  }

  /** The draw's auto pick for the scene on screen, once measured. */
  get drawChoice(): DrawChoice | null {
    const cloud = this.renderer.cloud;
    return (this.settings.draw === AUTO_DRAW && cloud && this.drawAuto.picks.get(cloud.count)) || null;
  }

  /** The last completed and profiled frame's figures: per-stage GPU ms (frame-stages.ts), CPU ms, total; null before one. */
  get stats(): FrameSample | null {
    return this.lastSample;
  }

  /**
   * The live figures of what is on screen now (profile/live-figures.ts): stage
   * medians, FPS, visible splats; and what qualifies them. For a HUD.
   */
  get live(): {
    figures: LiveFigures;
    /** A host sort's own time (ms), or null for a GPU sort. */
    hostSortMs: number | null;
    /** The tiles draw's pair buffer, or null. */
    tileStatus: SplatRenderer['tileStatus'];
    /** The quads draw's order in use. */
    drawOrder: string;
    /** Why GPU stage times are missing, or null. */
    timingReason: string | null;
    timestampsSupported: boolean;
    /** A line about a software adapter, or null. */
    softwareNote: string | null;
  } {
    return {
      figures: this.figures,
      hostSortMs: this.renderer.hostSortMs,
      tileStatus: this.renderer.tileStatus,
      drawOrder: this.renderer.drawOrder.order,
      timingReason: this.profiler.reason ?? null,
      timestampsSupported: this.profiler.supported,
      softwareNote: this.softwareNote,
    };
  }

  /** The cloud on screen's sanitize report (NaN/Inf dropped or clamped), if any. */
  get sanitized(): SplatCloud['sanitized'] {
    return this.renderer.cloud?.sanitized;
  }

  /** Of `strategies`, those a benchmark flies with the draw in use (the tiles draw: GPU sorters only). */
  benchmarkable(strategies: string[]): string[] {
    return this.renderer.draw === 'tiles' ? strategies.filter((n) => strategyByName(n).sorter) : strategies;
  }

  /** A benchmark is flying. */
  get benchmarking(): boolean {
    return this.bench !== null;
  }

  /** The camera pose on screen now (the field of view in degrees as fovyDeg). */
  get view(): CameraPose {
    return this.controller.pose;
  }

  get camera(): ViewerCamera {
    const p = this.controller.pose;
    return { eye: [...p.eye], target: [...p.target], up: [...p.up], fovy: p.fovyDeg };
  }

  set camera(c: Partial<ViewerCamera>) {
    const p = this.controller.pose;
    this.setPose({ eye: c.eye ?? p.eye, target: c.target ?? p.target, up: c.up ?? p.up, fovyDeg: c.fovy ?? p.fovyDeg } as CameraPose);
  }

  /** Jumps to a pose, the field of view included; the up-axis setting follows a pose whose up is one of its axes. */
  setPose(pose: CameraPose): void {
    this.controller.setPose(pose);
    this.settings.fovyDeg = pose.fovyDeg;
    const axis = (['-y', '+y', '+z', '-z'] as const).find((a) => length(sub(normalize(pose.up), upVector(a))) < 1e-3);
    if (axis) this.settings.upAxis = axis;
    this.dirty = true;
    this.emit('change', { clearGraph: false });
  }

  /** Frames the scene's dense body from the current direction. */
  frameScene(): void {
    this.controller.aspect = this.target.width / Math.max(1, this.target.height);
    this.controller.frame();
    this.dirty = true;
  }

  /** Back to the scene's first view. */
  resetView(): void {
    this.controller.reset();
    this.dirty = true;
  }

  setUpAxis(axis: UpAxis): void {
    this.settings.upAxis = axis;
    this.controller.setUp(axis);
    this.controller.frame(undefined, { keepDirection: false, setHome: true });
    this.dirty = true;
  }

  /** A setting was edited in place: redraw, and the figures start over. */
  invalidate(): void {
    this.changed();
  }

  // ---- loading ----

  /**
   * Loads a scene and shows it once ready (the scene on screen keeps drawing
   * meanwhile). Resolves when shown; rejects with the loader's typed error, or
   * SceneLoadCancelled when `signal` aborts or a newer load supersedes this one.
   * The scene on screen stays after a failure.
   */
  load(source: SceneInput, options: { signal?: AbortSignal; name?: string } = {}): Promise<void> {
    return openSource(this, source, options);
  }

  /**
   * Stops the load in flight, if any, in whatever phase it is: the worker's read and
   * parse, or the GPU upload and what follows it (its promise rejects with SceneLoadCancelled).
   */
  cancelLoad(): void {
    const flight = this.loadAbort;
    this.loader.cancel();
    if (flight && !flight.controller.signal.aborted) flight.controller.abort(new SceneLoadCancelled(flight.name));
  }

  /** @internal The loaders' options for the load SH degree. */
  loadOptions(): { maxShDegree?: 0 | 1 | 2 | 3 } {
    return loadOptionsFor(this.settings.loadSh as 0 | 1 | 2 | 3);
  }

  /** @internal The first view of a scene (framing.ts): its dense body, seen from a side that shows it. */
  bodyViewSteps(cloud: SplatCloud): Generator<void, BodyView, void> {
    // + cloud: the body's bounds cover what its splats show (scales, opacities), not only their centres.
    return bodyViewSteps(cloud.positions, upVector(this.settings.upAxis), defaultForward(this.settings.upAxis), cloud);
  }

  /**
   * The scene's resident GPU buffers (null without a scene): bytes in all, bytes a
   * splat, how they are kept ('compact', the default, or 'full'), and the buffers
   * (bindings) each of its arrays is paged over: 1 unless one binding of this adapter
   * cannot hold it. A streamed LOD scene's chunk pool is in `lod.residentBytes`.
   */
  get sceneMemory(): { bytes: number; bytesPerSplat: number; precision: string; pages: { centers: number; covariances: number; sh: number } } | null {
    const c = this.renderer.cloud;
    const precision = this.renderer.scenePrecision;
    const paging = this.renderer.scenePaging;
    if (!c || precision === null || !paging) return null;
    const bytes = this.renderer.sceneBytes;
    return { bytes, bytesPerSplat: bytes / Math.max(1, c.count), precision, pages: { centers: paging.centers.pages, covariances: paging.covs.pages, sh: paging.sh.pages } };
  }

  /**
   * A streamed LOD scene's figures (null for any other scene): its splat budget, the
   * splats chosen for the view and drawn now, resident on the GPU (and their bytes),
   * chunk files in flight and failed, leaves drawn coarser than chosen while loading.
   */
  get lod(): LodStats | null {
    return this.lodStream ? { ...this.lodStream.lod.stats } : null;
  }

  /** The splats a streamed LOD scene may draw (this one and those opened later). */
  setLodBudget(splats: number): void {
    if (!(splats >= 1)) throw new RangeError(`setLodBudget: expected a count >= 1, got ${splats}`);
    this.lodBudget = Math.round(splats);
    if (this.lodStream) this.lodStream.budget = this.lodBudget;
    this.invalidate();
  }

  /** @internal Shows `cloud`: made ready already (`ready`), else set up here at once. */
  setScene(cloud: SplatCloud, id: string, ready: ReadyScene | null = null): void {
    this.lodStream?.destroy();
    this.lodStream = null;
    if (this.bench) {
      this.bench.reject(new Error('benchmark: stopped, another scene opened'));
      this.bench = null;
    }
    if (ready) {
      try {
        this.renderer.adoptScene(ready.prepared);
      } catch (e) {
        ready.probe.destroy(); // adoptScene freed the rest
        throw e;
      }
    } else this.renderer.setScene(cloud);
    this.probe?.destroy();
    this.probe = ready?.probe ?? new DrawnOrderProbe(this.gpu, cloud.count);
    this.sceneId = id;
    this.scenesShown.push(id);
    this.sceneFirstFrameAt = null;
    this.sceneFirstFrameDoneAt = null;
    this.sceneFirstFrameId = null;
    this.resize(); // the target's real shape: a portrait phone frames narrower than the 300x150 default
    this.controller.aspect = this.target.width / Math.max(1, this.target.height);
    this.controller.setUp(this.settings.upAxis);
    const up = upVector(this.settings.upAxis);
    // Computed for another up axis (changed while the scene was made ready): again.
    const view = ready && ready.view.up.every((v, i) => v === up[i]) ? ready.view : stepsRun(this.bodyViewSteps(cloud));
    // The dense body, not the floaters (camera/framing.ts); F frames the same bounds.
    this.controller.frame(view.body, { keepDirection: false, setHome: true, snap: true });
    // From a side that shows it: a body much longer one way is not framed end-on.
    if (view.forward.some((v, i) => v !== defaultForward(this.settings.upAxis)[i])) {
      this.controller.setPose(fitPose(view.body, up, this.settings.fovyDeg, this.controller.aspect, view.forward));
      this.controller.setHome();
    }
    this.auto.sceneChanged(this.renderer.strategy); // a trial for the previous scene stops; this one is measured once on screen
    this.drawAuto.apply(); // the draw's too: this scene's pick, or a trial once on screen
    this.changed(true);
    this.emit('load', { name: cloud.source.name, id, splats: cloud.count, shDegree: cloud.shDegree });
  }

  // ---- sort and draw ----

  /**
   * @internal Applies a change; a refused one shows why and changes nothing. With
   * `choice` (a host's sort or draw choice), the line says what to change to have it
   * and what still runs (refused-choice.ts).
   */
  tryChange(change: () => void, choice?: { what: 'sort' | 'draw'; asked: string }): boolean {
    try {
      change();
      this.dirty = true;
      return true;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (!choice) {
        this.say(reason, 'error', 'page');
        return false;
      }
      const gpuSorts = listStrategies(this.gpu)
        .filter((s) => strategyByName(s.name).sorter)
        .map((s) => s.name);
      this.say(refusedChoiceLine(choice.what, choice.asked, { sort: this.renderer.strategy, draw: this.renderer.draw, gpuSorts }, reason), 'error', choice.what);
      return false;
    }
  }

  /**
   * The sort strategy: a name of `strategies`, or 'auto' (measured on this
   * adapter once a scene is on screen). False when refused (the message event says why).
   */
  setSort(name: string): boolean {
    if (name === AUTO_STRATEGY) {
      this.settings.sorter = name;
      this.auto.chosen(this.sceneId);
    } else {
      // The draw's auto makes way for a host sort (tiles cannot use it): quads first.
      if (this.settings.draw === AUTO_DRAW && !strategyByName(name).sorter) {
        this.drawAuto.trial = null;
        this.drawAuto.use('quads');
      }
      // A refused change (e.g. the tiles draw with a host sort) shows why and changes nothing.
      if (!this.tryChange(() => this.renderer.setStrategy(name), { what: 'sort', asked: name })) return false;
      this.settings.sorter = name;
      this.sortChanged();
      this.auto.cancel();
      this.auto.say(`${name}: your choice (remembered; pick auto to measure and choose)`);
    }
    this.unsay('sort'); // an earlier action's line (e.g. a refused choice) leaves
    this.changed(true);
    return true;
  }

  /** @internal The sort changed: the draw's auto follows (a host sort draws quads; back to a GPU sort, its pick or tiles). */
  sortChanged(): void {
    if (this.settings.draw === AUTO_DRAW && !this.drawAuto.trial) this.drawAuto.apply();
  }

  /** The draw: 'quads', 'tiles' or 'auto' (the faster measured here). False when refused (the message event says why). */
  setDraw(name: DrawSetting, source: 'panel' | 'saved' | 'link' = 'panel'): boolean {
    // Tiles under a host sort is refused, saying why.
    if (name === 'tiles' && !strategyByName(this.renderer.strategy).sorter && !this.tryChange(() => this.renderer.setDraw(name), { what: 'draw', asked: name })) return false;
    this.settings.draw = name;
    this.drawAuto.source = name === AUTO_DRAW ? 'default' : source;
    const ok = this.drawAuto.apply();
    if (ok) this.unsay('draw'); // an earlier action's line leaves
    return ok;
  }

  /**
   * @internal Something changed the work or the picture: redraw, and figures start over
   * (`clearGraph`: a new scene or strategy, whose times are of other work).
   */
  changed(clearGraph = false): void {
    this.dirty = true;
    this.figures.change();
    this.queueClock.forgetFrames();
    this.emit('change', { clearGraph });
  }

  // ---- frames ----

  /** @internal Resolves when the next frame's GPU work completes (or after 2 s, should none come). */
  nextFrameDone(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.frameWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** @internal */
  resize(): void {
    if (!this.target.resize()) return;
    this.dirty = true;
    // Other pixels, other draw times: the figures start over.
    this.figures.change();
    this.queueClock.forgetFrames();
    this.emit('change', { clearGraph: false });
  }

  /** @internal */
  frame(now: number): void {
    if (this.destroyed) return;
    this.schedule((t) => this.frame(t));
    encodeFrame(this, now);
  }

  /** @internal */
  onProfiledFrame(sample: FrameSample, frameId: number): void {
    const current = this.figures.current(frameId);
    this.figures.reported(frameId, sample);
    this.lastSample = sample;
    this.drawAuto.trial?.trial.reported(frameId, sample.total);
    this.bench?.run.profiled(frameId, sample);
    this.emit('sample', { frameId, sample, current });
  }

  /** @internal Reads the visible count a frame or two late, never stalling the frame loop. */
  readVisibleCount(now: number, frameId: number): void {
    this.countPending = true;
    this.lastCountRead = now;
    // This buffer, not the field: a lost device's is replaced by recover.
    const readback = this.countReadback;
    readback
      .mapAsync(GPUMapMode.READ)
      .then(() => {
        const v = DrawArgs.count(readback.getMappedRange());
        readback.unmap();
        this.figures.counted(frameId, v);
      })
      .catch(() => undefined)
      .finally(() => {
        this.countPending = false;
      });
  }

  // ---- the device (device-link.ts) ----

  /** @internal Draws with `device` from now on: the target configured, the binding limits, its errors and its loss watched. */
  attachDevice(device: GPUDevice): void {
    attachDevice(this, device);
  }

  /** @internal The profiler and the visible-count read-back of `device`. */
  makeFrameHelpers(device: GPUDevice): void {
    this.profiler = new GpuProfiler(device, { onFrame: (sample, meta) => this.onProfiledFrame(sample, meta.frame) });
    this.countReadback = device.createBuffer({ label: 'Viewer.countReadback', size: DrawArgs.size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  }

  // ---- pictures (pictures.ts) ----

  /** The world point of the splat under CSS pixel (x, y) of the target, or null (camera/pick.ts picks on the CPU). */
  pick(x: number, y: number): readonly number[] | null {
    return pick(this, x, y);
  }

  /**
   * A PNG of the view: scale 1 the canvas itself (taken right after the next
   * frame's submit), else an offscreen render at `scale` times its resolution
   * (within the device's largest texture).
   */
  screenshot(scale = 1): Promise<Blob> {
    return screenshot(this, scale);
  }

  /** The view's pixels (RGBA8, rows top down), rendered offscreen at `scale` times the target's resolution. */
  readPixels(scale = 1): Promise<OffscreenImage> {
    return readPixels(this, scale);
  }

  /** The scale readPixels(scale) really uses (bounded by the device's largest texture). */
  screenshotScale(scale: number): number {
    return screenshotScale(this, scale);
  }

  /** Flies the benchmark path with each of `strategies`; resolves with the rows (also kept as lastBenchmark). */
  benchmark(strategies: string[]): Promise<BenchmarkRow[]> {
    return startBenchmark(this, strategies);
  }

  /** "vendor / architecture description" of the adapter. */
  adapterLine(): string {
    const info = this.gpu.adapterInfo;
    return info ? `${info.vendor} / ${info.architecture} ${info.description ?? ''}`.trim() : 'unknown';
  }

  // ---- the end ----

  /**
   * Stops drawing and frees everything: the scene's GPU buffers, the profiler's,
   * the read-backs, the loader's worker, the listeners; and the device when the
   * viewer made it. The viewer is unusable afterwards.
   */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.recoveryToken++;
    this.loadToken++;
    this.cancelLoad();
    this.auto.deviceLost();
    this.drawAuto.trial = null;
    this.bench = null;
    for (const off of this.listeners.splice(0)) off();
    for (const w of this.shotWaiters.splice(0)) w.reject(new Error('screenshot: the viewer was destroyed'));
    for (const w of this.frameWaiters.splice(0)) w();
    this.probe?.destroy();
    this.probe = null;
    this.lodStream?.destroy();
    this.lodStream = null;
    this.profiler.destroy();
    this.countReadback.destroy();
    this.renderer.destroy();
    this.target.unconfigure();
    if (this.ownsDevice) {
      this.ownDestroy.add(this.gpu);
      this.gpu.destroy();
    }
  }
}
