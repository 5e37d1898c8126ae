/**
 * A flight along a camera path, profiled (bench:frame --path; docs/PATHS.md): per
 * stage the maximum beside the report's median and p95, each frame's GPU times
 * against its path time, and the slowest second of the path with the stage that
 * dominates it. Pure: no DOM, no GPU.
 */
import { REPORT_STAGES, type PathFrameTimes, type ReportStage, type SlowestSecond, type StageFigures } from './benchmark-report';
import { summarize, type FrameSample } from './frame-stats';

export type { PathFrameTimes, SlowestSecond } from './benchmark-report';

/** What a row of bench:frame --path adds to the report's row. */
export interface PathProfile {
  fps: number;
  /** The last keyframe's time (s): the flight runs from 0 to it. */
  duration: number;
  /** Maximum ms per stage over the flight's frames; null where none measured it. */
  max: StageFigures;
  /** Per frame, in path order. */
  frames: PathFrameTimes[];
  slowestSecond: SlowestSecond | null;
}

/** The stages (not the total) a sample may hold, in report order. */
const STAGES = REPORT_STAGES.filter((s) => s !== 'total');

/**
 * Profiles a flight: `samples[i]` is the frame drawn at path time `times[i]` (seconds).
 * Seconds are [k, k + 1) of path time; a frame at exactly the last keyframe's time
 * joins the second before it rather than making one of its own.
 */
export function profilePath(samples: readonly FrameSample[], times: readonly number[], fps: number, duration: number): PathProfile {
  if (samples.length !== times.length) throw new RangeError(`profilePath: ${samples.length} samples for ${times.length} times`);
  const max = {} as StageFigures;
  for (const stage of REPORT_STAGES) max[stage] = summarize(samples.map((s) => s[stage] ?? NaN))?.max ?? null;
  const frames: PathFrameTimes[] = samples.map((s, i) => {
    const f: PathFrameTimes = { time: Number(times[i].toFixed(6)) };
    for (const stage of REPORT_STAGES) {
      const v = s[stage];
      if (v !== undefined && Number.isFinite(v)) f[stage] = v;
    }
    return f;
  });
  return { fps, duration, max, frames, slowestSecond: slowestSecond(frames, duration) };
}

function slowestSecond(frames: readonly PathFrameTimes[], duration: number): SlowestSecond | null {
  const seconds = Math.max(1, Math.ceil(duration - 1e-9));
  const buckets: PathFrameTimes[][] = Array.from({ length: seconds }, () => []);
  for (const f of frames) buckets[Math.min(seconds - 1, Math.max(0, Math.floor(f.time)))].push(f);
  let best: SlowestSecond | null = null;
  for (let k = 0; k < seconds; k++) {
    const bucket = buckets[k];
    const total = summarize(bucket.map((f) => f.total ?? NaN));
    if (!total || (best && total.median <= best.medianMs)) continue;
    let stage: ReportStage | null = null;
    let stageMs: number | null = null;
    for (const s of STAGES) {
      const m = summarize(bucket.map((f) => f[s] ?? NaN))?.median;
      if (m !== undefined && (stageMs === null || m > stageMs)) {
        stage = s;
        stageMs = m;
      }
    }
    best = { from: k, to: Math.min(k + 1, Math.max(duration, k)), medianMs: total.median, stage, stageMs, frames: bucket.length };
  }
  return best;
}

/** Milliseconds for a line: 3 decimals under 1 ms, 1 decimal above. */
function ms(v: number): string {
  return v < 1 ? v.toFixed(3) : v.toFixed(1);
}

/** `slowest second: 2.0-3.0 s, 4.1 ms median, stage blend` (`, no stage timed` without stages). */
export function formatSlowestSecond(s: SlowestSecond | null): string {
  if (!s) return 'slowest second: - (no frame timed)';
  const stage = s.stage === null ? 'no stage timed' : `stage ${s.stage}`;
  return `slowest second: ${s.from.toFixed(1)}-${s.to.toFixed(1)} s, ${ms(s.medianMs)} ms median, ${stage}`;
}

/** `max ms: project 0.412, sort 1.03, draw 2.2, total 3.9` over the stages measured. */
export function formatMax(max: StageFigures): string {
  const parts = REPORT_STAGES.filter((s) => max[s] !== null).map((s) => `${s} ${ms(max[s]!)}`);
  return `max ms: ${parts.length ? parts.join(', ') : '-'}`;
}
