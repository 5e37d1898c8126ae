/**
 * The `auto` draw: quads or tiles, chosen from frame times measured on the user's
 * own adapter, at the scene's splat count and the current view. Modelled on the
 * sort strategy's `auto` (auto-strategy.ts, auto-run.ts, strategy-trial.ts). Pure:
 * no GPU, no DOM; the viewer draws the trial's frames and reports their times.
 *
 * The trial ({@link DrawTrial}) is a plan of the page's own frames, so the page
 * keeps presenting while it runs: per draw (the one on screen first) a few
 * untimed warm-up frames (the first frames of a draw create its pipelines and
 * buffers; the tiles draw grows its pair buffer from a count read back a few
 * frames late), then timed frames, each submitted alone on the queue (its wall
 * clock from submit to done) and read by GPU timestamps where they are not 0.
 * 5 timed frames when the first takes < 20 ms, 3 below 300 ms, else 1; a draw
 * whose first timed frame is 3x slower than the best so far stops there, and
 * 2x when it takes 20 ms or more (SLOWER_STOP_RATIO), so the page sits through
 * one such slow frame, not several.
 *
 * Before a size is measured the draw is the pick at the nearest size measured on
 * this adapter, else quads on a software adapter, else `tiles` (the faster on the
 * H100 of docs/PERFORMANCE.md); under a host sort strategy (`cpu`), which tiles
 * cannot use, quads. It is only a start: on this 2-core machine's SwiftShader
 * (60,000 splats, 800x600, 2026-12) the trial measured quads faster (1.6 s a frame
 * vs tiles 4.9 s), and picked it.
 */
import { DRAW_NAMES, type DrawName } from '../draw/draw-strategies';
import { formatSortMs } from './auto-strategy';

/** The value of the draw setting that means "choose for me". */
export const AUTO_DRAW = 'auto';
/** What the draw setting holds: a draw, or auto. */
export type DrawSetting = DrawName | typeof AUTO_DRAW;
/** Every value of the draw setting, auto first. */
export const DRAW_SETTINGS: readonly DrawSetting[] = [AUTO_DRAW, ...DRAW_NAMES];

export function isDrawSetting(v: unknown): v is DrawSetting {
  return typeof v === 'string' && (DRAW_SETTINGS as readonly string[]).includes(v);
}

/** One draw's measured frame times (ms). */
export interface DrawTiming {
  name: DrawName;
  ms: readonly number[];
}

/** What auto picked and why, for the panel. */
export interface DrawChoice {
  name: DrawName;
  /** Median ms of the winner. */
  ms: number;
  /** "auto: tiles, 0.84 ms vs quads 4.07 ms measured on this adapter (GPU timestamps of whole frames, 60,000 splats at 1280x720 px)". */
  reason: string;
  /** Every draw measured, fastest first. */
  ranked: { name: DrawName; ms: number }[];
  /** The splat count it was measured at (absent in picks stored by older builds). */
  splats?: number;
}

function median(values: readonly number[]): number {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/**
 * The draw with the lowest median frame time; null when none has a finite time.
 * Ties go to tiles (the prior). `splats`, `method` and `size` (the target's pixels the
 * trial drew, "1280x720") only feed the reason: what was measured, at what size, so
 * that it is not read against the HUD's figures of another size or kind.
 */
export function chooseDraw(timings: readonly DrawTiming[], splats?: number, method?: string, size?: string): DrawChoice | null {
  const ranked = timings
    .map((t) => ({ name: t.name, ms: median(t.ms) }))
    .filter((t) => Number.isFinite(t.ms))
    .sort((a, b) => a.ms - b.ms || Number(b.name === 'tiles') - Number(a.name === 'tiles'));
  if (ranked.length === 0) return null;
  const best = ranked[0];
  const others = ranked.slice(1).map((r) => `${r.name} ${formatSortMs(r.ms)} ms`);
  const vs = others.length ? ` vs ${others.join(', ')}` : '';
  const at = size ? ` at ${size} px` : '';
  const how = [method, splats !== undefined ? `${splats.toLocaleString('en-US')} splats${at}` : at.trim()].filter((s) => s).join(', ');
  const reason = `auto: ${best.name}, ${formatSortMs(best.ms)} ms${vs} measured on this adapter${how ? ` (${how})` : ''}`;
  return { name: best.name, ms: best.ms, reason, ranked, ...(splats !== undefined ? { splats } : {}) };
}

/** Where the draw setting came from: it words the panel's line. */
export type DrawSource = 'default' | 'link' | 'saved' | 'panel';

/** What to draw for a setting now, what the panel says, and whether to measure. */
export interface DrawDecision {
  draw: DrawName;
  note: string;
  /** Auto, not measured yet for this scene, and measurable (a GPU sort): run a trial. */
  measure: boolean;
}

/** Auto's start for a scene not measured yet: a draw and why (e.g. the pick at the nearest measured size). */
export interface DrawPrior {
  draw: DrawName;
  why: string;
}

/**
 * Auto's start where nothing was measured at this size: the pick at the nearest size
 * measured on this adapter; else quads on a software adapter (SwiftShader: quads 3-20x
 * faster at 2,000-60,000 splats, docs/PERFORMANCE.md; its tiles frames wait at the
 * blend's barriers on a CPU); else null (tiles, the faster on the GPUs measured).
 */
export function drawPrior(nearest: { count: number; value: DrawChoice } | undefined, software: boolean): DrawPrior | null {
  if (nearest) {
    const at = nearest.value.splats ?? Number(nearest.count.toPrecision(2));
    return { draw: nearest.value.name, why: `measured the faster at ${nearest.value.splats === undefined ? '~' : ''}${at.toLocaleString('en-US')} splats on this adapter` };
  }
  return software ? { draw: 'quads', why: 'the faster on software GPUs' } : null;
}

/** A pick is decisive when its draw took under this share of the slower draw's time. */
export const DECISIVE_DRAW_RATIO = 0.5;
/** A decisive pick stands for scenes within this factor of the splat count it was measured at. */
export const REUSE_SIZE_FACTOR = 4;

/**
 * A pick measured at another size, reused without a trial (issue 34): when it was
 * decisive (the faster draw under DECISIVE_DRAW_RATIO of the slower's time) and this
 * scene is of similar size (within REUSE_SIZE_FACTOR of the count it was measured at),
 * on the same adapter (the picks are per adapter). Else null: measure this size.
 * Its reason says where it was measured: "auto: tiles (measured at 60,000 splats on
 * this adapter: ...)".
 */
export function reusableDraw(nearest: { count: number; value: DrawChoice } | undefined, count: number): DrawChoice | null {
  if (!nearest) return null;
  const v = nearest.value;
  const at = v.splats ?? nearest.count;
  if (v.ranked.length < 2) return null;
  const fast = v.ranked[0]!;
  const slow = v.ranked[v.ranked.length - 1]!;
  if (!(fast.ms > 0 && fast.ms < DECISIVE_DRAW_RATIO * slow.ms)) return null;
  if (!(count >= at / REUSE_SIZE_FACTOR && count <= at * REUSE_SIZE_FACTOR)) return null;
  const vs = v.ranked.slice(1).map((r) => `${r.name} ${formatSortMs(r.ms)} ms`).join(', ');
  return {
    ...v,
    reason: `auto: ${v.name} (measured at ${at.toLocaleString('en-US')} splats on this adapter: ${formatSortMs(fast.ms)} ms vs ${vs}; decisive, so not measured again for ${count.toLocaleString('en-US')} splats)`,
  };
}

/**
 * The draw for `setting`. An explicit draw wins (a host sort turns tiles into
 * quads, said so); auto takes this scene's measured pick when there is one, else
 * `prior` (drawPrior) or tiles until measured (quads under a host sort, which tiles
 * cannot use, and then nothing to measure).
 */
export function decideDraw(
  setting: DrawSetting,
  source: DrawSource,
  sort: { name: string; host: boolean },
  measured: DrawChoice | null = null,
  prior: DrawPrior | null = null,
): DrawDecision {
  if (setting !== AUTO_DRAW) {
    if (setting === 'tiles' && sort.host) {
      return { draw: 'quads', note: `quads: tiles needs a GPU sort and the ${sort.name} sort runs on the host`, measure: false };
    }
    const why = source === 'link' ? 'chosen by the link (?draw=)' : 'your choice (remembered; pick auto to measure and choose)';
    return { draw: setting, note: `${setting}: ${why}`, measure: false };
  }
  if (sort.host) {
    return { draw: 'quads', note: `auto: quads, as the ${sort.name} sort runs on the host and tiles needs a GPU sort`, measure: false };
  }
  if (measured) return { draw: measured.name, note: measured.reason, measure: false };
  if (prior) return { draw: prior.draw, note: `auto: ${prior.draw} until measured (${prior.why}); measuring both draws once the scene is on screen`, measure: true };
  return { draw: 'tiles', note: 'auto: tiles until measured; measuring both draws once the scene is on screen', measure: true };
}

/** A draw whose first timed frame (of 20 ms or more) is over this many times the best so far is timed no more (issue 34: 3 before). */
export const SLOWER_STOP_RATIO = 2;

/** Options of {@link DrawTrial}. */
export interface DrawTrialOptions {
  /** Untimed frames of a draw before its timed ones (default 3; 1 for the draw on screen when the trial starts). */
  warmup?: number;
  /** Timed frames per draw (default: 5 when the first takes < 20 ms, 3 below 300 ms, else 1). */
  reps?: number;
}

/** The frame a trial wants next. */
export interface TrialFrame {
  draw: DrawName;
  /** Submit it alone on the queue and report its wall time (submit to done). */
  timed: boolean;
}

interface DrawPlan {
  name: DrawName;
  warmup: number;
  /** Timed frames wanted; known after the first. */
  reps: number | null;
  /** Wall ms of the completed timed frames. */
  wall: number[];
  /** GPU ms by frame id of the timed frames (NaN: reported without a usable time). */
  gpu: Map<number, number>;
  /** Timed frames submitted. */
  timedSubmitted: number;
  /** Warm-up frames submitted. */
  warmSubmitted: number;
}

/**
 * A measurement of both draws over the page's own frames. The viewer asks
 * {@link next} before each frame: a frame to draw (with which draw, whether
 * timed), `'wait'` (a timed frame is in flight: submit nothing), or null (done:
 * read {@link result}). It tells the trial what it submitted ({@link submitted}),
 * when a timed frame completed ({@link completed}) and its GPU reading
 * ({@link reported}).
 */
export class DrawTrial {
  private readonly plans: DrawPlan[];
  private index = 0;
  private inFlight: number | null = null;
  private best = Infinity;
  /** Frame id -> plan, of timed frames. */
  private readonly timedFrames = new Map<number, DrawPlan>();

  constructor(draws: readonly DrawName[], current: DrawName, private readonly opts: DrawTrialOptions = {}) {
    const order = [...draws].sort((a, b) => Number(b === current) - Number(a === current));
    this.plans = order.map((name) => ({
      name,
      warmup: opts.warmup ?? (name === current ? 1 : 3),
      reps: null,
      wall: [],
      gpu: new Map(),
      timedSubmitted: 0,
      warmSubmitted: 0,
    }));
  }

  /** The draws in the order measured. */
  get draws(): DrawName[] {
    return this.plans.map((p) => p.name);
  }

  /** What the next frame should be. */
  next(): TrialFrame | 'wait' | null {
    if (this.inFlight !== null) return 'wait';
    while (this.index < this.plans.length) {
      const p = this.plans[this.index];
      if (p.warmSubmitted < p.warmup) return { draw: p.name, timed: false };
      if (p.reps === null || p.timedSubmitted < p.reps) return { draw: p.name, timed: true };
      this.index++;
    }
    return null;
  }

  /** The frame `next` asked for was submitted as frame `frameId`. */
  submitted(frame: TrialFrame, frameId: number): void {
    const p = this.plans[this.index];
    if (!p || p.name !== frame.draw) return;
    if (!frame.timed) {
      p.warmSubmitted++;
      return;
    }
    p.timedSubmitted++;
    this.inFlight = frameId;
    this.timedFrames.set(frameId, p);
  }

  /** A timed frame finished on the GPU after `wallMs` (submit to done, alone on the queue). */
  completed(frameId: number, wallMs: number): void {
    if (frameId !== this.inFlight) return;
    this.inFlight = null;
    const p = this.timedFrames.get(frameId);
    if (!p) return;
    p.wall.push(wallMs);
    if (p.reps === null) {
      // Clearly slower than the best so far (SLOWER_STOP_RATIO, 2x): one frame is figure
      // enough, so that the page sits through no more frames of twice its normal cost.
      // (Frames under 20 ms cost the page nothing it sees: there, 3x as before.)
      const stop = wallMs > 3 * this.best || (wallMs >= 20 && wallMs > SLOWER_STOP_RATIO * this.best);
      p.reps = stop ? 1 : (this.opts.reps ?? (wallMs < 20 ? 5 : wallMs < 300 ? 3 : 1));
    }
    if (p.wall.length >= p.reps) this.best = Math.min(this.best, median(p.wall));
  }

  /** A frame's GPU time from timestamps (undefined or 0: none). Frames that are not timed trial frames are ignored. */
  reported(frameId: number, gpuMs: number | undefined): void {
    const p = this.timedFrames.get(frameId);
    if (p) p.gpu.set(frameId, gpuMs !== undefined && gpuMs > 0 ? gpuMs : NaN);
  }

  /** Every timed frame has its GPU reading (usable or not). */
  get reportsIn(): boolean {
    return [...this.timedFrames.entries()].every(([id, p]) => p.gpu.has(id));
  }

  /**
   * The times measured: GPU timestamps where every timed frame has one, else the
   * wall clock of the lone frames.
   */
  result(): { timings: DrawTiming[]; method: string } {
    const gpuOk = this.timedFrames.size > 0 && [...this.timedFrames.entries()].every(([id, p]) => Number.isFinite(p.gpu.get(id) ?? NaN));
    const timings = this.plans.map((p) => ({ name: p.name, ms: gpuOk ? [...p.gpu.values()] : [...p.wall] }));
    return { timings, method: gpuOk ? 'GPU timestamps of whole frames' : 'wall clock of whole frames run alone, submit to done' };
  }
}
