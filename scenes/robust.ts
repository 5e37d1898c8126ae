/**
 * Scene-by-scene limits on what a splat may be, from the scene's own robust
 * statistics (quantiles of an evenly spaced sample), so that a few absurd splats
 * cannot spoil the picture or the others' precision:
 * - a splat whose largest scale exceeds SCALE_EXTENT_FACTOR times (the scene's
 *   robust diagonal plus its distance from the robust centre) is implausible (a
 *   full-screen veil, not a part of the scene) and is dropped;
 * - a DC colour coefficient outside [q25 - w, q75 + w] of its channel, w =
 *   max(DC_FENCE_IQR x IQR, DC_FENCE_MIN), and a higher-band SH coefficient whose
 *   |value| exceeds max(SH_FENCE_Q85 x q85 |v|, SH_FENCE_MIN) of its coefficient
 *   and channel, are outliers, clamped to the fence. Quartiles and the 85th
 *   percentile do not move while fewer than 15% of the splats are outliers. A
 *   value that carries no colour at all (+-65504: past the half float or not
 *   finite in the file) is replaced by its channel's median (DC) or 0 (higher
 *   bands) before the fences are taken (sanitize.ts SplatSink.finish).
 * The fences sit well outside every real and generated scene measured (the shared
 * scenes' worst scale is 0.15 of diagonal + distance; DC at most 7.9 IQR and 9.8
 * beyond a quartile (playbot); SH at most 34 q85 (synthetic, 1M splats)), so a
 * clean scene is unchanged. The loaders apply them
 * (SplatSink.finish, counted in SanitizeReport); the compact GPU layout's ranges
 * (renderer/gpu-scene/compact-pack.ts) use the same fences over the same sample,
 * so that a cloud made elsewhere keeps its precision too, and a loaded cloud
 * (already inside them) packs under exactly its own min/max.
 *
 * The sample is every `sampleStride(count)`-th splat by index: quantiles of it
 * do not move when values beyond the fences are clamped (clamping keeps their
 * order), so fences computed again on a clamped cloud are the same.
 */
import type { SplatCloud } from './splat-cloud';

/** Splats a robust statistic looks at, at most. */
export const ROBUST_SAMPLE_SPLATS = 1 << 14;
/** Largest scale kept, as a multiple of (robust diagonal + distance from the robust centre). */
export const SCALE_EXTENT_FACTOR = 1;
/** ...and never below this multiple of the sample's median largest scale (a scene with no extent). */
export const SCALE_MEDIAN_FACTOR = 100;
/** Position quantiles of the robust box (and 1 - this). */
export const EXTENT_QUANTILE = 0.01;
/** DC fence: this many interquartile ranges beyond the quartiles... */
export const DC_FENCE_IQR = 16;
/** ...and at least this far (f_dc units; the visible DC span is about 3.5). */
export const DC_FENCE_MIN = 16;
/** Higher-band SH fence: this many times the 85th percentile of |v|... */
export const SH_FENCE_Q85 = 64;
/** ...and at least this much (a coefficient of 2 already swings a colour fully). */
export const SH_FENCE_MIN = 8;

/** Every this-many-th splat (by index) is in the sample of a scene of `count` splats. */
export function sampleStride(count: number): number {
  return Math.max(1, Math.ceil(count / ROBUST_SAMPLE_SPLATS));
}

/** Value at quantile `q` of a sorted array (nearest rank below), or NaN when empty. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  return n === 0 ? NaN : sorted[Math.floor(q * (n - 1))]!;
}

/** The DC fence [lo, hi] of one channel from its sorted sample ([-Inf, Inf] for no sample). */
export function dcFence(sorted: ArrayLike<number>): [number, number] {
  if (sorted.length === 0) return [-Infinity, Infinity];
  const q1 = quantile(sorted, 0.25), q3 = quantile(sorted, 0.75);
  const w = Math.max(DC_FENCE_IQR * (q3 - q1), DC_FENCE_MIN);
  return [q1 - w, q3 + w];
}

/** The higher-band SH fence of one coefficient and channel from its sorted sample of |v| (Inf for no sample). */
export function shFence(sortedAbs: ArrayLike<number>): number {
  if (sortedAbs.length === 0) return Infinity;
  return Math.max(SH_FENCE_Q85 * quantile(sortedAbs, 0.85), SH_FENCE_MIN);
}

/**
 * Collects the robust sample of colours as a scene is walked (in any slices):
 * call `add` for every splat index once, then `fences`.
 */
export class ColourSample {
  private readonly dc: number[][] = [[], [], []];
  private readonly rest: number[][];
  readonly stride: number;

  /** @param count - the scene's splats; @param K3 - SH values a splat (3 x coefficients) */
  constructor(count: number, private readonly K3: number) {
    this.stride = sampleStride(count);
    this.rest = Array.from({ length: Math.max(0, K3 - 3) }, () => []);
  }

  /** Takes splat `i` (values sh[base .. base + K3)) when it is in the sample. */
  add(i: number, sh: Float32Array, base: number): void {
    if (i % this.stride !== 0) return;
    for (let c = 0; c < 3; c++) {
      const v = sh[base + c]!;
      if (v - v === 0) this.dc[c]!.push(v);
    }
    for (let h = 3; h < this.K3; h++) {
      const v = Math.abs(sh[base + h]!);
      if (v - v === 0) this.rest[h - 3]!.push(v);
    }
  }

  /** The fences: per DC channel [lo, hi], per higher-band value (index h - 3) the largest |v|. */
  fences(): { dc: [number, number][]; rest: Float64Array } {
    const sorted = (a: number[]): Float64Array => Float64Array.from(a).sort();
    return { dc: this.dc.map((a) => dcFence(sorted(a))), rest: Float64Array.from(this.rest, (a) => shFence(sorted(a))) };
  }
}

/** What makes a splat's scale implausible in its scene (see the module comment). */
export interface ScaleLimit {
  centre: [number, number, number];
  /** Robust diagonal of the positions. */
  diagonal: number;
  /** Least limit, from the median scale. */
  floor: number;
}

/** The scale limit of a scene of `count` splats (positions and linear scales, 3 a splat). */
export function scaleLimitOf(positions: Float32Array, scales: Float32Array, count: number): ScaleLimit {
  const stride = sampleStride(count);
  const m = Math.ceil(count / stride);
  const axes = [new Float64Array(m), new Float64Array(m), new Float64Array(m)];
  const big = new Float64Array(m);
  let k = 0;
  for (let i = 0; i < count; i += stride, k++) {
    for (let a = 0; a < 3; a++) axes[a]![k] = positions[i * 3 + a]!;
    big[k] = Math.max(scales[i * 3]!, scales[i * 3 + 1]!, scales[i * 3 + 2]!);
  }
  const centre: [number, number, number] = [0, 0, 0];
  let d2 = 0;
  for (let a = 0; a < 3; a++) {
    const s = axes[a]!.subarray(0, k).sort();
    const lo = quantile(s, EXTENT_QUANTILE), hi = quantile(s, 1 - EXTENT_QUANTILE);
    centre[a] = (lo + hi) / 2;
    d2 += (hi - lo) ** 2;
  }
  const median = quantile(big.subarray(0, k).sort(), 0.5);
  const diagonal = Math.sqrt(d2);
  return { centre, diagonal: diagonal - diagonal === 0 ? diagonal : 0, floor: median > 0 && median < Infinity ? median * SCALE_MEDIAN_FACTOR : Infinity };
}

/** The largest scale plausible for a splat at (x, y, z) under `limit`. */
export function scaleLimitAt(limit: ScaleLimit, x: number, y: number, z: number): number {
  const d = Math.hypot(x - limit.centre[0], y - limit.centre[1], z - limit.centre[2]);
  return Math.max(SCALE_EXTENT_FACTOR * (limit.diagonal + d), limit.floor);
}

/** Splats of a cloud whose scale is implausible under its own limit (for tests and the fuzz's oracle). */
export function implausibleScales(cloud: SplatCloud, tolerance = 1): number {
  const limit = scaleLimitOf(cloud.positions, cloud.scales, cloud.count);
  const { positions: p, scales: s } = cloud;
  let n = 0;
  for (let i = 0; i < cloud.count; i++) {
    const m = Math.max(s[i * 3]!, s[i * 3 + 1]!, s[i * 3 + 2]!);
    if (m > tolerance * scaleLimitAt(limit, p[i * 3]!, p[i * 3 + 1]!, p[i * 3 + 2]!)) n++;
  }
  return n;
}
