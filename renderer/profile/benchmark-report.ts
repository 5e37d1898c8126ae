/**
 * Frame benchmark results: one row per sort strategy, as a terminal/page table,
 * CSV and JSON. Pure: no DOM, no GPU. The row shape is what `bench:frame --json`
 * writes.
 *
 * Figures are medians and nearest-rank p95s (see frame-stats.ts) of the GPU
 * stage times over the run's frames; a stage no frame measured is `null`.
 */
import { FRAME_STAGES, type StageName } from '../stage/frame-stages';
import { type FrameSample, summarize } from './frame-stats';

/** A stage column of the report: the table's `report` stages and the GPU total. */
export type ReportStage = StageName | 'total';
/** The columns of a row's stage figures, in order. */
export const REPORT_STAGES: readonly ReportStage[] = [...FRAME_STAGES.filter((s) => s.report).map((s) => s.name), 'total'];

/** One figure (ms) per stage; `null` where no frame measured that stage. */
export type StageFigures = Record<ReportStage, number | null>;

/** One frame of a flight along a camera path: its path time (s) and GPU times (ms) where measured (path-profile.ts). */
export type PathFrameTimes = { time: number } & Partial<Record<ReportStage, number>>;

/** A path's slowest whole second (the last may be shorter), by its median GPU total (path-profile.ts). */
export interface SlowestSecond {
  /** Path time where it starts and ends (s). */
  from: number;
  to: number;
  /** Median GPU total (ms) of its frames. */
  medianMs: number;
  /** The stage with the largest median in it, and that median (ms); null where no stage was timed. */
  stage: ReportStage | null;
  stageMs: number | null;
  /** Frames it holds. */
  frames: number;
}

/** A row's flight along a camera path (bench:frame --path, a benchmark of the viewer's path): docs/PATHS.md. */
export interface RowPath {
  /** The path's name (a file, `orbit`, `keyframes`). */
  name: string;
  fps: number;
  /** The last keyframe's time (s): frame i at i / fps from 0 to it. */
  duration: number;
  /** Per frame, in path order. */
  frames: PathFrameTimes[];
  slowestSecond: SlowestSecond | null;
}

/** One strategy's results on one scene. */
export interface BenchmarkRow {
  strategy: string;
  /** The draw strategy (quads | tiles); absent when the run did not say. */
  draw?: string;
  /** The quads draw's shape measured (geometry, `+cut`, e.g. `tri`, `oct+cut`), when the run names one. */
  geometry?: string;
  scene: string;
  splats: number;
  /** The view: 'orbit' (the fixed benchmark path) or a fixed pose as a `--camera` argument. */
  camera?: string;
  /** Splats that passed the cull (the sort's element count). */
  visible: number;
  /** Frames the figures stand on (warm-up excluded). */
  frames: number;
  /** Median ms per stage. */
  stages: StageFigures;
  /** Nearest-rank 95th percentile ms per stage. */
  p95: StageFigures;
  /** Maximum ms per stage: rows of a flight along a camera path. */
  max?: StageFigures;
  /** The flight along a camera path, frame by frame, and its slowest second. */
  path?: RowPath;
  /** Draw time of the same geometry with a trivial fragment shader (the raster floor), measured in the same run; absent if not measured. */
  rasterFloorMs?: number | null;
  /** See {@link outOfOrderFraction}: 0 for an exact sort; NaN (null in JSON) where not measured (tiles). */
  outOfOrderFraction: number;
  /** Fragments the quads draw's geometry covered in one frame (the floor's fragments), when counted. */
  coveredPixels?: number;
  /** Of those, the fragments whose alpha passed the fragment test (can change a pixel). */
  contributingPixels?: number;
  /** The tiles draw: (tile, depth) pairs sorted at the first measured pose. */
  tilePairs?: number;
  /** Depth-key bits the sort used; with the rest of {@link BenchmarkMeta}, present when the input had it. */
  keyBits?: number;
  /** Render target in device pixels, "1280x800". */
  resolution?: string;
  /** The GPU adapter as it names itself. */
  adapter?: string;
  /** When the run finished, ISO 8601 UTC. */
  date?: string;
}

/**
 * Where and how a benchmark ran. Every row carries it, so an exported CSV or JSON
 * file says on its own what it measured.
 */
export interface BenchmarkMeta {
  keyBits: number;
  resolution: string;
  adapter: string;
  date: string;
}

/** One strategy's measured frames. */
export interface StrategyRun {
  strategy: string;
  draw?: string;
  /** Overrides {@link BenchmarkInput.visible} for this run (e.g. the tiles draw counts its own). */
  visible?: number;
  tilePairs?: number;
  samples: readonly FrameSample[];
  /** Out-of-order fraction of the sorted order this strategy drew (see {@link outOfOrderFraction}). */
  outOfOrderFraction: number;
  /** Overrides {@link BenchmarkInput.rasterFloorMs} for this strategy. */
  rasterFloorMs?: number | null;
  /** See {@link BenchmarkRow.geometry}. */
  geometry?: string;
  coveredPixels?: number;
  contributingPixels?: number;
}

/** Everything a report is built from: one scene, one view, several strategies. */
export interface BenchmarkInput {
  scene: string;
  splats: number;
  /** See {@link BenchmarkRow.camera}; omitted rows carry none. */
  camera?: string;
  visible: number;
  /** Raster floor of the scene's view, shared by the strategies; omit when not measured. */
  rasterFloorMs?: number | null;
  runs: readonly StrategyRun[];
  /** Adapter, resolution, key bits and date, copied into every row when given. */
  meta?: BenchmarkMeta;
}

/** Builds one row per run, in the runs' order. */
export function buildRows(input: BenchmarkInput): BenchmarkRow[] {
  return input.runs.map((run) => {
    const stages = {} as StageFigures;
    const p95 = {} as StageFigures;
    for (const stage of REPORT_STAGES) {
      const s = summarize(run.samples.map((f) => f[stage] ?? NaN));
      stages[stage] = s ? s.median : null;
      p95[stage] = s ? s.p95 : null;
    }
    const floor = run.rasterFloorMs !== undefined ? run.rasterFloorMs : input.rasterFloorMs;
    // Keys in the documented order: the JSON output reads as the row shape.
    return {
      strategy: run.strategy,
      ...(run.draw !== undefined ? { draw: run.draw } : {}),
      ...(run.geometry !== undefined ? { geometry: run.geometry } : {}),
      scene: input.scene,
      splats: input.splats,
      ...(input.camera !== undefined ? { camera: input.camera } : {}),
      visible: run.visible ?? input.visible,
      frames: run.samples.length,
      stages,
      p95,
      ...(floor !== undefined ? { rasterFloorMs: floor } : {}),
      outOfOrderFraction: run.outOfOrderFraction,
      ...(run.coveredPixels !== undefined ? { coveredPixels: run.coveredPixels } : {}),
      ...(run.contributingPixels !== undefined ? { contributingPixels: run.contributingPixels } : {}),
      ...(run.tilePairs !== undefined ? { tilePairs: run.tilePairs } : {}),
      ...(input.meta ? { keyBits: input.meta.keyBits, resolution: input.meta.resolution, adapter: input.meta.adapter, date: input.meta.date } : {}),
    };
  });
}

/**
 * Fraction of adjacent pairs (i, i + 1), among the first `count` splats in draw
 * order, where the later-drawn splat is farther than the earlier one. Drawing back
 * to front means depth never increases along the order; equal depths are in order.
 * 0 for an exact sort, and for fewer than 2 splats; NaN depths compare as in order.
 *
 * `relTolerance`: a pair counts only when the later depth exceeds the earlier by more
 * than this fraction of it. Depths recomputed on the CPU differ from the GPU's in the
 * last bits (fused multiply-adds), which would flip near-equal neighbours that no
 * one can see; 1e-5 hides that and nothing a frame of camera lag does.
 */
export function outOfOrderFraction(depthsInDrawOrder: Float32Array | readonly number[], count: number, relTolerance = 0): number {
  if (!Number.isInteger(count) || count < 0 || count > depthsInDrawOrder.length) {
    throw new RangeError(`outOfOrderFraction: count ${count} outside 0..${depthsInDrawOrder.length}`);
  }
  if (count < 2) return 0;
  const d = depthsInDrawOrder;
  let inverted = 0;
  for (let i = 0; i + 1 < count; i++) if (d[i + 1] - d[i] > relTolerance * Math.abs(d[i])) inverted++;
  return inverted / (count - 1);
}

/** The CSV columns, in order. */
export const CSV_COLUMNS: readonly string[] = [
  'strategy',
  'draw',
  'scene',
  'splats',
  'visible',
  'frames',
  ...REPORT_STAGES.flatMap((s) => [`${s}_median_ms`, `${s}_p95_ms`]),
  'raster_floor_ms',
  'out_of_order_fraction',
  'key_bits',
  'resolution',
  'adapter',
  'date',
];

/** The columns rows of a camera path flight add after {@link CSV_COLUMNS}. */
export const CSV_PATH_COLUMNS: readonly string[] = [
  ...REPORT_STAGES.map((s) => `${s}_max_ms`),
  'path',
  'path_fps',
  'path_duration_s',
  'slowest_second_from_s',
  'slowest_second_to_s',
  'slowest_second_median_ms',
  'slowest_second_stage',
];

/** The columns of the per-frame table that follows the rows of a camera path flight. */
export const CSV_FRAME_COLUMNS: readonly string[] = ['strategy', 'draw', 'frame', 'path_time_s', ...REPORT_STAGES.map((s) => `${s}_ms`)];

type Cell = string | number | null | undefined;
const csvLine = (cells: readonly Cell[]) => cells.map((c) => csvField(typeof c === 'number' ? csvNumber(c) : (c ?? ''))).join(',');

/**
 * CSV (RFC 4180 quoting, `\n` line ends, a final newline): the header of
 * {@link CSV_COLUMNS}, then one line per row. Missing figures are empty fields;
 * numbers carry 6 significant digits. Rows of a flight along a camera path (`path`)
 * add {@link CSV_PATH_COLUMNS} (max per stage, the slowest second), and after an
 * empty line a second table, {@link CSV_FRAME_COLUMNS}: one line per frame flown.
 */
export function toCsv(rows: readonly BenchmarkRow[]): string {
  const flown = rows.some((r) => r.path !== undefined || r.max !== undefined);
  const lines = [csvLine(flown ? [...CSV_COLUMNS, ...CSV_PATH_COLUMNS] : CSV_COLUMNS)];
  for (const r of rows) {
    const cells: Cell[] = [r.strategy, r.draw, r.scene, r.splats, r.visible, r.frames];
    for (const s of REPORT_STAGES) cells.push(r.stages[s], r.p95[s]);
    cells.push(r.rasterFloorMs, r.outOfOrderFraction, r.keyBits, r.resolution, r.adapter, r.date);
    if (flown) {
      for (const s of REPORT_STAGES) cells.push(r.max?.[s]);
      const slow = r.path?.slowestSecond;
      cells.push(r.path?.name, r.path?.fps, r.path?.duration, slow?.from, slow?.to, slow?.medianMs, slow?.stage);
    }
    lines.push(csvLine(cells));
  }
  if (rows.some((r) => r.path !== undefined)) {
    lines.push('', csvLine(CSV_FRAME_COLUMNS));
    for (const r of rows) {
      r.path?.frames.forEach((f, i) => lines.push(csvLine([r.strategy, r.draw, i, f.time, ...REPORT_STAGES.map((s) => f[s])])));
    }
  }
  return lines.join('\n') + '\n';
}

/** Quotes a field when it holds a separator, a quote, a line break or edge spaces. */
export function csvField(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvNumber(v: number): string {
  if (!Number.isFinite(v)) return '';
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
}

/** The rows as pretty JSON (2-space indent, final newline), exactly the row shape. */
export function toJson(rows: readonly BenchmarkRow[]): string {
  return JSON.stringify(rows, null, 2) + '\n';
}

/**
 * An aligned plain-text table: one line per strategy, each stage as
 * "median / p95" ms. Scene, splat and visible counts go into a heading line when
 * all rows share them, into columns otherwise; `adapter` heads the table if given.
 */
export function formatTable(rows: readonly BenchmarkRow[], adapter?: string): string {
  const out: string[] = [];
  if (adapter) out.push(`adapter: ${adapter}`);
  const first = rows[0];
  const shared = first !== undefined && rows.every((r) => r.scene === first.scene && r.splats === first.splats && r.visible === first.visible);
  if (shared) out.push(`scene: ${first.scene}, ${groupDigits(first.splats)} splats, ${groupDigits(first.visible)} visible`);
  if (first?.camera !== undefined && rows.every((r) => r.camera === first.camera)) out.push(`camera: ${first.camera}`);
  if (first?.resolution !== undefined && rows.every((r) => r.resolution === first.resolution && r.keyBits === first.keyBits && r.date === first.date)) {
    out.push(`resolution: ${first.resolution}, key bits: ${first.keyBits}, date: ${first.date}`);
  }

  type Column = { title: string; right: boolean; cell: (r: BenchmarkRow) => string };
  const columns: Column[] = [{ title: 'strategy', right: false, cell: (r) => r.strategy }];
  if (rows.some((r) => r.draw !== undefined)) columns.push({ title: 'draw', right: false, cell: (r) => r.draw ?? '-' });
  if (rows.some((r) => r.geometry !== undefined)) columns.push({ title: 'geometry', right: false, cell: (r) => r.geometry ?? '-' });
  if (!shared) {
    columns.push(
      { title: 'scene', right: false, cell: (r) => r.scene },
      { title: 'splats', right: true, cell: (r) => groupDigits(r.splats) },
      { title: 'visible', right: true, cell: (r) => groupDigits(r.visible) },
    );
  }
  columns.push({ title: 'frames', right: true, cell: (r) => String(r.frames) });
  const optional = new Set<string>(FRAME_STAGES.filter((s) => 'optional' in s && s.optional).map((s) => s.name));
  for (const s of REPORT_STAGES) {
    if (optional.has(s) && !rows.some((r) => r.stages[s] !== null)) continue;
    if (rows.some((r) => r.max !== undefined)) {
      columns.push({ title: `${s} ms med / p95 / max`, right: true, cell: (r) => `${fmtMs(r.stages[s])} / ${fmtMs(r.p95[s])} / ${fmtMs(r.max?.[s] ?? null)}` });
    } else columns.push({ title: `${s} ms med / p95`, right: true, cell: (r) => `${fmtMs(r.stages[s])} / ${fmtMs(r.p95[s])}` });
  }
  if (rows.some((r) => r.rasterFloorMs !== undefined)) {
    columns.push({ title: 'raster floor ms', right: true, cell: (r) => fmtMs(r.rasterFloorMs ?? null) });
  }
  if (rows.some((r) => r.coveredPixels !== undefined)) {
    const mpx = (v: number | undefined) => (v === undefined ? '-' : (v / 1e6).toFixed(2));
    columns.push({ title: 'covered Mpx', right: true, cell: (r) => mpx(r.coveredPixels) });
    columns.push({ title: 'contributing Mpx', right: true, cell: (r) => mpx(r.contributingPixels) });
  }
  columns.push({ title: 'out of order', right: true, cell: (r) => fmtFraction(r.outOfOrderFraction) });
  if (rows.some((r) => r.tilePairs !== undefined)) {
    columns.push({ title: 'tile pairs', right: true, cell: (r) => (r.tilePairs === undefined ? '-' : groupDigits(r.tilePairs)) });
  }

  const table = [columns.map((c) => c.title), ...rows.map((r) => columns.map((c) => c.cell(r)))];
  const widths = columns.map((_, j) => Math.max(...table.map((line) => line[j].length)));
  for (const line of table) {
    out.push(
      line
        .map((text, j) => (columns[j].right ? text.padStart(widths[j]) : text.padEnd(widths[j])))
        .join('  ')
        .trimEnd(),
    );
  }
  if (rows.length === 0) out.push('(no results)');
  // A flight along a camera path: where it was slowest, row by row.
  for (const r of rows) {
    const slow = r.path?.slowestSecond;
    if (!r.path) continue;
    const name = [r.strategy, r.draw].filter((x) => x !== undefined).join(' ');
    const stage = !slow ? '' : slow.stage === null ? ', no stage timed' : `, stage ${slow.stage}`;
    out.push(slow ? `${name}: slowest second ${slow.from.toFixed(1)}-${slow.to.toFixed(1)} s, ${fmtMs(slow.medianMs)} ms median${stage}` : `${name}: slowest second: - (no frame timed)`);
  }
  return out.join('\n') + '\n';
}

function fmtMs(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '-' : v.toFixed(3);
}

/** A fraction as a percentage; exact 0 stays "0" so that it is not confused with a tiny error. */
function fmtFraction(f: number): string {
  if (!Number.isFinite(f)) return '-';
  if (f === 0) return '0';
  if (f < 1e-4) return '<0.01%';
  return `${(f * 100).toFixed(2)}%`;
}

function groupDigits(n: number): string {
  return Number.isInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : String(n);
}
