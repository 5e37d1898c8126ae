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
  /** Not drawn at full size: `ms` is an estimate, made as this says ("estimated from 16 windows of 80x45 px at full resolution, ±12 ms; not drawn whole, so not picked"); never the pick. */
  predicted?: string;
}

/** What auto picked and why, for the panel. */
export interface DrawChoice {
  name: DrawName;
  /** Median ms of the winner. */
  ms: number;
  /** "auto: tiles, 0.84 ms vs quads 4.07 ms measured on this adapter (GPU timestamps of whole frames, 60,000 splats at 1280x720 px)". */
  reason: string;
  /** Every draw measured, fastest first (`predicted`: its figure estimated from windows of the view, not drawn at full size). */
  ranked: { name: DrawName; ms: number; predicted?: true }[];
  /** The splat count it was measured at (absent in picks stored by older builds). */
  splats?: number;
  /** The trial's frames against the page's frame (DrawTrial.frames; issue 34: none over twice it), where a trial made it. */
  trialFrames?: { count: number; longestMs: number; longest: string; pageMs: number };
}

function median(values: readonly number[]): number {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/**
 * The draw with the lowest median frame time, of those drawn at full size (an estimated
 * figure ranks after them); null when none has a finite time. Ties go to tiles (the prior). `splats`, `method` and `size` (the target's pixels the
 * trial drew, "1280x720") only feed the reason: what was measured, at what size, so
 * that it is not read against the HUD's figures of another size or kind.
 */
export function chooseDraw(timings: readonly DrawTiming[], splats?: number, method?: string, size?: string): DrawChoice | null {
  const ranked = timings
    .map((t) => ({ name: t.name, ms: median(t.ms), ...(t.predicted ? { predicted: t.predicted } : {}) }))
    .filter((t) => Number.isFinite(t.ms))
    // A draw not drawn at full size (its figure an estimate) is never the pick: after every draw measured.
    .sort((a, b) => Number(!!a.predicted) - Number(!!b.predicted) || a.ms - b.ms || Number(b.name === 'tiles') - Number(a.name === 'tiles'));
  if (ranked.length === 0) return null;
  const best = ranked[0]!;
  // An estimated figure says so, and how (issue 34: no full-size frame over twice the page's).
  const figure = (r: (typeof ranked)[number]) => (r.predicted ? `~${formatSortMs(r.ms)} ms (${r.predicted})` : `${formatSortMs(r.ms)} ms`);
  const others = ranked.slice(1).map((r) => `${r.name} ${figure(r)}`);
  const vs = others.length ? ` vs ${others.join(', ')}` : '';
  const at = size ? ` at ${size} px` : '';
  const how = [method, splats !== undefined ? `${splats.toLocaleString('en-US')} splats${at}` : at.trim()].filter((s) => s).join(', ');
  const reason = `auto: ${best.name}, ${figure(best)}${vs} measured on this adapter${how ? ` (${how})` : ''}`;
  return {
    name: best.name,
    ms: best.ms,
    reason,
    ranked: ranked.map((r) => ({ name: r.name, ms: r.ms, ...(r.predicted ? { predicted: true as const } : {}) })),
    ...(splats !== undefined ? { splats } : {}),
  };
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

/**
 * The probes (issue 34: no trial frame over twice the page's frame). Before a draw
 * other than the one on screen is drawn at full size, it draws windows of the view
 * offscreen at the screen's own resolution (every splat as many pixels and tiles as on
 * screen), between the page's own frames (as many as fit in half a page frame): first
 * a window outside the view, twice (the cost every window pays for the splats in view:
 * their projection, sort and vertices; the lower of the two), then one window at the
 * centre of each cell of a 4x4 grid over the view, 1/64 of the pixels each (a quarter
 * of the view together), the four quadrants' first. Its full frame is estimated as the
 * cost outside the view plus what the windows added, scaled by their pixels, with an
 * error of twice the standard error of their mean, scaled alike. It is drawn and timed
 * at full size, on screen, only where the estimate and its error are within the page's
 * frame (twice it, halved for the model's own error: lavapipe's estimates ran 0.8-3.6x
 * the frame then drawn, bench:auto-draw --check); else its figure is the estimate, said
 * so in the note, and it is not the pick (auto picks only a draw it drew). The windows
 * stop after the quadrants' four where those estimate over the page's frame even less
 * their error. GPU timestamps where read (the windows' readings are awaited a few page
 * frames), else the wall clock. (On this 2-core machine's SwiftShader at 1280x720 the
 * tiles draw takes ~3.5-7.9 s a frame against quads' ~90-190 ms: drawn at full size it
 * held the page 40x its frame; in Chromium there a tiles window costs ~150 ms +- 40 of
 * which a few ms are its pixels': its estimate is then mostly error, and tiles stays
 * unpicked.) Where the estimate runs high (quads on lavapipe: 2.0-6.5x), a draw faster
 * than the one on screen can stay unpicked: the price of never drawing a frame over twice
 * the page's where the windows cannot tell. A downscaled view would not do: the tiles draw
 * then gets every splat in a few tiles and blends them with a few workgroups, slower than
 * at full size.
 */
/** The windows: this share of the target's pixels each (an 8th of its width and height). */
export const PROBE_SHARE = 1 / 64;
/** The first windows, a quadrant each: where their estimate less its error is over the page's frame, the draw is not drawn whole, and they are figure enough. */
export const QUADRANT_WINDOWS = 4;
/** Untimed frames before the timed ones (the draw's first frames make its buffers and size them from what they counted). */
export const PROBE_WARMUP = 2;
/** The page's frame is never taken as shorter than a 60 Hz display's: frames under it cost nothing a user sees. */
export const FRAME_FLOOR_MS = 1000 / 60;

/** Options of {@link DrawTrial}. */
export interface DrawTrialOptions {
  /** Untimed frames of a draw before its timed ones (default 3; 1 for the draw on screen when the trial starts). */
  warmup?: number;
  /** Timed frames per draw (default: 5 when the first takes < 20 ms, 3 below 300 ms, else 1). */
  reps?: number;
  /** The target's size: the draws not on screen are probed in windows first. Without it (or under 64 px a side), each is drawn at full size. */
  size?: { width: number; height: number };
}

/** A window of the view in the target's pixels (from the top left); one outside the view shows nothing. */
export interface ProbeWindow {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The frame a trial wants next. */
export interface TrialFrame {
  draw: DrawName;
  /** Submit it alone on the queue and report its wall time (submit to done). */
  timed: boolean;
  /** Draw this window of the view offscreen (a probe; nothing presented), else the view on screen. */
  window?: ProbeWindow;
}

/** The windows' cells: a GRID x GRID grid over the view, one window at the centre of each. */
export const PROBE_GRID = 4;
/** The cells in the order drawn (y x GRID + x): one in each quadrant first, then spread over the rest. */
export const PROBE_ORDER: readonly number[] = [5, 15, 7, 13, 0, 10, 2, 8, 4, 14, 6, 12, 1, 11, 3, 9];

/**
 * A round of the probes' windows for a `size` target, each `share` of its pixels (at most
 * a cell), one at the centre of each cell of the grid in PROBE_ORDER (at a cell's size,
 * they tile the view); `empty`: one window of that size outside the view instead.
 */
export function probeWindows(size: { width: number; height: number }, share: number, empty = false): ProbeWindow[] {
  const k = Math.sqrt(Math.min(1 / (PROBE_GRID * PROBE_GRID), share));
  const cellW = size.width / PROBE_GRID;
  const cellH = size.height / PROBE_GRID;
  const width = Math.max(1, Math.min(Math.floor(cellW), Math.round(size.width * k)));
  const height = Math.max(1, Math.min(Math.floor(cellH), Math.round(size.height * k)));
  if (empty) return [{ x: size.width + width, y: 0, width, height }];
  return PROBE_ORDER.map((c) => ({
    x: Math.round((c % PROBE_GRID) * cellW + (cellW - width) / 2),
    y: Math.round(Math.floor(c / PROBE_GRID) * cellH + (cellH - height) / 2),
    width,
    height,
  }));
}

/** One probe measured: a window outside the view (`round` -1) or one of a round's. */
interface ProbePoint {
  round: number;
  wall: number;
  /** GPU ms (NaN: none usable; undefined: not reported yet). */
  gpu?: number;
  frameId: number;
}

interface DrawPlan {
  name: DrawName;
  /** Probed in windows, timed at full size, or done (`predicted`: left at its windows' estimate). */
  stage: 'probe' | 'full' | 'done';
  predicted: boolean;
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
  /** The probes: warm-up frames submitted, the round in progress (-1: the windows outside the view, 0: those in it) and its windows, the windows measured. */
  probeWarm: number;
  round: number;
  windows: ProbeWindow[];
  points: ProbePoint[];
  /** The round's windows are measured; its GPU readings awaited over this many page frames so far (null: not awaiting). */
  awaiting: number | null;
}

/**
 * A probe's time for the decisions after the windows: its GPU time where read (the wall clock of a
 * frame of a few ms takes the page's and the process's hiccups, up to 15x here), else its
 * wall time.
 */
function probeMs(q: ProbePoint): number {
  return q.gpu !== undefined && Number.isFinite(q.gpu) ? q.gpu : q.wall;
}

/** Page frames a measured round waits for its windows' GPU readings before deciding on the wall clock. */
const AWAIT_READINGS_FRAMES = 4;

/** The windows outside the view measured before those in it. */
const EMPTY_WINDOWS = 2;

/**
 * The full frame estimated from the windows measured (`ms`: a probe's time): the windows
 * outside the view's cost (the lower) plus what the windows in it added, a window's mean,
 * scaled by their share of the pixels; `error`: twice the standard error of that mean,
 * scaled alike (the spread of the windows' times: the view's content and the clock's
 * noise). High where a frame with anything in view pays more passes than one without
 * (1.7-3.6x on lavapipe here).
 */
function windowEstimate(points: readonly ProbePoint[], ms: (p: ProbePoint) => number, share: number): { estimate: number; error: number } {
  const base = Math.min(...points.filter((p) => p.round < 0).map(ms));
  const own = points.filter((p) => p.round === 0).map(ms);
  const n = own.length;
  const mean = own.reduce((sum, m) => sum + m, 0) / n;
  const variance = n > 1 ? own.reduce((sum, m) => sum + (m - mean) ** 2, 0) / (n - 1) : 0;
  return { estimate: base + Math.max(0, mean - base) / share, error: (2 * Math.sqrt(variance / n)) / share };
}

/**
 * A measurement of the draws over the page's own frames. The viewer asks
 * {@link next} before each frame: a frame to draw (with which draw, whether
 * timed, a window offscreen or the view on screen), `'page'` (the page's own frame
 * now, between two probes), `'wait'` (a timed frame is in flight: submit nothing),
 * or null (done: read {@link result}). It tells the trial what it submitted
 * ({@link submitted}), when a frame completed ({@link completed}) and a timed
 * frame's GPU reading ({@link reported}).
 */
export class DrawTrial {
  private readonly plans: DrawPlan[];
  private index = 0;
  private inFlight: number | null = null;
  private best = Infinity;
  /** Probes since the page's last frame: how many, and their wall ms (NaN: one's not known). */
  private sincePage = { probes: 0, ms: 0, last: 0 };
  /** The target's size where the draws not on screen are probed, else null. */
  private readonly size: { width: number; height: number } | null;
  /** A window's share of the target's pixels (as rounded to whole pixels). */
  private readonly share: number;
  /** Frame id -> plan, of timed frames. */
  private readonly timedFrames = new Map<number, DrawPlan>();
  private readonly reportedFrames = new Set<number>();
  /** Every frame the trial asked for, by id, and the wall times of those that ran alone on the queue. */
  private readonly asked = new Map<number, { draw: DrawName; probe: boolean }>();
  private readonly frameLog: { draw: DrawName; probe: boolean; wall: number }[] = [];
  /** When the trial's frames of the draw on screen completed (pageMs), in order. */
  private readonly doneAt: number[] = [];

  constructor(draws: readonly DrawName[], current: DrawName, private readonly opts: DrawTrialOptions = {}) {
    const order = [...draws].sort((a, b) => Number(b === current) - Number(a === current));
    const size = opts.size && opts.size.width >= 64 && opts.size.height >= 64 ? opts.size : null;
    this.size = size;
    const empty = size ? probeWindows(size, PROBE_SHARE, true) : [];
    this.share = size && empty[0] ? (empty[0].width * empty[0].height) / (size.width * size.height) : 1;
    this.plans = order.map((name) => ({
      name,
      stage: name !== current && size ? 'probe' : 'full',
      predicted: false,
      warmup: opts.warmup ?? (name === current ? 1 : 3),
      reps: null,
      wall: [],
      gpu: new Map(),
      timedSubmitted: 0,
      warmSubmitted: 0,
      probeWarm: 0,
      round: -1,
      windows: empty[0] ? Array<ProbeWindow>(EMPTY_WINDOWS).fill(empty[0]) : [],
      points: [],
      awaiting: null,
    }));
  }

  /** The draws in the order measured. */
  get draws(): DrawName[] {
    return this.plans.map((p) => p.name);
  }

  /**
   * The page's frame, as it presents with the draw on screen (measured first): the median
   * interval between the completions of its consecutive trial frames (a frame's own time
   * and the wait for the next animation frame; 1000 / FPS), at least its frames' median
   * own time (submit to done), never under FRAME_FLOOR_MS.
   */
  private pageMs(): number {
    const first = this.plans[0];
    if (!first || first.stage !== 'done') return FRAME_FLOOR_MS;
    const own = median(first.wall);
    const done = this.doneAt;
    const interval = median(done.slice(1).map((t, i) => t - done[i]!));
    return Math.max(FRAME_FLOOR_MS, Number.isFinite(own) ? own : 0, Number.isFinite(interval) ? interval : 0);
  }

  /** What the next frame should be. */
  next(): TrialFrame | 'page' | 'wait' | null {
    if (this.inFlight !== null) return 'wait';
    // The page's own frame before the next probe once the probes since its last would, with one more like the
    // last, pass half its frame: a gap between frames presented stays within one page frame and half of one.
    const since = this.sincePage;
    if (since.probes > 0 && !(since.ms + since.last <= this.pageMs() / 2)) {
      this.sincePage = { probes: 0, ms: 0, last: since.last };
      return 'page';
    }
    while (this.index < this.plans.length) {
      const p = this.plans[this.index]!;
      if (p.stage === 'probe') {
        // Warm-up frames of the first window in the view, then the windows outside the view and in it, timed.
        if (p.probeWarm < PROBE_WARMUP) return { draw: p.name, timed: false, window: probeWindows(this.size!, PROBE_SHARE)[0]! };
        // A round measured: its GPU readings come a few frames late; the page draws meanwhile.
        if (p.awaiting !== null) {
          const readings = p.points.every((q) => q.gpu !== undefined);
          if (!readings && p.awaiting < AWAIT_READINGS_FRAMES) {
            p.awaiting++;
            this.sincePage = { probes: 0, ms: 0, last: this.sincePage.last };
            return 'page';
          }
          p.awaiting = null;
          this.afterRound(p);
          continue;
        }
        const done = p.points.filter((q) => q.round === p.round).length;
        return { draw: p.name, timed: true, window: p.windows[done]! };
      }
      if (p.stage === 'full') {
        if (p.warmSubmitted < p.warmup) return { draw: p.name, timed: false };
        if (p.reps === null || p.timedSubmitted < p.reps) return { draw: p.name, timed: true };
        p.stage = 'done';
      }
      this.index++;
    }
    return null;
  }

  /** The frame `next` asked for was submitted as frame `frameId`. */
  submitted(frame: TrialFrame, frameId: number): void {
    const p = this.plans[this.index];
    if (!p || p.name !== frame.draw) return;
    this.asked.set(frameId, { draw: frame.draw, probe: !!frame.window });
    if (frame.window) {
      if (p.stage !== 'probe') return;
      // The page's own frame comes between probes (next()).
      this.sincePage.probes++;
      if (!frame.timed) {
        p.probeWarm++;
        return;
      }
      this.inFlight = frameId;
      this.timedFrames.set(frameId, p);
      return;
    }
    if (!frame.timed) {
      p.warmSubmitted++;
      return;
    }
    p.timedSubmitted++;
    this.inFlight = frameId;
    this.timedFrames.set(frameId, p);
  }

  /**
   * A frame of the trial finished on the GPU after `wallMs` (submit to done), submitted
   * alone on the queue (as every timed frame is; call it only for those): its time is
   * kept for {@link frames}, and a timed frame's is its measurement. `doneAt` (ms, the
   * page's clock): when it completed (the page's frame is the interval between two).
   */
  completed(frameId: number, wallMs: number, doneAt = NaN): void {
    const asked = this.asked.get(frameId);
    if (asked) {
      this.asked.delete(frameId);
      this.frameLog.push({ ...asked, wall: wallMs });
      if (asked.probe) {
        this.sincePage.ms += wallMs;
        this.sincePage.last = wallMs;
      }
      if (!asked.probe && this.index === 0 && Number.isFinite(doneAt)) this.doneAt.push(doneAt);
    }
    if (frameId !== this.inFlight) return;
    this.inFlight = null;
    const p = this.timedFrames.get(frameId);
    if (!p) return;
    if (p.stage === 'probe') {
      p.points.push({ round: p.round, wall: wallMs, frameId });
      // The round's windows all measured, or its first four (a quadrant each): decided once their GPU readings are in
      // (next()); the windows outside the view at once.
      const measured = p.points.filter((q) => q.round === p.round).length;
      if (measured >= p.windows.length || (p.round >= 0 && measured === QUADRANT_WINDOWS)) {
        if (p.round < 0) this.afterRound(p);
        else p.awaiting = 0;
      }
      return;
    }
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

  /**
   * After the windows outside the view, the windows in it; after those, or their first
   * four (a quadrant each): the full size on screen where the estimate and its error are
   * within the page's frame (all 16 measured); done at the estimate where all are
   * measured, or where the four's estimate less its error is over the page's frame
   * already (the draw would not be drawn whole); else the rest.
   */
  private afterRound(p: DrawPlan): void {
    if (p.round < 0) {
      p.round = 0;
      p.windows = probeWindows(this.size!, PROBE_SHARE);
      return;
    }
    const page = this.pageMs();
    const { estimate, error } = windowEstimate(p.points, probeMs, this.share);
    const all = p.points.filter((q) => q.round === 0).length >= p.windows.length;
    if (all && estimate + error <= page) p.stage = 'full';
    else if (all || estimate - error > page) {
      p.stage = 'done';
      p.predicted = true;
    }
  }

  /**
   * The trial's frames against the page's (issue 34: none over twice it): how many ran
   * alone on the queue, the longest of them (ms, submit to done) and which, and the
   * page's frame (pageMs).
   */
  get frames(): { count: number; longestMs: number; longest: string; pageMs: number } {
    let worst: { draw: DrawName; probe: boolean; wall: number } | null = null;
    for (const f of this.frameLog) if (!worst || f.wall > worst.wall) worst = f;
    return {
      count: this.frameLog.length,
      longestMs: worst?.wall ?? 0,
      longest: worst ? `${worst.draw}${worst.probe ? ' (a window)' : ''}` : '',
      pageMs: this.pageMs(),
    };
  }

  /** A frame's GPU time from timestamps (undefined or 0: none). Frames that are not timed trial frames are ignored. */
  reported(frameId: number, gpuMs: number | undefined): void {
    const p = this.timedFrames.get(frameId);
    if (!p) return;
    const ms = gpuMs !== undefined && gpuMs > 0 ? gpuMs : NaN;
    this.reportedFrames.add(frameId);
    const point = p.points.find((q) => q.frameId === frameId);
    if (point) point.gpu = ms;
    else p.gpu.set(frameId, ms);
  }

  /** Every timed frame has its GPU reading (usable or not). */
  get reportsIn(): boolean {
    return [...this.timedFrames.keys()].every((id) => this.reportedFrames.has(id));
  }

  /**
   * The times measured: GPU timestamps where every timed frame (the probes' too) has
   * one, else the wall clock of the lone frames. A draw left at its windows gets their
   * estimate at full size (`predicted`: how it was estimated).
   */
  result(): { timings: DrawTiming[]; method: string } {
    const gpuOf = (id: number): number => {
      const p = this.timedFrames.get(id);
      const q = p?.points.find((x) => x.frameId === id);
      return (q ? q.gpu : p?.gpu.get(id)) ?? NaN;
    };
    const ids = [...this.timedFrames.keys()];
    const gpuOk = ids.length > 0 && ids.every((id) => Number.isFinite(gpuOf(id)));
    const timings = this.plans.map((p): DrawTiming => {
      if (p.stage === 'done' && p.predicted) {
        const w = p.windows[0]!;
        const { estimate, error } = windowEstimate(p.points, (q) => (gpuOk ? q.gpu! : q.wall), this.share);
        const n = p.points.filter((q) => q.round === 0).length;
        return { name: p.name, ms: [estimate], predicted: `estimated from ${n} windows of ${w.width}x${w.height} px at full resolution, ±${formatSortMs(error)} ms; not drawn whole, so not picked` };
      }
      return { name: p.name, ms: gpuOk ? [...p.gpu.values()] : [...p.wall] };
    });
    return { timings, method: gpuOk ? 'GPU timestamps of whole frames' : 'wall clock of whole frames run alone, submit to done' };
  }
}
