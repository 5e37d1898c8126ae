/**
 * The stages of a frame, in one table that everything timing a frame reads:
 * the renderer (where each stage writes its timestamps), the profiler (how many
 * timestamps a frame has and what they mean), the frame statistics (the fields
 * of a sample), the live graph (segments and colours), the benchmark report
 * (CSV / JSON columns) and bench:frame.
 *
 * A stage is one GPU pass or a sequence of them (a sort, the tiles' blend) whose
 * last pass writes the stage's end timestamp at slot 1 + i of the frame's queries,
 * i = the stage's row; the frame's first pass also writes slot 0, the frame's
 * start. A stage no pass wrote in a frame is absent from that frame. A new draw
 * strategy with stages of its own adds rows here and writes them with
 * {@link stageWrites}: the profiler, the statistics, the graph and the report
 * follow the table.
 */

/** One row of the table. */
export interface FrameStage {
  /** Key of the stage in samples, reports (CSV `<name>_median_ms`) and JSON. */
  readonly name: string;
  /** What the stage does, for tooltips and docs. */
  readonly label: string;
  /** Colour of the stage in the frame graph (colour-blind-safe Tableau 10 hues). */
  readonly colour: string;
  /** Drawn as a segment of the frame graph's bars. */
  readonly graph: boolean;
  /** A column of the benchmark report. */
  readonly report: boolean;
  /** Written by one draw strategy only: a column of the report's table only when a row measured it. */
  readonly optional?: boolean;
}

// Rows in the order the passes run; each draw strategy times its own (draw-strategies.ts).
// A frame writes one timestamp at its very start and one at the end of each of its
// stages: a stage's time runs from the end of the stage before it (or the frame's
// start) to its own end, so the stages add up to the frame's total, barriers
// included. One timestamp a stage, not a begin and an end each, because each
// timestamp costs: on an H100 (Dawn/Vulkan) a begin and an end per stage made the
// 6,831-splat tiles frame 0.161 ms, an end per stage 0.152, none but the frame's two
// 0.130 (docs/PERFORMANCE.md, "What the profiler costs"). For the same reason a
// frame writes nothing for the stages of the other draw: their slots are read as
// unwritten (the frame's `written` mask), not filled by empty passes.
export const FRAME_STAGES = [
  { name: 'project', label: 'project: view depth, cull (tiles: also conic, colour, the (tile, depth) pairs and the frame\'s pair count)', colour: '#4e79a7', graph: true, report: true },
  { name: 'sort', label: 'sort of the (key, id) pairs', colour: '#f28e2b', graph: true, report: true },
  { name: 'blend', label: 'blend: each tile\'s run of sorted pairs, then per pixel, front to back in workgroup memory, onto the target (tiles)', colour: '#b07aa1', graph: true, report: true, optional: true },
  { name: 'draw', label: 'draw: per-splat records, then polygons back to front (quads)', colour: '#59a14f', graph: true, report: true },
] as const satisfies readonly FrameStage[];

/** The name of a stage of {@link FRAME_STAGES}. */
export type StageName = (typeof FRAME_STAGES)[number]['name'];

/** The stage names, in table order. */
export const STAGE_NAMES: readonly StageName[] = FRAME_STAGES.map((s) => s.name);

/** Timestamps a frame has: its start (slot 0), then the end of each stage (slot 1 + row). */
export const TIMESTAMPS_PER_FRAME = 1 + FRAME_STAGES.length;

/**
 * Where a frame's stages write timestamps: {@link TIMESTAMPS_PER_FRAME} consecutive
 * queries from `base`. `written` is kept by {@link stageWrites}: bit 0 the frame's
 * start, bit 1 + row each stage's end; slots a frame did not write hold an older
 * frame's values, so readers mask them with {@link writtenOnly}.
 */
export interface FrameTimestamps {
  querySet: GPUQuerySet;
  base: number;
  written?: number;
}

/** The timestamp writes of a stage's last pass (compute or render): its end, and the frame's start on the frame's first pass. */
export interface StageWrites {
  querySet: GPUQuerySet;
  beginningOfPassWriteIndex?: number;
  endOfPassWriteIndex: number;
}

/**
 * The timestamp writes of the pass that ends `stage` (undefined when the frame is
 * not timed): its end, and the frame's start too when it is the frame's first timed
 * pass. Call it once per stage, for the pass that uses it, in the order the passes run.
 */
export function stageWrites(ts: FrameTimestamps | undefined, stage: StageName): StageWrites | undefined {
  if (!ts) return undefined;
  const row = STAGE_NAMES.indexOf(stage);
  const first = !ts.written;
  ts.written = (ts.written ?? 0) | 1 | (2 << row);
  const end = ts.base + 1 + row;
  return first ? { querySet: ts.querySet, beginningOfPassWriteIndex: ts.base, endOfPassWriteIndex: end } : { querySet: ts.querySet, endOfPassWriteIndex: end };
}

/** A stage's writes in the form the sorters and the draw pass take (begin: the frame's start, on its first pass only). */
export function stageIndices(w: StageWrites | undefined): { querySet: GPUQuerySet; beginIndex?: number; endIndex: number } | undefined {
  return w && { querySet: w.querySet, beginIndex: w.beginningOfPassWriteIndex, endIndex: w.endOfPassWriteIndex };
}

/** A frame's resolved timestamps with the slots it did not write (per `written`, FrameTimestamps) set to 0. */
export function writtenOnly(stamps: ArrayLike<bigint>, written: number): bigint[] {
  return Array.from({ length: TIMESTAMPS_PER_FRAME }, (_, i) => ((written >> i) & 1 ? stamps[i] : 0n));
}
