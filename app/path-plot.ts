/**
 * The benchmark box's plot of a flight along a camera path: per row (strategy and
 * draw) each frame's GPU total against its path time, the slowest second shaded and
 * the slowest frame marked with its time (the rows' `path`, renderer/profile/path-profile.ts).
 */
import type { BenchmarkRow, SlowestSecond } from '../renderer/api/index';

/** One row's line. */
export interface PlotSeries {
  label: string;
  /** Frames with a GPU total, in path order. */
  points: { t: number; ms: number }[];
  slowest: SlowestSecond | null;
  /** The slowest frame, or null without GPU totals. */
  peak: { t: number; ms: number } | null;
}

/** The rows of a path flight as plot lines (rows without `path` are left out). Pure. */
export function plotSeries(rows: readonly BenchmarkRow[]): PlotSeries[] {
  return rows
    .filter((r) => r.path)
    .map((r) => {
      const points = r.path!.frames.filter((f) => f.total !== undefined && Number.isFinite(f.total)).map((f) => ({ t: f.time, ms: f.total! }));
      const peak = points.reduce<{ t: number; ms: number } | null>((best, p) => (best === null || p.ms > best.ms ? p : best), null);
      return { label: [r.strategy, r.draw].filter((x) => x !== undefined).join(' '), points, slowest: r.path!.slowestSecond, peak };
    });
}

/** A tick step of 1, 2 or 5 times a power of ten giving about `count` ticks over `span`. */
export function tickStep(span: number, count: number): number {
  if (!(span > 0)) return 1;
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

const COLORS = ['#4fc3f7', '#ffb74d', '#81c784', '#e57373', '#ba68c8', '#fff176'];

/** Draws the plot into `canvas` (CSS size from the stylesheet; `dpr` device pixels a CSS pixel). */
export function drawPathPlot(canvas: HTMLCanvasElement, rows: readonly BenchmarkRow[], dpr = window.devicePixelRatio || 1): void {
  const cssW = 640;
  const cssH = 200;
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  const g = canvas.getContext('2d');
  if (!g) return;
  g.scale(dpr, dpr);
  g.clearRect(0, 0, cssW, cssH);
  g.font = '11px ui-monospace, monospace';
  const series = plotSeries(rows);
  const duration = Math.max(0.001, ...rows.map((r) => r.path?.duration ?? 0));
  const top = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.ms)));
  const left = 44;
  const right = 10;
  // The title and a legend line a row above the plot.
  const upper = 10 + 13 * Math.max(1, series.length);
  const lower = 22;
  const w = cssW - left - right;
  const h = cssH - upper - lower;
  g.fillStyle = '#b8c4d0';
  g.fillText('GPU ms a frame against path time (s)', left, 13);
  if (top === 0) {
    g.fillText('no GPU times on this adapter (see the note under the table)', left, upper + h / 2);
    return;
  }
  const yMax = top * 1.15;
  const x = (t: number) => left + (t / duration) * w;
  const y = (ms: number) => upper + h - (ms / yMax) * h;
  // Axes and ticks.
  g.strokeStyle = '#345';
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(left, upper);
  g.lineTo(left, upper + h);
  g.lineTo(left + w, upper + h);
  g.stroke();
  const xs = tickStep(duration, 8);
  for (let t = 0; t <= duration + 1e-9; t += xs) {
    g.fillText(Number(t.toFixed(3)).toString(), x(t) - 6, upper + h + 14);
    g.beginPath();
    g.moveTo(x(t), upper + h);
    g.lineTo(x(t), upper + h + 3);
    g.stroke();
  }
  const ys = tickStep(yMax, 4);
  for (let v = 0; v <= yMax + 1e-9; v += ys) {
    g.fillText(Number(v.toFixed(3)).toString(), 4, y(v) + 4);
    g.strokeStyle = '#1c2633';
    g.beginPath();
    g.moveTo(left, y(v));
    g.lineTo(left + w, y(v));
    g.stroke();
  }
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    // The slowest second: a band in the row's colour, its stage named.
    if (s.slowest) {
      g.fillStyle = `${color}26`;
      g.fillRect(x(s.slowest.from), upper, Math.max(1, x(s.slowest.to) - x(s.slowest.from)), h);
    }
    g.strokeStyle = color;
    g.lineWidth = 1.5;
    g.beginPath();
    s.points.forEach((p, j) => (j === 0 ? g.moveTo(x(p.t), y(p.ms)) : g.lineTo(x(p.t), y(p.ms))));
    g.stroke();
    // The slowest frame: a ring and its figures.
    if (s.peak) {
      g.beginPath();
      g.arc(x(s.peak.t), y(s.peak.ms), 4, 0, 2 * Math.PI);
      g.stroke();
      const text = `max ${s.peak.ms.toFixed(2)} ms at ${s.peak.t.toFixed(2)} s`;
      const tx = Math.min(x(s.peak.t) + 6, left + w - g.measureText(text).width);
      g.fillStyle = color;
      g.fillText(text, tx, Math.max(upper + 10, y(s.peak.ms) - 6));
    }
    // Legend, above the plot at the right, a line a row.
    const slow = s.slowest ? `, slowest ${s.slowest.from.toFixed(1)}-${s.slowest.to.toFixed(1)} s${s.slowest.stage ? ` (${s.slowest.stage})` : ''}` : '';
    const legend = `${s.label}${slow}`;
    g.fillStyle = color;
    g.fillText(legend, left + w - g.measureText(legend).width, 13 + i * 13);
  });
}
