import { describe, expect, it } from 'vitest';
import { cpuDepthKey, CpuDepthSort } from './cpu-depth-sort';
import { depthKey } from '../../test/reference/forward-model';

describe('cpuDepthKey (CPU mirror of the WGSL depthKey)', () => {
  it('32 bits: the forward model key; behind the eye sorts last', () => {
    for (const d of [0.01, 1, 3.5, 1e4]) expect(cpuDepthKey(d, 32, 0.1, 100)).toBe(depthKey(d));
    expect(cpuDepthKey(-1, 32, 0.1, 100)).toBe(0xffffffff);
  });

  it('fewer bits: depth quantised between near and far, farther = smaller key, clamped', () => {
    // 16 bits over [1, 11]: d = 6 is halfway -> 65535 - round(0.5 * 65535) = 32767.
    expect(cpuDepthKey(6, 16, 1, 11)).toBe(32767);
    expect(cpuDepthKey(1, 16, 1, 11)).toBe(65535);
    expect(cpuDepthKey(11, 16, 1, 11)).toBe(0);
    expect(cpuDepthKey(50, 16, 1, 11)).toBe(0);
    expect(cpuDepthKey(0.5, 16, 1, 11)).toBe(65535);
    expect(cpuDepthKey(2, 16, 1, 11)).toBeGreaterThan(cpuDepthKey(3, 16, 1, 11));
  });
});

describe('CpuDepthSort', () => {
  it('sorts back to front for the requested view and hands the order over once', async () => {
    // Identity view: depth = -z. Points at z = -1, -5, -3 -> depths 1, 5, 3 -> far first: 1, 2, 0.
    const positions = Float32Array.of(0, 0, -1, 0, 0, -5, 0, 0, -3);
    const view = Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    const sort = new CpuDepthSort(positions, 3);
    expect(sort.take()).toBeNull();
    expect(sort.request(view, 32, 0.1, 10)).toBe(true);
    await sort.settle();
    expect(Array.from(sort.take()!)).toEqual([1, 2, 0]);
    expect(sort.take()).toBeNull();
    sort.destroy();
  });
});
