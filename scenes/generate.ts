/**
 * Generated scenes: the built-in default scene (what a user sees first: the
 * product ships no third-party data) and synthetic scenes with the statistics
 * of trained 3DGS scenes (for benchmarks at any size).
 *
 * Both are deterministic (a seeded PRNG of our own, no Math.random) and are
 * written in the COLMAP frame (y down, z forward) like trained scenes, so the
 * viewer's default "turn COLMAP upright" shows them upright.
 */
import { SH_C0, shBasisInto } from './sh';
import { computeBounds, shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';

// ---------------------------------------------------------------------------
// Small numeric helpers

type V3 = [number, number, number];

/** Band l of coefficient k (k < 16). */
const BAND_OF = [0, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3];

/**
 * Sign of each SH basis function under the 180-degree rotation about x,
 * (x, y, z) -> (x, -y, -z): (-1)^(power of y + power of z) of its polynomial.
 */
const FLIP_YZ_SH_SIGN = [1, -1, -1, 1, -1, 1, 1, -1, 1, -1, 1, -1, -1, 1, -1, 1];

/** mulberry32: a tiny, fast, well-mixed 32-bit PRNG. */
class Rng {
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
const NORMAL_TABLE: Float32Array = (() => {
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

function hsv(h: number, s: number, v: number): V3 {
  const f = (n: number) => {
    const k = (n + h * 6) % 6;
    return v - v * s * Math.max(0, Math.min(k, 4 - k, 1));
  };
  return [f(5), f(3), f(1)];
}

function normalize3(v: V3): V3 {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
}
function cross(a: V3, b: V3): V3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function dot(a: V3, b: V3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/** Unit quaternion (w, x, y, z) of the rotation whose matrix has columns (a, b, c) (orthonormal, right-handed). */
function quatFromAxes(a: V3, b: V3, c: V3): [number, number, number, number] {
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
function tangentFrame(n: V3, twist: number): [V3, V3, V3] {
  const helper: V3 = Math.abs(n[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0];
  const t0 = normalize3(cross(helper, n));
  const b0 = cross(n, t0);
  const c = Math.cos(twist), s = Math.sin(twist);
  const t: V3 = [c * t0[0] + s * b0[0], c * t0[1] + s * b0[1], c * t0[2] + s * b0[2]];
  return [t, cross(n, t), n];
}

/** Point i of n on a Fibonacci (golden-angle) sphere: near-uniform unit directions. */
function fibonacciDir(i: number, n: number): V3 {
  const y = 1 - (2 * (i + 0.5)) / n;
  const r = Math.sqrt(Math.max(0, 1 - y * y));
  const phi = i * GOLDEN_ANGLE;
  return [r * Math.cos(phi), y, r * Math.sin(phi)];
}
const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

/**
 * Degree-3 SH coefficients (16 x rgb, coefficient-major) of a colour that
 * depends only on the view direction: the L2 projection of (f(dir) - 0.5) on
 * the (orthonormal) reference basis, by quadrature over a Fibonacci sphere.
 * Then 0.5 + sum_k Y_k(dir) sh_k approximates f(dir).
 */
function projectToSH(f: (d: V3) => V3, samples = 4096): Float64Array {
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
function lobeWeights(n: number): number[] {
  const i = (p: number) => 1 / (n + p + 1); // int_0^1 t^(n+p) dt
  const raw = [i(0), i(1), 0.5 * (3 * i(2) - i(0)), 0.5 * (5 * i(3) - 3 * i(1))];
  const window = [1, 0.85, 0.6, 0.3];
  return raw.map((v, l) => 2 * Math.PI * v * window[l]);
}

// ---------------------------------------------------------------------------
// Cloud assembly

function emptyCloud(count: number, shDegree: ShDegree): SplatCloud {
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
function flipYZInPlace(c: SplatCloud): void {
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
class Writer {
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
function splitCount(count: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => Math.floor((count * w) / total));
  parts[0] += count - parts.reduce((a, b) => a + b, 0);
  return parts;
}

// ---------------------------------------------------------------------------
// The default scene

/**
 * The built-in default scene (about `count` splats, default 60,000; SH degree 3),
 * built to show at a glance that splatting, sorting and SH work:
 *
 *  - a checkered ground disc of flat, anisotropic splats (radius 4.5);
 *  - a trefoil torus knot standing on it, a tube of splats elongated along the
 *    curve, rainbow hue along its length, baked diffuse shading and a white
 *    view-dependent sheen (a zonal SH lobe around each splat's mirror direction);
 *  - on the right a "chameleon" sphere whose hue turns as you orbit it (its
 *    colour is an SH function of the view direction: red seen from the front,
 *    green and blue from 120 and 240 degrees around);
 *  - on the left three nested translucent shells (cyan, magenta, yellow core):
 *    wrong depth ordering shows at once.
 *
 * Frame: the scene is designed y-up and stored in the COLMAP frame like a
 * trained scene (y down, z forward; the ground is at y = 0 and the objects
 * stand at negative y). The viewer's default "turn COLMAP upright" shows it
 * upright; without it, look along +z with up = (0, -1, 0) from about
 * eye = (0, -2.2, -8.5), target = (0, -1.2, 0). Deterministic.
 */
export function generateDefaultScene(count = 60_000): SplatCloud {
  count = Math.max(0, Math.floor(count));
  const cloud = emptyCloud(count, 3);
  const w = new Writer(cloud);
  const rng = new Rng(0x5eed);
  const [nGround, nKnot, nSphere, nShells] = splitCount(count, [0.3, 0.35, 0.15, 0.2]);
  const light = normalize3([0.45, 0.8, 0.55]);
  const sh = new Float64Array(48);
  const basis = new Float64Array(16);
  const dcOf = (c: number) => (c - 0.5) / SH_C0;

  // Ground: sunflower-spiral disc, checkered, flat splats (thin along y), fading out at the rim.
  {
    const R = 4.5;
    const spacing = Math.sqrt((Math.PI * R * R) / Math.max(1, nGround));
    const cream: V3 = [0.93, 0.87, 0.74];
    const slate: V3 = [0.13, 0.2, 0.36];
    const cell = 0.75;
    for (let i = 0; i < nGround; i++) {
      const r = R * Math.sqrt((i + 0.5) / nGround);
      const a = i * GOLDEN_ANGLE;
      const x = r * Math.cos(a) + 0.3 * spacing * rng.normal();
      const z = r * Math.sin(a) + 0.3 * spacing * rng.normal();
      const odd = (Math.floor(x / cell) + Math.floor(z / cell)) & 1;
      const base = odd ? slate : cream;
      const shade = 0.85 + 0.15 * rng.next();
      sh.fill(0);
      for (let ch = 0; ch < 3; ch++) sh[ch] = dcOf(base[ch] * shade);
      // elongated along a random in-plane direction; thin along the normal (y)
      const [t, b, n] = tangentFrame([0, 1, 0], rng.range(0, Math.PI));
      const q = quatFromAxes(t, b, n);
      const edge = Math.min(1, (R - r) / (0.15 * R));
      w.push([x, 0, z], [1.1 * spacing, 0.55 * spacing, 0.06 * spacing], q, 0.95 * Math.max(0.05, edge), sh);
    }
  }

  // Trefoil torus knot, standing in the xy plane (facing the +z viewer).
  {
    const centre: V3 = [0, 1.85, 0];
    const Rk = 1.0, rk = 0.45, tube = 0.14;
    const curve = (t: number): V3 => {
      const a = 2 * Math.PI * t;
      const rr = Rk + rk * Math.cos(3 * a);
      return [rr * Math.cos(2 * a), rr * Math.sin(2 * a), rk * Math.sin(3 * a)];
    };
    const length = 17.6; // of this curve, to within a few percent
    const spacing = Math.sqrt((length * 2 * Math.PI * tube) / Math.max(1, nKnot));
    const lobe = lobeWeights(6);
    for (let i = 0; i < nKnot; i++) {
      const t = (i + rng.next()) / nKnot;
      const c0 = curve(t), c1 = curve(t + 1e-4);
      const T = normalize3([c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]]);
      // a normal to the curve: the component of (c - knot axis) orthogonal to T
      const Nraw: V3 = [c0[0], c0[1], c0[2]];
      const d = dot(Nraw, T);
      const N = normalize3([Nraw[0] - d * T[0], Nraw[1] - d * T[1], Nraw[2] - d * T[2]]);
      const B = cross(T, N);
      const phi = i * GOLDEN_ANGLE * 7 + rng.normal() * 0.05;
      const radial = normalize3([
        Math.cos(phi) * N[0] + Math.sin(phi) * B[0],
        Math.cos(phi) * N[1] + Math.sin(phi) * B[1],
        Math.cos(phi) * N[2] + Math.sin(phi) * B[2],
      ]);
      const circ = cross(radial, T);
      const rho = tube * (0.92 + 0.08 * rng.next());
      const p: V3 = [
        centre[0] + c0[0] + rho * radial[0],
        centre[1] + c0[1] + rho * radial[1],
        centre[2] + c0[2] + rho * radial[2],
      ];
      const hue = (2 * t) % 1;
      const diffuse = 0.3 + 0.7 * Math.max(0, dot(radial, light));
      const base = hsv(hue, 0.8, 1).map((v) => v * diffuse) as V3;
      sh.fill(0);
      for (let ch = 0; ch < 3; ch++) sh[ch] = dcOf(base[ch]);
      // sheen: h(dir . m) with m the mirror of the light in the surface
      // (a highlight when the view direction reflects onto the light), zero-mean
      // (bands 1..3 only) so that the base colour is the average
      const ln = dot(light, radial);
      const m = normalize3([
        2 * ln * radial[0] - light[0],
        2 * ln * radial[1] - light[1],
        2 * ln * radial[2] - light[2],
      ]);
      const axis: V3 = [-m[0], -m[1], -m[2]]; // dir points from the eye to the splat
      shBasisInto(3, axis[0], axis[1], axis[2], basis);
      const amp = 0.9;
      for (let k = 1; k < 16; k++) for (let ch = 0; ch < 3; ch++) sh[k * 3 + ch] += amp * lobe[BAND_OF[k]] * basis[k];
      w.push(p, [1.6 * spacing, 0.9 * spacing, 0.25 * spacing], quatFromAxes(T, circ, radial), 0.9, sh);
    }
  }

  // Chameleon sphere: one SH colour function of the view direction for all its
  // splats (hue = azimuth of the view direction), times baked diffuse shading.
  {
    const centre: V3 = [2.9, 0.85, 0.4];
    const R = 0.8;
    const spacing = Math.sqrt((4 * Math.PI * R * R) / Math.max(1, nSphere));
    // the view direction d points from the eye to the splat: seen from +z
    // (d = -z) the hue is 0 (red); orbiting by 120 degrees gives green, 240 blue
    const F = projectToSH((d) => hsv(((Math.atan2(-d[0], -d[2]) / (2 * Math.PI)) % 1 + 1) % 1, 0.9, 1));
    for (let i = 0; i < nSphere; i++) {
      const n = fibonacciDir(i, nSphere);
      const [t, b] = tangentFrame(n, rng.range(0, Math.PI));
      const p: V3 = [centre[0] + R * n[0], centre[1] + R * n[1], centre[2] + R * n[2]];
      const shade = 0.35 + 0.65 * Math.max(0, dot(n, light));
      // colour(d) = shade * F(d): SH is linear, so scale all coefficients of
      // (F - 0.5) and fix the DC so that 0.5 + ... = shade * F
      for (let k = 0; k < 48; k++) sh[k] = shade * F[k];
      for (let ch = 0; ch < 3; ch++) sh[ch] += (shade - 1) * 0.5 / SH_C0;
      w.push(p, [1.0 * spacing, 0.7 * spacing, 0.08 * spacing], quatFromAxes(t, b, n), 0.95, sh);
    }
  }

  // Nested translucent shells: cyan (outer), magenta, and a yellow opaque core.
  {
    const centre: V3 = [-2.9, 0.9, 0.4];
    const shells: { r: number; rgb: V3; opacity: number; share: number }[] = [
      { r: 0.85, rgb: [0.1, 0.85, 0.95], opacity: 0.07, share: 0.45 },
      { r: 0.58, rgb: [0.95, 0.15, 0.75], opacity: 0.12, share: 0.33 },
      { r: 0.3, rgb: [1.0, 0.85, 0.1], opacity: 0.95, share: 0.22 },
    ];
    const counts = splitCount(nShells, shells.map((s) => s.share));
    shells.forEach((s, si) => {
      const ns = counts[si];
      const spacing = Math.sqrt((4 * Math.PI * s.r * s.r) / Math.max(1, ns));
      for (let i = 0; i < ns; i++) {
        const n = fibonacciDir(i, ns);
        const [t, b] = tangentFrame(n, rng.range(0, Math.PI));
        const p: V3 = [centre[0] + s.r * n[0], centre[1] + s.r * n[1], centre[2] + s.r * n[2]];
        const shade = 0.55 + 0.45 * Math.max(0, dot(n, light));
        sh.fill(0);
        for (let ch = 0; ch < 3; ch++) sh[ch] = dcOf(s.rgb[ch] * shade);
        w.push(p, [1.2 * spacing, 0.6 * spacing, 0.1 * spacing], quatFromAxes(t, b, n), s.opacity, sh);
      }
    });
  }

  flipYZInPlace(cloud); // designed y-up; stored in the COLMAP frame
  cloud.bounds = computeBounds(cloud.positions);
  cloud.source = { name: 'default', format: 'generated' };
  return cloud;
}

// ---------------------------------------------------------------------------
// Synthetic scenes

/**
 * A synthetic scene of n splats whose statistics follow trained 3DGS scenes
 * (SH degree 3, COLMAP frame: y down, ground plane at y = +1.5), deterministic
 * for a given seed. Fills the typed arrays in place (no per-splat objects),
 * fast enough for millions of splats (6M in a few seconds).
 *
 * Measured on the float PLYs of ../shared/scenes (guitar_float 90,854 splats;
 * playbot_31k_sh2 31,000; inria_sh3_tile_6831 and _1971), natural logs:
 *  - log-scale, all axes pooled: mean -5.7, std 1.5-1.9 (guitar, playbot).
 *    Per splat, sorted axes: median log max -3.7/-4.2, mid -5.6, min -7.4/-7.8
 *    (the INRIA tiles have degenerate flat splats, min ~ -13.9).
 *  - anisotropy max/min: median 25-34, 90th percentile 80-330;
 *    max/mid: median 3.2-5.4, 10th percentile 1.4-1.5, 90th 11-23.
 *  - size vs density: median max-scale ~ 1.3-1.7 x extent / sqrt(n)
 *    (and 1.2-4 x the median nearest-neighbour distance): surface-like.
 *  - opacity (after sigmoid) is bimodal: guitar 31% below 0.1 and 17.5% above
 *    0.9 (a U shape); playbot 50% above 0.9; the INRIA tiles peak at 0.1-0.3.
 *  - f_dc: std 1.1-2.2 per channel, mean -0.8 .. +1.8.
 *  - f_rest (playbot, degree 2): RMS 0.26 in band 1 and 0.15 in band 2,
 *    heavy-tailed (median |c| 0.12 / 0.06, 99th percentile 0.9 / 0.55); the
 *    INRIA tiles' f_rest are all zero.
 *  - clusters: on a 32^3 grid over the 1-99% box, 10-24% of cells are occupied
 *    and the densest 10% of occupied cells hold 19-40% of the splats.
 *
 * Model: a mixture of 16..128 clusters (more for larger n): one ground plane
 * (20% of the splats, a Gaussian disc of std 4), flat patches, ellipsoidal
 * shells (splats lying in the surface, thin axis along the normal, a little
 * tilt noise) and volumetric anisotropic Gaussian blobs (uniformly random
 * rotations), with log-normal weights exp(N(0, 0.6)). Each splat is drawn from
 * a random cluster, so the array order is spatially incoherent, as in trained
 * files. Scales: max = 1.0 x local spacing (from the cluster's expected count
 * and its area, or volume for blobs) x exp(N(0, 0.7)), then
 * max/mid = exp(|N(0, 1.9)|) and mid/min = exp(|N(0, 2.4)|).
 * Opacity logits: 45% N(-2.6, 1.1), 30% N(4.5, 1.5), 25% N(0.3, 1.5).
 * DC: the cluster's colour plus N(0, 0.45) per channel. Rest bands:
 * N(0, sigma_l) x exp(N(0, 0.6)), sigma = 0.18, 0.105, 0.07 for bands 1..3,
 * times a per-cluster factor exp(N(0, 0.5)) and a random sign.
 *
 * What this gives (n = 200,000, same measurements): log-scale std 2.1;
 * sorted-axis gaps mid-min 1.85, max-mid 1.4; anisotropy max/min median 24,
 * 90th percentile 380; max/mid median 3.6, 90th 22; median max-scale
 * 1.2 x extent / sqrt(n); opacity 30% below 0.1 and 31% above 0.9;
 * f_dc std 0.92; rest RMS 0.30 / 0.18 / 0.12; 36% of grid cells occupied,
 * the densest 10% holding 53% (denser clumps than the real scenes).
 *
 * Speed: the PRNG is mulberry32; normals come from a 65,536-entry quantile
 * table, the other per-splat distributions from 4,096-entry tables, and the
 * 45 rest coefficients of a splat are a vector from a bank of 2,048 pre-drawn
 * ones (x cluster factor x sign): 6M splats in about 3-4 s on one core, most
 * of it writing the 1.15 GB of SH coefficients.
 */
export function generateSynthetic(n: number, seed = 1): SplatCloud {
  n = Math.max(0, Math.floor(n));
  const cloud = emptyCloud(n, 3);
  const rng = new Rng(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ 0x27d4eb2f);
  const NT = NORMAL_TABLE;
  // model parameters (see the doc comment)
  const SIG1 = 0.18, SIG2 = 0.105, SIG3 = 0.07;
  const GAP_MID = 1.9, GAP_MIN = 2.4, DC_NOISE = 0.45, SIZE_K = 1.0;

  // --- clusters (a few dozen to a few hundred)
  const M = Math.max(16, Math.min(128, Math.round(16 + 4 * Math.log2(Math.max(1, n / 1000)))));
  const GROUND = 0, PATCH = 1, SHELL = 2, BLOB = 3;
  const type = new Uint8Array(M);
  const weight = new Float64Array(M);
  const centre = new Float64Array(M * 3);
  const axes = new Float64Array(M * 9); // rotation matrix, row-major
  const quat = new Float64Array(M * 4); // the same rotation as a quaternion
  const ext = new Float64Array(M * 3); // extents along the cluster's local axes
  const colour = new Float64Array(M * 3); // DC
  const logScale = new Float64Array(M); // log(1.2 x spacing)
  const shine = new Float64Array(M);
  for (let c = 0; c < M; c++) {
    const t = c === 0 ? GROUND : [PATCH, PATCH, SHELL, SHELL, BLOB][rng.u32() % 5];
    type[c] = t;
    weight[c] = c === 0 ? 0 : Math.exp(0.6 * rng.normal());
    // cluster frame: a random rotation (the ground's normal is the y axis)
    let q: [number, number, number, number];
    if (t === GROUND) {
      q = [Math.SQRT1_2, -Math.SQRT1_2, 0, 0]; // local z -> world +y (the ground's normal)
      centre.set([0, 1.5, 0], c * 3);
      ext.set([4, 4, 0.02], c * 3);
    } else {
      const u1 = rng.next(), u2 = rng.next(), u3 = rng.next(); // uniform random rotation (Shoemake)
      const s1 = Math.sqrt(1 - u1), s2 = Math.sqrt(u1);
      q = [s2 * Math.cos(2 * Math.PI * u3), s1 * Math.sin(2 * Math.PI * u2), s1 * Math.cos(2 * Math.PI * u2), s2 * Math.sin(2 * Math.PI * u3)];
      centre.set([rng.range(-5, 5), rng.range(-3.5, 1.3), rng.range(-5, 5)], c * 3);
      const size = Math.exp(rng.range(Math.log(0.25), Math.log(1.8)));
      if (t === PATCH) ext.set([size, size * rng.range(0.3, 1), 0.01 * size], c * 3);
      else if (t === SHELL) ext.set([size, size * rng.range(0.6, 1), size * rng.range(0.6, 1)], c * 3);
      else ext.set([size, size * rng.range(0.2, 0.8), size * rng.range(0.05, 0.3)], c * 3);
    }
    quat.set(q, c * 4);
    const [w, x, y, z] = q;
    axes.set([
      1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
      2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
      2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    ], c * 9);
    const rgb = hsv(rng.next(), rng.range(0.1, 0.9), rng.range(0.05, 1));
    for (let ch = 0; ch < 3; ch++) colour[c * 3 + ch] = (rgb[ch] - 0.5) / SH_C0;
    shine[c] = Math.exp(0.5 * rng.normal());
  }
  let wsum = 0;
  for (let c = 1; c < M; c++) wsum += weight[c];
  weight[0] = wsum * 0.25; // the ground holds ~20% of the splats
  wsum *= 1.25;
  // local spacing from the cluster's expected count and its area (or volume)
  for (let c = 0; c < M; c++) {
    const nc = Math.max(1, (n * weight[c]) / wsum);
    const a = ext[c * 3], b = ext[c * 3 + 1], cc = ext[c * 3 + 2];
    let spacing: number;
    if (type[c] === GROUND || type[c] === PATCH) spacing = Math.sqrt((2 * Math.PI * a * b) / nc);
    else if (type[c] === SHELL) spacing = Math.sqrt((4 * Math.PI * (a * b + b * cc + a * cc)) / 3 / nc);
    else spacing = Math.cbrt((15.75 * a * b * cc) / nc);
    logScale[c] = Math.log(SIZE_K * spacing);
  }
  // alias table (Vose) for O(1) cluster picks
  const prob = new Float64Array(M);
  const alias = new Int32Array(M);
  {
    const scaled = Array.from(weight, (v) => (v * M) / wsum);
    const small: number[] = [], large: number[] = [];
    scaled.forEach((v, i) => (v < 1 ? small : large).push(i));
    while (small.length && large.length) {
      const s = small.pop()!, l = large.pop()!;
      prob[s] = scaled[s];
      alias[s] = l;
      scaled[l] += scaled[s] - 1;
      (scaled[l] < 1 ? small : large).push(l);
    }
    for (const i of [...small, ...large]) prob[i] = 1;
  }

  // Rest-band bank: BANK vectors of the 45 rest coefficients, N(0, sigma_l) times a
  // per-vector log-normal factor exp(N(0, 0.6)). Drawing 45 normals per splat would
  // dominate the time at millions of splats; a bank of 2,048 vectors (x random sign
  // x cluster factor) has the same distribution of values.
  const BANK = 2048;
  const bank = new Float32Array(BANK * 45);
  for (let v = 0; v < BANK; v++) {
    const m = Math.exp(0.6 * rng.normal());
    for (let j = 0; j < 45; j++) {
      const k = 1 + Math.floor(j / 3); // coefficient index 1..15
      const sigma = BAND_OF[k] === 1 ? SIG1 : BAND_OF[k] === 2 ? SIG2 : SIG3;
      bank[v * 45 + j] = sigma * m * rng.normal();
    }
  }

  // Per-splat transcendental functions by table: 4,096 equiprobable quantiles of
  // each distribution, indexed by 12 random bits (small enough to stay in cache).
  const T_MAX = new Float32Array(4096); // exp(0.7 z)
  const T_GAP_MID = new Float32Array(4096); // exp(-|GAP_MID z|)
  const T_GAP_MIN = new Float32Array(4096); // exp(-|GAP_MIN z|)
  const T_COS = new Float32Array(4096), T_SIN = new Float32Array(4096); // h uniform in [0, pi)
  const T_OPACITY = new Float32Array(3 * 4096); // sigmoid of the three logit components
  for (let k = 0; k < 4096; k++) {
    const z = NT[k * 16 + 8];
    T_MAX[k] = Math.exp(0.7 * z);
    T_GAP_MID[k] = Math.exp(-Math.abs(GAP_MID * z));
    T_GAP_MIN[k] = Math.exp(-Math.abs(GAP_MIN * z));
    const h = (Math.PI * (k + 0.5)) / 4096;
    T_COS[k] = Math.cos(h);
    T_SIN[k] = Math.sin(h);
    const logits = [-2.6 + 1.1 * z, 4.5 + 1.5 * z, 0.3 + 1.5 * z];
    for (let m = 0; m < 3; m++) T_OPACITY[m * 4096 + k] = 1 / (1 + Math.exp(-Math.min(12, logits[m])));
  }
  const scaleOf = logScale.map(Math.exp);

  const { positions, scales, rotations, opacities, sh } = cloud;
  for (let i = 0; i < n; i++) {
    // cluster
    let u = rng.u32();
    let c = u % M;
    if ((u >>> 8) / 16777216 >= prob[c]) c = alias[c];
    const t = type[c];
    const ax = c * 9, ex = c * 3;

    // local position (lx, ly, lz) in the cluster frame, and whether it lies in a surface
    u = rng.u32();
    const n0 = NT[u & 0xffff], n1 = NT[u >>> 16];
    u = rng.u32();
    const n2 = NT[u & 0xffff], n3 = NT[u >>> 16];
    let lx: number, ly: number, lz: number;
    let nx = 0, ny = 0, nz = 1; // local surface normal
    const surface = t !== BLOB;
    if (t === SHELL) {
      const l = 1 / (Math.sqrt(n0 * n0 + n1 * n1 + n2 * n2) || 1);
      nx = n0 * l; ny = n1 * l; nz = n2 * l;
      const r = 1 + 0.01 * n3;
      lx = ext[ex] * nx * r; ly = ext[ex + 1] * ny * r; lz = ext[ex + 2] * nz * r;
    } else {
      lx = ext[ex] * n0; ly = ext[ex + 1] * n1; lz = ext[ex + 2] * n2;
    }
    const A = axes;
    positions[i * 3] = centre[ex] + A[ax] * lx + A[ax + 1] * ly + A[ax + 2] * lz;
    positions[i * 3 + 1] = centre[ex + 1] + A[ax + 3] * lx + A[ax + 4] * ly + A[ax + 5] * lz;
    positions[i * 3 + 2] = centre[ex + 2] + A[ax + 6] * lx + A[ax + 7] * ly + A[ax + 8] * lz;

    // scales: max, then the gaps to mid and min (see the doc comment), by table
    u = rng.u32();
    const smax = scaleOf[c] * T_MAX[u & 0xfff];
    const smid = smax * T_GAP_MID[(u >>> 12) & 0xfff];
    u = rng.u32();
    const smin = smid * T_GAP_MIN[u & 0xfff];
    const twistIdx = (u >>> 12) & 0xfff;
    scales[i * 3] = smax;
    scales[i * 3 + 1] = smid;
    scales[i * 3 + 2] = smin;

    // rotation: surface splats lie in the surface (thin axis = local normal) with a random
    // twist and a little tilt noise; blob splats are uniformly random
    let qw: number, qx: number, qy: number, qz: number;
    if (surface) {
      // q_normal: local z -> (nx, ny, nz) (shortest arc), then the cluster's rotation, then the twist
      let aw = 1 + nz, axq = -ny, ayq = nx;
      const azq = 0;
      if (aw < 1e-6) { aw = 0; axq = 1; ayq = 0; }
      const al = 1 / Math.sqrt(aw * aw + axq * axq + ayq * ayq);
      aw *= al; axq *= al; ayq *= al;
      const cw = quat[c * 4], cx = quat[c * 4 + 1], cy = quat[c * 4 + 2], cz = quat[c * 4 + 3];
      // q1 = q_cluster * q_normal
      const w1 = cw * aw - cx * axq - cy * ayq - cz * azq;
      const x1 = cw * axq + cx * aw + cy * azq - cz * ayq;
      const y1 = cw * ayq - cx * azq + cy * aw + cz * axq;
      const z1 = cw * azq + cx * ayq - cy * axq + cz * aw;
      // twist (cos h, sin h), h uniform in [0, pi), by table
      const tw = T_COS[twistIdx], tz = T_SIN[twistIdx];
      // q = q1 * (tw, 0, 0, tz) + tilt noise
      u = rng.u32();
      const e0 = 0.06 * NT[u & 0xffff], e1 = 0.06 * NT[u >>> 16];
      qw = w1 * tw - z1 * tz;
      qx = x1 * tw + y1 * tz + e0;
      qy = y1 * tw - x1 * tz + e1;
      qz = z1 * tw + w1 * tz;
    } else {
      // a normalised 4D standard normal is a uniformly random rotation
      u = rng.u32();
      qw = NT[u & 0xffff]; qx = NT[u >>> 16];
      u = rng.u32();
      qy = NT[u & 0xffff]; qz = NT[u >>> 16];
    }
    const ql = 1 / (Math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz) || 1);
    rotations[i * 4] = qw * ql;
    rotations[i * 4 + 1] = qx * ql;
    rotations[i * 4 + 2] = qy * ql;
    rotations[i * 4 + 3] = qz * ql;

    // opacity: bimodal mixture of logits, by table
    u = rng.u32();
    const pick = u & 0xffff; // of 65536: 45% / 30% / 25%
    opacities[i] = T_OPACITY[(pick < 29491 ? 0 : pick < 49152 ? 4096 : 8192) + (u >>> 20)];

    // SH: DC from the cluster colour + noise; rest bands: a pre-drawn vector
    // from the bank, times the cluster's factor and a random sign
    const o = i * 48;
    u = rng.u32();
    const d0 = NT[u & 0xffff], d1 = NT[u >>> 16];
    u = rng.u32();
    const d2 = NT[u & 0xffff];
    sh[o] = colour[ex] + DC_NOISE * d0;
    sh[o + 1] = colour[ex + 1] + DC_NOISE * d1;
    sh[o + 2] = colour[ex + 2] + DC_NOISE * d2;
    const f = u & 0x10000 ? shine[c] : -shine[c];
    const b = ((u >>> 17) & (BANK - 1)) * 45;
    for (let j = 0; j < 45; j++) sh[o + 3 + j] = f * bank[b + j];
  }

  cloud.bounds = computeBounds(positions);
  cloud.source = { name: `synthetic:${n}`, format: 'generated' };
  return cloud;
}

/**
 * A generated scene by its spec: 'default' (60,000 splats), 'default:N',
 * 'synthetic:N'; named by the spec ('default:3000' is not 'default').
 */
export function generatedScene(spec: string): SplatCloud {
  const [kind, n] = spec.split(':');
  const cloud = kind === 'synthetic' ? generateSynthetic(Number(n)) : generateDefaultScene(n ? Number(n) : undefined);
  cloud.source = { ...cloud.source, name: spec };
  return cloud;
}
