/**
 * The words of a sort or draw choice the viewer refused: what to change to have it
 * and what still runs (the viewer's `message` event says them). Pure.
 */

/** What the page runs, for {@link refusedChoiceLine}. */
export interface RunningChoice {
  sort: string;
  draw: string;
  /** Sort strategies that sort on the GPU (the tiles draw needs one). */
  gpuSorts: readonly string[];
}

/**
 * The line for a sort or draw choice the renderer refused, naming what to change to
 * have it and what runs meanwhile. Today's one refusal: the tiles draw sorts its
 * (tile, depth) pairs on the GPU, so it cannot run with a host sort (`cpu`):
 *   sort 'cpu' chosen while drawing tiles: "sort 'cpu' sorts on the host and draw 'tiles' needs a GPU sort: choose draw 'quads' first; still sorting with bitonic"
 *   draw 'tiles' chosen while sorting with cpu: "draw 'tiles' needs a GPU sort (radix4, radix16, …) and sort 'cpu' sorts on the host: choose one of them first; still drawing quads"
 * Any other refusal: the renderer's own words, then what still runs.
 */
export function refusedChoiceLine(what: 'sort' | 'draw', asked: string, running: RunningChoice, reason: string): string {
  const gpu = running.gpuSorts;
  const list = gpu.length > 4 ? `${gpu.slice(0, 3).join(', ')}, …` : gpu.join(', ');
  if (what === 'sort' && running.draw === 'tiles' && !gpu.includes(asked)) {
    return `sort '${asked}' sorts on the host and draw 'tiles' needs a GPU sort: choose draw 'quads' first; still sorting with ${running.sort}`;
  }
  if (what === 'draw' && asked === 'tiles' && !gpu.includes(running.sort)) {
    return `draw 'tiles' needs a GPU sort${list ? ` (${list})` : ''} and sort '${running.sort}' sorts on the host: choose ${gpu.length === 1 ? 'it' : 'one of them'} first; still drawing ${running.draw}`;
  }
  const still = what === 'sort' ? `still sorting with ${running.sort}` : `still drawing ${running.draw}`;
  return `${reason.replace(/\.$/, '')}; ${still}`;
}
