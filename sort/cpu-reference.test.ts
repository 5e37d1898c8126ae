import { describe, expect, it } from 'vitest';
import { checkSortedPairs, cpuSortPairs, keyMask } from './cpu-reference';

describe('cpu reference sort', () => {
  it('sorts ascending by the low keyBits bits, stable, keeping the high bits', () => {
    const keys = Uint32Array.of(0x1_0003, 0x2_0001, 0x0_0003, 0xf_0000, 0x3_0001);
    const values = Uint32Array.of(0, 1, 2, 3, 4);
    const out = cpuSortPairs(keys, values, 16);
    expect([...out.keys]).toEqual([0xf_0000, 0x2_0001, 0x3_0001, 0x1_0003, 0x0_0003]);
    expect([...out.values]).toEqual([3, 1, 4, 0, 2]);
  });

  it('matches a comparison sort on full 32-bit keys', () => {
    const keys = Uint32Array.from({ length: 1000 }, (_, i) => (Math.imul(i, 2654435761) >>> 0) % 5000 * 858_993);
    const values = Uint32Array.from(keys, (_, i) => i);
    const out = cpuSortPairs(keys, values);
    const ref = [...keys].map((k, i) => [k, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect([...out.keys]).toEqual(ref.map((r) => r[0]));
    expect([...out.values]).toEqual(ref.map((r) => r[1]));
  });

  it('masks', () => {
    expect(keyMask(32)).toBe(0xffffffff);
    expect(keyMask(31)).toBe(0x7fffffff);
    expect(keyMask(1)).toBe(1);
  });

  it('the checker names the first wrong pair', () => {
    const keys = Uint32Array.of(2, 1, 1);
    const values = Uint32Array.of(0, 1, 2);
    expect(checkSortedPairs(keys, values, Uint32Array.of(1, 1, 2), Uint32Array.of(1, 2, 0)).ok).toBe(true);
    const bad = checkSortedPairs(keys, values, Uint32Array.of(1, 1, 2), Uint32Array.of(2, 1, 0));
    expect(bad.ok).toBe(false);
    expect(bad.firstMismatch).toBe(0);
  });
});
