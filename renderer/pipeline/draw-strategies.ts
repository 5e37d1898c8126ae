/**
 * Draw strategies: how a frame's sorted splats become pixels.
 * - `quads`: instanced quads drawn back to front by the graphics pipeline, in the
 *   order of the sort strategy (project pass + sort, or the CPU worker).
 * - `tiles`: the compute tile rasteriser (tiles/tile-rasterizer.ts): (tile, depth)
 *   pairs sorted by the sort strategy's GPU sorter, blended per 16x16 tile front
 *   to back. Needs a GPU sort strategy.
 */
export const DRAW_NAMES = ['quads', 'tiles'] as const;
export type DrawName = (typeof DRAW_NAMES)[number];

export interface DrawInfo {
  name: DrawName;
  description: string;
  /** Sorts keys of its own on the GPU: a host sort strategy cannot serve it. */
  needsGpuSorter: boolean;
}

export const DRAW_STRATEGIES: readonly DrawInfo[] = [
  { name: 'quads', description: 'instanced quads, back to front, graphics pipeline', needsGpuSorter: false },
  { name: 'tiles', description: 'compute tile rasteriser: (tile, depth) pairs sorted on the GPU, blended per 16x16 tile front to back', needsGpuSorter: true },
];

/** The draw strategy called `name`; throws, naming the known ones, if there is none. */
export function drawByName(name: string): DrawInfo {
  const d = DRAW_STRATEGIES.find((x) => x.name === name);
  if (!d) throw new Error(`unknown draw strategy '${name}' (known: ${DRAW_NAMES.join(', ')})`);
  return d;
}
