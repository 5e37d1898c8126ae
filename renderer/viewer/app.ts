import { generateDefaultScene, generateSynthetic } from '../../scenes/generate';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { benchmarkPath, DrawnOrderProbe } from '../profile/benchmark-path';
import { formatTable, toCsv, toJson, type BenchmarkRow } from '../profile/benchmark-report';
import { BenchmarkRun } from '../profile/benchmark-run';
import { defaultForward, fitPose, length, normalize, robustBounds, sub, upVector, type CameraPose, type UpAxis } from '../camera/camera';
import { bodyViewSteps, type BodyView } from '../camera/framing';
import { pickSplat } from '../camera/pick';
import { CameraController } from '../camera/controller';
import { attachControls } from './input';
import { frameCamera } from '../camera/frame-camera';
import { formatMs, FrameGraph } from './frame-graph';
import type { FrameSample } from '../profile/frame-stats';
import { ViewerPanel, type ViewerSettings } from './gui';
import { GpuProfiler } from '../profile/profiler';
import { DrawArgs } from '../pipeline/draw-args';
import { SplatRenderer, type PreparedScene } from '../pipeline/splat-renderer';
import { GpuBudgetError, type BudgetLimits } from '../pipeline/gpu-budget';
import { withShDegree } from '../../scenes/load-options';
import type { ShDegree } from '../../scenes/splat-cloud';
import { budgetLimitsFor, budgetLine, loadOptionsFor, readShParam, withShParam } from './load-sh';
import { strategyByName } from '../pipeline/strategies';
import { DRAW_NAMES, drawByName, type DrawName } from '../pipeline/draw-strategies';
import { DRAW_ORDERS, type DrawOrder } from '../pipeline/draw-pass';
import { listStrategies } from '../pipeline/strategies';
import { renderOffscreen } from '../pipeline/offscreen';
import { canBlendInto } from '../pipeline/tiles/tile-pipelines';
import { AUTO_STRATEGY, softwareAdapterNote, startingStrategy, type AutoChoice } from '../profile/auto-strategy';
import { AutoRun } from '../profile/auto-run';
import { adapterKey, AutoPicks, isPickOf, type KeyValueStore } from '../profile/auto-picks'; // [h-ux]
import { AUTO_DRAW, chooseDraw, decideDraw, DrawTrial, isDrawSetting, type DrawChoice, type DrawSource, type TrialFrame } from '../profile/auto-draw';
import { LiveFigures, RefreshGate } from '../profile/live-figures';
import { hudText, sanitizedLine } from './hud';
import { SceneList, sceneIdOf, type SceneSource } from './scene-list';
import { LoadProgressView } from './load-progress';
import { sceneNameOfUrl, type LoadSource } from './scene-load-protocol';
import { SceneLoadCancelled, SceneLoader } from './scene-loader';
import { refusedChoiceLine, StatusMessages, type MessageAction } from './status-messages'; // [h-ux]
import { createBrowserDevice } from '../gpu/browser-device';
import { LossWindow, MAX_RECOVERIES, retryWithBackoff } from '../gpu/device-recovery';
import { droppedFiles, fromList, type PathedFile } from './dropped-files';
import { groupSceneFiles } from './scene-files';
import { canvasToPng, downloadBlob, imageToPng, screenshotName, toggleFullscreen } from './screenshot';
import { decodeViewState, encodeViewHash, readSceneParam, sceneIdIsUrl, viewAppliesTo, type ViewState } from './view-url';

export interface AppElements {
  canvas: HTMLCanvasElement;
  hud: HTMLElement;
  message: HTMLElement;
  drop: HTMLElement;
  help: HTMLElement;
  file: HTMLInputElement;
  graph: HTMLElement;
  bench: HTMLElement;
  /** The loading bar (load-progress.ts). */
  load: HTMLElement;
}

/** Frames the CPU may run ahead of the GPU. */
const MAX_FRAMES_IN_FLIGHT = 2;

/** Built-in scenes offered in the panel's scene list (generated, no data shipped). */
const BUILT_IN_SCENES = ['default', 'default:3000', 'synthetic:100000', 'synthetic:1000000'];

function hexToRgb(hex: string): [number, number, number] {
  const v = parseInt(hex.replace('#', ''), 16);
  return [((v >> 16) & 255) / 255, ((v >> 8) & 255) / 255, (v & 255) / 255];
}

/** Resolves after the next animation frame has had a chance to paint (at most ~100 ms: a slow GPU delays frames). */
/**
 * Lets the page run (input, animation frames) between slices of long work: the
 * rest continues in a new task (a message to ourselves: unlike nested zero-delay
 * timers it is not clamped to 4 ms).
 */
const yieldChannel = new MessageChannel();
const yieldWaiters: (() => void)[] = [];
yieldChannel.port1.onmessage = () => yieldWaiters.shift()?.();
function yieldToPage(): Promise<void> {
  return new Promise((resolve) => {
    yieldWaiters.push(resolve);
    yieldChannel.port2.postMessage(null);
  });
}

/** [h-ux] The page's localStorage for auto's picks, or null where storage is off (private mode, a sandboxed frame). */
function pageStore(): KeyValueStore | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Runs a generator of steps (framing.ts), a step a task: the page runs between them. */
async function stepsInTasks<T>(steps: Generator<void, T, void>): Promise<T> {
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await yieldToPage();
  }
}

/** Runs a generator of steps to its end at once. */
function stepsRun<T>(steps: Generator<void, T, void>): T {
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/** A scene made ready to show without a long task: set up on the GPU, with its order probe and its first view. */
interface ReadyScene {
  prepared: PreparedScene;
  probe: DrawnOrderProbe;
  view: BodyView;
}

function nextPaint(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}

function builtInScene(name: string): SplatCloud {
  const [kind, n] = name.split(':');
  const cloud = kind === 'synthetic' ? generateSynthetic(Number(n)) : generateDefaultScene(n ? Number(n) : undefined);
  // The list's name: 'default:3000' is not 'default' (60,000 splats).
  cloud.source = { ...cloud.source, name };
  return cloud;
}

/** A load that a lost GPU device ended (the scene on screen stays; the page recovers). */
class DeviceLostDuringLoad extends Error {
  override name = 'DeviceLostDuringLoad';
}

/** A benchmark in progress (renderer/profile/benchmark-run.ts) and what to restore after it. */
interface Benchmark {
  run: BenchmarkRun;
  restore: { strategy: string; pose: CameraPose };
  /** The canvas in device pixels when the run started, "1280x800". */
  resolution: string;
}

/**
 * The browser viewer: canvas + renderer + camera controls + panel + profiler +
 * scene loading + benchmark mode. A scene that fails to load leaves the one on
 * screen as it was.
 */
export class ViewerApp {
  private readonly context: GPUCanvasContext;
  private readonly format: GPUTextureFormat;
  /** The device drawing now; replaced when it is lost (recover). */
  private gpu!: GPUDevice;
  /** Everything below made on `gpu` is made again on a new device after a loss (recover). */
  private renderer: SplatRenderer;
  private readonly controller: CameraController;
  private readonly panel: ViewerPanel;
  private readonly settings: ViewerSettings;
  private profiler!: GpuProfiler;
  private readonly graph: FrameGraph;
  private countReadback!: GPUBuffer;
  private probe: DrawnOrderProbe | null = null;
  private readonly scenes = new SceneList(BUILT_IN_SCENES);
  /** Figures of the scene and configuration on screen now (a change starts a new epoch). */
  private readonly figures = new LiveFigures();
  private readonly refresh = new RefreshGate(200);
  private softwareNote: string | null;
  /** Identity of the scene on screen (scene-list.ts), written into the view hash. */
  private sceneId: string | null = null;
  /** A view from the hash waiting for the scene it was saved for. */
  private pendingView: ViewState | null = null;
  /** The hash as this page last wrote or applied it: anything else is the user's edit. */
  private knownHash = '';
  /** The HUD's loading line, or null. */
  private loading: string | null = null;
  /** Scene files and URLs load in a worker (scene-loader.ts); the scene on screen keeps drawing. */
  private readonly loader = new SceneLoader();
  private readonly progress: LoadProgressView;
  /** The `auto` strategy: when and what to measure, its pick and the panel's line (profile/auto-run.ts). */
  private readonly auto: AutoRun;
  /** Devices the page destroys itself: their loss is no accident and is not recovered from. */
  private readonly ownDestroy = new WeakSet<GPUDevice>();
  /** The device is lost and not replaced yet: no frames are drawn. */
  private gpuLost = false;
  /** Recent losses: too many within a minute and the page stops trying (gpu/device-recovery.ts). */
  private readonly losses = new LossWindow();
  /** A recovery in progress; a newer loss supersedes it. */
  private recoveryToken = 0;
  /**
   * The device the page draws with: 0 for the first, one more each time a lost device
   * has been replaced and the scene is on the new one (read by the end-to-end test).
   */
  deviceGeneration = 0;
  private lastCamera: ReturnType<typeof frameCamera> | null = null;
  private shotRequest = false;
  private lastTime = 0;
  private countPending = false;
  private lastCountRead = 0;
  private hashWritten = 0;
  private loadToken = 0;
  /** [h-ux] The message line, owned by the action that raised it (status-messages.ts): it leaves when a later action succeeds. */
  private readonly status = new StatusMessages((m) => {
    if (!m) {
      this.el.message.hidden = true;
      return;
    }
    this.el.message.textContent = m.text;
    this.el.message.className = m.kind === 'info' ? 'info' : '';
    this.el.message.hidden = false;
  });
  /** [h-ux] The load in flight's abort (every phase, the GPU upload included) and its scene's name, for cancelLoad. */
  private loadAbort: { controller: AbortController; name: string } | null = null;
  /** The last scene the GPU budget refused (pipeline/gpu-budget.ts), reopened when the load SH degree changes. */
  private refused: SceneSource | null = null;
  /** A setting changed that needs a new sort or draw even if the camera stands still. */
  private dirty = true;
  private submittedFrames = 0;
  /** Frames submitted and not yet finished by the GPU. */
  private gpuInFlight = 0;
  private bench: Benchmark | null = null;
  /** The pair-buffer cap warning of the tiles draw is on screen. */
  private tilesCapShown = false;
  /** Frames submitted so far (read by the end-to-end test). */
  framesRendered = 0;
  /** Frames whose GPU work completed (read by the end-to-end test). */
  framesCompleted = 0;
  /** Identities of the scenes shown so far, in order (read by the end-to-end test). */
  readonly scenesShown: string[] = [];
  /**
   * The worker loads of this visit, oldest first (read by the end-to-end test):
   * performance.now() when each started, when its cloud arrived on this thread,
   * and when the scene was set up on the GPU and shown; how long the task that
   * switched to it took (ms, from its start to shownAt); how it ended.
   */
  readonly loads: { name: string; startedAt: number; readyAt: number | null; shownAt: number | null; switchMs: number | null; outcome: 'loading' | 'shown' | 'failed' | 'cancelled' | 'superseded' }[] = [];
  /** performance.now() of the current scene's first submitted frame, or null before it (read by the end-to-end test). */
  sceneFirstFrameAt: number | null = null;
  /** performance.now() when the GPU finished the current scene's first frame, or null before (read by the browser benchmark). */
  sceneFirstFrameDoneAt: number | null = null;
  /** The id of the current scene's first submitted frame. */
  private sceneFirstFrameId: number | null = null;

  /** The draw's `auto`: the trial over the page's frames in progress (profile/auto-draw.ts), or null. */
  private drawTrial: { trial: DrawTrial; count: number; finishedAt: number | null } | null = null;
  /** Measure the draws once the scene is on screen (auto, not measured for this splat count). */
  private drawWanted = false;
  /** The draw's auto picks, by adapter and splat count (kept across visits): no new trial for a scene size measured already. [h-ux: was a Map by count] */
  private readonly drawPicks: AutoPicks<DrawChoice>;
  /** [h-ux] The last completed frame's time from submit to done (ms): no auto trial sort takes longer. */
  private lastFrameGpuMs: number | null = null;
  /** Where the draw setting came from (the panel's line words it). */
  private drawSource: DrawSource = 'default';
  /** The line under the panel's draw control: the draw's auto pick and why, or the user's choice (read by the end-to-end test). */
  drawNote = '';
  /** The draw's auto pick for the scene on screen, once measured (read by the end-to-end test). */
  get drawChoice(): DrawChoice | null {
    const cloud = this.renderer.cloud;
    return (this.settings.draw === AUTO_DRAW && cloud && this.drawPicks.get(cloud.count)) || null;
  }

  /** The strategy drawing now (auto's pick, or the user's). */
  get strategy(): string {
    return this.renderer.strategy;
  }

  /** The draw strategy in use (read by the browser benchmark). */
  get draw(): DrawName {
    return this.renderer.draw;
  }

  /** The binding limits scenes are checked against: the device's, or lowered by ?bindlimit= (read by the browser benchmark). */
  budgetLimits!: BudgetLimits;

  /** The device drawing now (a new one after a loss; the end-to-end test destroys it to simulate one). */
  get device(): GPUDevice {
    return this.gpu;
  }

  /** The camera pose on screen now. */
  get view(): CameraPose {
    return this.controller.pose;
  }

  /** What auto picked and why, or the user's choice, as the panel says it. */
  get strategyNote(): string {
    return this.auto.note;
  }
  /** The last benchmark's rows (also offered as CSV / JSON downloads). */
  lastBenchmark: BenchmarkRow[] | null = null;
  /** The canvas is configured as a storage texture the tiles draw writes directly. */
  private canvasStorage!: boolean;

  constructor(
    device: GPUDevice,
    private readonly el: AppElements,
  ) {
    const format = navigator.gpu.getPreferredCanvasFormat();
    this.format = format;
    const context = el.canvas.getContext('webgpu');
    if (!context) throw new Error('The canvas has no WebGPU context.');
    this.context = context;
    this.attachDevice(device);

    const strategies = listStrategies(device);
    const names = [AUTO_STRATEGY, ...strategies.map((s) => s.name)];
    const saved = ViewerPanel.loadSaved(
      (k, v) => (k !== 'sorter' || names.includes(v as string)) && (k !== 'draw' || isDrawSetting(v)),
    );
    if (saved.draw && saved.draw !== AUTO_DRAW) this.drawSource = 'saved';
    const adapter = device.adapterInfo ?? {};
    this.softwareNote = softwareAdapterNote(adapter);
    this.settings = {
      scene: 'default',
      // auto: measured on this adapter (auto-strategy.ts); a saved or ?sort= choice wins.
      sorter: AUTO_STRATEGY,
      // auto: quads or tiles, the faster measured on this adapter (auto-draw.ts); a saved or ?draw= choice wins.
      draw: AUTO_DRAW,
      keyBits: 32,
      sortMode: 'every frame',
      shDegree: 3,
      splatScale: 1,
      cull: true,
      sigmaCut: false,
      minContribution: 0,
      antialias: false,
      drawOrder: 'auto',
      background: '#000000',
      upAxis: '-y',
      fovyDeg: 60,
      graph: true,
      benchFrames: 120,
      loadSh: 3,
      ...saved,
    };
    const shParam = readShParam(location.search);
    if (shParam.degree !== undefined) this.settings.loadSh = shParam.degree;
    const params = new URLSearchParams(location.search);
    const urlSort = params.get('sort');
    if (urlSort && names.includes(urlSort)) this.settings.sorter = urlSort;
    const urlDraw = params.get('draw');
    if (isDrawSetting(urlDraw)) {
      this.settings.draw = urlDraw;
      this.drawSource = urlDraw === AUTO_DRAW ? 'default' : 'link';
    }
    const urlCut = params.get('cut');
    if (urlCut === '1' || urlCut === '0') this.settings.sigmaCut = urlCut === '1';
    const urlContribution = Number(params.get('mincontrib') ?? NaN);
    if (urlContribution >= 0 && urlContribution <= 100) this.settings.minContribution = urlContribution;
    const urlAa = params.get('aa');
    if (urlAa === '1' || urlAa === '0') this.settings.antialias = urlAa === '1';
    const urlOrder = params.get('order');
    if (urlOrder && DRAW_ORDERS.includes(urlOrder as DrawOrder)) this.settings.drawOrder = urlOrder as DrawOrder;

    // Until auto has measured: the prior for this adapter (the fastest known on software adapters).
    const first = this.settings.sorter === AUTO_STRATEGY ? startingStrategy(adapter, device.features, strategies) : this.settings.sorter;
    // The tiles draw sorts on the GPU: with a host sort strategy it falls back to quads (decideDraw).
    // Asked of the strategy that will draw (`auto` is no strategy: its GPU sorters all serve tiles).
    const firstDraw = decideDraw(this.settings.draw, this.drawSource, { name: first, host: !strategyByName(first).sorter });
    this.drawNote = firstDraw.note;
    this.drawWanted = firstDraw.measure;
    this.renderer = new SplatRenderer(device, format, first, firstDraw.draw, {}, this.budgetLimits);
    // [h-ux] Picks by adapter and scene size, in localStorage: a size measured before is not measured again.
    const picksKey = adapterKey(device.adapterInfo ?? {});
    this.drawPicks = new AutoPicks<DrawChoice>('draw', picksKey, isPickOf<DrawChoice>(DRAW_NAMES), pageStore());
    this.auto = new AutoRun(device, strategies, {
      frameMs: () => this.lastFrameGpuMs, // [h-ux] each trial sort within the page's own frame time
      frameDone: () => this.nextFrameDone(),
      noted: (t) => {
        this.panel?.setStrategyNote(t);
        this.refresh.invalidate();
      },
      apply: (name) => {
        if (this.renderer.strategy === name) return;
        this.renderer.setStrategy(name);
        this.sortChanged();
        this.changed(true);
      },
      active: () => this.settings.sorter === AUTO_STRATEGY && this.bench === null,
    }, new AutoPicks<AutoChoice>('sort', picksKey, isPickOf<AutoChoice>(strategies.map((s) => s.name)), pageStore())); // [h-ux]
    if (this.settings.sorter === AUTO_STRATEGY) this.auto.note = `auto: starting with ${first}${this.softwareNote ? ' (fastest known on software GPUs)' : ''}; measuring once a scene is on screen`;
    else if (urlSort === this.settings.sorter) this.auto.note = `${first}: chosen by the link (?sort=)`;
    else this.auto.note = `${first}: your choice (remembered; pick auto to measure and choose)`;
    this.controller = new CameraController({ eye: [0, 0, -5], target: [0, 0, 0], up: upVector(this.settings.upAxis), fovyDeg: this.settings.fovyDeg });
    this.panel = new ViewerPanel(this.settings, strategies, this.scenes.options(), {
      openFile: () => el.file.click(),
      openScene: (name) => this.openScene(name),
      onLoadShChange: (degree) => this.reloadWithSh(degree as ShDegree),
      frameScene: () => this.frameScene(),
      resetView: () => this.controller.reset(),
      onStrategyChange: (name) => this.chooseStrategy(name),
      onDrawChange: (name) => this.chooseDraw(name),
      onUpAxisChange: (axis) => this.setUpAxis(axis),
      onSettingsChange: () => {
        this.status.succeeded('settings'); // [h-ux] an earlier action's line leaves
        this.changed();
      },
      screenshot: (scale) => this.screenshot(scale),
      toggleFullscreen: () => toggleFullscreen(),
      runBenchmark: (list) => this.startBenchmark(list),
      exportCsv: () => this.download('splatview-benchmark.csv', 'text/csv', toCsv(this.lastBenchmark ?? [])),
      exportJson: () => this.download('splatview-benchmark.json', 'application/json', toJson(this.lastBenchmark ?? [])),
    });
    this.progress = new LoadProgressView(el.load, () => this.cancelLoad()); // [h-ux] was this.loader.cancel(): Cancel now also stops the GPU upload
    this.makeFrameHelpers(device);
    this.graph = new FrameGraph(el.graph);
    this.graph.setVisible(this.settings.graph);
    this.graph.setLegendStages(drawByName(this.renderer.draw).stages);
    this.panel.setStrategyNote(this.auto.note);
    this.panel.setDrawNote(this.drawNote);
    if (shParam.error) this.showMessage(shParam.error);
    attachControls(el.canvas, this.controller, {
      onKey: (key: string, e: KeyboardEvent) => {
        if (key === 'f' && e.shiftKey) toggleFullscreen();
        else if (key === 'f') this.frameScene();
        else if (key === 'r') this.controller.reset();
        else if (key === 'h') el.help.hidden = !el.help.hidden;
        else if (key === 'p') this.screenshot(e.shiftKey ? 2 : 1);
      },
      pick: (x, y) => this.pick(x, y),
    });
    // Editing the hash, or back / forward between hashes, moves the camera.
    window.addEventListener('hashchange', (e) => this.applyHash(new URL(e.newURL).hash));
    this.wireInputs();
  }

  /**
   * Draws with `device` from now on: the canvas configured for it, the binding limits
   * scenes are checked against, its errors shown, and its loss noticed (recover).
   */
  private attachDevice(device: GPUDevice): void {
    this.gpu = device;
    // The tiles draw writes the canvas directly where its format can be a storage
    // texture (no image copied onto it each frame: tiles/tile-pipelines.ts canBlendInto).
    this.canvasStorage = canBlendInto(device, this.format);
    this.context.configure({
      device,
      format: this.format,
      alphaMode: 'opaque',
      usage: GPUTextureUsage.RENDER_ATTACHMENT | (this.canvasStorage ? GPUTextureUsage.STORAGE_BINDING : 0),
    });
    this.budgetLimits = budgetLimitsFor(device.limits, location.search);
    device.addEventListener('uncapturederror', (e) => {
      if (device !== this.gpu) return;
      const err = (e as GPUUncapturedErrorEvent).error;
      console.error('WebGPU error:', err.message);
      this.showMessage(`GPU error: ${err.message}`);
    });
    // Any loss but the page's own destroy (a driver reset, the GPU process gone, a
    // destroy() from elsewhere: the end-to-end test's) is recovered from.
    void device.lost.then((info) => {
      if (device === this.gpu && !this.ownDestroy.has(device)) void this.recover(info);
    });
  }

  /** The profiler and the visible-count read-back of `device`. */
  private makeFrameHelpers(device: GPUDevice): void {
    this.profiler = new GpuProfiler(device, { onFrame: (sample, meta) => this.onProfiledFrame(sample, meta.frame) });
    this.countReadback = device.createBuffer({
      label: 'ViewerApp.countReadback',
      size: DrawArgs.size,
      usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
    });
  }

  /**
   * The device was lost (not by the page's own destroy): stops drawing, says so,
   * ends a scene load in flight, asks for a new adapter and device (same
   * requirements: gpu/browser-device.ts; a few attempts with growing pauses), makes
   * everything GPU-side again on it (canvas, renderer with the same sort and draw,
   * profiler, read-backs, auto's state), uploads the scene from the SplatCloud the
   * renderer kept on the CPU (or reopens its source when there is none) and draws on
   * with the same settings and camera (the controller and settings are CPU-side and
   * untouched). Losses that come too often, or a device that cannot be made, are
   * said once and the page stops trying (gpu/device-recovery.ts).
   */
  private async recover(info: GPUDeviceLostInfo): Promise<void> {
    const token = ++this.recoveryToken;
    const lost = this.gpu;
    const message = info.message.trim().replace(/\.$/, '');
    const lead = `The GPU device was lost (${info.reason}${message ? `: ${message}` : ''})`;
    console.warn(`${lead}: recovering`);
    this.gpuLost = true;
    // A load in flight ends (its line says why); the scene on screen stays.
    this.loader.stop((name) => new DeviceLostDuringLoad(this.lostLoadLine(name)));
    this.abortGpuWork();
    if (!this.losses.allow(performance.now())) {
      this.showMessage(`${lead}, ${MAX_RECOVERIES + 1} times within a minute: not trying again; reload the page`);
      return;
    }
    this.showMessage(`${lead}: recovering…`, 'info', 'device', true); // [h-ux] progress
    let device: GPUDevice;
    try {
      ({ device } = await retryWithBackoff(() => createBrowserDevice(), { stopped: () => token !== this.recoveryToken }));
    } catch (err) {
      if (token !== this.recoveryToken) return;
      // Said once; no more attempts (gpuLost stays: no frames on a lost device).
      this.showMessage(`${lead}; ${(err instanceof Error ? err.message : String(err)).replace(/\.$/, '')}: reload the page`);
      return;
    }
    if (token !== this.recoveryToken) {
      this.ownDestroy.add(device);
      device.destroy();
      return;
    }
    // From here a loss of the new device is a loss like any other (a new recovery supersedes this one).
    this.attachDevice(device);
    this.softwareNote = softwareAdapterNote(device.adapterInfo ?? {});
    const old = this.renderer;
    const cloud = old.cloud;
    let renderer: SplatRenderer;
    try {
      renderer = new SplatRenderer(device, this.format, old.strategy, old.draw, {}, this.budgetLimits);
    } catch {
      // The old strategy or draw is not available on this device: the adapter's default.
      const first = startingStrategy(device.adapterInfo ?? {}, device.features, listStrategies(device));
      renderer = new SplatRenderer(device, this.format, first, 'quads', {}, this.budgetLimits);
    }
    let prepared: PreparedScene | null = null;
    let uploadError: unknown = null;
    if (cloud) {
      try {
        prepared = await renderer.prepareScene(cloud, yieldToPage);
      } catch (err) {
        uploadError = err;
      }
    }
    if (token !== this.recoveryToken) {
      prepared?.destroy();
      renderer.destroy();
      return;
    }
    // The switch: the new renderer takes the scene; what the user changed meanwhile follows.
    if (prepared) renderer.adoptScene(prepared);
    this.renderer = renderer;
    if (old.strategy !== renderer.strategy) this.tryChange(() => renderer.setStrategy(old.strategy));
    if (old.draw !== renderer.draw) this.tryChange(() => renderer.setDraw(old.draw));
    old.destroy();
    this.profiler.destroy();
    this.countReadback.destroy();
    this.probe?.destroy();
    this.makeFrameHelpers(device);
    this.probe = prepared && cloud ? new DrawnOrderProbe(device, cloud.count) : null;
    this.auto.deviceChanged(device);
    // The draw's auto: a trial in flight runs again; its picks so far stay.
    this.applyDrawSetting();
    this.gpuInFlight = 0;
    this.countPending = false;
    const waiters = this.frameWaiters;
    this.frameWaiters = [];
    for (const w of waiters) w();
    this.deviceGeneration++;
    this.gpuLost = false;
    this.ownDestroy.add(lost);
    lost.destroy(); // lost already: frees what it may still hold
    this.graph.setLegendStages(drawByName(renderer.draw).stages);
    this.changed(true);
    const lostLoad = this.lostLoad;
    this.lostLoad = null;
    if (uploadError) {
      const why = uploadError instanceof GpuBudgetError ? budgetLine(uploadError) : uploadError instanceof Error ? uploadError.message : String(uploadError);
      this.showMessage(`${lead}: a new device is drawing, but the scene could not be put on it: ${why}`);
    } else {
      const line = `${lead}: recovered${lostLoad ? `; ${lostLoad}` : ''}`;
      this.showMessage(line, 'info');
      // Gone after a while, unless another line replaced it.
      setTimeout(() => {
        if (this.el.message.textContent === line && !this.el.message.hidden) this.hideMessage();
      }, 6000);
    }
    // The page kept no cloud (none on screen when the device went): the scene list reopens
    // the scene's source, in the same view.
    const source = !cloud && this.sceneId ? this.scenes.get(this.sceneId)?.source : undefined;
    if (source) {
      this.pendingView = { pose: this.controller.pose, scene: this.sceneId };
      void this.openSource(source);
    }
  }

  /** The line of a load the device loss ended. */
  private lostLoadLine(name: string): string {
    const kept = this.renderer.cloud ? `${this.renderer.cloud.source.name} stays on screen` : 'nothing else is open';
    return `${name}: not loaded: the GPU device was lost during the load; ${kept}`;
  }

  /** A load the loss ended, said again in the recovered line. */
  private lostLoad: string | null = null;

  /** Work on the lost device that would wait for it: a benchmark (its camera and strategy restored), a sort or draw trial. */
  private abortGpuWork(): void {
    const bench = this.bench;
    if (bench) {
      this.bench = null;
      this.renderer.setStrategy(bench.restore.strategy);
      this.controller.setPose(bench.restore.pose);
      this.panel.setExportEnabled(this.lastBenchmark !== null);
    }
    this.drawTrial = null;
    this.auto.deviceLost();
  }

  /**
   * Applies a strategy change; a refused one (e.g. tiles with a host sort) shows why and
   * changes nothing. [h-ux] With `choice` (the user's sort or draw choice), the line says
   * what to change to have it and what still runs (status-messages.ts refusedChoiceLine).
   */
  private tryChange(change: () => void, choice?: { what: 'sort' | 'draw'; asked: string }): boolean {
    try {
      change();
      this.dirty = true;
      return true;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (!choice) {
        this.showMessage(reason);
        return false;
      }
      const gpuSorts = listStrategies(this.device).filter((s) => strategyByName(s.name).sorter).map((s) => s.name);
      this.showMessage(refusedChoiceLine(choice.what, choice.asked, { sort: this.renderer.strategy, draw: this.renderer.draw, gpuSorts }, reason), 'error', choice.what);
      return false;
    }
  }

  /**
   * Opens the scene named by ?scene=URL (or by the hash's scene, when that is a URL),
   * else the generated default scene (?splats=N sizes it). A scene URL is loaded
   * first: the default scene is built only if there is none, or it fails. The hash's
   * view is applied when it was saved for the scene that opens.
   */
  async start(): Promise<void> {
    const view = decodeViewState(location.hash);
    this.knownHash = location.hash;
    this.pendingView = view;
    const url = readSceneParam(location.search) ?? (view?.scene && sceneIdIsUrl(view.scene) ? view.scene : null);
    requestAnimationFrame((t) => this.frame(t));
    if (url && (await this.openSource({ kind: 'url', url }))) return;
    const splats = Number(new URLSearchParams(location.search).get('splats') ?? '') || undefined;
    const spec = splats ? `default:${splats}` : 'default';
    this.scenes.add({ kind: 'generated', spec });
    try {
      this.setScene(withShDegree(builtInScene(spec), this.loadOptions()), spec);
    } catch (err) {
      // ?splats=N too many for this GPU: say so (nothing else is on screen yet).
      this.refused = err instanceof GpuBudgetError ? { kind: 'generated', spec } : null;
      this.showMessage(err instanceof GpuBudgetError ? budgetLine(err) : err instanceof Error ? err.message : String(err));
    }
  }

  private wireInputs(): void {
    const { file, drop } = this.el;
    file.addEventListener('change', () => {
      void this.openFiles(fromList(file.files));
      file.value = '';
    });
    let depth = 0;
    window.addEventListener('dragenter', (e) => {
      e.preventDefault();
      depth++;
      drop.hidden = false;
    });
    window.addEventListener('dragleave', () => {
      if (--depth <= 0) {
        depth = 0;
        drop.hidden = true;
      }
    });
    window.addEventListener('dragover', (e) => e.preventDefault());
    window.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      drop.hidden = true;
      if (e.dataTransfer) void droppedFiles(e.dataTransfer).then((files) => this.openFiles(files));
    });
    this.el.bench.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).dataset.action === 'close') this.el.bench.hidden = true;
    });
  }

  async openFile(file: File): Promise<boolean> {
    return this.openSource({ kind: 'file', file });
  }

  /**
   * Opens files chosen or dropped together: one scene file, or a scene and the files it
   * names (a SOG's meta.json and its .webp, a .gltf and its .bin; a dropped folder).
   */
  async openFiles(files: readonly PathedFile[]): Promise<boolean> {
    const group = groupSceneFiles(files.map((f) => f.path));
    if (group === null) return false;
    const main = files[group.main]!.file;
    if (files.length === 1) return this.openFile(main);
    const byPath = Object.fromEntries(group.paths.map((p, i) => [p, files[i]!.file]));
    return this.openSource({ kind: 'file', file: main, companions: { mainPath: group.paths[group.main]!, files: byPath } });
  }

  async openUrl(url: string): Promise<boolean> {
    return this.openSource({ kind: 'url', url });
  }

  /** From the scene list: a generated scene, or a file or URL opened earlier in the visit. */
  private openScene(id: string): void {
    const entry = this.scenes.get(id);
    if (entry && id !== this.sceneId) void this.openSource(entry.source);
  }

  /**
   * Opens a scene from a source. Files and URLs load in the worker while the scene
   * on screen keeps drawing, with the loading bar; the new scene replaces it only
   * once it is ready. A failed or cancelled load shows one line and keeps the scene
   * on screen. Resolves true when the scene is shown.
   */
  private async openSource(source: SceneSource): Promise<boolean> {
    const token = ++this.loadToken;
    const id = sceneIdOf(source);
    // A device lost while this load runs ends it (recover keeps the scene on screen).
    const generation = this.deviceGeneration;
    const lostSince = () => this.gpuLost || generation !== this.deviceGeneration;
    const endIfLost = (name: string) => {
      if (lostSince()) throw new DeviceLostDuringLoad(this.lostLoadLine(name));
    };
    // A newer choice replaces a load in flight (its worker stops at once).
    this.loader.cancel();
    // [h-ux] And its GPU upload, if it is that far (superseded: the token check ends it quietly).
    this.loadAbort?.controller.abort();
    const abort = new AbortController();
    const flight = (this.loadAbort = { controller: abort, name: source.kind === 'generated' ? source.spec : '' });
    let record: ViewerApp['loads'][number] | null = null;
    const setLoading = (line: string | null) => {
      this.loading = line;
      this.refresh.invalidate();
    };
    try {
      let cloud: SplatCloud;
      if (source.kind === 'generated') {
        this.progress.hide();
        setLoading(`Generating ${source.spec}…`);
        this.showMessage(`Generating ${source.spec}…`, 'info', 'load', true); // [h-ux] progress
        // Let the message paint before the (synchronous) generation.
        await new Promise((r) => setTimeout(r, 20));
        endIfLost(source.spec);
        cloud = withShDegree(builtInScene(source.spec), this.loadOptions());
      } else {
        const load: LoadSource =
          source.kind === 'file'
            ? { kind: 'blob', name: source.companions?.mainPath ?? source.file.name, blob: source.file, ...(source.companions ? { companions: source.companions } : {}), options: this.loadOptions() }
            : { kind: 'url', name: sceneNameOfUrl(source.url), url: new URL(source.url, location.href).href, options: this.loadOptions() };
        this.hideMessage();
        this.progress.show(load.name, source.kind === 'file' ? source.file.size : undefined);
        setLoading(this.progress.text);
        flight.name = load.name; // [h-ux]
        record = { name: load.name, startedAt: performance.now(), readyAt: null, shownAt: null, switchMs: null, outcome: 'loading' };
        this.loads.push(record);
        endIfLost(load.name); // opened while the page is replacing its device
        let checked = false;
        cloud = await this.loader.load(load, (p) => {
          if (token !== this.loadToken) return;
          // The header's count and degree, as soon as known: a scene the GPU cannot hold is
          // refused now, not after its whole body is parsed (a 6M-splat file: 30 s, 1.4 GB).
          if (p.declared && !checked) {
            checked = true;
            try {
              this.renderer.assertFits(load.name, p.declared.splats, p.declared.shDegree);
            } catch (e) {
              if (e instanceof GpuBudgetError) return this.loader.stop(() => e);
              throw e;
            }
          }
          this.progress.update(p);
          setLoading(this.progress.text);
        });
        record.readyAt = performance.now();
        if (token === this.loadToken) {
          // The GPU upload of a large scene takes a while (in slices, between which the
          // page keeps drawing the scene on screen): the bar says so.
          this.progress.preparing(cloud.count);
          setLoading(this.progress.text);
          await nextPaint();
          abort.signal.throwIfAborted(); // [h-ux] cancelled while the bar painted
        }
      }
      if (token !== this.loadToken) {
        if (record) record.outcome = 'superseded';
        return false; // a newer load superseded this one
      }
      endIfLost(cloud.source.name);
      // Everything the new scene needs before it is shown is made here, a task at a time,
      // while the scene on screen keeps drawing; the switch then only swaps references.
      const prepared = await this.renderer.prepareScene(cloud, yieldToPage, (uploaded) => {
        if (token !== this.loadToken || source.kind === 'generated') return;
        this.progress.preparing(cloud.count, uploaded);
        setLoading(this.progress.text);
      }, abort.signal); // [h-ux] Cancel stops the upload at its next slice and frees what it made
      let probe: DrawnOrderProbe | null = null;
      let ready: ReadyScene | null = null;
      try {
        await yieldToPage();
        probe = new DrawnOrderProbe(this.device, cloud.count);
        ready = { prepared, probe, view: await stepsInTasks(this.bodyViewSteps(cloud)) };
        await yieldToPage();
      } finally {
        if (!ready || token !== this.loadToken || lostSince() || abort.signal.aborted) {
          probe?.destroy();
          prepared.destroy();
        }
      }
      abort.signal.throwIfAborted(); // [h-ux] cancelled while its first view was worked out
      if (token !== this.loadToken) {
        if (record) record.outcome = 'superseded';
        return false;
      }
      // Made on a device lost since: the new device has none of it.
      endIfLost(cloud.source.name);
      const switchAt = performance.now();
      this.progress.hide();
      this.scenes.add(source);
      this.setScene(cloud, id, ready);
      this.refused = null;
      const shownAt = performance.now();
      if (record) Object.assign(record, { shownAt, switchMs: shownAt - switchAt, outcome: 'shown' });
      if (this.loadAbort === flight) this.loadAbort = null; // [h-ux]
      this.loading = null;
      this.hideMessage();
      return true;
    } catch (err) {
      if (this.loadAbort === flight) this.loadAbort = null; // [h-ux]
      if (record) record.outcome = token !== this.loadToken ? 'superseded' : err instanceof SceneLoadCancelled ? 'cancelled' : 'failed';
      if (token !== this.loadToken) return false;
      this.progress.hide();
      this.loading = null;
      // Too big for the GPU (the scene on screen stays): the load SH control retries this one.
      this.refused = err instanceof GpuBudgetError ? source : null;
      const msg = err instanceof GpuBudgetError ? budgetLine(err) : err instanceof Error ? err.message : String(err);
      // Said again in the recovered line (recover) should it come after this one.
      if (err instanceof DeviceLostDuringLoad && this.gpuLost) this.lostLoad = msg;
      if (err instanceof SceneLoadCancelled) {
        this.showMessage(`${msg}; ${this.renderer.cloud ? `${this.renderer.cloud.source.name} stays on screen` : 'nothing else is open'}`, 'info');
      } else {
        console.warn(`scene load failed: ${msg}`);
        this.showMessage(msg);
      }
      this.refresh.invalidate();
      return false;
    }
  }

  /** The loaders' options for the panel's load SH degree. */
  private loadOptions(): { maxShDegree?: ShDegree } {
    return loadOptionsFor(this.settings.loadSh as ShDegree);
  }

  /**
   * [h-ux] The bar's Cancel: stops the load in whatever phase it is, the worker's read and
   * parse (the loader) or the GPU upload and what follows it (the abort signal, whose
   * reason is the same SceneLoadCancelled the loader gives: one message for both).
   */
  private cancelLoad(): void {
    const flight = this.loadAbort;
    this.loader.cancel();
    if (flight && !flight.controller.signal.aborted) flight.controller.abort(new SceneLoadCancelled(flight.name));
  }

  /**
   * The load SH degree changed (panel): written into the query (`?sh=N`, so a reload
   * keeps it), then the scene the GPU refused, else the one on screen, is opened again.
   */
  private reloadWithSh(degree: ShDegree): void {
    history.replaceState(null, '', `${location.pathname}${withShParam(location.search, degree === 3 ? undefined : degree)}${location.hash}`);
    const source = this.refused ?? (this.sceneId ? this.scenes.get(this.sceneId)?.source : undefined);
    if (source) void this.openSource(source);
  }

  /** The first view of a scene (framing.ts): its dense body, seen from a side that shows it. */
  private bodyViewSteps(cloud: SplatCloud): Generator<void, BodyView, void> {
    // [h-ux] + cloud: the body's bounds cover what its splats show (scales, opacities), not only their centres.
    return bodyViewSteps(cloud.positions, upVector(this.settings.upAxis), defaultForward(this.settings.upAxis), cloud);
  }

  /**
   * Shows `cloud`: made ready already (`ready`: uploaded, probe and first view, see
   * openSource: this task then only switches), else set up here at once.
   */
  private setScene(cloud: SplatCloud, id: string, ready: ReadyScene | null = null): void {
    this.bench = null;
    if (ready) {
      try {
        this.renderer.adoptScene(ready.prepared);
      } catch (e) {
        ready.probe.destroy(); // adoptScene freed the rest
        throw e;
      }
    } else this.renderer.setScene(cloud);
    this.probe?.destroy();
    this.probe = ready?.probe ?? new DrawnOrderProbe(this.device, cloud.count);
    this.panel.setSceneShDegree(cloud.shDegree);
    this.sceneId = id;
    this.scenesShown.push(id);
    this.sceneFirstFrameAt = null;
    this.sceneFirstFrameDoneAt = null;
    this.sceneFirstFrameId = null;
    this.panel.setSceneChoice(id, this.scenes.options());
    this.resize(); // the canvas' real shape: a portrait phone frames narrower than the 300x150 default
    this.controller.aspect = this.el.canvas.width / Math.max(1, this.el.canvas.height);
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
    // A view from the hash, if it was saved for this scene (not another's camera).
    const saved = this.pendingView;
    this.pendingView = null;
    if (saved && viewAppliesTo(saved, id)) this.applyPose(saved.pose);
    document.title = `${cloud.source.name} — splatview`;
    this.auto.sceneChanged(); // a trial for the previous scene stops; this one is measured once on screen
    this.applyDrawSetting(); // the draw's too: this scene's pick, or a trial once on screen
    this.changed(true);
    this.updateFigures();
  }

  /**
   * Something changed the work or the picture: redraw, and figures start over. A new
   * scene or strategy also empties the frame graph (its times are of other work).
   */
  private changed(clearGraph = false): void {
    if (clearGraph) this.graph.stats.clear();
    this.dirty = true;
    this.figures.change();
    this.refresh.invalidate();
    this.panel.refreshControls();
  }

  /** Jumps to a pose, the field of view included (the FOV slider follows). */
  private applyPose(pose: CameraPose): void {
    this.controller.setPose(pose);
    this.settings.fovyDeg = pose.fovyDeg;
    // The up-axis control follows a pose whose up is one of its axes.
    const axis = (['-y', '+y', '+z', '-z'] as const).find((a) => length(sub(normalize(pose.up), upVector(a))) < 1e-3);
    if (axis) this.settings.upAxis = axis;
    this.panel.refreshControls();
    this.dirty = true;
  }

  /** A hash the page did not write: the user's edit, back / forward, or a pasted link. */
  private applyHash(hash: string): void {
    if (hash === this.knownHash) return;
    this.knownHash = hash;
    const view = decodeViewState(hash);
    if (!view || this.bench) return;
    if (viewAppliesTo(view, this.sceneId ?? '')) {
      this.applyPose(view.pose);
      return;
    }
    // Another scene's view: open that scene when the page can, then apply it.
    const entry = view.scene ? this.scenes.get(view.scene) : undefined;
    const source: SceneSource | null = entry?.source ?? (view.scene && sceneIdIsUrl(view.scene) ? { kind: 'url', url: view.scene } : null);
    if (!source) return;
    this.pendingView = view;
    void this.openSource(source);
  }

  /** The user picked a strategy, or auto. An explicit choice wins over auto and is remembered (panel save). */
  private chooseStrategy(name: string): boolean {
    if (name === AUTO_STRATEGY) {
      this.auto.chosen(this.sceneId);
    } else {
      // The draw's auto makes way for a host sort (tiles cannot use it): quads first.
      if (this.settings.draw === AUTO_DRAW && !strategyByName(name).sorter) {
        this.drawTrial = null;
        this.useDraw('quads');
      }
      // A refused change (e.g. the tiles draw with a host sort) shows why and changes nothing.
      if (!this.tryChange(() => this.renderer.setStrategy(name), { what: 'sort', asked: name })) return false; // [h-ux] says what to change
      this.sortChanged();
      this.auto.cancel();
      this.auto.say(`${name}: your choice (remembered; pick auto to measure and choose)`);
    }
    this.status.succeeded('sort'); // [h-ux] an earlier action's line leaves
    this.changed(true);
    return true;
  }

  /** The sort strategy changed: the draw's auto follows (a host sort draws quads; back to a GPU sort, its pick or tiles). */
  private sortChanged(): void {
    if (this.settings.draw === AUTO_DRAW && !this.drawTrial) this.applyDrawSetting();
  }

  /** The panel's draw control. An explicit draw wins and is remembered (panel save); auto measures again unless this scene was measured. */
  private chooseDraw(name: string): boolean {
    // Tiles under a host sort is refused, saying why (the panel shows the previous value).
    if (name === 'tiles' && !strategyByName(this.renderer.strategy).sorter && !this.tryChange(() => this.renderer.setDraw(name), { what: 'draw', asked: name })) return false; // [h-ux] says what to change
    this.drawSource = name === AUTO_DRAW ? 'default' : 'panel';
    const ok = this.applyDrawSetting();
    if (ok) this.status.succeeded('draw'); // [h-ux] an earlier action's line leaves
    return ok;
  }

  /**
   * Draws what the draw setting asks for now (auto-draw.ts decideDraw): an explicit
   * draw, auto's pick for this scene's splat count, or auto's start (tiles; quads
   * under a host sort), and a trial once the scene is on screen. Stops a trial in flight.
   */
  private applyDrawSetting(): boolean {
    this.drawTrial = null;
    const count = this.renderer.cloud?.count;
    const host = !strategyByName(this.renderer.strategy).sorter;
    const d = decideDraw(this.settings.draw, this.drawSource, { name: this.renderer.strategy, host }, count === undefined ? null : (this.drawPicks.get(count) ?? null));
    this.drawWanted = d.measure;
    if (this.useDraw(d.draw)) {
      this.sayDraw(d.note);
      return true;
    }
    // Auto's start did not fit (e.g. the tiles draw's buffers over a binding limit): the other draw, unmeasured.
    this.drawWanted = false;
    if (this.settings.draw === AUTO_DRAW) this.sayDraw(`auto: ${this.renderer.draw}, as ${d.draw} cannot draw this scene here`);
    return this.settings.draw === AUTO_DRAW;
  }

  /** Switches the renderer's draw; false (and a message) when the renderer refused it. */
  private useDraw(name: DrawName): boolean {
    if (this.renderer.draw === name) return true;
    return this.tryChange(() => {
      this.renderer.setDraw(name);
      // The window's medians would mix the two draws' stages.
      this.profiler.stats.clear();
      this.graph.setLegendStages(drawByName(name).stages);
      this.changed(true);
    });
  }

  private sayDraw(text: string): void {
    this.drawNote = text;
    this.panel?.setDrawNote(text);
    this.refresh.invalidate();
  }

  /**
   * The draw trial's part of a frame (before it is encoded): the draw and whether it
   * is timed (then submitted alone), 'skip' for no frame now, or null for a frame
   * that is no trial's. Ends the trial once every timed frame has its GPU reading.
   */
  private drawTrialFrame(now: number): TrialFrame | 'skip' | null {
    const t = this.drawTrial;
    if (!t) return null;
    const f = t.trial.next();
    if (f === 'wait') return 'skip';
    if (f === null) {
      // The GPU readings come a few frames late; without them in 1 s, the wall clock.
      t.finishedAt ??= now;
      if (t.trial.reportsIn || now - t.finishedAt > 1000) this.finishDrawTrial();
      return null;
    }
    // A timed frame runs alone on the queue: its wall clock is its own.
    if (f.timed && this.gpuInFlight > 0) return 'skip';
    if (!this.useDraw(f.draw)) {
      this.applyDrawSetting();
      this.drawWanted = false;
      return null;
    }
    // The whole frame's work (the sort too), whatever the sort mode.
    this.dirty = true;
    return f;
  }

  private startDrawTrial(count: number): void {
    this.drawWanted = false;
    const trial = new DrawTrial(DRAW_NAMES, this.renderer.draw);
    this.drawTrial = { trial, count, finishedAt: null };
    this.sayDraw(`auto: drawing with ${this.renderer.draw}; measuring ${trial.draws.join(', ')} at ${count.toLocaleString('en-US')} splats in this view…`);
  }

  private finishDrawTrial(): void {
    const t = this.drawTrial;
    if (!t) return;
    this.drawTrial = null;
    const { timings, method } = t.trial.result();
    const choice = chooseDraw(timings, t.count, method);
    if (!choice) {
      this.applyDrawSetting();
      this.drawWanted = false;
      this.sayDraw(`auto: could not time the draws here; drawing with ${this.renderer.draw}`);
      return;
    }
    this.drawPicks.set(t.count, choice);
    this.applyDrawSetting();
  }

  private frameWaiters: (() => void)[] = [];

  /** Resolves when the next frame's GPU work completes (or after 2 s, should none come). */
  private nextFrameDone(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.frameWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private frameScene(): void {
    this.controller.aspect = this.el.canvas.width / Math.max(1, this.el.canvas.height);
    this.controller.frame();
  }

  /** The world point of the splat under CSS pixel (x, y) of the canvas (double-click focus; camera/pick.ts picks on the CPU). */
  private pick(x: number, y: number): readonly number[] | null {
    const cloud = this.renderer.cloud;
    const cam = this.lastCamera;
    if (!cloud || !cam) return null;
    const canvas = this.el.canvas;
    const sx = cam.width / Math.max(1, canvas.clientWidth);
    const sy = cam.height / Math.max(1, canvas.clientHeight);
    return pickSplat(cloud, cam, x * sx, y * sy, this.settings.splatScale)?.point ?? null;
  }

  /** PNG of the view: scale 1 the canvas itself (taken right after the next frame's submit), else an offscreen render. */
  private screenshot(scale: number): void {
    if (scale === 1) {
      this.shotRequest = true;
      this.dirty = true;
      return;
    }
    void this.screenshotOffscreen(scale).catch((e) => this.showMessage(`Screenshot failed: ${e instanceof Error ? e.message : String(e)}`));
  }

  private async screenshotOffscreen(scale: number): Promise<void> {
    const cloud = this.renderer.cloud;
    if (!cloud) return;
    const { width, height } = this.el.canvas;
    const max = this.device.limits.maxTextureDimension2D;
    const k = Math.max(1, Math.min(scale, Math.floor(max / Math.max(width, height))));
    const camera = frameCamera(this.controller.pose, width * k, height * k, cloud.bounds);
    const img = await renderOffscreen(this.renderer, camera, {
      shDegree: this.settings.shDegree,
      splatScale: this.settings.splatScale,
      cull: this.settings.cull,
      keyBits: this.settings.keyBits,
      background: hexToRgb(this.settings.background),
      sort: true,
    });
    downloadBlob(await imageToPng(img), screenshotName(cloud.source.name, k));
  }

  private setUpAxis(axis: UpAxis): void {
    this.controller.setUp(axis);
    this.controller.frame(undefined, { keepDirection: false, setHome: true });
    this.dirty = true;
  }

  /** [h-ux] Through status-messages.ts: `action` owns the line (a progress line only its own action ends). */
  showMessage(text: string, kind: 'error' | 'info' = 'error', action: MessageAction = 'page', progress = false): void {
    this.status.raise(action, text, kind, progress);
  }

  private hideMessage(): void {
    this.status.hide();
  }

  private resize(): void {
    const canvas = this.el.canvas;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
      this.dirty = true;
      // Other pixels, other draw times: the figures start over.
      this.figures.change();
      this.refresh.invalidate();
    }
  }

  private frame(now: number): void {
    requestAnimationFrame((t) => this.frame(t));
    // Figures refresh here, before the pacing: a frame in flight for seconds must not
    // freeze what the page says (at once after a change, else every 200 ms).
    if (this.refresh.due(now)) this.updateFigures();
    // No frames on a lost device (recover draws on the new one).
    if (this.gpuLost) return;
    const cloud0 = this.renderer.cloud;
    if (this.auto.wanted && cloud0 && this.figures.fps.count > 0 && !this.bench) {
      // The new scene is on screen (a frame of it completed): measure now, off its first frame's path.
      // Rejects when the device is lost mid-measurement (recover measures again).
      this.auto.measure(this.sceneId, cloud0.count, this.settings.keyBits, this.renderer.strategy).catch((e) => console.warn('auto: the sort trial stopped:', e));
    }
    // The draw's auto, after the sort's (it times frames sorted by the strategy auto picks).
    if (this.drawWanted && cloud0 && this.figures.fps.count > 0 && !this.bench && !this.auto.wanted && !this.auto.busy && !this.drawTrial) {
      this.startDrawTrial(cloud0.count);
    }
    // Frame pacing: a GPU slower than the display (a software adapter, a huge scene)
    // must not collect a queue of frames, which would grow latency without bound.
    // While auto times a sort, it runs alone.
    if (this.gpuInFlight >= MAX_FRAMES_IN_FLIGHT || this.auto.holding) return;
    const trial = this.drawTrial;
    const trialFrame = this.bench ? null : this.drawTrialFrame(now);
    if (trialFrame === 'skip') return;
    // Time between frames actually drawn (FPS, damping), not between animation callbacks.
    const frameSeconds = this.lastTime ? (now - this.lastTime) / 1000 : 1 / 60;
    const dt = Math.min(0.1, frameSeconds);
    this.lastTime = now;
    const t0 = performance.now();
    this.resize();
    const cloud = this.renderer.cloud;
    const { width, height } = this.el.canvas;
    let pose: CameraPose;
    let moved: boolean;
    let probeThisFrame = false;
    let rasterFloor = false;
    const bench = this.bench;
    if (bench) {
      const next = bench.run.nextFrame();
      pose = next.pose;
      moved = true;
      probeThisFrame = next.probe;
      rasterFloor = next.rasterFloor;
    } else {
      this.controller.fovyDeg = this.settings.fovyDeg;
      moved = this.controller.update(dt);
      pose = this.controller.pose;
    }
    // A strategy whose order lags the camera is asked every frame until it catches up.
    const sortNow = this.settings.sortMode === 'every frame' || moved || this.dirty || this.renderer.strategyInfo.lagsCamera;
    this.dirty = false;

    const encoder = this.device.createCommandEncoder({ label: 'ViewerApp.frame' });
    const timestamps = this.profiler.begin();
    const bounds = cloud?.bounds ?? { min: [-1, -1, -1], max: [1, 1, 1] };
    const camera = frameCamera(pose, width, height, bounds);
    this.lastCamera = camera;
    this.renderer.encodeFrame(
      encoder,
      this.context.getCurrentTexture().createView(),
      camera,
      {
        shDegree: this.settings.shDegree,
        splatScale: this.settings.splatScale,
        cull: this.settings.cull,
        sigmaCut: this.settings.sigmaCut,
        minContribution: this.settings.minContribution,
        antialias: this.settings.antialias,
        drawOrder: this.settings.drawOrder,
        keyBits: this.settings.keyBits,
        background: hexToRgb(this.settings.background),
        sort: sortNow,
        rasterFloor,
        targetStorage: this.canvasStorage,
      },
      timestamps,
    );
    this.profiler.end(encoder);
    const debug = this.renderer.debugBuffers;
    // The tiles draw counts its own visible splats (tileStatus); drawArgs is the quads'.
    const readCount = !this.countPending && now - this.lastCountRead > 250 && debug && this.renderer.draw === 'quads';
    if (readCount && debug) encoder.copyBufferToBuffer(debug.drawArgs, 0, this.countReadback, 0, DrawArgs.size);
    if (probeThisFrame && debug && this.probe) this.probe.capture(encoder, debug);
    const submitAt = performance.now();
    this.device.queue.submit([encoder.finish()]);
    this.renderer.submitted();
    if (this.shotRequest && cloud) {
      // Same task as the submit: the canvas texture is still readable.
      this.shotRequest = false;
      const name = screenshotName(cloud.source.name, 1);
      void canvasToPng(this.el.canvas).then(
        (png) => downloadBlob(png, name),
        (e) => this.showMessage(`Screenshot failed: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
    const frameId = this.submittedFrames++;
    this.figures.submitted(frameId);
    if (trialFrame && trial) trial.trial.submitted(trialFrame, frameId);
    if (cloud && this.sceneFirstFrameAt === null) {
      this.sceneFirstFrameAt = performance.now();
      this.sceneFirstFrameId = frameId;
    }
    this.gpuInFlight++;
    const device = this.gpu;
    void device.queue.onSubmittedWorkDone().then(
      () => {
        // A frame of a lost device (recover starts the count over on the new one).
        if (device !== this.gpu) return;
        this.gpuInFlight--;
        this.framesCompleted++;
        const done = performance.now();
        this.lastFrameGpuMs = done - submitAt; // [h-ux]
        if (trialFrame?.timed && trial) trial.trial.completed(frameId, done - submitAt);
        if (frameId === this.sceneFirstFrameId) this.sceneFirstFrameDoneAt = done;
        this.figures.completed(frameId, done);
        const waiters = this.frameWaiters;
        this.frameWaiters = [];
        for (const w of waiters) w();
      },
      () => {
        if (device === this.gpu) this.gpuInFlight--;
      },
    );
    const cpuMs = performance.now() - t0;
    this.profiler.submitted({ cpuMs, frameMs: frameSeconds * 1000 });
    this.framesRendered++;
    if (readCount) this.readVisibleCount(now, frameId);
    if (bench) this.advanceBenchmark(bench.run, frameId, probeThisFrame, camera);

    if (!bench) this.syncHash(now, pose);
  }

  /**
   * Keeps the hash on the view (every 500 ms, replaceState: no history entry per
   * move); a hash the page did not write is the user's and is applied instead.
   */
  private syncHash(now: number, pose: CameraPose): void {
    if (location.hash !== this.knownHash) {
      this.applyHash(location.hash);
      return;
    }
    if (now - this.hashWritten < 500) return;
    this.hashWritten = now;
    const hash = encodeViewHash(pose, this.sceneId);
    if (location.hash !== hash) {
      history.replaceState(null, '', hash);
      this.knownHash = location.hash;
    }
  }

  /** HUD and panel from this epoch's figures ("-" for what it has not measured yet). */
  private updateFigures(): void {
    const cloud = this.renderer.cloud;
    const s = this.panel.stats;
    const sum = this.figures.stats.summary();
    const med = (v: { median: number } | null) => v?.median ?? null;
    // A strategy that sorts on the host: its sort stage is the worker's time.
    const hostSortMs = this.renderer.hostSortMs;
    const sortMs = hostSortMs !== null ? hostSortMs : med(sum.sort);
    const fps = this.figures.fps.rate(performance.now());
    const fmt = (v: number | null) => formatMs(v);
    s.splats = cloud ? cloud.count.toLocaleString('en-US') : '-';
    s.visible = this.figures.visible === null ? '-' : this.figures.visible.toLocaleString('en-US');
    s.fps = fps === null ? '-' : fps < 1 ? fps.toFixed(2) : fps.toFixed(1);
    s.cpuMs = fmt(med(sum.cpuMs));
    s.project = fmt(med(sum.project));
    s.sort = fmt(sortMs);
    s.draw = fmt(med(sum.draw));
    s.gpuTotal = fmt(med(sum.total));
    const tiles = this.renderer.draw === 'tiles';
    s.draw = tiles ? '-' : fmt(med(sum.draw));
    s.tileKeys = tiles ? fmt(med(sum.tileKeys)) : '-';
    s.ranges = tiles ? fmt(med(sum.ranges)) : '-';
    s.blend = tiles ? fmt(med(sum.blend)) : '-';
    const pairs = this.renderer.tileStatus;
    if (pairs?.last) s.visible = pairs.last.visible.toLocaleString('en-US');
    s.tilePairs = !pairs
      ? '-'
      : `${(pairs.last?.needed ?? 0).toLocaleString('en-US')} / ${pairs.capacity.toLocaleString('en-US')}${pairs.capped ? ' CAPPED (drawn as quads)' : pairs.last?.fallback ? ' (fallback)' : pairs.grows || pairs.shrinks ? ` (grew ${pairs.grows}x, shrank ${pairs.shrinks}x)` : ''}`;
    if (pairs?.capped) {
      this.showMessage(
        `tiles: this view needs ${(pairs.last?.needed ?? 0).toLocaleString('en-US')} (tile, depth) pairs, more than this device holds (${pairs.maxCapacity.toLocaleString('en-US')}): it is drawn whole by the tiles draw's fallback (depth-sorted quads), slower, until the view needs fewer`,
      );
      this.tilesCapShown = true;
    } else if (this.tilesCapShown) {
      this.tilesCapShown = false;
      this.hideMessage();
    }
    const reason = this.profiler.reason;
    s.timing = reason ?? (hostSortMs !== null ? 'sort = CPU worker ms' : 'GPU timestamps, median');
    this.graph.setNote(reason);
    this.graph.setVisible(this.settings.graph);
    const auto = this.settings.sorter === AUTO_STRATEGY;
    this.el.hud.textContent = hudText({
      notice: this.softwareNote,
      loading: this.loading,
      scene: cloud?.source.name ?? null,
      splats: cloud?.count ?? null,
      sanitized: sanitizedLine(cloud?.sanitized),
      // The tiles draw counts its own visible splats (splats touching a tile).
      visible: tiles ? pairs?.last?.visible ?? null : this.figures.visible,
      fps,
      // The draw in use now (the draw's auto switches it during its trial and after).
      drawName:
        `${this.renderer.draw}${this.settings.draw === AUTO_DRAW ? ' (auto)' : ''}` +
        (this.renderer.draw === 'quads' ? ` ${this.renderer.drawOrder.order}${this.settings.drawOrder === 'auto' ? ' (auto)' : ''}` : ''),
      strategy: this.renderer.strategy,
      auto,
      stages: tiles
        ? [
            { name: 'project', ms: med(sum.project) },
            { name: 'keys', ms: med(sum.tileKeys) },
            { name: 'sort', ms: sortMs },
            { name: 'ranges', ms: med(sum.ranges) },
            { name: 'blend', ms: med(sum.blend) },
          ]
        : [
            { name: 'project', ms: med(sum.project) },
            { name: 'sort', ms: sortMs },
            { name: 'draw', ms: med(sum.draw) },
          ],
      total: med(sum.total),
      gpuNote: reason ? (this.profiler.supported ? 'unavailable (timestamps read 0 on this adapter)' : 'unavailable (no timestamp-query)') : null,
    });
    this.panel.setStrategyNote(this.auto.note);
    this.panel.setDrawNote(this.drawNote);
  }

  private onProfiledFrame(sample: FrameSample, frameId: number): void {
    if (this.figures.current(frameId)) this.graph.push(sample);
    this.figures.reported(frameId, sample);
    this.drawTrial?.trial.reported(frameId, sample.total);
    this.bench?.run.profiled(frameId, sample);
  }

  private startBenchmark(all: string[]): void {
    if (this.bench) return;
    // A draw trial stops (back to the draw auto starts with, or its pick) and runs again after the benchmark.
    if (this.drawTrial) this.applyDrawSetting();
    // The tiles draw benchmarks the GPU sorters only (a host sort cannot serve it).
    const strategies = this.renderer.draw === 'tiles' ? all.filter((n) => strategyByName(n).sorter) : all;
    const cloud = this.renderer.cloud;
    if (!cloud || strategies.length === 0) return;
    const { width, height } = this.el.canvas;
    const path = benchmarkPath(robustBounds(cloud.positions), upVector(this.settings.upAxis), this.settings.fovyDeg, width / height, this.settings.benchFrames);
    // The raster floor (the draw of the same quads with a trivial fragment shader) is flown first.
    const run = new BenchmarkRun({ strategies, path, warmup: 5, rasterFloor: true, onComplete: (r) => this.finishBenchmark(r) });
    this.bench = { run, restore: { strategy: this.renderer.strategy, pose: this.controller.pose }, resolution: `${width}x${height}` };
    this.renderer.setStrategy(run.strategy!);
    this.panel.setExportEnabled(false);
    this.el.bench.hidden = true;
    this.showMessage(`Benchmark: ${strategies.join(', ')} × ${path.length} frames…`, 'info', 'benchmark', true); // [h-ux] progress
  }

  private advanceBenchmark(run: BenchmarkRun, frameId: number, probed: boolean, camera: ReturnType<typeof frameCamera>): void {
    const cloud = this.renderer.cloud;
    const probe = probed && this.probe && cloud ? this.probe.outOfOrder(cloud.positions, camera) : undefined;
    run.submitted(frameId, this.renderer.hostSortMs, probe);
    const next = run.strategy;
    if (next !== undefined && next !== this.renderer.strategy) this.renderer.setStrategy(next);
  }

  private finishBenchmark(run: BenchmarkRun): void {
    const bench = this.bench;
    if (!bench || bench.run !== run) return;
    this.bench = null;
    const cloud = this.renderer.cloud!;
    // Every row says where and how it was measured, so a downloaded file stands alone.
    const meta = { keyBits: this.settings.keyBits, resolution: bench.resolution, adapter: this.adapterLine(), date: new Date().toISOString() };
    const rows = run.rows(
      {
        name: cloud.source.name,
        splats: cloud.count,
        visible: Number(this.panel.stats.visible.replace(/,/g, '')) || cloud.count,
      },
      drawByName(this.renderer.draw),
      meta,
    );
    this.lastBenchmark = rows;
    this.renderer.setStrategy(bench.restore.strategy);
    this.controller.setPose(bench.restore.pose);
    this.dirty = true;
    this.hideMessage();
    this.showBenchmark(rows);
  }

  private showBenchmark(rows: BenchmarkRow[]): void {
    const note = this.profiler.reason ? `\nGPU stage times unavailable: ${this.profiler.reason}` : '';
    const box = this.el.bench;
    box.replaceChildren();
    const pre = document.createElement('pre');
    pre.textContent = formatTable(rows, this.adapterLine()) + note;
    const bar = document.createElement('div');
    for (const [label, action] of [['Download CSV', 'csv'], ['Download JSON', 'json'], ['Close', 'close']] as const) {
      const b = document.createElement('button');
      b.textContent = label;
      b.dataset.action = action;
      if (action === 'csv') b.onclick = () => this.download('splatview-benchmark.csv', 'text/csv', toCsv(rows));
      if (action === 'json') b.onclick = () => this.download('splatview-benchmark.json', 'application/json', toJson(rows));
      bar.appendChild(b);
    }
    box.append(pre, bar);
    box.hidden = false;
    this.panel.setExportEnabled(true);
  }

  private adapterLine(): string {
    const info = this.device.adapterInfo;
    return info ? `${info.vendor} / ${info.architecture} ${info.description ?? ''}`.trim() : 'unknown';
  }

  private download(name: string, type: string, text: string): void {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  /** Reads the visible count a frame or two late, never stalling the frame loop. */
  private readVisibleCount(now: number, frameId: number): void {
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
}
