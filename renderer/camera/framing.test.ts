import { describe, expect, it } from 'vitest';
import { boundsCenter, boundsRadius, fitDistance, length, robustBounds, sub, type Vec3 } from './camera';
import { CameraController } from './controller';
import { broadSideForward, denseBounds, denseBoundsSteps, selectKth } from './framing';

/** Deterministic pseudo-random numbers (mulberry32). */
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

function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/** A body of `n` points (Gaussian, sigma 1 about `centre`) plus `floaters` spread over [-410, 1004]^3. */
function sceneWithFloaters(n: number, floaters: number, centre: Vec3, seed = 1): Float32Array {
  const r = rng(seed);
  const p = new Float32Array((n + floaters) * 3);
  for (let i = 0; i < n; i++) for (let a = 0; a < 3; a++) p[3 * i + a] = centre[a] + gauss(r);
  for (let i = n; i < n + floaters; i++) for (let a = 0; a < 3; a++) p[3 * i + a] = -410 + 1414 * r();
  // Interleave the floaters among the body, as a trained file would.
  for (let i = p.length / 3 - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    for (let a = 0; a < 3; a++) [p[3 * i + a], p[3 * j + a]] = [p[3 * j + a], p[3 * i + a]];
  }
  return p;
}

describe('denseBounds: framing ignores floaters', () => {
  const centre: Vec3 = [5, -2, 10];

  for (const share of [0.01, 0.05, 0.15, 0.3]) {
    it(`frames the body with ${share * 100}% floaters spread over [-410, 1004]`, () => {
      const n = 40_000;
      const p = sceneWithFloaters(n, Math.round((n * share) / (1 - share)), centre);
      const b = denseBounds(p);
      const c = boundsCenter(b);
      expect(length(sub(c, centre))).toBeLessThan(0.3);
      for (let a = 0; a < 3; a++) {
        // Covers the body (+-2 sigma) and not much more (a 3-sigma ball reaches 3.5 at most here).
        expect(b.min[a]).toBeLessThan(centre[a] - 2);
        expect(b.max[a]).toBeGreaterThan(centre[a] + 2);
        expect(b.min[a]).toBeGreaterThan(centre[a] - 4);
        expect(b.max[a]).toBeLessThan(centre[a] + 4);
      }
    });
  }

  it('where per-axis percentiles fail (15% floaters), the dense bounds hold', () => {
    const p = sceneWithFloaters(40_000, 7_000, centre);
    expect(boundsRadius(robustBounds(p))).toBeGreaterThan(100); // frames mostly empty space
    expect(boundsRadius(denseBounds(p))).toBeLessThan(6);
  });

  it('keeps the whole of a scene without floaters (a uniform box, a long thin strip)', () => {
    const r = rng(7);
    const box = new Float32Array(30_000 * 3).map(() => -1 + 2 * r());
    const b = denseBounds(box);
    for (let a = 0; a < 3; a++) {
      expect(b.min[a]).toBeLessThan(-0.95);
      expect(b.max[a]).toBeGreaterThan(0.95);
    }
    const strip = new Float32Array(30_000 * 3);
    for (let i = 0; i < 30_000; i++) {
      strip[3 * i] = -50 + 100 * r();
      strip[3 * i + 1] = r();
      strip[3 * i + 2] = r();
    }
    const s = denseBounds(strip);
    expect(s.min[0]).toBeLessThan(-48);
    expect(s.max[0]).toBeGreaterThan(48);
  });

  it('skips non-finite points and handles empty input', () => {
    expect(denseBounds(new Float32Array(0))).toEqual({ min: [0, 0, 0], max: [0, 0, 0] });
    const p = new Float32Array([NaN, 0, 0, 1, 1, 1, Infinity, 2, 2]);
    expect(denseBounds(p)).toEqual({ min: [1, 1, 1], max: [1, 1, 1] });
  });

  it('the first view and F both frame the dense body, not the floaters', () => {
    const p = sceneWithFloaters(40_000, 7_000, centre);
    const bounds = denseBounds(p);
    const ctl = new CameraController({ eye: [0, 0, -5], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 }, { aspect: 16 / 9 });
    ctl.frame(bounds, { keepDirection: false, setHome: true, snap: true });
    const first = ctl.pose;
    const fitted = fitDistance(boundsRadius(bounds), 60, 16 / 9);
    expect(length(sub(first.target, centre))).toBeLessThan(0.3);
    expect(length(sub(first.eye, first.target))).toBeCloseTo(fitted, 6);
    expect(fitted).toBeLessThan(15); // close to a body of radius ~3.5, not 1,000 away
    // Wander off, then F (frame() with no argument) comes back to the same framing.
    ctl.orbit(300, 120);
    ctl.pan(200, -50, 720);
    ctl.zoom(800);
    ctl.frame();
    ctl.snap();
    expect(length(sub(ctl.pose.target, first.target))).toBeLessThan(1e-9);
    expect(length(sub(ctl.pose.eye, ctl.pose.target))).toBeCloseTo(fitted, 6);
  });
});

describe('broadSideForward: a side that shows the body', () => {
  const up: Vec3 = [0, -1, 0];
  const forward: Vec3 = [0, 0, 1]; // COLMAP default for -y up
  const strip = (along: 0 | 2) => {
    const r = rng(3);
    const p = new Float32Array(20_000 * 3);
    for (let i = 0; i < 20_000; i++) {
      p[3 * i + along] = -50 + 100 * r();
      p[3 * i + (2 - along)] = -1 + 2 * r();
      p[3 * i + 1] = r();
    }
    return p;
  };

  it('a long strip lying along the view is seen from its side, not end-on', () => {
    const p = strip(2); // long in z, the default view direction
    const f = broadSideForward(p, denseBounds(p), up, forward);
    expect(Math.abs(f[0])).toBeCloseTo(1, 2);
    expect(Math.abs(f[2])).toBeLessThan(0.02);
    expect(f[1]).toBeCloseTo(0, 9);
  });

  it('a strip across the view, or a round body, keeps the default direction', () => {
    const across = strip(0);
    expect(broadSideForward(across, denseBounds(across), up, forward)).toEqual(forward);
    const blob = sceneWithFloaters(20_000, 0, [0, 0, 0]);
    expect(broadSideForward(blob, denseBounds(blob), up, forward)).toEqual(forward);
  });

  it('of the two senses of the thin axis, takes the one closer to the default', () => {
    // A diagonal strip: thin axis at 45 degrees; the answer leans towards +z, not -z.
    const r = rng(5);
    const p = new Float32Array(20_000 * 3);
    for (let i = 0; i < 20_000; i++) {
      const s = -50 + 100 * r();
      const w = -1 + 2 * r();
      p[3 * i] = (s + w) / Math.SQRT2;
      p[3 * i + 2] = (s - w) / Math.SQRT2;
    }
    const f = broadSideForward(p, denseBounds(p), up, forward);
    expect(f[2]).toBeGreaterThan(0.6);
    expect(Math.abs(Math.abs(f[0]) - Math.SQRT1_2)).toBeLessThan(0.05);
  });
});

describe('selectKth (the medians and percentiles of denseBounds)', () => {
  it('gives the k-th smallest, as a sort would, with ties, sorted and reversed input', () => {
    const r = rng(7);
    const inputs = [
      Float64Array.from({ length: 1001 }, () => Math.floor(r() * 20)), // many ties
      Float64Array.from({ length: 500 }, () => gauss(r)),
      Float64Array.from({ length: 300 }, (_, i) => i),
      Float64Array.from({ length: 300 }, (_, i) => -i),
      new Float64Array(7).fill(3),
      Float64Array.of(2),
    ];
    for (const input of inputs) {
      const sorted = input.slice().sort();
      for (const k of [0, 1, input.length >> 1, input.length - 2, input.length - 1].filter((k) => k >= 0 && k < input.length)) {
        const a = input.slice();
        expect(selectKth(a, k, 0, a.length)).toBe(sorted[k]);
        // Partitioned about k; the same values, reordered.
        for (let i = 0; i < k; i++) expect(a[i]).toBeLessThanOrEqual(a[k]);
        for (let i = k + 1; i < a.length; i++) expect(a[i]).toBeGreaterThanOrEqual(a[k]);
        expect(a.slice().sort()).toEqual(sorted);
      }
    }
  });

  it('selects within a range (the upper percentile after the lower one)', () => {
    const r = rng(9);
    const a = Float64Array.from({ length: 2000 }, () => gauss(r));
    const sorted = a.slice().sort();
    expect(selectKth(a, 10, 0, a.length)).toBe(sorted[10]);
    expect(selectKth(a, 1990, 10, a.length)).toBe(sorted[1990]);
  });
});

describe('denseBoundsSteps (denseBounds a pass at a time, for a page)', () => {
  it('pauses between its passes and returns what denseBounds returns', () => {
    const p = sceneWithFloaters(40_000, 7_000, [1, 2, 3]);
    const steps = denseBoundsSteps(p);
    let pauses = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) pauses++;
    expect(pauses).toBe(5);
    expect(r.value).toEqual(denseBounds(p));
  });
});
