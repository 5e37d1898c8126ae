import { SH_C0 } from './sh';
import { computeBounds, type SplatCloud } from './splat-cloud';
import { BAND_OF, NORMAL_TABLE, Rng, emptyCloud, hsv } from './generate-kit';

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
