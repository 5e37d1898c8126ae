/**
 * The one in-memory form every loader produces and every consumer reads:
 * structure-of-arrays typed arrays, activations already applied.
 */

/** Number of SH coefficients per colour channel for a degree (1, 4, 9, 16). */
export function shCoeffCount(degree: number): number {
  return (degree + 1) * (degree + 1);
}

export type ShDegree = 0 | 1 | 2 | 3;

export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

export interface SplatCloud {
  /** Number of splats. */
  count: number;
  /** Highest SH band present (0..3). */
  shDegree: ShDegree;
  /** 3 per splat: x, y, z in the file's own world frame (COLMAP: y down, z forward). */
  positions: Float32Array;
  /** 3 per splat: linear scale (exp of the stored log-scale). */
  scales: Float32Array;
  /** 4 per splat: unit quaternion w, x, y, z (rot_0 is w). */
  rotations: Float32Array;
  /** 1 per splat: opacity in [0, 1] (sigmoid of the stored logit, +Inf clamped). */
  opacities: Float32Array;
  /**
   * shCoeffCount(shDegree) * 3 per splat, coefficient-major:
   * sh[(i * K + k) * 3 + c] for splat i, coefficient k (k = 0 is the DC term f_dc),
   * channel c (r, g, b). Raw SH coefficients; colour = 0.5 + sum_k Y_k(dir) * sh_k.
   * (The file stores f_rest channel-major; loaders transpose.)
   */
  sh: Float32Array;
  /** Axis-aligned bounds of the positions. */
  bounds: Bounds;
  /** Where it came from, for the UI and `info`. */
  source: { name: string; format: string };
  /**
   * What the loader had to drop or clamp because it could not be drawn
   * (NaN, Inf, overflowing values). Every loader sets it; clouds made in
   * memory (the generator) may leave it out, meaning nothing was changed.
   */
  sanitized?: SanitizeReport;
}

/**
 * Splats the loader dropped or changed so that nothing undrawable reaches
 * the GPU. `reasons` counts splats per reason (a splat with two problems
 * counts under both reasons, once in `dropped` or `clamped`).
 */
export interface SanitizeReport {
  /** Splats left out of the cloud (e.g. a NaN position). */
  dropped: number;
  /** Splats kept with at least one value clamped or replaced (e.g. a scale past the limit). */
  clamped: number;
  /** Splats per reason, e.g. { "non-finite position": 3, "scale overflow": 1 }. */
  reasons: Record<string, number>;
}

/** Bounds of a positions array (3 floats per point). */
export function computeBounds(positions: Float32Array): Bounds {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let a = 0; a < 3; a++) {
      const v = positions[i + a];
      if (v < min[a]) min[a] = v;
      if (v > max[a]) max[a] = v;
    }
  }
  if (positions.length === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  return { min, max };
}

/** The box round several boxes (none: an empty box, min +Infinity, max -Infinity). */
export function unionBounds(boxes: readonly Bounds[]): Bounds {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (const b of boxes) {
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a]!, b.min[a]!);
      max[a] = Math.max(max[a]!, b.max[a]!);
    }
  }
  return { min, max };
}

/** A run of one cloud's splats: `count` from `from`. */
export interface CloudRun {
  cloud: SplatCloud;
  from: number;
  count: number;
}

/**
 * The runs' splats back to back in one cloud, at the highest SH degree among them (a
 * run of a lower degree padded with zeros), its bounds computed; `source` as given.
 */
export function concatRuns(runs: readonly CloudRun[], source: SplatCloud['source']): SplatCloud {
  const degree = Math.max(0, ...runs.map((r) => r.cloud.shDegree)) as ShDegree;
  const K = shCoeffCount(degree) * 3;
  const n = runs.reduce((a, r) => a + r.count, 0);
  const out: SplatCloud = {
    count: n,
    shDegree: degree,
    positions: new Float32Array(n * 3),
    scales: new Float32Array(n * 3),
    rotations: new Float32Array(n * 4),
    opacities: new Float32Array(n),
    sh: new Float32Array(n * K),
    bounds: { min: [0, 0, 0], max: [0, 0, 0] },
    source,
  };
  let at = 0;
  for (const { cloud: c, from, count } of runs) {
    const to = from + count;
    out.positions.set(c.positions.subarray(from * 3, to * 3), at * 3);
    out.scales.set(c.scales.subarray(from * 3, to * 3), at * 3);
    out.rotations.set(c.rotations.subarray(from * 4, to * 4), at * 4);
    out.opacities.set(c.opacities.subarray(from, to), at);
    const k = shCoeffCount(c.shDegree) * 3;
    for (let i = 0; i < count; i++) out.sh.set(c.sh.subarray((from + i) * k, (from + i + 1) * k), (at + i) * K);
    at += count;
  }
  out.bounds = computeBounds(out.positions);
  return out;
}
