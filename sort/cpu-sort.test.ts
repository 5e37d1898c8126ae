import { describe, expect, it } from 'vitest';
import { cpuSortPairs, seededRandom } from './cpu-reference';
import { CpuRadixSorter, InlineCpuSort } from './cpu-sort';

describe('CpuRadixSorter (the cpu strategy)', () => {
  const r = seededRandom(3);
  const shapes: Record<string, (n: number) => Uint32Array> = {
    random: (n) => Uint32Array.from({ length: n }, () => r()),
    equal: (n) => new Uint32Array(n).fill(0xdeadbeef),
    sorted: (n) => Uint32Array.from({ length: n }, (_, i) => i * 7),
    reversed: (n) => Uint32Array.from({ length: n }, (_, i) => (n - i) * 3),
    fewDistinct: (n) => Uint32Array.from({ length: n }, () => r() % 5),
  };
  for (const [name, make] of Object.entries(shapes)) {
    for (const bits of [32, 24, 16, 12]) {
      for (const n of [0, 1, 2, 1000, 70_001]) {
        it(`${name}, ${bits} bits, n=${n}: the stable order of the reference`, () => {
          const keys = make(n);
          const ids = Uint32Array.from({ length: n }, (_, i) => i);
          const want = cpuSortPairs(keys, ids, bits).values;
          const order = new CpuRadixSorter().sortToOrder(keys, n, bits);
          expect(Array.from(order.subarray(0, n))).toEqual(Array.from(want));
        });
      }
    }
  }

  it('reuses its buffers across calls and sorts a prefix when count < length', () => {
    const s = new CpuRadixSorter();
    const keys = Uint32Array.from([9, 3, 7, 1, 100, 0]);
    expect(Array.from(s.sortToOrder(keys, 4, 32))).toEqual([3, 1, 2, 0]);
    expect(Array.from(s.sortToOrder(keys, 6, 32))).toEqual([5, 3, 1, 2, 0, 4]);
    expect(() => s.sortToOrder(keys, 7, 32)).toThrow(RangeError);
  });

  it('InlineCpuSort resolves with the order', async () => {
    const order = await new InlineCpuSort().sort(Uint32Array.from([5, 4, 6]), 3, 32);
    expect(Array.from(order)).toEqual([1, 0, 2]);
  });
});
