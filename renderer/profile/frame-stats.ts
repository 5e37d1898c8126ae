/**
 * Frame-time statistics over a rolling window. Pure: no DOM, no GPU.
 *
 * Definitions (the same everywhere in the project: the live graph, the GUI and
 * the benchmark tables):
 * - Values that are not finite (NaN, +-Infinity) mean "not measured" and are
 *   skipped; `count` says how many values a figure stands on.
 * - median: the middle value of the sorted values; for an even count, the mean
 *   of the two middle values.
 * - pP (p95, p99): nearest rank, no interpolation: the value of rank
 *   ceil(P / 100 * n) (1-based) in the ascending order. It is always a value
 *   that was observed, and for n < 20 the p95 is the maximum.
 */
import { STAGE_NAMES, type StageName } from '../stage/frame-stages';

/**
 * One frame's timings in milliseconds. `cpuMs` and `frameMs` come from the CPU
 * (NaN when unknown, e.g. `frameMs` of the first frame); the GPU stage times are
 * absent when the frame was not measured on the GPU.
 */
export type FrameSample = {
  /** CPU time spent on the frame (update + encode + submit). */
  cpuMs: number;
  /** Time from the previous frame's start to this frame's start. */
  frameMs: number;
  /** GPU time from the start of the first stage to the end of the last. */
  total?: number;
} & {
  /** GPU time of each stage of the table (pipeline/frame-stages.ts). */
  [S in StageName]?: number;
};

/** A field of {@link FrameSample}. */
export type SampleField = 'cpuMs' | 'frameMs' | StageName | 'total';
/** The fields of a {@link FrameSample}, in display order: CPU timings, then the stages of the table, then the GPU total. */
export const SAMPLE_FIELDS: readonly SampleField[] = ['cpuMs', 'frameMs', ...STAGE_NAMES, 'total'];
/** The GPU fields of a {@link FrameSample}: absent when not measured. */
const GPU_FIELDS: readonly SampleField[] = [...STAGE_NAMES, 'total'];

/**
 * The sample with `stage` timed on the host instead (e.g. the CPU strategy's sort,
 * which the GPU does not do): the stage becomes `hostMs` and the total follows.
 * `hostMs` null or undefined: the stage is unknown, the total kept.
 */
export function withHostStage(sample: FrameSample, stage: StageName, hostMs: number | null | undefined): FrameSample {
  const ms = hostMs ?? undefined;
  const total = sample.total !== undefined && ms !== undefined ? sample.total - (sample[stage] ?? 0) + ms : sample.total;
  return { ...sample, [stage]: ms, total };
}

/** Order statistics of a set of values (ms). */
export interface Summary {
  min: number;
  median: number;
  mean: number;
  /** Nearest-rank 95th percentile (see the module comment). */
  p95: number;
  /** Nearest-rank 99th percentile. */
  p99: number;
  max: number;
  /** How many finite values these figures stand on (>= 1). */
  count: number;
}

/** Per-field summaries of a window; `null` where the window holds no value of that field. */
export type FrameSummary = Record<SampleField, Summary | null>;

/**
 * Nearest-rank percentile of values already sorted ascending (`n` >= 1 of them):
 * the value of rank ceil(p / 100 * n), 1-based.
 */
export function nearestRank(sorted: ArrayLike<number>, n: number, p: number): number {
  // p * n first: exact for integer p, so 95 * 20 / 100 is exactly rank 19. The epsilon
  // guards a fractional p; a true fractional rank is at least 0.01 above an integer.
  const rank = Math.ceil((p * n) / 100 - 1e-9);
  return sorted[Math.min(n, Math.max(1, rank)) - 1];
}

/** Summary of the first `n` entries of `sorted`, which are finite and ascending. */
function summarizeSorted(sorted: Float64Array, n: number): Summary | null {
  if (n === 0) return null;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  const mid = n >> 1;
  return {
    min: sorted[0],
    median: n % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2,
    mean: sum / n,
    p95: nearestRank(sorted, n, 95),
    p99: nearestRank(sorted, n, 99),
    max: sorted[n - 1],
    count: n,
  };
}

/** Copies the finite values of `values` into `into` (from 0), returning how many. */
function finiteInto(values: ArrayLike<number>, into: Float64Array): number {
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v)) into[n++] = v;
  }
  return n;
}

/**
 * Summary of a list of values (e.g. one stage's times over a benchmark run).
 * Non-finite values are skipped; `null` when none is left.
 */
export function summarize(values: ArrayLike<number>): Summary | null {
  const buf = new Float64Array(values.length);
  const n = finiteInto(values, buf);
  const sorted = buf.subarray(0, n).sort();
  return summarizeSorted(sorted, n);
}

/**
 * A fixed-capacity ring of the last `capacity` frame samples, kept as one
 * Float64Array per field (NaN = absent) so that pushing a frame allocates
 * nothing and a summary sorts into one reused scratch array.
 */
export class FrameStats {
  /** How many samples the window holds at most. */
  readonly capacity: number;
  private readonly columns: Record<SampleField, Float64Array>;
  private readonly scratch: Float64Array;
  /** Index the next sample is written to. */
  private head = 0;
  private filled = 0;

  constructor(capacity = 240) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`FrameStats: capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.columns = {} as Record<SampleField, Float64Array>;
    for (const f of SAMPLE_FIELDS) this.columns[f] = new Float64Array(capacity).fill(NaN);
    this.scratch = new Float64Array(capacity);
  }

  /** How many samples the window holds now (<= capacity). */
  get size(): number {
    return this.filled;
  }

  /** Adds a frame, dropping the oldest once the window is full. */
  push(sample: FrameSample): void {
    for (const f of SAMPLE_FIELDS) this.columns[f][this.head] = sample[f] ?? NaN;
    this.head = (this.head + 1) % this.capacity;
    if (this.filled < this.capacity) this.filled++;
  }

  /** Empties the window. */
  clear(): void {
    for (const f of SAMPLE_FIELDS) this.columns[f].fill(NaN);
    this.head = 0;
    this.filled = 0;
  }

  /** The i-th sample of the window, 0 = oldest; GPU fields absent where not measured. */
  at(i: number): FrameSample | undefined {
    if (!Number.isInteger(i) || i < 0 || i >= this.filled) return undefined;
    const k = this.slot(i);
    const c = this.columns;
    const s: FrameSample = { cpuMs: c.cpuMs[k], frameMs: c.frameMs[k] };
    for (const f of GPU_FIELDS) {
      const v = c[f][k];
      if (!Number.isNaN(v)) s[f] = v;
    }
    return s;
  }

  /** The newest sample, if any. */
  latest(): FrameSample | undefined {
    return this.at(this.filled - 1);
  }

  /** The window's samples, oldest first (allocates; for reports, not per frame). */
  samples(): FrameSample[] {
    const out: FrameSample[] = [];
    for (let i = 0; i < this.filled; i++) out.push(this.at(i)!);
    return out;
  }

  /** One field's value of the i-th sample (0 = oldest); NaN where absent. */
  value(field: SampleField, i: number): number {
    return i >= 0 && i < this.filled ? this.columns[field][this.slot(i)] : NaN;
  }

  /** One field's values over the window, oldest first, NaN where absent. */
  values(field: SampleField): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.filled; i++) out.push(this.columns[field][this.slot(i)]);
    return out;
  }

  /** Summary of one field over the window; `null` where no sample has it. */
  fieldSummary(field: SampleField): Summary | null {
    // Order in the ring does not matter for order statistics: sort the column as it lies.
    const col = this.columns[field].subarray(0, this.filled);
    const n = finiteInto(col, this.scratch);
    return summarizeSorted(this.scratch.subarray(0, n).sort(), n);
  }

  /**
   * The window's median frame by `field` (the lower median of the samples that have it),
   * whole: its stages are one frame's, so they add up to its total, where each stage's
   * own median (fieldSummary) comes from a different frame and their sum is no frame's.
   * Undefined where no sample has `field`.
   */
  medianFrame(field: SampleField = 'total'): FrameSample | undefined {
    const col = this.columns[field];
    const order: number[] = [];
    for (let i = 0; i < this.filled; i++) if (Number.isFinite(col[this.slot(i)])) order.push(i);
    if (order.length === 0) return undefined;
    order.sort((a, b) => col[this.slot(a)] - col[this.slot(b)]);
    return this.at(order[(order.length - 1) >> 1]!);
  }

  /** Summaries of every field over the window. */
  summary(): FrameSummary {
    const out = {} as FrameSummary;
    for (const f of SAMPLE_FIELDS) out[f] = this.fieldSummary(f);
    return out;
  }

  /** Ring index of the i-th sample, 0 = oldest. */
  private slot(i: number): number {
    return (this.head - this.filled + i + this.capacity) % this.capacity;
  }
}
