/**
 * What the generated scenes (default-scene.ts, synthetic-scene.ts) are built from: a
 * seeded PRNG of our own (no Math.random) and its normal table, small vector and
 * rotation helpers, SH projections of view-dependent colours, and the cloud assembly:
 * an empty degree-3 cloud, a writer of splats into it, and the 180-degree turn about x
 * between the design frame (y up) and the COLMAP frame the scenes are stored in.
 */
import { shBasisInto } from './sh';
import { computeBounds, shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';

// ---------------------------------------------------------------------------
// Small numeric helpers

export type V3 = [number, number, number];

/** Band l of coefficient k (k < 16). */
export const BAND_OF = [0, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3];

/**
 * Sign of each SH basis function under the 180-degree rotation about x,
 * (x, y, z) -> (x, -y, -z): (-1)^(power of y + power of z) of its polynomial.
 */
const FLIP_YZ_SH_SIGN = [1, -1, -1, 1, -1, 1, 1, -1, 1, -1, 1, -1, -1, 1, -1, 1];

/** mulberry32: a tiny, fast, well-mixed 32-bit PRNG. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }
  range(a: number, b: number): number {
    return a + (b - a) * this.next();
  }
  /** Standard normal (table-driven, see NORMAL_TABLE; tails cut at about 4.3 sigma). */
  normal(): number {
    return NORMAL_TABLE[this.u32() >>> 16];
  }
}

/**
 * NORMAL_TABLE[i] = Phi^-1((i + 0.5) / 65536): the 65,536 equiprobable
 * quantiles of N(0, 1), so that a 16-bit random index is a normal sample.
 * Built by integrating the density (trapezoids, step 1e-4) and inverting.
 */
export const NORMAL_TABLE: Float32Array = (() => {
  const N = 65536;
  const table = new Float32Array(N);
  const h = 1e-4;
  const pdf = (x: number) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
  let x = -7, cdf = 0, prevPdf = pdf(x);
  for (let i = 0; i < N; i++) {
    const target = (i + 0.5) / N;
    for (;;) {
      const nextPdf = pdf(x + h);
      const inc = 0.5 * h * (prevPdf + nextPdf);
      if (cdf + inc >= target) {
        table[i] = x + (h * (target - cdf)) / inc;
        break;
      }
      cdf += inc;
      x += h;
      prevPdf = nextPdf;
    }
  }
  return table;
})();

export function hsv(h: number, s: number, v: number): V3 {
  const f = (n: number) => {
    const k = (n + h * 6) % 6;
    return v - v * s * Math.max(0, Math.min(k, 4 - k, 1));
  };
  return [f(5), f(3), f(1)];
}

export function normalize3(v: V3): V3 {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
}
export function cross(a: V3, b: V3): V3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
export function dot(a: V3, b: V3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/** Unit quaternion (w, x, y, z) of the rotation whose matrix has columns (a, b, c) (orthonormal, right-handed). */
export function quatFromAxes(a: V3, b: V3, c: V3): [number, number, number, number] {
  // m[r][col]: column 0 = a, 1 = b, 2 = c
  const m00 = a[0], m10 = a[1], m20 = a[2];
  const m01 = b[0], m11 = b[1], m21 = b[2];
  const m02 = c[0], m12 = c[1], m22 = c[2];
  const tr = m00 + m11 + m22;
  let w: number, x: number, y: number, z: number;
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    w = 0.25 * s; x = (m21 - m12) / s; y = (m02 - m20) / s; z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (m21 - m12) / s; x = 0.25 * s; y = (m01 + m10) / s; z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (m02 - m20) / s; x = (m01 + m10) / s; y = 0.25 * s; z = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (m10 - m01) / s; x = (m02 + m20) / s; y = (m12 + m21) / s; z = 0.25 * s;
  }
  const l = Math.hypot(w, x, y, z);
  return [w / l, x / l, y / l, z / l];
}

/** A frame (t, b, n) with n the given unit normal; `twist` turns t and b about n. */
export function tangentFrame(n: V3, twist: number): [V3, V3, V3] {
  const helper: V3 = Math.abs(n[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0];
  const t0 = normalize3(cross(helper, n));
  const b0 = cross(n, t0);
  const c = Math.cos(twist), s = Math.sin(twist);
  const t: V3 = [c * t0[0] + s * b0[0], c * t0[1] + s * b0[1], c * t0[2] + s * b0[2]];
  return [t, cross(n, t), n];
}

/** Point i of n on a Fibonacci (golden-angle) sphere: near-uniform unit directions. */
export function fibonacciDir(i: number, n: number): V3 {
  const y = 1 - (2 * (i + 0.5)) / n;
  const r = Math.sqrt(Math.max(0, 1 - y * y));
  const phi = i * GOLDEN_ANGLE;
  return [r * Math.cos(phi), y, r * Math.sin(phi)];
}
export const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

/**
 * Degree-3 SH coefficients (16 x rgb, coefficient-major) of a colour that
 * depends only on the view direction: the L2 projection of (f(dir) - 0.5) on
 * the (orthonormal) reference basis, by quadrature over a Fibonacci sphere.
 * Then 0.5 + sum_k Y_k(dir) sh_k approximates f(dir).
 */
export function projectToSH(f: (d: V3) => V3, samples = 4096): Float64Array {
  const out = new Float64Array(48);
  const y = new Float64Array(16);
  const w = (4 * Math.PI) / samples;
  for (let i = 0; i < samples; i++) {
    const d = fibonacciDir(i, samples);
    const c = f(d);
    shBasisInto(3, d[0], d[1], d[2], y);
    for (let k = 0; k < 16; k++) for (let ch = 0; ch < 3; ch++) out[k * 3 + ch] += w * y[k] * (c[ch] - 0.5);
  }
  return out;
}

/**
 * Zonal weights lambda_l (l = 0..3) of the lobe h(t) = max(0, t)^n (t = dir . axis),
 * by Funk-Hecke: lambda_l = 2 pi int_{-1}^{1} h(t) P_l(t) dt, so that
 * h(dir . axis) ~ sum_k lambda_{l(k)} Y_k(axis) Y_k(dir). A window damps the
 * ringing of the truncation.
 */
export function lobeWeights(n: number): number[] {
  const i = (p: number) => 1 / (n + p + 1); // int_0^1 t^(n+p) dt
  const raw = [i(0), i(1), 0.5 * (3 * i(2) - i(0)), 0.5 * (5 * i(3) - 3 * i(1))];
  const window = [1, 0.85, 0.6, 0.3];
  return raw.map((v, l) => 2 * Math.PI * v * window[l]);
}

// ---------------------------------------------------------------------------
// Cloud assembly

export function emptyCloud(count: number, shDegree: ShDegree): SplatCloud {
  return {
    count,
    shDegree,
    positions: new Float32Array(count * 3),
    scales: new Float32Array(count * 3),
    rotations: new Float32Array(count * 4),
    opacities: new Float32Array(count),
    sh: new Float32Array(count * shCoeffCount(shDegree) * 3),
    bounds: { min: [0, 0, 0], max: [0, 0, 0] },
    source: { name: '', format: 'generated' },
  };
}

/** Rotate a degree-3 cloud's arrays in place by 180 degrees about x: (x, y, z) -> (x, -y, -z). */
export function flipYZInPlace(c: SplatCloud): void {
  const K = shCoeffCount(c.shDegree);
  for (let i = 0; i < c.count; i++) {
    c.positions[i * 3 + 1] = -c.positions[i * 3 + 1];
    c.positions[i * 3 + 2] = -c.positions[i * 3 + 2];
    // q_F q q_F^-1 with q_F = (0, 1, 0, 0): (w, x, y, z) -> (w, x, -y, -z)
    c.rotations[i * 4 + 2] = -c.rotations[i * 4 + 2];
    c.rotations[i * 4 + 3] = -c.rotations[i * 4 + 3];
    for (let k = 1; k < K; k++) {
      if (FLIP_YZ_SH_SIGN[k] < 0) {
        const o = (i * K + k) * 3;
        c.sh[o] = -c.sh[o];
        c.sh[o + 1] = -c.sh[o + 1];
        c.sh[o + 2] = -c.sh[o + 2];
      }
    }
  }
}

/**
 * The same scene rotated by 180 degrees about x, (x, y, z) -> (x, -y, -z):
 * COLMAP (y down, z forward) <-> y up, z backward. Positions, rotations and SH
 * coefficients are all transformed (a camera transformed the same way sees
 * the same image). Its own inverse. Returns a new cloud.
 */
export function rotateX180(cloud: SplatCloud): SplatCloud {
  const c: SplatCloud = {
    ...cloud,
    positions: cloud.positions.slice(),
    rotations: cloud.rotations.slice(),
    sh: cloud.sh.slice(),
    scales: cloud.scales.slice(),
    opacities: cloud.opacities.slice(),
  };
  flipYZInPlace(c);
  c.bounds = computeBounds(c.positions);
  return c;
}

/** Writes splats one after another into a preallocated degree-3 cloud. */
export class Writer {
  i = 0;
  constructor(readonly c: SplatCloud) {}
  /** Append one splat; `sh` holds 48 coefficient-major values (k * 3 + channel). */
  push(p: V3, scale: V3, q: ArrayLike<number>, opacity: number, sh: ArrayLike<number>): void {
    const i = this.i++;
    const c = this.c;
    c.positions.set(p, i * 3);
    c.scales.set(scale, i * 3);
    c.rotations[i * 4] = q[0];
    c.rotations[i * 4 + 1] = q[1];
    c.rotations[i * 4 + 2] = q[2];
    c.rotations[i * 4 + 3] = q[3];
    c.opacities[i] = opacity;
    for (let k = 0; k < 48; k++) c.sh[i * 48 + k] = sh[k];
  }
}

/** Split `count` by weights into integer parts that sum to count exactly. */
export function splitCount(count: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => Math.floor((count * w) / total));
  parts[0] += count - parts.reduce((a, b) => a + b, 0);
  return parts;
}
