import GUI, { type Controller } from 'lil-gui';
import { AUTO_DRAW, AUTO_STRATEGY, DRAW_NAMES, DRAW_ORDERS, type DrawName, type DrawSetting, type RenderSettings, type StrategyInfo, type UpAxis } from '../renderer/api/index';

/** Everything the panel edits: the viewer's live settings (api/settings.ts) and the page's own. */
export interface ViewerSettings extends RenderSettings {
  scene: string;
  graph: boolean;
}

/** Live figures shown read-only in the panel. */
export interface PanelStats {
  splats: string;
  visible: string;
  fps: string;
  cpuMs: string;
  project: string;
  sort: string;
  draw: string;
  blend: string;
  /** The tiles draw's pair buffer: pairs / capacity, and a warning when capped. */
  tilePairs: string;
  /** The scene's GPU memory: MiB, B a splat, precision. */
  gpuMemory: string;
  /** The scene's arrays paged over several buffers, and how many ("SH 3, covariances 2"), or 'none'. */
  pages: string;
  gpuTotal: string;
  timing: string;
}

export interface PanelActions {
  openFile(): void;
  openScene(name: string): void;
  /** The load SH degree changed: reopen the scene (or the one the GPU refused) with it. */
  onLoadShChange(degree: number): void;
  frameScene(): void;
  resetView(): void;
  /** Returns false when the renderer refused it (the panel then shows the previous value). */
  onStrategyChange(name: string): boolean;
  /** Returns false when the renderer refused it (the panel then shows the previous value). */
  onDrawChange(name: DrawSetting): boolean;
  onUpAxisChange(axis: UpAxis): void;
  /** Any setting that changes the sorted order or the picture. */
  onSettingsChange(): void;
  /** Flies the benchmark with each of `strategies` under each of `draws` (none: the draw in use). */
  runBenchmark(strategies: string[], draws: DrawName[]): void;
  exportCsv(): void;
  exportJson(): void;
  /** PNG of the view at `scale` times the canvas resolution (1: the canvas itself). */
  screenshot(scale: number): void;
  toggleFullscreen(): void;
}

/** Screens narrower than this (CSS px) start with the panel collapsed: open, it would cover most of a phone (public/style.css: the same 640). */
export const NARROW_SCREEN_PX = 640;

/** The media query of a screen narrower than NARROW_SCREEN_PX (640 itself is not narrow: docs/USAGE.md). */
export const NARROW_SCREEN_QUERY = `(max-width: ${NARROW_SCREEN_PX - 0.02}px)`;

/**
 * Settings kept across reloads in localStorage; URL parameters win for a visit. Only
 * these keys: lil-gui's whole-panel save() would also restore the scene choice and
 * the read-only figures.
 */
const STORAGE_KEY = 'splatview.settings.v1';
const PERSISTED = ['sorter', 'draw', 'keyBits', 'sortMode', 'splatScale', 'cull', 'sigmaCut', 'minContribution', 'antialias', 'drawOrder', 'background', 'upAxis', 'fovyDeg', 'graph'] as const;

/** Help text of the draw-order control (figures from docs/PERFORMANCE.md, issue 9). */
const DRAW_ORDER_HELP =
  'Quads draw only. front-to-back skips pixels that are already opaque (0.55-0.7x the draw time ' +
  'on deep views of 1M-6M splats on an H200, a few full-screen passes more on shallow ones); ' +
  'auto picks it from about 32 splat layers over the mean pixel. Same image (closer to the reference).';

/** Help text of the cut toggle: what it trades (figures from docs/PERFORMANCE.md, issue 9). */
export const SIGMA_CUT_HELP =
  'Stop splats at 2.83 sigma (PlayCanvas) instead of 3: 3-6% less draw time on the H200, ' +
  'but tails that the reference keeps are dropped: 0.5-4 dB lower PSNR against the CPU reference (docs/PERFORMANCE.md). ' +
  'Draw quads only: the tiles draw has no cut.';

/** Help text of the contribution cull (figures from docs/PERFORMANCE.md, issue 9). */
export const MIN_CONTRIBUTION_HELP =
  'Drop splats whose alpha summed over the screen is under this many pixels, before the sort ' +
  "(PlayCanvas's default is about 0.75 px). 0 (off) keeps the reference image. On biker at 1920x1080, " +
  '0.75 px draws 79% of the splats in 0.91x the draw time and 3 px 47% in 0.70x, but 1 px already costs ' +
  '12 dB of PSNR against the CPU reference; 0.1 px costs 0.02 dB and saves nothing (docs/PERFORMANCE.md). Both draws.';

/** Help text of the anti-aliased toggle. */
export const ANTIALIAS_HELP =
  "Mip-Splatting's 2D filter (gsplat's antialiased mode): each splat's opacity is scaled by " +
  'sqrt(det(cov) / det(cov + 0.3 px²)), so that the 0.3 px² blur no longer fattens and brightens ' +
  'sub-pixel splats (less aliasing when zoomed out, thin structures keep their weight). ' +
  'For scenes trained with it; an image change for the others. Both draws.';

/**
 * The lil-gui panel: the only module that touches the GUI. Groups: Scene, Sort,
 * Render, Camera, Profile. Controls edit `settings` in place; `stats` are
 * displayed live.
 */
export class ViewerPanel {
  readonly gui: GUI;
  readonly stats: PanelStats = {
    splats: '-', visible: '-', fps: '-', cpuMs: '-', project: '-', sort: '-', draw: '-',
    blend: '-', tilePairs: '-', gpuMemory: '-', pages: '-', gpuTotal: '-', timing: '',
  };
  private readonly shController: Controller;
  private sceneController: Controller;
  private readonly strategyController: Controller;
  /** A line under the strategy: what `auto` picked and why, or that the user chose. */
  readonly strategyNote: HTMLElement;
  /** A line under the draw: what the draw's `auto` picked and why, or that the user chose. */
  readonly drawNote: HTMLElement;
  /** A line under the up axis: "up: +z (detected)", or who else set it (issue 34). */
  readonly upNote: HTMLElement;
  /**
   * Whether the up axis is an explicit choice (the panel this visit, or saved from one):
   * only then is it saved, so a scene's detected up never becomes a saved choice.
   */
  upAxisChosen = false;
  private readonly exportControllers: Controller[];
  readonly benchSelection: Record<string, boolean>;
  /** The draws a benchmark flies, each with every selected strategy it can take (none ticked: the draw in use). */
  readonly benchDraws: Record<DrawName, boolean>;
  private readonly openScene: (name: string) => void;

  constructor(
    readonly settings: ViewerSettings,
    strategies: StrategyInfo[],
    sceneChoices: string[] | Record<string, string>,
    actions: PanelActions,
  ) {
    const gui = new GUI({ title: 'splatview' });
    this.gui = gui;
    if (window.matchMedia?.(NARROW_SCREEN_QUERY).matches) gui.close();

    const scene = gui.addFolder('Scene');
    scene.add({ open: () => actions.openFile() }, 'open').name('Open scene…');
    this.openScene = (v: string) => actions.openScene(v);
    this.sceneController = scene.add(settings, 'scene', sceneChoices).name('scene').onChange(this.openScene);
    scene.add({ shot: () => actions.screenshot(1) }, 'shot').name('Screenshot (P)');
    scene.add({ shot2: () => actions.screenshot(2) }, 'shot2').name('Screenshot 2x (Shift+P)');
    scene.add({ fs: () => actions.toggleFullscreen() }, 'fs').name('Fullscreen (Shift+F)');
    scene.add(this.stats, 'splats').name('splats').disable().listen();
    scene.add(this.stats, 'gpuMemory').name('GPU memory').disable().listen();
    scene.add(this.stats, 'pages').name('paged buffers').disable().listen();
    this.shController = scene.add(settings, 'shDegree', 0, 3, 1).name('SH degree').onChange(() => actions.onSettingsChange());
    // Drops SH bands while loading (less CPU and GPU memory): the way out when a scene's SH does not fit the GPU.
    scene
      .add(settings, 'loadSh', { 'all (3)': 3, '2': 2, '1': 1, '0 (colour only)': 0 })
      .name('load SH degree')
      .onChange((v: number) => actions.onLoadShChange(v));

    const sort = gui.addFolder('Sort');
    const options = {
      'auto (fastest measured)': AUTO_STRATEGY,
      ...Object.fromEntries(strategies.map((s) => [`${s.name}${s.stable ? '' : ' (unstable)'}${s.lagsCamera ? ' (lags a frame)' : ''}`, s.name])),
    };
    // A refused choice puts the select back on what runs (the panel always shows what runs).
    let sorter = settings.sorter;
    this.strategyController = sort
      .add(settings, 'sorter', options)
      .name('strategy')
      .onChange((v: string) => {
        if (actions.onStrategyChange(v)) sorter = v;
        else {
          settings.sorter = sorter;
          this.strategyController.updateDisplay();
        }
      });
    this.strategyNote = document.createElement('div');
    this.strategyNote.className = 'sv-note';
    sort.$children.appendChild(this.strategyNote);
    sort.add(settings, 'keyBits', [32, 24, 20, 16]).name('key bits').onChange(() => actions.onSettingsChange());
    sort.add(settings, 'sortMode', ['every frame', 'when the camera moves']).name('sort').onChange(() => actions.onSettingsChange());

    const render = gui.addFolder('Render');
    let draw = settings.draw;
    const drawOptions = { 'auto (fastest measured)': AUTO_DRAW, ...Object.fromEntries(DRAW_NAMES.map((n) => [n, n])) };
    const drawController = render.add(settings, 'draw', drawOptions).name('draw');
    this.drawNote = document.createElement('div');
    this.drawNote.className = 'sv-draw-note';
    render.$children.appendChild(this.drawNote);
    drawController.onChange((v: DrawSetting) => {
      if (actions.onDrawChange(v)) draw = v;
      else {
        settings.draw = draw;
        drawController.updateDisplay();
      }
    });
    render.add(settings, 'splatScale', 0.05, 2, 0.01).name('splat scale').onChange(() => actions.onSettingsChange());
    render.add(settings, 'cull').name('frustum culling').onChange(() => actions.onSettingsChange());
    const cut = render.add(settings, 'sigmaCut').name('cut at 2.83σ').onChange(() => actions.onSettingsChange());
    cut.domElement.title = SIGMA_CUT_HELP;
    const contribution = render.add(settings, 'minContribution', 0, 5, 0.1).name('cull under (px)').onChange(() => actions.onSettingsChange());
    contribution.domElement.title = MIN_CONTRIBUTION_HELP;
    const aa = render.add(settings, 'antialias').name('anti-aliased').onChange(() => actions.onSettingsChange());
    aa.domElement.title = ANTIALIAS_HELP;
    const order = render.add(settings, 'drawOrder', [...DRAW_ORDERS]).name('draw order').onChange(() => actions.onSettingsChange());
    order.domElement.title = DRAW_ORDER_HELP;
    render.addColor(settings, 'background').name('background').onChange(() => actions.onSettingsChange());

    const camera = gui.addFolder('Camera');
    camera
      .add(settings, 'upAxis', { 'COLMAP (-y up)': '-y', '+y up': '+y', '+z up': '+z', '-z up': '-z' })
      .name('up axis')
      .onChange((v: UpAxis) => {
        this.upAxisChosen = true;
        actions.onUpAxisChange(v);
      });
    this.upNote = document.createElement('div');
    this.upNote.className = 'sv-up-note';
    camera.$children.appendChild(this.upNote);
    camera.add(settings, 'fovyDeg', 20, 110, 1).name('field of view').onChange(() => actions.onSettingsChange());
    camera.add({ frame: () => actions.frameScene() }, 'frame').name('Frame scene (F)');
    camera.add({ reset: () => actions.resetView() }, 'reset').name('Reset view (R)');

    const profile = gui.addFolder('Profile');
    profile.add(this.stats, 'fps').name('FPS').disable().listen();
    profile.add(this.stats, 'cpuMs').name('CPU frame ms').disable().listen();
    profile.add(this.stats, 'visible').name('visible splats').disable().listen();
    profile.add(this.stats, 'project').name('GPU project ms').disable().listen();
    // 'sort ms': a GPU stage, or the cpu strategy's worker time (its value says so).
    profile.add(this.stats, 'sort').name('sort ms').disable().listen();
    profile.add(this.stats, 'draw').name('GPU draw ms (quads)').disable().listen();
    profile.add(this.stats, 'blend').name('GPU blend ms (tiles)').disable().listen();
    profile.add(this.stats, 'tilePairs').name('tile pairs').disable().listen();
    profile.add(this.stats, 'gpuTotal').name('GPU total ms').disable().listen();
    profile.add(this.stats, 'timing').name('timing').disable().listen();
    profile.add(settings, 'graph').name('frame graph');
    const bench = profile.addFolder('Benchmark');
    this.benchSelection = Object.fromEntries(strategies.map((s) => [s.name, true]));
    for (const s of strategies) bench.add(this.benchSelection, s.name);
    this.benchDraws = Object.fromEntries(DRAW_NAMES.map((n) => [n, false])) as Record<DrawName, boolean>;
    for (const n of DRAW_NAMES) bench.add(this.benchDraws, n).name(`draw: ${n}`);
    bench.add(settings, 'benchFrames', 10, 1000, 10).name('frames each');
    const picked = <T extends string>(all: readonly T[], on: Record<string, boolean>) => all.filter((n) => on[n]);
    bench
      .add({ run: () => actions.runBenchmark(picked(strategies.map((s) => s.name), this.benchSelection), picked(DRAW_NAMES, this.benchDraws)) }, 'run')
      .name('Run benchmark');
    this.exportControllers = [
      bench.add({ csv: () => actions.exportCsv() }, 'csv').name('Download CSV'),
      bench.add({ json: () => actions.exportJson() }, 'json').name('Download JSON'),
    ];
    this.setExportEnabled(false);

    gui.onFinishChange(() => this.save());
  }

  /** Limits the SH slider to the scene's degree and shows the scene's own degree (a new scene starts at its full degree). */
  setSceneShDegree(degree: number): void {
    this.shController.max(degree);
    this.settings.shDegree = degree;
    this.shController.updateDisplay();
  }

  /** Shows every control's value as the settings hold it now (after the app changed one). */
  refreshControls(): void {
    for (const c of this.gui.controllersRecursive()) c.updateDisplay();
  }

  /** The line under the strategy control. */
  setStrategyNote(text: string): void {
    if (this.strategyNote.textContent !== text) this.strategyNote.textContent = text;
  }

  /** The line under the up-axis control (issue 34). */
  setUpNote(text: string): void {
    if (this.upNote.textContent !== text) this.upNote.textContent = text;
  }

  /** The line under the draw control. */
  setDrawNote(text: string): void {
    if (this.drawNote.textContent !== text) this.drawNote.textContent = text;
  }

  /** The strategy control's value as the settings hold it. */
  showStrategy(): void {
    this.strategyController.updateDisplay();
  }

  /** Shows the scene list (`{ label: id }`) with `id` selected. */
  setSceneChoice(name: string, choices: string[] | Record<string, string>): void {
    this.settings.scene = name;
    // options() replaces the controller (lil-gui): keep the new one.
    this.sceneController = this.sceneController.options(choices).name('scene').onChange(this.openScene);
    this.sceneController.updateDisplay();
  }

  setExportEnabled(on: boolean): void {
    for (const c of this.exportControllers) c.enable(on);
  }

  /**
   * Saved settings, filtered by `accept` (e.g. a strategy this device lacks), or {}.
   * The caller applies them before the first frame.
   */
  static loadSaved(accept: (key: string, value: unknown) => boolean): Partial<ViewerSettings> {
    try {
      const raw = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}') as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const k of PERSISTED) if (k in raw && accept(k, raw[k])) out[k] = raw[k];
      // The up axis only where it was chosen (older entries saved the default with the rest).
      if (raw.upAxisChosen !== true) delete out.upAxis;
      return out as Partial<ViewerSettings>;
    } catch {
      return {}; // corrupt or foreign entry: the defaults
    }
  }

  private save(): void {
    try {
      const out: Record<string, unknown> = {};
      for (const k of PERSISTED) out[k] = this.settings[k];
      if (this.upAxisChosen) out.upAxisChosen = true;
      else delete out.upAxis;
      localStorage.setItem(STORAGE_KEY, JSON.stringify(out));
    } catch {
      // Storage full or disabled: settings simply aren't remembered.
    }
  }
}
