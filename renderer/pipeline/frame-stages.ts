/**
 * The stages of a frame, in one table that everything timing a frame reads:
 * the renderer (where each stage writes its timestamps), the profiler (how many
 * timestamps a frame has and what they mean), the frame statistics (the fields
 * of a sample), the live graph (segments and colours), the benchmark report
 * (CSV / JSON columns) and bench:frame.
 *
 * A stage is timed by one GPU pass (or one sequence of passes, e.g. a sort) that
 * writes a begin and an end timestamp at slot 2i and 2i + 1 of the frame's
 * queries, i = the stage's row. A stage no pass wrote in a frame is absent from
 * that frame. A new draw strategy with stages of its own (e.g. tile keys, ranges,
 * blend) adds rows here and writes them with {@link stageWrites}: the profiler,
 * the statistics, the graph and the report follow the table.
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

// Rows in the order the passes run. A frame times its own draw strategy's stages
// (draw-strategies.ts) and writes the others' with empty passes (a query slot keeps
// its last value otherwise: a switch would show the other draw's stale figures):
// quads writes the tiles rows before its draw, tiles writes `draw` after its blend.
// The total spans the first to the last row written: project to draw for quads,
// project to the empty draw pass (a few microseconds after the blend) for tiles.
export const FRAME_STAGES = [
  { name: 'project', label: 'project: view depth, cull (tiles: also conic, colour, footprint)', colour: '#4e79a7', graph: true, report: true },
  { name: 'tileKeys', label: 'tile keys: one (tile, depth) pair per screen tile a splat touches (tiles)', colour: '#76b7b2', graph: true, report: true, optional: true },
  { name: 'sort', label: 'sort of the (key, id) pairs', colour: '#f28e2b', graph: true, report: true },
  { name: 'ranges', label: 'ranges: each tile\'s run of sorted pairs (tiles)', colour: '#edc948', graph: true, report: true, optional: true },
  { name: 'blend', label: 'blend: per pixel, front to back in workgroup memory, then onto the target (tiles)', colour: '#b07aa1', graph: true, report: true, optional: true },
  { name: 'draw', label: 'draw: per-splat records, then polygons back to front (quads)', colour: '#59a14f', graph: true, report: true },
] as const satisfies readonly FrameStage[];

/** The name of a stage of {@link FRAME_STAGES}. */
export type StageName = (typeof FRAME_STAGES)[number]['name'];

/** The stage names, in table order. */
export const STAGE_NAMES: readonly StageName[] = FRAME_STAGES.map((s) => s.name);

/** Timestamps a frame writes: begin and end of each stage. */
export const TIMESTAMPS_PER_FRAME = 2 * FRAME_STAGES.length;

/** Where a frame's stages write timestamps: {@link TIMESTAMPS_PER_FRAME} consecutive queries from `base`. */
export interface FrameTimestamps {
  querySet: GPUQuerySet;
  base: number;
}

/** Begin and end query index of `stage` in a frame, or undefined when the frame is not timed. */
export function stageWrites(
  ts: FrameTimestamps | undefined,
  stage: StageName,
): { querySet: GPUQuerySet; beginningOfPassWriteIndex: number; endOfPassWriteIndex: number } | undefined {
  if (!ts) return undefined;
  const row = STAGE_NAMES.indexOf(stage);
  return { querySet: ts.querySet, beginningOfPassWriteIndex: ts.base + 2 * row, endOfPassWriteIndex: ts.base + 2 * row + 1 };
}

/**
 * Empty compute passes that write the timestamps of stages a frame does no GPU
 * work for (e.g. the CPU strategy's project and sort): a query slot keeps its
 * last frame's values otherwise, and the stage reads ~0 ms as it should.
 */
export function encodeEmptyStages(encoder: GPUCommandEncoder, ts: FrameTimestamps | undefined, stages: readonly StageName[]): void {
  if (!ts) return;
  for (const stage of stages) {
    encoder.beginComputePass({ label: `skipped ${stage}`, timestampWrites: stageWrites(ts, stage) }).end();
  }
}
