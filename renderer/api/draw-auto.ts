/**
 * The draw's `auto` as a viewer runs it (the pick and the trial plan are
 * profile/auto-draw.ts): what the draw setting asks for now, the trial over the
 * viewer's frames, the picks by splat count, and the note that words it.
 */
import { DRAW_NAMES, drawServedBy, type DrawName } from '../draw/draw-strategies';
import type { SplatRenderer } from '../frame/splat-renderer';
import { AUTO_DRAW, chooseDraw, decideDraw, drawPrior, DrawTrial, reusableDraw, type DrawChoice, type DrawPrior, type DrawSource, type TrialFrame } from '../profile/auto-draw';
import type { AutoPicks } from '../profile/auto-picks';
import type { RenderSettings } from './settings';

/** What the draw's auto needs of its viewer. */
export interface DrawAutoHooks {
  settings: RenderSettings;
  renderer(): SplatRenderer;
  /** The adapter is a software one (drawPrior). */
  software(): boolean;
  /** Applies a change of the renderer; false (and a message) when it refused. */
  tryChange(change: () => void): boolean;
  /** The draw changed: figures start over, their stage medians too. */
  drawChanged(): void;
  /** The note changed. */
  noted(): void;
  /** Frames submitted whose GPU work has not completed. */
  inFlight(): number;
  /** The next frame does the whole frame's work (the sort too). */
  redraw(): void;
  /** The target's size in pixels (the trial's note says at what size it measured). */
  size(): { width: number; height: number };
}

export class DrawAuto {
  /** The trial over the frames in progress, or null. */
  trial: { trial: DrawTrial; count: number; finishedAt: number | null; size: string } | null = null;
  /** Measure the draws once the scene is on screen (auto, not measured for this splat count). */
  wanted = false;
  /** The trial's draws compiling on the side before it starts (start). */
  preparing = false;
  /** Bumped by apply() and destroy(): a compile ahead that finishes after it starts no trial. */
  private token = 0;
  /** The line that says the draw's auto pick and why, or the chosen draw. */
  note = '';

  constructor(
    private readonly hooks: DrawAutoHooks,
    /** Where the draw setting came from (the note words it). */
    public source: DrawSource,
    /** The picks by adapter and scene size (profile/auto-picks.ts; kept in the host's store, if given): no new trial for a size measured already. */
    readonly picks: AutoPicks<DrawChoice>,
  ) {}

  /** Auto's start for a scene of `count` splats not measured yet (drawPrior): the nearest measured size's pick, or the software prior. */
  prior(count?: number): DrawPrior | null {
    return drawPrior(count === undefined ? undefined : this.picks.nearest(count), this.hooks.software());
  }

  /**
   * Draws what the draw setting asks for now (decideDraw): an explicit draw, auto's
   * pick for this scene's splat count, or auto's start (drawPrior, else tiles; quads under a host
   * sort), and a trial once the scene is on screen. Stops a trial in flight.
   */
  apply(): boolean {
    const { settings } = this.hooks;
    const renderer = this.hooks.renderer();
    this.trial = null;
    renderer.releaseProbeDraw();
    this.preparing = false;
    this.token++;
    const count = renderer.cloud?.count;
    // A sort the tiles draw cannot take (a host sort) draws quads (decideDraw).
    const host = !drawServedBy('tiles', renderer.strategy);
    // This size's pick, else a decisive one measured at a similar size (reusableDraw): no trial.
    const measured = count === undefined ? null : (this.picks.get(count) ?? reusableDraw(this.picks.nearest(count), count));
    const d = decideDraw(settings.draw, this.source, { name: renderer.strategy, host }, measured, this.prior(count));
    this.wanted = d.measure;
    if (this.use(d.draw)) {
      this.say(d.note);
      return true;
    }
    // Auto's start did not fit (e.g. the tiles draw's buffers over a binding limit): the other draw, unmeasured.
    this.wanted = false;
    if (settings.draw === AUTO_DRAW) this.say(`auto: ${this.hooks.renderer().draw}, as ${d.draw} cannot draw this scene here`);
    return settings.draw === AUTO_DRAW;
  }

  /** Switches the renderer's draw; false (and a message) when the renderer refused it. */
  use(name: DrawName): boolean {
    const renderer = this.hooks.renderer();
    if (renderer.draw === name) return true;
    return this.hooks.tryChange(() => {
      renderer.setDraw(name);
      // The window's medians would mix the two draws' stages.
      this.hooks.drawChanged();
    });
  }

  say(text: string): void {
    this.note = text;
    this.hooks.noted();
  }

  /**
   * The trial's part of a frame (before it is encoded): the draw and whether it
   * is timed (then submitted alone), and for a probe the window of the view to draw
   * offscreen; 'skip' for no frame now, or null for a frame that is no trial's (the page's
   * own). Ends the trial once every timed frame has its GPU reading.
   */
  frame(now: number): TrialFrame | 'skip' | null {
    const t = this.trial;
    if (!t) return null;
    const f = t.trial.next();
    if (f === 'wait') return 'skip';
    if (f === 'page') {
      // The page's frame between two probes: the whole frame's work (a probe drew with the shared buffers).
      this.hooks.redraw();
      return null;
    }
    if (f === null) {
      // The GPU readings come a few frames late; without them in 1 s, the wall clock.
      t.finishedAt ??= now;
      if (t.trial.reportsIn || now - t.finishedAt > 1000) this.finish();
      return null;
    }
    // A timed frame runs alone on the queue: its wall clock is its own.
    if (f.timed && this.hooks.inFlight() > 0) return 'skip';
    // A probe draws offscreen with its own state (SplatRenderer.prepareProbeDraw): the draw on screen stays.
    const renderer = this.hooks.renderer();
    if (!(f.window ? this.hooks.tryChange(() => renderer.prepareProbeDraw(f.draw)) : this.use(f.draw))) {
      this.apply();
      this.wanted = false;
      return null;
    }
    // The whole frame's work (the sort too), whatever the sort mode.
    this.hooks.redraw();
    return f;
  }

  /**
   * Measures the draws at `count` splats: first the other draws' pipelines compiled on
   * the side (SplatRenderer.compileDrawAhead; `preparing` meanwhile), so that the trial's
   * first frame of each holds up nothing; then the trial over the frames.
   */
  start(count: number): void {
    this.wanted = false;
    const renderer = this.hooks.renderer();
    const token = ++this.token;
    const draws = [renderer.draw, ...DRAW_NAMES.filter((d) => d !== renderer.draw)];
    this.say(`auto: drawing with ${renderer.draw}; measuring ${draws.join(', ')} at ${count.toLocaleString('en-US')} splats in this view…`);
    this.preparing = true;
    const others = draws.slice(1);
    void Promise.all(others.map((d) => renderer.compileDrawAhead(d)))
      .catch((e) => console.warn(`auto: the draws' pipelines could not be compiled ahead: ${e instanceof Error ? e.message : String(e)}`))
      .then(() => {
        // Something changed meanwhile (a scene, the setting: apply()): that measures anew.
        if (token !== this.token) return;
        this.preparing = false;
        const size = this.hooks.size();
        // The draws not on screen are drawn in windows of the view first (DrawTrial: no frame over twice the page's).
        this.trial = { trial: new DrawTrial(DRAW_NAMES, renderer.draw, { size }), count, finishedAt: null, size: `${size.width}x${size.height}` };
      });
  }

  private finish(): void {
    const t = this.trial;
    if (!t) return;
    this.trial = null;
    const { timings, method } = t.trial.result();
    const choice = chooseDraw(timings, t.count, method, t.size);
    if (!choice) {
      this.apply();
      this.wanted = false;
      this.say(`auto: could not time the draws here; drawing with ${this.hooks.renderer().draw}`);
      return;
    }
    this.picks.set(t.count, { ...choice, trialFrames: t.trial.frames });
    this.apply();
  }

  /** No trial any more, nor one whose draws compile now. */
  destroy(): void {
    this.token++;
    this.trial = null;
    this.preparing = false;
  }
}
