import { describe, expect, it } from 'vitest';
import { refusedChoiceLine } from './refused-choice';

describe('refusedChoiceLine: a refused choice says what to change', () => {
  const gpuSorts = ['radix4', 'radix16', 'onesweep', 'bitonic'];

  it("sort 'cpu' while drawing tiles: choose quads first; what still sorts", () => {
    expect(refusedChoiceLine('sort', 'cpu', { sort: 'bitonic', draw: 'tiles', gpuSorts }, "draw 'tiles' sorts its (tile, depth) pairs on the GPU: sort strategy 'cpu' sorts on the host")).toBe(
      "sort 'cpu' sorts on the host and draw 'tiles' needs a GPU sort: choose draw 'quads' first; still sorting with bitonic",
    );
  });

  it("draw 'tiles' while sorting with cpu: choose a GPU sort first, naming them; what still draws", () => {
    expect(refusedChoiceLine('draw', 'tiles', { sort: 'cpu', draw: 'quads', gpuSorts }, 'x')).toBe(
      "draw 'tiles' needs a GPU sort (radix4, radix16, onesweep, bitonic) and sort 'cpu' sorts on the host: choose one of them first; still drawing quads",
    );
    expect(refusedChoiceLine('draw', 'tiles', { sort: 'cpu', draw: 'quads', gpuSorts: ['a', 'b', 'c', 'd', 'e'] }, 'x')).toMatch(/\(a, b, c, …\)/);
  });

  it('another refusal: the reason, then what still runs', () => {
    expect(refusedChoiceLine('draw', 'tiles', { sort: 'radix4', draw: 'quads', gpuSorts }, 'scene.ply: the pair buffer would exceed the binding limit.')).toBe(
      'scene.ply: the pair buffer would exceed the binding limit; still drawing quads',
    );
  });
});
