import GUI from 'lil-gui';
import type { UpAxis } from './camera';

/** Everything the panel edits; the app reads it every frame. */
export interface ViewerSettings {
  sorter: string;
  shDegree: number;
  splatScale: number;
  cull: boolean;
  upAxis: UpAxis;
  fovyDeg: number;
  background: string;
}

export interface PanelStats {
  splats: string;
  visible: string;
  fps: string;
  cpuMs: string;
}

export interface PanelActions {
  openFile(): void;
  frameScene(): void;
  resetView(): void;
  onSorterChange(name: string): void;
  onUpAxisChange(axis: UpAxis): void;
}

/**
 * The lil-gui panel: the only module that touches the GUI. Controls edit
 * `settings` in place; `stats` are displayed live (listen()).
 */
export class ViewerPanel {
  readonly gui: GUI;
  readonly stats: PanelStats = { splats: '-', visible: '-', fps: '-', cpuMs: '-' };
  private shController;

  constructor(
    readonly settings: ViewerSettings,
    sorterNames: { name: string; label: string }[],
    actions: PanelActions,
  ) {
    const gui = new GUI({ title: 'splatview' });
    this.gui = gui;
    const scene = gui.addFolder('Scene');
    scene.add({ open: () => actions.openFile() }, 'open').name('Open .ply…');
    scene.add(this.stats, 'splats').name('splats').disable().listen();
    this.shController = scene.add(settings, 'shDegree', 0, 3, 1).name('SH degree');

    const sort = gui.addFolder('Sort');
    const options = Object.fromEntries(sorterNames.map((s) => [s.label, s.name]));
    sort.add(settings, 'sorter', options).name('strategy').onChange((v: string) => actions.onSorterChange(v));

    const render = gui.addFolder('Render');
    render.add(settings, 'splatScale', 0.05, 2, 0.01).name('splat scale');
    render.add(settings, 'cull').name('frustum culling');
    render.addColor(settings, 'background').name('background');

    const camera = gui.addFolder('Camera');
    camera
      .add(settings, 'upAxis', { 'COLMAP (-y up)': '-y', '+y up': '+y', '+z up': '+z', '-z up': '-z' })
      .name('up axis')
      .onChange((v: UpAxis) => actions.onUpAxisChange(v));
    camera.add(settings, 'fovyDeg', 20, 110, 1).name('field of view');
    camera.add({ frame: () => actions.frameScene() }, 'frame').name('Frame scene (F)');
    camera.add({ reset: () => actions.resetView() }, 'reset').name('Reset view (R)');

    const stats = gui.addFolder('Stats');
    stats.add(this.stats, 'visible').name('visible').disable().listen();
    stats.add(this.stats, 'fps').name('FPS').disable().listen();
    stats.add(this.stats, 'cpuMs').name('CPU frame ms').disable().listen();
  }

  /** Limits the SH slider to the scene's degree. */
  setSceneShDegree(degree: number): void {
    this.shController.max(degree);
    if (this.settings.shDegree > degree) this.settings.shDegree = degree;
    this.shController.updateDisplay();
  }
}
