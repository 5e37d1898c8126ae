/**
 * The page (index.html) on the library: a Viewer from createViewer (renderer/api,
 * its public entry only) with the page's own UI around it: the panel, the HUD and
 * graph (page-figures.ts), the loading bar, the message line, the scene list,
 * the hash (page-hash.ts), files opened or dropped (page-inputs.ts), the
 * benchmark box (page-benchmark.ts), screenshots as downloads, and the camera
 * path's folder (path-panel.ts: keyframes, playback, its video).
 */
import { LodPanel } from './lod-panel';
import { ObjectPanel } from './object-panel';
import { readPrecisionParam } from './precision-param';
import {
  budgetParam,
  createViewer,
  drawByName,
  GpuBudgetError,
  RefreshGate,
  groupSceneFiles,
  withShParam,
  type BenchmarkRow,
  type CameraPose,
  type DrawChoice,
  type DrawName,
  type KeyValueStore,
  type LoadRecord,
  type MessageAction,
  type ShDegree,
  type Viewer,
  type ViewerEventMap,
} from '../renderer/api/index';
import { FrameGraph } from './frame-graph';
import { ViewerPanel, type ViewerSettings } from './gui';
import { LoadProgressView } from './load-progress';
import { PageBenchmark } from './page-benchmark';
import { PathPanel } from './path-panel';
import { updateFigures } from './page-figures';
import { HashSync } from './page-hash';
import { Ruler } from './ruler';
import { wireFileInputs } from './page-inputs';
import { pageSettings } from './page-settings';
import { fromList, type PathedFile } from './dropped-files';
import { SceneList, sceneIdOf, type SceneSource } from './scene-list';
import { StatusMessages } from './status-messages';
import { downloadBlob, screenshotName, toggleFullscreen } from './screenshot';
import { readSceneParam, sceneIdIsUrl } from './view-url';

export interface AppElements {
  canvas: HTMLCanvasElement;
  hud: HTMLElement;
  /** The message line (one line a user can act on). */
  message: HTMLElement;
  /** Its long form behind a 'details' toggle (a failed load's loader message), if the page has one. */
  messageDetails?: HTMLDetailsElement;
  drop: HTMLElement;
  help: HTMLElement;
  file: HTMLInputElement;
  graph: HTMLElement;
  bench: HTMLElement;
  /** The loading bar (load-progress.ts). */
  load: HTMLElement;
}

/** Built-in scenes offered in the panel's scene list (generated, no data shipped). */
const BUILT_IN_SCENES = ['default', 'default:3000', 'synthetic:100000', 'synthetic:1000000'];
/**
 * The generated default scene's size on a software adapter (SwiftShader, llvmpipe): its
 * 60,000 splats take 1-4 s a frame there (docs/PERFORMANCE.md), a tenth of a second
 * to a second at 10,000. ?splats=N still sizes it.
 */
const SOFTWARE_DEFAULT_SPLATS = 10_000;

/** The page's localStorage for auto's picks, or null where storage is off (private mode, a sandboxed frame). */
function pageStore(): KeyValueStore | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The scene list's source as the viewer takes it. */
function viewerInput(source: SceneSource): Parameters<Viewer['load']>[0] {
  if (source.kind === 'generated') return { generate: source.spec };
  if (source.kind === 'url') return source.url;
  return { file: source.file, ...(source.companions ? { companions: source.companions } : {}) };
}

/**
 * The page's viewer. Its public fields are what the end-to-end tests and the
 * browser benchmark read (window.splatview): the viewer's own, passed through.
 */
export class ViewerApp {
  private readonly panel: ViewerPanel;
  private readonly graph: FrameGraph;
  private readonly scenes = new SceneList(BUILT_IN_SCENES);
  private readonly refresh = new RefreshGate(200);
  private readonly progress: LoadProgressView;
  private readonly hash: HashSync;
  private readonly benchUi: PageBenchmark;
  /** The load in flight's abort (the loading bar's Cancel). */
  private loadAbort: AbortController | null = null;
  /** The source of the load in flight (the scene list adds it once shown). */
  private opening: SceneSource | null = null;
  /** The last scene the GPU budget refused, reopened when the load SH degree changes. */
  private refused: SceneSource | null = null;
  /** The pair-buffer cap warning of the tiles draw is on screen. */
  private capShown = false;
  private legendDraw: DrawName | null = null;
  private readonly lodPanel: LodPanel;
  /** The panel's Objects folder: objects added beside the scene, selected, moved (gizmo), cropped (object-panel.ts). */
  readonly objectsUi: ObjectPanel;
  /** The panel's Path folder: the keyframes, playback, the video export (read by the end-to-end tests). */
  readonly pathUi: PathPanel;
  /** The panel's Measure folder: the ruler over the scene, in the hash (ruler.ts; read by the end-to-end tests). */
  readonly ruler: Ruler;
  /**
   * The message line (#message), owned by the action that raised it (status-messages.ts):
   * the viewer's lines say theirs (the message event's action), the page's own theirs.
   */
  private readonly status: StatusMessages;

  static async create(el: AppElements): Promise<ViewerApp> {
    const ps = pageSettings(location.search);
    // ?precision=full keeps scenes in the full layout; compact (half the GPU memory) by default.
    const urlPrecision = readPrecisionParam(location.search);
    if (urlPrecision.note) console.warn(urlPrecision.note);
    // ?budget=N: the splats a streamed LOD scene draws at most.
    const lodBudget = budgetParam(location.search);
    const viewer = await createViewer(el.canvas, {
      settings: ps.settings,
      precision: urlPrecision.precision,
      ...(lodBudget !== null ? { lodBudget } : {}),
      // Auto's picks by adapter and scene size, kept across visits: a size measured before is not measured again.
      autoPicksStore: pageStore(),
      drawSource: ps.drawSource,
      sortSource: ps.sortSource,
      ...(ps.bindLimitBytes ? { budgetLimits: { maxStorageBufferBindingSize: ps.bindLimitBytes, maxBufferSize: Number.MAX_SAFE_INTEGER } } : {}),
      controls: { keyTarget: window, onKey: (key, e) => app.onKey(key, e) },
    });
    const app: ViewerApp = new ViewerApp(viewer, ps.settings, el);
    // A saved up axis (an earlier visit's explicit choice) wins over a scene's detected one.
    if (ps.upSaved) {
      viewer.useSavedUpAxis(ps.settings.upAxis);
      app.panel.upAxisChosen = true;
    }
    if (ps.shError) app.showMessage(ps.shError);
    return app;
  }

  private constructor(
    readonly viewer: Viewer,
    settings: ViewerSettings,
    private readonly el: AppElements,
  ) {
    const v = viewer;
    this.status = new StatusMessages((m) => {
      const more = el.messageDetails;
      if (!m) {
        el.message.hidden = true;
        if (more) more.hidden = true;
        return;
      }
      el.message.textContent = m.text;
      el.message.className = m.kind === 'info' ? 'info' : '';
      el.message.hidden = false;
      // The long form (a failed load's loader message) behind a toggle, closed: the line is what to act on.
      if (more) {
        more.hidden = m.details === null;
        more.open = false;
        const pre = more.querySelector('pre');
        if (pre) pre.textContent = m.details ?? '';
      }
    });
    this.panel = new ViewerPanel(settings, v.strategies, this.scenes.options(), {
      openFile: () => el.file.click(),
      openScene: (id) => this.openScene(id),
      onLoadShChange: (degree) => this.reloadWithSh(degree as ShDegree),
      frameScene: () => v.frameScene(),
      resetView: () => v.resetView(),
      onStrategyChange: (name) => v.setSort(name),
      onDrawChange: (name) => v.setDraw(name),
      onUpAxisChange: (axis) => {
        v.setUpAxis(axis);
        this.panel.setUpNote(v.upNote);
      },
      onSettingsChange: () => {
        this.status.succeeded('settings'); // an earlier action's line leaves
        v.invalidate();
      },
      screenshot: (scale) => this.screenshot(scale),
      toggleFullscreen: () => toggleFullscreen(),
      runBenchmark: (list, draws) => void this.benchUi.start(list, draws),
      exportCsv: () => this.benchUi.exportCsv(),
      exportJson: () => this.benchUi.exportJson(),
    });
    this.progress = new LoadProgressView(el.load, () => this.loadAbort?.abort());
    this.graph = new FrameGraph(el.graph);
    this.graph.setVisible(settings.graph);
    this.setLegend();
    // The benchmark's line is work in progress: only the benchmark's end removes it.
    this.benchUi = new PageBenchmark(
      v,
      el.bench,
      () => this.panel,
      (t, kind) => (t === null ? this.status.ended('benchmark') : this.showMessage(t, kind, 'benchmark', true)),
      () => this.pathUi.name,
    );
    // The video export's bar sits under the loading bar.
    const videoBar = document.createElement('div');
    videoBar.id = 'video';
    videoBar.setAttribute('role', 'status');
    videoBar.hidden = true;
    el.load.after(videoBar);
    this.pathUi = new PathPanel(this.panel.gui, v, { say: (t, kind) => (t === null ? this.status.succeeded('path') : this.showMessage(t, kind, 'path')) }, videoBar);
    this.hash = new HashSync({
      sceneId: () => v.sceneId,
      applyPose: (pose) => this.applyPose(pose),
      sceneSource: (id) => this.scenes.get(id)?.source,
      open: (source) => void this.openSource(source),
      busy: () => v.benchmarking,
      path: () => v.path,
      applyPath: (path) => this.pathUi.setPath(path),
      badPath: (why) => this.showMessage(`The link's camera path: ${why}`, 'error', 'path'),
      extraEntries: () => this.ruler.hashEntries(),
      hashApplied: (hash) => this.ruler.applyHash(hash),
    });
    this.lodPanel = new LodPanel(this.panel.gui, v);
    this.objectsUi = new ObjectPanel(this.panel.gui, v, el.canvas, {
      sceneChoices: () => this.scenes.options(),
      sceneInput: (id) => {
        const entry = this.scenes.get(id);
        return entry ? viewerInput(entry.source) : undefined;
      },
      addFiles: (files) => void this.openFiles(fromList(files), true),
      say: (t, kind) => (t === null ? this.status.succeeded('page') : this.showMessage(t, kind, 'page')),
    });
    this.ruler = new Ruler(this.panel.gui, v, el.canvas);
    this.panel.setStrategyNote(v.strategyNote);
    this.panel.setDrawNote(v.drawNote);
    this.listen();
    wireFileInputs(el.file, el.drop, (files, asObject) => void this.openFiles(files, asObject));
    requestAnimationFrame((t) => this.tick(t));
  }

  private listen(): void {
    const on = <K extends keyof ViewerEventMap>(type: K, f: (d: ViewerEventMap[K]['detail']) => void) =>
      this.viewer.addEventListener(type, (e) => f((e as ViewerEventMap[K]).detail));
    on('message', ({ text, kind, action, progress, hideAfterMs, details }) => {
      // Null: that action succeeded, and an earlier action's line leaves (another's progress line stays).
      if (text === null) return this.status.succeeded(action);
      this.showMessage(text, kind, action, progress === true, details ?? null);
      if (hideAfterMs) setTimeout(() => this.status.current?.text === text && this.hideMessage(), hideAfterMs);
    });
    on('change', ({ clearGraph }) => {
      if (clearGraph) this.graph.stats.clear();
      this.setLegend();
      this.panel.refreshControls();
      // The notes at once (the figures follow at the next animation frame).
      this.panel.setStrategyNote(this.viewer.strategyNote);
      this.panel.setDrawNote(this.viewer.drawNote);
      this.panel.setUpNote(this.viewer.upNote);
      this.refresh.invalidate();
    });
    on('sample', ({ sample, current }) => {
      if (current) this.graph.push(sample);
    });
    on('progress', (p) => {
      if (this.progress.text === '' || p.bytes === 0) this.progress.show(p.name, p.totalBytes);
      if (p.phase === 'read') this.progress.update({ bytes: p.bytes, ...(p.totalBytes === undefined ? {} : { totalBytes: p.totalBytes }), splats: p.splats });
      else this.progress.preparing(p.totalSplats ?? 0, p.splats > 0 ? p.splats : undefined);
      this.refresh.invalidate();
    });
    on('load', ({ id, shDegree, name }) => {
      this.progress.hide();
      if (this.opening && sceneIdOf(this.opening) === id) this.scenes.add(this.opening);
      this.refused = null;
      this.panel.setSceneShDegree(shDegree);
      // The up axis the scene opened with (detected, unless a choice set it), and the control showing it.
      this.panel.setUpNote(this.viewer.upNote);
      this.panel.refreshControls();
      this.panel.setSceneChoice(id, this.scenes.options());
      // Not urgent: after the swap's task (a 1M-splat swap is held to 50 ms of its own: e2e).
      setTimeout(() => this.objectsUi.sceneListChanged(), 0);
      // A view from the hash, if it was saved for this scene (not another's camera).
      this.hash.sceneShown(id);
      document.title = `${name} — splatview`;
      this.refresh.invalidate();
    });
    on('error', () => this.progress.hide());
  }

  /** The page's own animation frames: HUD and panel figures (at once after a change, else every 200 ms), and the hash. */
  private tick(now: number): void {
    requestAnimationFrame((t) => this.tick(t));
    if (this.refresh.due(now)) this.figures();
    // The view of a scene (none before the first is on screen), not the benchmark's flight.
    if (!this.viewer.benchmarking && this.viewer.scene) this.hash.sync(now, this.viewer.view);
  }

  private figures(): void {
    this.lodPanel.sceneChanged();
    this.lodPanel.refresh();
    updateFigures(this.viewer, {
      hud: this.el.hud,
      panel: this.panel,
      graph: this.graph,
      loading: () => (this.progress.text === '' ? null : this.progress.text),
      capWarning: (text) => {
        if (text) {
          this.showMessage(text);
          this.capShown = true;
        } else if (this.capShown) {
          this.capShown = false;
          this.hideMessage();
        }
      },
    });
  }

  private setLegend(): void {
    if (this.legendDraw === this.viewer.draw) return;
    this.legendDraw = this.viewer.draw;
    this.graph.setLegendStages(drawByName(this.viewer.draw).stages);
  }

  private onKey(key: string, e: KeyboardEvent): void {
    if (key === 'f' && e.shiftKey) toggleFullscreen();
    else if (key === 'f') this.viewer.frameScene();
    else if (key === 'r') this.viewer.resetView();
    else if (key === 'h') this.el.help.hidden = !this.el.help.hidden;
    else if (key === 'p') this.screenshot(e.shiftKey ? 2 : 1);
    else if (key === 'k') this.pathUi.addView();
  }

  /** Jumps to a pose, the field of view included (the panel follows). */
  private applyPose(pose: CameraPose): void {
    this.viewer.setPose(pose, 'link');
    this.panel.setUpNote(this.viewer.upNote);
    this.panel.refreshControls();
  }

  /** PNG of the view, downloaded: scale 1 the canvas itself, else an offscreen render. */
  private screenshot(scale: number): void {
    const scene = this.viewer.scene;
    if (!scene) return;
    const k = scale === 1 ? 1 : this.viewer.screenshotScale(scale);
    this.viewer.screenshot(k).then(
      (png) => downloadBlob(png, screenshotName(scene.name, k)),
      (e) => this.showMessage(`Screenshot failed: ${e instanceof Error ? e.message : String(e)}`, 'error', 'screenshot'),
    );
  }

  /**
   * Opens the scene named by ?scene=URL (or by the hash's scene, when that is a URL),
   * else the generated default scene (?splats=N sizes it; 10,000 splats on a software adapter). The hash's view is applied
   * when it was saved for the scene that opens.
   */
  async start(): Promise<void> {
    const view = this.hash.start();
    const url = readSceneParam(location.search) ?? (view?.scene && sceneIdIsUrl(view.scene) ? view.scene : null);
    if (url && (await this.openSource({ kind: 'url', url }))) return;
    const splats = Number(new URLSearchParams(location.search).get('splats') ?? '') || undefined;
    const software = this.viewer.live.softwareNote !== null;
    const spec = splats ? `default:${splats}` : software ? `default:${SOFTWARE_DEFAULT_SPLATS}` : 'default';
    this.scenes.add({ kind: 'generated', spec });
    await this.openSource({ kind: 'generated', spec });
  }

  async openFile(file: File): Promise<boolean> {
    return this.openSource({ kind: 'file', file });
  }

  /**
   * Opens files chosen or dropped together: one scene file, or a scene and the files it
   * names (a SOG's meta.json and its .webp, a .gltf and its .bin; a dropped folder).
   * `asObject` (a drop with Shift): added as an object beside the scene instead (Objects folder).
   */
  async openFiles(files: readonly PathedFile[], asObject = false): Promise<boolean> {
    const group = groupSceneFiles(files.map((f) => f.path));
    if (group === null) return false;
    const main = files[group.main]!.file;
    const byPath = Object.fromEntries(group.paths.map((p, i) => [p, files[i]!.file]));
    const source: SceneSource = files.length === 1 ? { kind: 'file', file: main } : { kind: 'file', file: main, companions: { mainPath: group.paths[group.main]!, files: byPath } };
    if (!asObject) return this.openSource(source);
    const entry = this.scenes.add(source);
    this.objectsUi.sceneListChanged();
    return (await this.objectsUi.addScene(entry.id)) !== null;
  }

  async openUrl(url: string): Promise<boolean> {
    return this.openSource({ kind: 'url', url });
  }

  /** From the scene list: a generated scene, or a file or URL opened earlier in the visit. */
  private openScene(id: string): void {
    const entry = this.scenes.get(id);
    if (entry && id !== this.viewer.sceneId) void this.openSource(entry.source);
  }

  /**
   * Opens a scene (the viewer loads it while the scene on screen keeps drawing, with
   * the loading bar). A failed or cancelled load shows one line (the viewer's message)
   * and keeps the scene on screen. Resolves true when the scene is shown.
   */
  private async openSource(source: SceneSource): Promise<boolean> {
    const abort = new AbortController();
    this.loadAbort = abort;
    this.opening = source;
    if (source.kind === 'generated') this.progress.hide();
    try {
      await this.viewer.load(viewerInput(source), { signal: abort.signal });
      return true;
    } catch (err) {
      // Too big for the GPU (the scene on screen stays): the load SH control retries this one.
      if (this.loadAbort === abort) this.refused = err instanceof GpuBudgetError ? source : null;
      return false;
    } finally {
      if (this.loadAbort === abort) {
        this.loadAbort = null;
        this.progress.hide();
        this.refresh.invalidate();
      }
    }
  }

  /**
   * The load SH degree changed (panel): written into the query (`?sh=N`, so a reload
   * keeps it), then the scene the GPU refused, else the one on screen, is opened again.
   */
  private reloadWithSh(degree: ShDegree): void {
    history.replaceState(null, '', `${location.pathname}${withShParam(location.search, degree === 3 ? undefined : degree)}${location.hash}`);
    const id = this.viewer.sceneId;
    const source = this.refused ?? (id ? this.scenes.get(id)?.source : undefined);
    if (source) void this.openSource(source);
  }

  /** Through status-messages.ts: `action` owns the line (a progress line only its own action ends). */
  showMessage(text: string, kind: 'error' | 'info' = 'error', action: MessageAction = 'page', progress = false, details: string | null = null): void {
    this.status.raise(action, text, kind, progress, details);
  }

  private hideMessage(): void {
    this.status.hide();
  }

  // ---- what the end-to-end tests and the browser benchmark read ----

  get device(): GPUDevice {
    return this.viewer.device;
  }
  get framesRendered(): number {
    return this.viewer.framesRendered;
  }
  get framesCompleted(): number {
    return this.viewer.framesCompleted;
  }
  get deviceGeneration(): number {
    return this.viewer.deviceGeneration;
  }
  get scenesShown(): string[] {
    return this.viewer.scenesShown;
  }
  get loads(): LoadRecord[] {
    return this.viewer.loads;
  }
  get sceneFirstFrameAt(): number | null {
    return this.viewer.sceneFirstFrameAt;
  }
  get sceneFirstFrameDoneAt(): number | null {
    return this.viewer.sceneFirstFrameDoneAt;
  }
  get strategy(): string {
    return this.viewer.strategy;
  }
  get strategyNote(): string {
    return this.viewer.strategyNote;
  }
  get draw(): DrawName {
    return this.viewer.draw;
  }
  get drawNote(): string {
    return this.viewer.drawNote;
  }
  get drawChoice(): DrawChoice | null {
    return this.viewer.drawChoice;
  }
  get view(): CameraPose {
    return this.viewer.view;
  }
  get budgetLimits(): Viewer['budgetLimits'] {
    return this.viewer.budgetLimits;
  }
  get lastBenchmark(): BenchmarkRow[] | null {
    return this.viewer.lastBenchmark;
  }
}

