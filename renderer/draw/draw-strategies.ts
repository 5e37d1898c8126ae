/**
 * Draw strategies: how a frame's sorted splats become pixels, each an object behind
 * one interface (draw.ts), one folder each; adding one is its folder and a line of
 * DRAW_KINDS.
 * - `quads` (quads/): instanced quads drawn back to front by the graphics pipeline, in
 *   the order of the sort strategy (project pass + sort, or the CPU worker).
 * - `tiles` (tiles/): the compute tile rasteriser: (tile, depth) pairs sorted by the
 *   sort strategy's GPU sorter, blended per 16x16 tile front to back. Needs a GPU
 *   sort strategy.
 */
import { STAGE_NAMES, type StageName } from '../stage/frame-stages';
import { strategyByName, type SortStrategy } from '../order/strategies';
import type { DrawInfo as DrawInfoOf, DrawKind } from './draw';
import { quadsDraw } from './quads/quads';
import { tilesDraw } from './tiles/tiles';

export type { Draw, DrawContext, DrawFrame, DrawKind, DrawnOrder, EncodeOptions, HostDepth, OutputDepth } from './draw';
export { CompositionRefused } from './draw';

/** Every draw strategy, in the order the GUI lists them. */
const DRAW_KINDS = [quadsDraw, tilesDraw] as const;

export type DrawName = (typeof DRAW_KINDS)[number]['info']['name'];
export type DrawInfo = DrawInfoOf<DrawName>;

export const DRAW_NAMES: readonly DrawName[] = DRAW_KINDS.map((k) => k.info.name);

export const DRAW_STRATEGIES: readonly DrawInfo[] = DRAW_KINDS.map((k) => k.info);

/** The draw strategy called `name`; throws, naming the known ones, if there is none. */
export function drawKindByName(name: string): DrawKind<DrawName> {
  const d = DRAW_KINDS.find((x) => x.info.name === name);
  if (!d) throw new Error(`unknown draw strategy '${name}' (known: ${DRAW_NAMES.join(', ')})`);
  return d;
}

/** The description of the draw strategy called `name`; throws, naming the known ones, if there is none. */
export function drawByName(name: string): DrawInfo {
  return drawKindByName(name).info;
}

/**
 * Why draw `kind` cannot take sort strategy `sort` (one line), or null when it can:
 * a draw that sorts keys of its own (the tiles draw's (tile, depth) pairs) needs the
 * strategy's GPU sorter, which a host sort does not have. The one place this rule lives.
 */
export function refusalOf(kind: DrawKind, sort: SortStrategy): string | null {
  if (kind.info.needsGpuSorter && !sort.sorter) {
    return `draw '${kind.info.name}' sorts ${kind.gpuSorts ?? 'keys of its own'} on the GPU: sort strategy '${sort.info.name}' sorts on the host`;
  }
  return null;
}

/**
 * Why draw `draw` cannot take sort strategy `strategy` (one line), or null when it
 * can (refusalOf, by name).
 * @throws for an unknown draw or sort strategy name
 */
export function drawRefusal(draw: string, strategy: string): string | null {
  return refusalOf(drawKindByName(draw), strategyByName(strategy));
}

/** Whether draw `draw` can use sort strategy `strategy` (drawRefusal finds nothing against it). */
export function drawServedBy(draw: string, strategy: string): boolean {
  return drawRefusal(draw, strategy) === null;
}

/** The stages of the table that `draw` does not time (unwritten in its frames). */
export function otherStages(draw: DrawInfoOf): StageName[] {
  const mine = new Set<StageName>(draw.stages);
  return STAGE_NAMES.filter((s) => !mine.has(s));
}

/** A frame's stage times restricted to `draw`'s own stages. */
export function ownStages<T extends Partial<Record<StageName, number>>>(sample: T, draw: DrawInfoOf): T {
  const out = { ...sample };
  for (const s of otherStages(draw)) delete out[s];
  return out;
}
