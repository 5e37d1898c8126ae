/**
 * Bounds of a scene's dense body, for framing the first view and the F key.
 *
 * Trained scenes carry floaters: splats far outside the object, sometimes many of
 * them (a few percent of a scene, spread over a box a hundred times the object's
 * size). Per-axis percentiles (camera.ts robustBounds) stop working once the
 * floaters are more than the percentile cut, and the full bounds frame empty
 * space with the object a dot in the middle. Here the body is found from where
 * most splats are instead:
 *   1. the per-axis median is a centre no minority of floaters can move far;
 *   2. the median distance to it is the body's typical radius; points beyond
 *      `reach` times it are floaters, unless the body goes on beyond that: the
 *      radius grows by sqrt(2) steps while each step's shell still holds a real
 *      share of the points (`shellShare`; a body with a dense core and a wide,
 *      sparser rest, where the median is the core's), up to `maxGrowth` medians;
 *   3. once more from the kept points (the first centre may sit off a lopsided body);
 *   4. the bounds are per-axis `lo`/`hi` percentiles of the points kept, each
 *      point widened by its splat's own visible reach when the splats' scales and
 *      opacities are given (a scene of few, large splats shows well beyond its
 *      centres: framing the centres alone put the camera inside such a blob).
 * A strided sample of at most `maxSamples` points keeps it cheap (milliseconds for 6M
 * splats; medians and percentiles by selection, not sorting). Points with a
 * non-finite coordinate are skipped. Pure, no DOM.
 */
import type { Bounds } from '../../scenes/splat-cloud';
import { fitPose, sampleFinite, type CameraPose, type Vec3 } from './camera';

export interface DenseBoundsOptions {
  /** Points farther than this many median distances from the centre are floaters (default 5: a standing figure's feet are ~3 median distances from its torso). */
  reach?: number;
  /** Lower / upper per-axis percentile of the kept points (default 0.002 / 0.998: a figure's boots are under 1% of its splats). */
  lo?: number;
  hi?: number;
  /** Points sampled at most (default 40,000: ~8 ms warm, ~60 ms JIT-cold, on this 2-core machine). */
  maxSamples?: number;
  /** The least share of the points a sqrt(2) shell beyond `reach` must hold for the body to go on (default 0.005). */
  shellShare?: number;
  /** The body's radius grows to this many median distances at most (default 16). */
  maxGrowth?: number;
  /** The splats' scales (3 a splat) and opacities: the bounds then cover what the splats show, not only their centres. */
  splats?: SplatExtents;
}

/** What {@link splatReach} needs of a scene's splats (a SplatCloud has both). */
export interface SplatExtents {
  /** Linear scales, 3 a splat. */
  scales: Float32Array;
  /** Opacities in [0, 1], 1 a splat. */
  opacities: Float32Array;
}

/** Alpha under which a splat's edge no longer shows (framing only). */
const VISIBLE_ALPHA = 0.1;

/**
 * How far from its centre a splat shows: its largest axis times the distance (in
 * sigmas) where its alpha, opacity * exp(-d^2 / 2), falls to VISIBLE_ALPHA: 2.15 sigma
 * for an opaque splat, nothing for one fainter than that. 0 for non-finite input.
 */
export function splatReach(maxScale: number, opacity: number): number {
  if (!(opacity > VISIBLE_ALPHA) || !(maxScale > 0) || !Number.isFinite(maxScale)) return 0;
  return maxScale * Math.sqrt(2 * Math.log(Math.min(1, opacity) / VISIBLE_ALPHA));
}

/**
 * How far the body reaches from its centre, in median distances `r`: `reach`, or
 * farther while each sqrt(2) shell beyond holds at least `share` of the `n` points
 * (the sparse part of a body goes on; floaters thin out at once). `dist` are the
 * points' distances to the centre.
 */
export function bodyRadius(dist: Float64Array, n: number, r: number, reach: number, share: number, maxGrowth: number): number {
  if (!(r > 0)) return reach * r;
  const bins = Math.ceil(2 * Math.log2(maxGrowth / reach));
  if (bins <= 0) return reach * r;
  const hist = new Uint32Array(bins);
  const base = reach * r;
  for (let i = 0; i < n; i++) {
    const d = dist[i];
    if (!(d > base)) continue;
    const b = Math.floor(2 * Math.log2(d / base));
    if (b < bins) hist[b]++;
  }
  let j = 0;
  while (j < bins && hist[j] >= share * n) j++;
  return Math.min(maxGrowth * r, base * 2 ** (j / 2));
}

/**
 * Puts the `k`-th smallest of `a[from, to)` at `a[k]`, smaller-or-equal values
 * before it and greater-or-equal after (Hoare's selection, median-of-three pivots):
 * linear time on average, where a sort of the 40,000 samples took ~4 ms, ten of
 * them a frame's worth of the page's thread.
 */
export function selectKth(a: Float64Array, k: number, from: number, to: number): number {
  let lo = from;
  let hi = to - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // Median of three as the pivot: sorted inputs stay linear.
    if (a[mid] < a[lo]) swap(a, mid, lo);
    if (a[hi] < a[lo]) swap(a, hi, lo);
    if (a[hi] < a[mid]) swap(a, hi, mid);
    const pivot = a[mid];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) swap(a, i++, j--);
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k];
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/** Median of the first `n` values of `scratch` (reordered in place). */
function medianOf(scratch: Float64Array, n: number): number {
  const upper = selectKth(scratch, n >> 1, 0, n);
  if (n % 2) return upper;
  // The lower middle is the largest of the values selected before the upper one.
  let lower = -Infinity;
  for (let i = 0; i < n >> 1; i++) if (scratch[i] > lower) lower = scratch[i];
  return (lower + upper) / 2;
}

/** Copies the kept entries of `values` into `scratch`; returns how many. */
function gather(values: Float64Array, keep: Uint8Array, scratch: Float64Array): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) if (keep[i]) scratch[m++] = values[i];
  return m;
}

/** Bounds of the dense body of a point set (x, y, z per point); see the module comment. */
export function denseBounds(positions: Float32Array, opts: DenseBoundsOptions = {}): Bounds {
  const steps = denseBoundsSteps(positions, opts);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/**
 * {@link denseBounds} as a generator that pauses (yields) between its passes over the
 * sample (five, each a few ms, tens the first time a page runs them: JIT-cold), so that
 * a page can run each in a task of its own; the bounds are its return value.
 */
export function* denseBoundsSteps(positions: Float32Array, opts: DenseBoundsOptions = {}): Generator<void, Bounds, void> {
  const reach = opts.reach ?? 5;
  const lo = opts.lo ?? 0.002;
  const hi = opts.hi ?? 0.998;
  const maxSamples = opts.maxSamples ?? 40_000;
  const shellShare = opts.shellShare ?? 0.005;
  const maxGrowth = opts.maxGrowth ?? 16;
  const { axes, n, extent } = sampleBody(positions, maxSamples, opts.splats);
  if (n === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  for (let a = 0; a < 3; a++) axes[a] = axes[a].subarray(0, n);
  const scratch = new Float64Array(n);
  const dist = new Float64Array(n);
  let keep = new Uint8Array(n).fill(1);
  let radius = Infinity;
  yield;
  for (let round = 0; round < 2; round++) {
    const c: Vec3 = [0, 0, 0];
    for (let a = 0; a < 3; a++) c[a] = medianOf(scratch, gather(axes[a], keep, scratch));
    for (let i = 0; i < n; i++) {
      const dx = axes[0][i] - c[0];
      const dy = axes[1][i] - c[1];
      const dz = axes[2][i] - c[2];
      dist[i] = Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
    yield;
    const r = medianOf(scratch, gather(dist, keep, scratch));
    radius = bodyRadius(dist, n, r, reach, shellShare, maxGrowth);
    const next = new Uint8Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (dist[i] <= radius || r === 0) {
        next[i] = 1;
        m++;
      }
    }
    if (m === 0) break;
    keep = next;
    yield;
  }

  const min: Vec3 = [0, 0, 0];
  const max: Vec3 = [0, 0, 0];
  // A splat wider than the body's radius is not the body's (a sky or floor splat seen through it).
  const widen = extent ? extent.map((e) => Math.min(e, Number.isFinite(radius) ? radius : e)) : null;
  for (let a = 0; a < 3; a++) {
    const k = gather(axes[a], keep, scratch);
    const iLo = Math.floor(lo * (k - 1));
    const iHi = Math.ceil(hi * (k - 1));
    if (!widen) {
      min[a] = selectKth(scratch, iLo, 0, k);
      // Everything after iLo is >= it: the upper percentile is among them.
      max[a] = selectKth(scratch, iHi, iLo, k);
      continue;
    }
    // Each point's near and far edge along the axis: the percentiles of each.
    let m = 0;
    for (let i = 0; i < n; i++) if (keep[i]) scratch[m++] = axes[a][i] - widen[i];
    min[a] = selectKth(scratch, iLo, 0, k);
    m = 0;
    for (let i = 0; i < n; i++) if (keep[i]) scratch[m++] = axes[a][i] + widen[i];
    max[a] = selectKth(scratch, iHi, 0, k);
  }
  return { min, max };
}

/**
 * Every stride-th point with finite coordinates (at most about `maxSamples`), an
 * array an axis, and with `splats` each one's {@link splatReach}.
 */
function sampleBody(positions: Float32Array, maxSamples: number, splats?: SplatExtents): { axes: [Float64Array, Float64Array, Float64Array]; n: number; extent: Float64Array | null } {
  const reach = splats
    ? (i: number) => {
        const s = splats.scales;
        return splatReach(Math.max(s[3 * i] ?? 0, s[3 * i + 1] ?? 0, s[3 * i + 2] ?? 0), splats.opacities[i] ?? 0);
      }
    : undefined;
  const { axes, n, values } = sampleFinite(positions, maxSamples, reach);
  return { axes, n, extent: values ? values.subarray(0, n) : null };
}

/**
 * The direction to look at the body from, "a side that shows it": when the body is
 * clearly longer one way than the other across `up` (standard deviations differ by
 * more than `ratio`, 2.5 by default: a street, a wall, a row of objects; not a person,
 * whose front and back this cannot tell apart), look along its thin horizontal axis
 * so that its broad side faces the camera instead of framing it end-on; otherwise `forward`
 * (the up axis' default, the COLMAP camera's own forward). Of the two senses of the
 * thin axis, the one closer to `forward`. Points outside `bounds` are ignored.
 */
export function broadSideForward(positions: Float32Array, bounds: Bounds, up: Vec3, forward: Vec3, ratio = 2.5, maxSamples = 40_000): Vec3 {
  const r: Vec3 = [forward[1] * up[2] - forward[2] * up[1], forward[2] * up[0] - forward[0] * up[2], forward[0] * up[1] - forward[1] * up[0]];
  const c = [0, 1, 2].map((a) => (bounds.min[a] + bounds.max[a]) / 2);
  const count = Math.floor(positions.length / 3);
  const stride = Math.max(1, Math.ceil(count / maxSamples));
  let n = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let i = 0; i < count; i += stride) {
    const p = [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
    let inside = true;
    for (let k = 0; k < 3; k++) if (!(p[k] >= bounds.min[k] && p[k] <= bounds.max[k])) inside = false;
    if (!inside) continue;
    const d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
    const a = d[0] * forward[0] + d[1] * forward[1] + d[2] * forward[2];
    const b = d[0] * r[0] + d[1] * r[1] + d[2] * r[2];
    saa += a * a;
    sbb += b * b;
    sab += a * b;
    n++;
  }
  if (n < 3) return forward;
  saa /= n;
  sbb /= n;
  sab /= n;
  const mean = (saa + sbb) / 2;
  const diff = Math.sqrt(((saa - sbb) / 2) ** 2 + sab * sab);
  const major = mean + diff;
  const minor = mean - diff;
  if (!(minor > 0) || Math.sqrt(major / minor) <= ratio) return forward;
  // The major axis is at angle t in the (forward, right) plane; the thin axis is perpendicular.
  const t = 0.5 * Math.atan2(2 * sab, saa - sbb);
  let ma = -Math.sin(t);
  let mb = Math.cos(t);
  if (ma < 0 || (ma === 0 && mb < 0)) {
    ma = -ma;
    mb = -mb;
  }
  // Within 10 degrees of the default: keep the default (the view the scene was captured in).
  if (ma > Math.cos((10 * Math.PI) / 180)) return forward;
  return [ma * forward[0] + mb * r[0], ma * forward[1] + mb * r[1], ma * forward[2] + mb * r[2]];
}

/** How a new scene is first framed, from its points: its dense body, and the direction to look at it from. */
export interface BodyView {
  body: Bounds;
  /** broadSideForward of the body for `up`. */
  forward: Vec3;
  up: Vec3;
}

/**
 * {@link denseBounds} (of the splats' visible extent when `splats` is given: a
 * SplatCloud's scales and opacities) then {@link broadSideForward} (the two walks
 * over a scene's points that framing it takes) as a generator that pauses between passes, like
 * {@link denseBoundsSteps}; the view is its return value.
 */
export function* bodyViewSteps(positions: Float32Array, up: Vec3, forward: Vec3, splats?: SplatExtents): Generator<void, BodyView, void> {
  const body = yield* denseBoundsSteps(positions, splats ? { splats } : {});
  yield;
  return { body, forward: broadSideForward(positions, body, up, forward), up };
}

/**
 * The first view of a scene, at once (no pauses): its body from {@link bodyViewSteps},
 * fitted into a `fovyDeg` / `aspect` view (camera.ts fitPose), as the page frames a
 * new scene; for headless renders and tests.
 */
export function firstViewPose(cloud: SplatExtents & { positions: Float32Array }, up: Vec3, forward: Vec3, fovyDeg: number, aspect: number): CameraPose {
  const steps = bodyViewSteps(cloud.positions, up, forward, cloud);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return fitPose(r.value.body, up, fovyDeg, aspect, r.value.forward);
}
