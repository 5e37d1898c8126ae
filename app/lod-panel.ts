import type GUI from 'lil-gui';
import type { Controller } from 'lil-gui';
import type { Viewer } from '../renderer/api/index';

/**
 * The panel's "Streamed LOD" folder, while a streamed LOD scene (lod-meta.json) is on
 * screen: the splat budget (the viewer's setLodBudget), and the figures viewer.lod
 * gives: splats resident on the GPU, drawn of the budget (the LOD set's and the objects'
 * added beside it, which share the budget), chunk files in flight.
 */
export class LodPanel {
  private folder: GUI | null = null;
  private budgetControl: Controller | null = null;
  private readonly shown = { budget: 0, resident: '', drawn: '', inFlight: '' };

  constructor(
    private readonly gui: GUI,
    private readonly viewer: Viewer,
  ) {}

  /** After a scene is shown: the folder for a streamed scene, none for another. */
  sceneChanged(): void {
    const lod = this.viewer.lod;
    if (!lod) {
      this.folder?.destroy();
      this.folder = null;
      this.budgetControl = null;
      return;
    }
    // The budget the scene runs under now (it opens under the coarsest level's count, then
    // takes the viewer's): shown again when it changes (not listen(): that would fight typing).
    if (this.shown.budget !== lod.budget) {
      this.shown.budget = lod.budget;
      this.budgetControl?.updateDisplay();
    }
    if (this.folder) return;
    const f = this.gui.addFolder('Streamed LOD');
    this.budgetControl = f
      .add(this.shown, 'budget', 10_000, 20_000_000, 10_000)
      .name('splat budget')
      .onFinishChange((v: number) => this.viewer.setLodBudget(Math.max(1, Math.round(v))));
    f.add(this.shown, 'resident').name('splats resident').disable().listen();
    f.add(this.shown, 'drawn').name('drawn / budget').disable().listen();
    f.add(this.shown, 'inFlight').name('chunks in flight').disable().listen();
    this.folder = f;
  }

  /** Each frame: the figures (lil-gui's listen shows them). */
  refresh(): void {
    const s = this.viewer.lod;
    if (!s || !this.folder) return;
    const n = (x: number) => x.toLocaleString('en-US');
    const clamped = s.clamped ? `; ${n(s.clamped)} clamped` : '';
    this.shown.resident = `${n(s.resident)} (${(s.residentBytes / 2 ** 20).toFixed(1)} MiB, ${s.precision}${clamped})`;
    // Scenes added beside it (objects) share the budget: their splats are drawn first, the LOD set within the rest.
    const others = s.others ? ` + ${n(s.others)} objects` : '';
    this.shown.drawn = `${n(s.drawn)}${others} of ${n(s.budget)}${s.waiting ? ` (${s.waiting} leaves loading)` : ''}`;
    this.shown.inFlight = `${s.inFlight}${s.failed ? `, ${s.failed} failed` : ''}`;
  }
}
