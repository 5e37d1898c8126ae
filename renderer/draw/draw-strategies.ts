/**
 * Draw strategies: how a frame's sorted splats become pixels.
 * - `quads`: instanced quads drawn back to front by the graphics pipeline, in the
 *   order of the sort strategy (project pass + sort, or the CPU worker).
 * - `tiles`: the compute tile rasteriser (tiles/tile-rasterizer.ts): (tile, depth)
 *   pairs sorted by the sort strategy's GPU sorter, blended per 16x16 tile front
 *   to back. Needs a GPU sort strategy.
 */
import { STAGE_NAMES, type StageName } from '../stage/frame-stages';

export const DRAW_NAMES = ['quads', 'tiles'] as const;
export type DrawName = (typeof DRAW_NAMES)[number];

export interface DrawInfo {
  name: DrawName;
  description: string;
  /** Sorts keys of its own on the GPU: a host sort strategy cannot serve it. */
  needsGpuSorter: boolean;
  /** The stages of frame-stages.ts it times (its frames leave the others unwritten). */
  stages: readonly StageName[];
}

export const DRAW_STRATEGIES: readonly DrawInfo[] = [
  { name: 'quads', description: 'instanced quads, back to front, graphics pipeline', needsGpuSorter: false, stages: ['project', 'sort', 'draw'] },
  { name: 'tiles', description: 'compute tile rasteriser: (tile, depth) pairs sorted on the GPU, blended per 16x16 tile front to back', needsGpuSorter: true, stages: ['project', 'sort', 'blend'] },
];

/** The stages of the table that `draw` does not time (unwritten in its frames). */
export function otherStages(draw: DrawInfo): StageName[] {
  const mine = new Set<StageName>(draw.stages);
  return STAGE_NAMES.filter((s) => !mine.has(s));
}

/** A frame's stage times restricted to `draw`'s own stages. */
export function ownStages<T extends Partial<Record<StageName, number>>>(sample: T, draw: DrawInfo): T {
  const out = { ...sample };
  for (const s of otherStages(draw)) delete out[s];
  return out;
}

/** The draw strategy called `name`; throws, naming the known ones, if there is none. */
export function drawByName(name: string): DrawInfo {
  const d = DRAW_STRATEGIES.find((x) => x.name === name);
  if (!d) throw new Error(`unknown draw strategy '${name}' (known: ${DRAW_NAMES.join(', ')})`);
  return d;
}
