/**
 * The draw's `auto` as a viewer runs it (the pick and the trial plan are
 * profile/auto-draw.ts): what the draw setting asks for now, the trial over the
 * viewer's frames, the picks by splat count, and the note that words it.
 */
import { DRAW_NAMES, type DrawName } from '../draw/draw-strategies';
import { strategyByName } from '../order/strategies';
import { AUTO_DRAW, chooseDraw, decideDraw, drawPrior, DrawTrial, type DrawChoice, type DrawPrior, type DrawSource, type TrialFrame } from '../profile/auto-draw';
import type { AutoPicks } from '../profile/auto-picks';
import type { Viewer } from './viewer';

export class DrawAuto {
  /** The trial over the frames in progress, or null. */
  trial: { trial: DrawTrial; count: number; finishedAt: number | null } | null = null;
  /** Measure the draws once the scene is on screen (auto, not measured for this splat count). */
  wanted = false;
  /** The trial's draws compiling on the side before it starts (start). */
  preparing = false;
  /** Bumped by apply(): a compile ahead that finishes after it starts no trial. */
  private token = 0;
  /** The line that says the draw's auto pick and why, or the chosen draw. */
  note = '';

  constructor(
    private readonly v: Viewer,
    /** Where the draw setting came from (the note words it). */
    public source: DrawSource,
    /** The picks by adapter and scene size (profile/auto-picks.ts; kept in the host's store, if given): no new trial for a size measured already. */
    readonly picks: AutoPicks<DrawChoice>,
  ) {}

  /** Auto's start for a scene of `count` splats not measured yet (drawPrior): the nearest measured size's pick, or the software prior. */
  prior(count?: number): DrawPrior | null {
    return drawPrior(count === undefined ? undefined : this.picks.nearest(count), this.v.softwareNote !== null);
  }

  /**
   * Draws what the draw setting asks for now (decideDraw): an explicit draw, auto's
   * pick for this scene's splat count, or auto's start (drawPrior, else tiles; quads under a host
   * sort), and a trial once the scene is on screen. Stops a trial in flight.
   */
  apply(): boolean {
    const v = this.v;
    this.trial = null;
    this.preparing = false;
    this.token++;
    const count = v.renderer.cloud?.count;
    const host = !strategyByName(v.renderer.strategy).sorter;
    const d = decideDraw(v.settings.draw, this.source, { name: v.renderer.strategy, host }, count === undefined ? null : (this.picks.get(count) ?? null), this.prior(count));
    this.wanted = d.measure;
    if (this.use(d.draw)) {
      this.say(d.note);
      return true;
    }
    // Auto's start did not fit (e.g. the tiles draw's buffers over a binding limit): the other draw, unmeasured.
    this.wanted = false;
    if (v.settings.draw === AUTO_DRAW) this.say(`auto: ${v.renderer.draw}, as ${d.draw} cannot draw this scene here`);
    return v.settings.draw === AUTO_DRAW;
  }

  /** Switches the renderer's draw; false (and a message) when the renderer refused it. */
  use(name: DrawName): boolean {
    const v = this.v;
    if (v.renderer.draw === name) return true;
    return v.tryChange(() => {
      v.renderer.setDraw(name);
      // The window's medians would mix the two draws' stages.
      v.profiler.stats.clear();
      v.changed(true);
    });
  }

  say(text: string): void {
    this.note = text;
    this.v.emit('change', { clearGraph: false });
  }

  /**
   * The trial's part of a frame (before it is encoded): the draw and whether it
   * is timed (then submitted alone), 'skip' for no frame now, or null for a frame
   * that is no trial's. Ends the trial once every timed frame has its GPU reading.
   */
  frame(now: number): TrialFrame | 'skip' | null {
    const t = this.trial;
    if (!t) return null;
    const f = t.trial.next();
    if (f === 'wait') return 'skip';
    if (f === null) {
      // The GPU readings come a few frames late; without them in 1 s, the wall clock.
      t.finishedAt ??= now;
      if (t.trial.reportsIn || now - t.finishedAt > 1000) this.finish();
      return null;
    }
    // A timed frame runs alone on the queue: its wall clock is its own.
    if (f.timed && this.v.gpuInFlight > 0) return 'skip';
    if (!this.use(f.draw)) {
      this.apply();
      this.wanted = false;
      return null;
    }
    // The whole frame's work (the sort too), whatever the sort mode.
    this.v.dirty = true;
    return f;
  }

  /**
   * Measures the draws at `count` splats: first the other draws' pipelines compiled on
   * the side (SplatRenderer.compileDrawAhead; `preparing` meanwhile), so that the trial's
   * first frame of each holds up nothing; then the trial over the frames.
   */
  start(count: number): void {
    this.wanted = false;
    const v = this.v;
    const token = ++this.token;
    const trial = new DrawTrial(DRAW_NAMES, v.renderer.draw);
    this.say(`auto: drawing with ${v.renderer.draw}; measuring ${trial.draws.join(', ')} at ${count.toLocaleString('en-US')} splats in this view…`);
    this.preparing = true;
    const others = DRAW_NAMES.filter((d) => d !== v.renderer.draw);
    void Promise.all(others.map((d) => v.renderer.compileDrawAhead(d)))
      .catch((e) => console.warn(`auto: the draws' pipelines could not be compiled ahead: ${e instanceof Error ? e.message : String(e)}`))
      .then(() => {
        // Something changed meanwhile (a scene, the setting: apply()): that measures anew.
        if (token !== this.token || v.destroyed) return;
        this.preparing = false;
        this.trial = { trial, count, finishedAt: null };
      });
  }

  private finish(): void {
    const t = this.trial;
    if (!t) return;
    this.trial = null;
    const { timings, method } = t.trial.result();
    const choice = chooseDraw(timings, t.count, method);
    if (!choice) {
      this.apply();
      this.wanted = false;
      this.say(`auto: could not time the draws here; drawing with ${this.v.renderer.draw}`);
      return;
    }
    this.picks.set(t.count, choice);
    this.apply();
  }
}
