/**
 * A rolling frame-time graph on a small 2D canvas: one stacked bar per frame
 * (project, sort, draw from the GPU timestamps, then 'other' = the rest of the
 * time until the next frame was submitted), a 60 fps budget line, an auto-scaled
 * y axis, a legend with each stage's median, and min / median / p95 of the GPU
 * total ("gpu frame") and of the time between frames submitted ("submit gap":
 * with two frames queued on the GPU a frame can be submitted one display refresh
 * after the previous one, 16.7 ms, however long each takes on the GPU; the page's
 * FPS counts completed frames instead).
 *
 * Plain canvas, no chart library: a few hundred fillRects at most 30 times a
 * second cost nothing next to the frame it measures. The pure parts (stacking,
 * scale and ticks, text) are exported and unit-tested; the DOM stays in
 * {@link FrameGraph}.
 */
import { FRAME_STAGES, type FrameSample, FrameStats, type StageName, type Summary } from '../renderer/api/index';

/** The GPU stages drawn as segments (the table's `graph` rows), bottom to top. */
const GPU_SEGMENTS: readonly StageName[] = FRAME_STAGES.filter((s) => s.graph).map((s) => s.name);
/** The stacked segments of a bar, bottom to top: the GPU stages, then 'other'. */
export const GRAPH_STAGES: readonly GraphStage[] = [...GPU_SEGMENTS, 'other'];
/** A segment of a bar. */
export type GraphStage = StageName | 'other';

/** Colour of each segment: the stage table's colours; 'other' neutral grey. */
export const STAGE_COLOURS: Readonly<Record<GraphStage, string>> = {
  ...(Object.fromEntries(FRAME_STAGES.map((s) => [s.name, s.colour])) as Record<StageName, string>),
  other: '#7a7a7a',
};

/** One frame's bar in ms: the segments and their sum. */
export type BarStack = Record<GraphStage, number> & { total: number };

/**
 * Stacks a frame: the GPU stages as measured (0 where absent), then 'other' =
 * the frame time they do not cover (frame-to-frame time, or the CPU time when
 * that is unknown), never negative. A GPU-bound frame whose stages exceed the
 * frame time gets a bar taller than the frame time and no 'other'.
 */
export function stackSample(s: FrameSample): BarStack {
  const bar = {} as BarStack;
  let gpu = 0;
  for (const stage of GPU_SEGMENTS) {
    bar[stage] = finiteOr0(s[stage]);
    gpu += bar[stage];
  }
  const frame = Number.isFinite(s.frameMs) ? s.frameMs : finiteOr0(s.cpuMs);
  bar.other = Math.max(0, frame - gpu);
  bar.total = gpu + bar.other;
  return bar;
}

function finiteOr0(v: number | undefined): number {
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : 0;
}

/** A y axis from 0: its top, the tick step and the tick values. */
export interface AxisScale {
  max: number;
  step: number;
  ticks: number[];
}

/**
 * A y axis from 0 covering `maxValue` with at most `maxTicks` intervals of a
 * "nice" step (1, 2, 2.5 or 5 times a power of ten). Values <= 0 or not finite
 * give the axis of 1.
 */
export function niceScale(maxValue: number, maxTicks = 4): AxisScale {
  const top = Number.isFinite(maxValue) && maxValue > 0 ? maxValue : 1;
  const rough = top / Math.max(1, maxTicks);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const norm = rough / magnitude;
  const nice = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
  const step = nice * magnitude;
  // The epsilon keeps a top that is already a multiple of the step (20 / 5) from gaining a tick.
  const n = Math.max(1, Math.ceil(top / step - 1e-9));
  // toPrecision drops float noise: 3 * 0.1 is 0.30000000000000004.
  const ticks = Array.from({ length: n + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { max: ticks[n], step, ticks };
}

/** A tick's label with as many decimals as the step needs (step 2.5 -> "7.5", step 0.02 -> "0.04"). */
export function tickLabel(value: number, step: number): string {
  let decimals = 0;
  while (decimals < 6 && Math.abs(Math.round(step * 10 ** decimals) - step * 10 ** decimals) > 1e-6) decimals++;
  return value.toFixed(decimals);
}

/** ms for the legend and the figures: 3 significant digits or so, '-' when absent. */
export function formatMs(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '-';
  const a = Math.abs(v);
  // Three significant digits (a tiles stage on a fast GPU takes hundredths of a ms).
  return v.toFixed(a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0);
}

/** "min 1.20  med 1.35  p95 1.80 ms", or "-" without data. */
export function figuresText(s: Summary | null): string {
  return s ? `min ${formatMs(s.min)}  med ${formatMs(s.median)}  p95 ${formatMs(s.p95)} ms` : '-';
}

/**
 * The y axis for a window of bars: covers the tallest bar and the budget, so the
 * budget line is always on the graph and its share of the height means something.
 */
export function graphScale(tallestBarMs: number, budgetMs: number, maxTicks = 4): AxisScale {
  return niceScale(Math.max(tallestBarMs, budgetMs), maxTicks);
}

/**
 * The height the y axis covers for a window of bars: the nearest-rank 95th
 * percentile of their totals, so one warm-up spike (a 35 s first frame among 20 ms
 * ones) does not flatten every other bar; taller bars are cut at the top and marked.
 */
export function scaleTarget(barTotals: readonly number[]): number {
  const v = barTotals.filter((x) => Number.isFinite(x) && x > 0).sort((a, b) => a - b);
  if (v.length === 0) return 0;
  return v[Math.min(v.length, Math.max(1, Math.ceil(0.95 * v.length - 1e-9))) - 1];
}

/** Options of {@link FrameGraph}. */
export interface FrameGraphOptions {
  /** CSS px (default 300 x 150). */
  width?: number;
  height?: number;
  /** Frames shown (default 150). */
  bars?: number;
  /** Where the budget line is drawn, ms (default 1000 / 60). */
  budgetMs?: number;
  /** Redraws at most this often (default 30 per second). */
  maxFps?: number;
  /** Clock in ms for the throttle (default performance.now). */
  now?: () => number;
}

const FONT_PX = 10;
const LINE_PX = 13;
const TEXT_LINES = 3;
/** Least room for the axis labels; wider when the labels need it (5-digit ms). */
const AXIS_PX = 30;
const PAD_PX = 4;

/**
 * The live graph. `push()` each frame's sample (e.g. from GpuProfiler.onFrame);
 * the canvas redraws at most `maxFps` times a second, and not at all while hidden.
 */
export class FrameGraph {
  /** The canvas, appended to the parent given to the constructor. */
  readonly canvas: HTMLCanvasElement;
  /** The frames on the graph. */
  readonly stats: FrameStats;
  private readonly ctx: CanvasRenderingContext2D | null;
  private readonly width: number;
  private readonly height: number;
  private readonly budgetMs: number;
  private readonly interval: number;
  private readonly now: () => number;
  private visible = true;
  private note: string | undefined;
  /** The stages the legend names (the current draw strategy's); all when unset. */
  private legendStages: ReadonlySet<string> | null = null;
  private lastDraw = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private destroyed = false;

  constructor(parent: HTMLElement, opts: FrameGraphOptions = {}) {
    this.width = opts.width ?? 300;
    this.height = opts.height ?? 150;
    this.budgetMs = opts.budgetMs ?? 1000 / 60;
    this.interval = 1000 / (opts.maxFps ?? 30);
    this.now = opts.now ?? (() => performance.now());
    this.stats = new FrameStats(opts.bars ?? 150);
    const canvas = parent.ownerDocument.createElement('canvas');
    canvas.className = 'frame-graph';
    canvas.style.width = `${this.width}px`;
    canvas.style.height = `${this.height}px`;
    const dpr = parent.ownerDocument.defaultView?.devicePixelRatio ?? 1;
    canvas.width = Math.round(this.width * dpr);
    canvas.height = Math.round(this.height * dpr);
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    // Draw in CSS px; the backing store is device px so text stays sharp.
    this.ctx?.setTransform(dpr, 0, 0, dpr, 0, 0);
    parent.appendChild(canvas);
    this.draw();
  }

  /** Adds a frame; schedules a redraw within the throttle. */
  push(sample: FrameSample): void {
    if (this.destroyed) return;
    this.stats.push(sample);
    this.schedule();
  }

  /** Names only these stages in the legend (the draw strategy's own; the others' passes are empty). */
  setLegendStages(stages: readonly StageName[] | null): void {
    this.legendStages = stages ? new Set(stages) : null;
    this.schedule();
  }

  /** A line shown instead of the GPU figures, e.g. why GPU times are missing; undefined to clear. */
  setNote(text: string | undefined): void {
    if (text === this.note) return;
    this.note = text;
    this.schedule();
  }

  /** Shows or hides the graph; hidden, it only records. */
  setVisible(visible: boolean): void {
    if (this.destroyed) return;
    this.visible = visible;
    this.canvas.style.display = visible ? '' : 'none';
    if (visible) this.draw();
    else this.cancel();
  }

  /** Redraws now (push() redraws by itself, throttled). */
  draw(): void {
    this.cancel();
    const ctx = this.ctx;
    if (!ctx || !this.visible || this.destroyed) return;
    this.lastDraw = this.now();
    const w = this.width;
    const h = this.height;
    const stats = this.stats;
    const n = stats.size;

    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = 'rgba(16, 16, 20, 0.78)';
    ctx.fillRect(0, 0, w, h);
    ctx.font = `${FONT_PX}px ui-monospace, SFMono-Regular, Menlo, monospace`;
    ctx.textBaseline = 'middle';

    // Text: legend with each stage's window median, then the GPU total and frame figures.
    let x = PAD_PX;
    const legendY = PAD_PX + LINE_PX / 2;
    for (const stage of GRAPH_STAGES) {
      if (stage !== 'other' && this.legendStages && !this.legendStages.has(stage)) continue;
      ctx.fillStyle = STAGE_COLOURS[stage];
      ctx.fillRect(x, legendY - 4, 8, 8);
      x += 11;
      const median = stage === 'other' ? null : (stats.fieldSummary(stage)?.median ?? null);
      const label = stage === 'other' ? stage : `${stage} ${formatMs(median)}`;
      ctx.fillStyle = '#d8d8d8';
      ctx.textAlign = 'left';
      ctx.fillText(label, x, legendY);
      x += ctx.measureText(label).width + 8;
    }
    const total = stats.fieldSummary('total');
    ctx.fillStyle = this.note && !total ? '#f0b060' : '#d8d8d8';
    ctx.fillText(this.note && !total ? this.note : `gpu frame  ${figuresText(total)}`, PAD_PX, legendY + LINE_PX);
    ctx.fillStyle = '#d8d8d8';
    // The time between frames submitted (not completed: that is the FPS), named so it is not read as a frame's time.
    ctx.fillText(`submit gap ${figuresText(stats.fieldSummary('frameMs'))}`, PAD_PX, legendY + 2 * LINE_PX);

    const stacks: BarStack[] = [];
    for (let i = 0; i < n; i++) stacks.push(stackSample(stats.at(i)!));
    const scale = graphScale(scaleTarget(stacks.map((s) => s.total)), this.budgetMs);

    // Plot area, right of labels as wide as the widest needs.
    const labelW = Math.max(...scale.ticks.map((t) => ctx.measureText(tickLabel(t, scale.step)).width));
    const top = PAD_PX + TEXT_LINES * LINE_PX + PAD_PX;
    const bottom = h - PAD_PX;
    const left = Math.max(AXIS_PX, Math.ceil(labelW) + 8);
    const right = w - PAD_PX;
    const plotH = Math.max(1, bottom - top);
    const barW = (right - left) / stats.capacity;
    // Above the scale's top a bar is cut at the top of the plot.
    const yOf = (ms: number) => Math.max(top, bottom - (ms / scale.max) * plotH);

    ctx.textAlign = 'right';
    ctx.lineWidth = 1;
    for (const t of scale.ticks) {
      const y = Math.round(yOf(t)) + 0.5;
      ctx.strokeStyle = 'rgba(255, 255, 255, 0.12)';
      ctx.beginPath();
      ctx.moveTo(left, y);
      ctx.lineTo(right, y);
      ctx.stroke();
      ctx.fillStyle = '#a8a8a8';
      ctx.fillText(tickLabel(t, scale.step), left - 4, y);
    }

    // Bars, newest at the right; one fill colour at a time.
    const x0 = right - n * barW;
    for (let k = 0; k < GRAPH_STAGES.length; k++) {
      const stage = GRAPH_STAGES[k];
      ctx.fillStyle = STAGE_COLOURS[stage];
      for (let i = 0; i < n; i++) {
        const s = stacks[i];
        if (s[stage] <= 0) continue;
        let below = 0;
        for (let j = 0; j < k; j++) below += s[GRAPH_STAGES[j]];
        const y1 = yOf(below);
        const y2 = yOf(below + s[stage]);
        ctx.fillRect(x0 + i * barW, y2, Math.max(1, barW - (barW > 3 ? 1 : 0)), y1 - y2);
      }
    }

    // Bars taller than the scale: a white cap says "cut here".
    ctx.fillStyle = '#ffffff';
    for (let i = 0; i < n; i++) if (stacks[i].total > scale.max) ctx.fillRect(x0 + i * barW, top, Math.max(1, barW - (barW > 3 ? 1 : 0)), 2);

    // Budget line, labelled.
    const by = Math.round(yOf(this.budgetMs)) + 0.5;
    ctx.strokeStyle = '#e15759';
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(left, by);
    ctx.lineTo(right, by);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = '#e15759';
    ctx.textAlign = 'left';
    // Below the line when above it would run into the text.
    const above = by - top > FONT_PX + 2;
    ctx.textBaseline = above ? 'bottom' : 'top';
    ctx.fillText(`${formatMs(this.budgetMs)} ms (${Math.round(1000 / this.budgetMs)} fps)`, left + 2, above ? by - 1 : by + 1);
  }

  /** Removes the canvas and stops redrawing. */
  destroy(): void {
    this.destroyed = true;
    this.cancel();
    this.canvas.remove();
  }

  private schedule(): void {
    if (!this.visible || this.destroyed || this.timer !== undefined) return;
    // Rounded up: timers run on whole ms, and an early timer would redraw above the rate.
    const wait = Math.max(0, Math.ceil(this.lastDraw + this.interval - this.now()));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, wait);
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
