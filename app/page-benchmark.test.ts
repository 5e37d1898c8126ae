import { describe, expect, it } from 'vitest';
import { benchmarkPlan } from './page-benchmark';

describe("the page's benchmark plan", () => {
  it('flies every selected strategy under each ticked draw it can serve; none ticked: the draw in use', () => {
    const all = ['radix16', 'cpu', 'onesweep'];
    expect(benchmarkPlan(all, [], 'quads')).toEqual({ flights: [{ draw: 'quads', strategies: all }], skipped: [] });
    // The tiles draw sorts on the GPU: the host's cpu sort cannot serve it.
    expect(benchmarkPlan(all, ['quads', 'tiles'], 'tiles').flights).toEqual([
      { draw: 'quads', strategies: all },
      { draw: 'tiles', strategies: ['radix16', 'onesweep'] },
    ]);
    expect(benchmarkPlan(['cpu'], ['quads', 'tiles'], 'quads')).toEqual({ flights: [{ draw: 'quads', strategies: ['cpu'] }], skipped: ['tiles takes none of them'] });
    expect(benchmarkPlan([], [], 'tiles')).toEqual({ flights: [], skipped: ['tiles takes none of them'] });
  });
});
