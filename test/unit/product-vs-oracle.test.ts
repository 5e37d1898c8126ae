/**
 * The product's own CPU-side maths against the test oracle
 * (test/reference/forward-model.ts), which shares no code with it: the SH
 * constants and basis (scenes/sh.ts and the WGSL prelude made from them), the
 * covariance packed on upload and the CPU strategy's depth key.
 */
import { describe, expect, it } from 'vitest';
import { SH_C0, SH_C1, SH_C2, SH_C3, shBasisInto } from '../../scenes/sh';
import { SH_WGSL } from '../../renderer/project/sh-wgsl';
import { packCovariance } from '../../renderer/gpu-scene/covariance';
import { GpuScene } from '../../renderer/gpu-scene/gpu-scene';
import { cpuDepthKey } from '../../renderer/order/cpu-depth-sort';
import { generateSynthetic } from '../../scenes/generate';
import * as oracle from '../reference/forward-model';

/** A small seeded PRNG (mulberry32): the same random splats every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function expectRel(actual: number, expected: number, rel: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(expected)));
}

describe('SH: scenes/sh.ts against the oracle', () => {
  it('has the same constants', () => {
    expect(SH_C0).toBe(oracle.SH_C0);
    expect(SH_C1).toBe(oracle.SH_C1);
    expect([...SH_C2]).toEqual([...oracle.SH_C2]);
    expect([...SH_C3]).toEqual([...oracle.SH_C3]);
  });

  it('has the same basis for every degree on random unit directions', () => {
    const r = rng(7);
    const out = new Float64Array(16);
    for (let t = 0; t < 200; t++) {
      const v = [r() * 2 - 1, r() * 2 - 1, r() * 2 - 1];
      const len = Math.hypot(v[0], v[1], v[2]) || 1;
      const d = [v[0] / len, v[1] / len, v[2] / len];
      for (let degree = 0; degree <= 3; degree++) {
        out.fill(NaN);
        shBasisInto(degree, d[0], d[1], d[2], out);
        const want = oracle.shBasis(degree, d);
        for (let k = 0; k < want.length; k++) expectRel(out[k], want[k], 1e-14);
        for (let k = want.length; k < 16; k++) expect(out[k]).toBeNaN(); // nothing written past the degree
      }
    }
  });

  it('rejects a degree outside 0..3', () => {
    expect(() => shBasisInto(4, 0, 0, 1, new Float64Array(25))).toThrow(RangeError);
  });

  it('writes the same numbers into the WGSL prelude', () => {
    const numbers = (name: string) => {
      const line = SH_WGSL.split('\n').find((l) => l.startsWith(`const ${name}`));
      expect(line, name).toBeDefined();
      const body = line!.slice(line!.indexOf('=') + 1).replace(/array<f32, \d+>/, '');
      return [...body.matchAll(/-?\d+(\.\d+)?(e-?\d+)?/g)].map((m) => Number(m[0]));
    };
    expect(numbers('SH_C0')).toEqual([oracle.SH_C0]);
    expect(numbers('SH_C1')).toEqual([oracle.SH_C1]);
    expect(numbers('SH_C2')).toEqual([...oracle.SH_C2]);
    expect(numbers('SH_C3')).toEqual([...oracle.SH_C3]);
  });
});

describe('covariance: the product packing against the oracle', () => {
  it('matches covariance3DInto on random splats (unnormalised and zero quaternions too)', () => {
    const r = rng(11);
    const mine = new Float64Array(6);
    const want = new Float64Array(6);
    for (let t = 0; t < 500; t++) {
      const s = [0.001 + r() * 2, 0.001 + r() * 2, 0.001 + r() * 2];
      const q = t % 50 === 0 ? [0, 0, 0, 0] : [r() * 4 - 2, r() * 4 - 2, r() * 4 - 2, r() * 4 - 2];
      packCovariance(mine, 0, s[0], s[1], s[2], q[0], q[1], q[2], q[3]);
      oracle.covariance3DInto(want, 0, s[0], s[1], s[2], q[0], q[1], q[2], q[3]);
      for (let k = 0; k < 6; k++) expectRel(mine[k], want[k], 1e-12);
    }
  });

  it('GpuScene.pack uploads the oracle covariance and the largest axis', () => {
    const cloud = generateSynthetic(300);
    const { covs } = GpuScene.pack(cloud, 1);
    const { scales: s, rotations: q } = cloud;
    for (let i = 0; i < cloud.count; i++) {
      const want = oracle.covariance3D([s[3 * i], s[3 * i + 1], s[3 * i + 2]], [q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]]);
      const at = (k: number) => covs[8 * i + k];
      const got = [at(0), at(1), at(2), at(3), at(4), at(5)];
      for (let k = 0; k < 6; k++) expectRel(got[k], want[k], 1e-6);
      expect(at(6)).toBe(Math.fround(Math.max(s[3 * i], s[3 * i + 1], s[3 * i + 2])));
      expect(at(7)).toBe(0);
    }
  });
});

describe('depth key: the CPU strategy against the oracle', () => {
  it('matches depthKey for random positive depths with 32 key bits', () => {
    const r = rng(3);
    for (let t = 0; t < 2000; t++) {
      const d = 10 ** (r() * 10 - 4); // 1e-4 .. 1e6
      expect(cpuDepthKey(d, 32, 0.1, 100)).toBe(oracle.depthKey(d));
    }
  });

  it('orders random depths back to front like the oracle', () => {
    const r = rng(5);
    for (let t = 0; t < 1000; t++) {
      const a = r() * 100, b = r() * 100;
      if (Math.fround(a) === Math.fround(b)) continue;
      expect(Math.sign(cpuDepthKey(a, 32, 0.1, 100) - cpuDepthKey(b, 32, 0.1, 100))).toBe(
        Math.sign(oracle.depthKey(a) - oracle.depthKey(b)),
      );
    }
  });
});
