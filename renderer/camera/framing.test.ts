import { describe, expect, it } from 'vitest';
import { boundsCenter, boundsRadius, cross, dot, fitDistance, fitPose, length, normalize, robustBounds, sub, type Vec3 } from './camera';
import { CameraController } from './controller';
import { bodyRadius, broadSideForward, denseBounds, denseBoundsSteps, firstViewPose, selectKth, splatReach } from './framing';

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

describe('the first view frames the whole body (firstViewPose): blobs, shells, planes, large splats', () => {
  const up: Vec3 = [0, -1, 0];
  const forward: Vec3 = [0, 0, 1];
  const aspect = 16 / 9;

  interface Synthetic {
    positions: Float32Array;
    scales: Float32Array;
    opacities: Float32Array;
    /** The first `body` splats are the body; the rest are floaters. */
    body: number;
  }

  function cloud(body: Vec3[], floaters: Vec3[], scale: (i: number) => number, opacity = 0.9): Synthetic {
    const all = [...body, ...floaters];
    const positions = new Float32Array(all.flat());
    const scales = new Float32Array(all.length * 3).map((_, k) => scale(Math.floor(k / 3)));
    return { positions, scales, opacities: new Float32Array(all.length).fill(opacity), body: body.length };
  }

  /** Share of the body's splats (each a sphere of its visible reach) wholly inside the view, and the eye inside any of them. */
  function seen(c: Synthetic, fovyDeg: number) {
    const pose = firstViewPose(c, up, forward, fovyDeg, aspect);
    const f = normalize(sub(pose.target, pose.eye));
    const r = normalize(cross(f, pose.up));
    const u = cross(r, f);
    const ty = Math.tan((fovyDeg * Math.PI) / 360);
    const tx = ty * aspect;
    let inside = 0;
    let eyeInBody = 0;
    for (let i = 0; i < c.body; i++) {
      const p: Vec3 = [c.positions[3 * i], c.positions[3 * i + 1], c.positions[3 * i + 2]];
      const e = splatReach(c.scales[3 * i], c.opacities[i]);
      const d = sub(p, pose.eye);
      if (length(d) < e) eyeInBody++;
      const z = dot(d, f);
      // The sphere of radius e lies within the four side planes (and in front of the eye).
      const inX = Math.abs(dot(d, r)) * Math.cos(Math.atan(tx)) + e <= z * Math.sin(Math.atan(tx));
      const inY = Math.abs(dot(d, u)) * Math.cos(Math.atan(ty)) + e <= z * Math.sin(Math.atan(ty));
      if (z > e && inX && inY) inside++;
    }
    return { pose, share: inside / c.body, eyeInBody, distance: length(sub(pose.target, pose.eye)) };
  }

  const r = rng(11);
  const ball = (n: number, radius: number, at: Vec3 = [0, 0, 0]): Vec3[] =>
    Array.from({ length: n }, () => {
      for (;;) {
        const v: Vec3 = [2 * r() - 1, 2 * r() - 1, 2 * r() - 1];
        if (length(v) <= 1) return [at[0] + radius * v[0], at[1] + radius * v[1], at[2] + radius * v[2]];
      }
    });
  const farOutliers = (n: number): Vec3[] => Array.from({ length: n }, () => [-400 + 800 * r(), -400 + 800 * r(), -400 + 800 * r()]);

  it('a blob of few, large splats (fruit_drops-like: 4,721 splats as wide as the blob): the camera starts outside it, seeing all of it', () => {
    // Centres in a unit ball, each splat 1.2 wide: the blob shows out to ~3.4, over three times its centres' reach.
    const c = cloud(ball(4721, 1), [], () => 1.2);
    const { share, eyeInBody, distance } = seen(c, 60);
    expect(eyeInBody).toBe(0);
    expect(share).toBeGreaterThan(0.99);
    expect(distance).toBeLessThan(16); // and not far off: the blob fills the view
    // Framing the centres alone (the old first view) put the eye within reach of many splats.
    const old = fitPose(denseBounds(c.positions), up, 60, aspect, forward);
    const within = Array.from({ length: c.body }, (_, i) => length(sub([c.positions[3 * i], c.positions[3 * i + 1], c.positions[3 * i + 2]], old.eye)) < splatReach(1.2, 0.9));
    expect(within.some(Boolean)).toBe(true);
  });

  it('a blob with 10% far outliers: the whole blob, the outliers ignored', () => {
    const c = cloud(ball(9000, 2, [3, 1, -2]), farOutliers(1000), () => 0.1);
    const { share, eyeInBody, distance, pose } = seen(c, 60);
    expect(share).toBeGreaterThan(0.99);
    expect(eyeInBody).toBe(0);
    expect(distance).toBeLessThan(12); // ~5.3 for a ball of 2.2; miles away would be hundreds
    expect(length(sub(pose.target, [3, 1, -2]))).toBeLessThan(0.3);
  });

  it('a dense core inside a wide sparse body (70% in a ball of 0.3, 30% in one of 4): the whole body, not the core', () => {
    const c = cloud([...ball(7000, 0.3), ...ball(3000, 4)], farOutliers(300), () => 0.02);
    const { share, eyeInBody, distance } = seen(c, 60);
    expect(eyeInBody).toBe(0);
    expect(share).toBeGreaterThan(0.98);
    expect(distance).toBeLessThan(30);
  });

  it('a hollow shell (a sphere of radius 5): the whole shell, from outside', () => {
    const shell: Vec3[] = Array.from({ length: 8000 }, () => {
      const [x, y, z] = ball(1, 1)[0]!;
      const l = Math.hypot(x, y, z) || 1;
      return [(5 * x) / l, (5 * y) / l, (5 * z) / l];
    });
    const c = cloud(shell, farOutliers(200), () => 0.05);
    const { share, distance } = seen(c, 60);
    expect(share).toBeGreaterThan(0.99);
    expect(distance).toBeGreaterThan(5);
    expect(distance).toBeLessThan(25);
  });

  it('a flat plane (a 20 x 20 floor, 1 thick) with outliers: the whole floor', () => {
    const plane: Vec3[] = Array.from({ length: 10_000 }, () => [-10 + 20 * r(), r() - 0.5, -10 + 20 * r()]);
    const c = cloud(plane, farOutliers(300), () => 0.1);
    const { share, distance } = seen(c, 60);
    expect(share).toBeGreaterThan(0.98);
    expect(distance).toBeLessThan(40);
  });

  it('splatReach: 2.15 sigma for an opaque splat, less for fainter ones, nothing for one under alpha 0.1', () => {
    expect(splatReach(1, 1)).toBeCloseTo(Math.sqrt(2 * Math.log(10)), 9);
    expect(splatReach(2, 1)).toBeCloseTo(2 * Math.sqrt(2 * Math.log(10)), 9);
    expect(splatReach(1, 0.5)).toBeLessThan(splatReach(1, 1));
    expect(splatReach(1, 0.1)).toBe(0);
    expect(splatReach(NaN, 1)).toBe(0);
    expect(splatReach(1, NaN)).toBe(0);
  });

  it('bodyRadius: reach medians for a compact body, farther while the shells beyond still hold points', () => {
    const n = 1000;
    // 900 points at distance 1, 100 spread over 5..40 (10 a sqrt(2) shell and more): the body goes on.
    const dist = new Float64Array(n).fill(1);
    for (let i = 0; i < 100; i++) dist[900 + i] = 5 * 2 ** ((i / 100) * 3);
    expect(bodyRadius(dist, n, 1, 5, 0.005, 16)).toBe(16); // capped at maxGrowth
    // The same with only a single far point: floaters, the radius stays at reach.
    const lone = new Float64Array(n).fill(1);
    lone[0] = 30;
    expect(bodyRadius(lone, n, 1, 5, 0.005, 16)).toBe(5);
  });
});
