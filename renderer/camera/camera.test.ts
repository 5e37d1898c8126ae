import { describe, expect, it } from 'vitest';
import { computeBounds, type Bounds } from '../../scenes/splat-cloud';
import {
  type CameraPose,
  type UpAxis,
  type Vec3,
  defaultForward,
  fitPose,
  formatCameraArg,
  nearFar,
  parseCameraArg,
  projectionMatrix,
  robustBounds,
  upVector,
  viewMatrix,
} from './camera';

/** Applies a column-major 4x4 matrix to a point (w = 1). */
function transform(m: ArrayLike<number>, p: readonly number[]): [number, number, number, number] {
  const out: [number, number, number, number] = [0, 0, 0, 0];
  for (let r = 0; r < 4; r++) out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
  return out;
}

function expectClose(a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-6): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i]), `index ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
}

/** A small deterministic PRNG so the tests never flake. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('viewMatrix', () => {
  it('matches a hand-computed look-at for the COLMAP default view (up -y, looking +z)', () => {
    // z = normalize(eye - target) = (0,0,-1); x = up x z = (1,0,0); y = z x x = (0,-1,0); t = -(x.e, y.e, z.e).
    const m = viewMatrix({ eye: [0, 0, -5], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 });
    expectClose(m, [1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, 0, 0, -5, 1]);
    // A point "above" in COLMAP terms (y negative) lands above the image centre, in front of the camera.
    const p = transform(m, [1, -1, 0]);
    expectClose(p, [1, 1, -5, 1]);
  });

  it('matches a hand-computed look-at from the side', () => {
    // eye on +x looking at the origin, up +y: x = (0,0,-1), y = (0,1,0), z = (1,0,0), t = (0,0,-3).
    const m = viewMatrix({ eye: [3, 0, 0], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 });
    expectClose(m, [0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, -3, 1]);
  });
});

describe('projectionMatrix', () => {
  it('maps view depth near..far to clip depth 0..1 (WebGPU)', () => {
    const near = 0.5;
    const far = 200;
    const m = projectionMatrix(60, 1.5, near, far);
    const a = transform(m, [0, 0, -near]);
    const b = transform(m, [0, 0, -far]);
    expect(a[2] / a[3]).toBeCloseTo(0, 9);
    expect(b[2] / b[3]).toBeCloseTo(1, 6);
    // The top edge of the vertical field of view maps to y/w = 1, the side edge to x/w = 1.
    const t = Math.tan(Math.PI / 6);
    const top = transform(m, [0, t * 10, -10]);
    expect(top[1] / top[3]).toBeCloseTo(1, 6);
    const side = transform(m, [t * 1.5 * 10, 0, -10]);
    expect(side[0] / side[3]).toBeCloseTo(1, 6);
  });
});

describe('parseCameraArg / formatCameraArg', () => {
  it('parses all keys in any order', () => {
    const pose = parseCameraArg('fovy=45 up=0,-1,0 target=1,2,3 eye=-1.5,2e1,.25');
    expect(pose).toEqual({ eye: [-1.5, 20, 0.25], target: [1, 2, 3], up: [0, -1, 0], fovyDeg: 45 });
  });

  it('defaults up to +y (file frame, no implicit flip) and fovy to 60', () => {
    expect(parseCameraArg('eye=0,0,5 target=0,0,0')).toEqual({ eye: [0, 0, 5], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 });
  });

  it('tolerates spaces around commas and equals signs', () => {
    expect(parseCameraArg('  eye = 1, 2, 3   target=0 ,0,0 ')).toMatchObject({ eye: [1, 2, 3], target: [0, 0, 0] });
  });

  it('round-trips exactly through formatCameraArg', () => {
    const pose: CameraPose = { eye: [0.1 + 0.2, -1e-7, 12345.678], target: [1 / 3, 2, -0], up: [0.01, -0.99, 0.1], fovyDeg: 47.5 };
    const text = formatCameraArg(pose);
    expect(text).toBe('eye=0.30000000000000004,-1e-7,12345.678 target=0.3333333333333333,2,0 up=0.01,-0.99,0.1 fovy=47.5');
    expect(parseCameraArg(text)).toEqual({ ...pose, target: [1 / 3, 2, 0] });
  });

  it('rounds for display when asked', () => {
    const text = formatCameraArg({ eye: [1 / 3, 0, 0], target: [0, 0, 1], up: [0, -1, 0], fovyDeg: 60 }, 4);
    expect(text).toBe('eye=0.3333,0,0 target=0,0,1 up=0,-1,0 fovy=60');
  });

  const bad: Array<[string, string]> = [
    ['', 'empty'],
    ['target=0,0,0', 'missing eye'],
    ['eye=0,0,1', 'missing target'],
    ['eye=1,2 target=0,0,0', '"eye=1,2"'],
    ['eye=1,2,x target=0,0,0', '"eye=1,2,x"'],
    ['eye=1,,2 target=0,0,0', '"eye=1,,2"'],
    ['eye=0x1,0,0 target=0,0,0', '"eye=0x1,0,0"'],
    ['eye=Infinity,0,0 target=0,0,0', '"eye=Infinity,0,0"'],
    ['eye=1,2,3 target=0,0,0 fovy=0', '"fovy=0"'],
    ['eye=1,2,3 target=0,0,0 fovy=180', '"fovy=180"'],
    ['eye=1,2,3 target=0,0,0 fovy=abc', '"fovy=abc"'],
    ['eye=1,2,3 target=0,0,0 zoom=2', '"zoom=2"'],
    ['eye=1,2,3 target=0,0,0 eye=1,1,1', '"eye=1,1,1"'],
    ['eye=1,2,3 target=0,0,0 fov', '"fov"'],
    ['eye=1,2,3 target=1,2,3', '"target=1,2,3"'],
    ['eye=0,5,0 target=0,0,0', 'up=0,1,0 (default)'],
    ['eye=0,0,5 target=0,0,0 up=0,0,0', '"up=0,0,0"'],
  ];
  it.each(bad)('rejects %j with a one-line message naming %s', (arg, named) => {
    let err: unknown;
    try {
      parseCameraArg(arg);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toContain(named);
    expect(msg).not.toContain('\n');
  });
});

describe('robustBounds', () => {
  it('ignores far-away floaters', () => {
    const rand = rng(1);
    const n = 200_000;
    const pos = new Float32Array(n * 3);
    for (let i = 0; i < n * 3; i++) pos[i] = rand();
    // 0.5% floaters very far away, spread through the array.
    for (let i = 0; i < n; i += 200) pos.set([1e6 * (rand() - 0.5), 1e6, -1e6], i * 3);
    const b = robustBounds(pos);
    for (let a = 0; a < 3; a++) {
      expect(b.min[a]).toBeGreaterThanOrEqual(0);
      expect(b.min[a]).toBeLessThan(0.05);
      expect(b.max[a]).toBeLessThanOrEqual(1);
      expect(b.max[a]).toBeGreaterThan(0.95);
    }
    const full = computeBounds(pos);
    expect(full.max[1]).toBe(1e6);
  });

  it('with lo = 0, hi = 1 and no subsampling gives the exact bounds', () => {
    const rand = rng(2);
    const pos = new Float32Array(3 * 1000).map(() => rand() * 10 - 5);
    expect(robustBounds(pos, 0, 1)).toEqual(computeBounds(pos));
  });

  it('skips non-finite points and handles empty input', () => {
    const pos = new Float32Array([NaN, 0, 0, 1, 2, 3, Infinity, 1, 1, -1, -2, -3]);
    expect(robustBounds(pos, 0, 1)).toEqual({ min: [-1, -2, -3], max: [1, 2, 3] });
    expect(robustBounds(new Float32Array(0))).toEqual({ min: [0, 0, 0], max: [0, 0, 0] });
    expect(robustBounds(new Float32Array([NaN, NaN, NaN]))).toEqual({ min: [0, 0, 0], max: [0, 0, 0] });
  });

  it('rejects inverted percentiles', () => {
    expect(() => robustBounds(new Float32Array(3), 0.9, 0.1)).toThrow(/lo/);
  });

  it('is fast on 6M points (strided sample)', () => {
    const n = 6_000_000;
    const pos = new Float32Array(n * 3);
    for (let i = 0; i < pos.length; i++) pos[i] = (i * 0.618034) % 1;
    const t0 = performance.now();
    robustBounds(pos);
    const ms = performance.now() - t0;
    // Sampling 100k of 6M points sorts 3 x 100k floats: tens of ms; generous for slow CI.
    expect(ms).toBeLessThan(1000);
  });
});

describe('fitPose', () => {
  const cube: Bounds = { min: [-1, -1, -1], max: [1, 1, 1] };

  it('frames the COLMAP default: centre target, camera at centre - z * dist looking +z, up -y', () => {
    const b: Bounds = { min: [9, 19, 29], max: [11, 21, 31] };
    const pose = fitPose(b, upVector('-y'), 60, 1);
    const dist = Math.sqrt(3) / Math.sin(Math.PI / 6);
    expect(pose.target).toEqual([10, 20, 30]);
    expectClose(pose.eye, [10, 20, 30 - dist], 1e-9);
    expect(pose.up).toEqual([0, -1, 0]);
    expect(pose.fovyDeg).toBe(60);
  });

  it('fits the bounding sphere inside the narrower field of view', () => {
    for (const aspect of [0.5, 1, 2]) {
      const pose = fitPose(cube, [0, -1, 0], 50, aspect);
      const m = projectionMatrix(50, aspect, 0.01, 100);
      const v = viewMatrix(pose);
      // Tangent points of the sphere towards the four frustum sides project on or inside the edge.
      const r = Math.sqrt(3);
      const d = Math.hypot(...pose.eye);
      const halfY = (50 * Math.PI) / 360;
      const halfX = Math.atan(Math.tan(halfY) * aspect);
      const half = Math.min(halfX, halfY);
      expect(Math.asin(r / d)).toBeCloseTo(half, 9);
      for (const c of [
        [1, 1, 1],
        [-1, -1, -1],
        [1, -1, 1],
      ]) {
        const clip = transform(m, transform(v, c));
        expect(Math.abs(clip[0] / clip[3])).toBeLessThanOrEqual(1 + 1e-9);
        expect(Math.abs(clip[1] / clip[3])).toBeLessThanOrEqual(1 + 1e-9);
      }
    }
  });

  it.each<UpAxis>(['-y', '+y', '+z', '-z'])('with up %s looks along its default forward, world +x to the right and up upwards', (axis) => {
    const pose = fitPose(cube, upVector(axis), 60, 1);
    const f = defaultForward(axis);
    const dist = Math.hypot(...pose.eye);
    expectClose(pose.eye, [-f[0] * dist, -f[1] * dist, -f[2] * dist], 1e-9);
    const v = viewMatrix(pose);
    const x = transform(v, [1, 0, 0]);
    expect(x[0]).toBeCloseTo(1, 9);
    expect(x[1]).toBeCloseTo(0, 9);
    const u = transform(v, upVector(axis));
    expect(u[1]).toBeCloseTo(1, 9);
  });

  it('accepts an explicit forward and makes it orthogonal to up', () => {
    const pose = fitPose(cube, [0, -1, 0], 60, 1, [1, -5, 0]);
    expect(pose.eye[1]).toBeCloseTo(0, 12);
    expect(pose.eye[0]).toBeLessThan(0);
  });

  it('keeps the eye off the target for a point-sized scene', () => {
    const pose = fitPose({ min: [2, 2, 2], max: [2, 2, 2] }, [0, 1, 0], 60, 1);
    expect(Math.hypot(pose.eye[0] - 2, pose.eye[1] - 2, pose.eye[2] - 2)).toBeGreaterThan(0);
  });
});

describe('nearFar', () => {
  const bounds: Bounds = { min: [-2, -1, -3], max: [4, 1, 3] };

  it('covers every corner and keeps near in front', () => {
    const rand = rng(3);
    for (let k = 0; k < 50; k++) {
      const eye: Vec3 = [rand() * 40 - 20, rand() * 40 - 20, rand() * 40 - 20];
      const target: Vec3 = [rand() * 2 - 1, rand() * 2 - 1, rand() * 2 - 1];
      const pose: CameraPose = { eye, target, up: [0, 1, 0], fovyDeg: 60 };
      const { near, far } = nearFar(pose, bounds);
      expect(near).toBeGreaterThan(0);
      expect(near).toBeLessThan(far);
      expect(near).toBeGreaterThanOrEqual(far * 1e-4);
      const v = viewMatrix(pose);
      for (let c = 0; c < 8; c++) {
        const corner = [c & 1 ? 4 : -2, c & 2 ? 1 : -1, c & 4 ? 3 : -3];
        expect(-transform(v, corner)[2]).toBeLessThan(far);
      }
      expect(near).toBeLessThanOrEqual(0.01 * Math.hypot(eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]) + far * 1e-4);
    }
  });

  it('stays sane when the eye sits on its target inside a point-sized scene', () => {
    const { near, far } = nearFar({ eye: [0, 0, 0], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 }, { min: [0, 0, 0], max: [0, 0, 0] });
    expect(far).toBe(1);
    expect(near).toBeCloseTo(1e-4, 12);
  });
});
