/**
 * What "drawable" means, and the bookkeeping of what the loaders drop or
 * clamp to get there: limits on the values that reach the GPU, a tally of
 * reasons, and the growable output arrays every loader writes into.
 *
 * The limits are checked on the values as they will be stored (float32) and
 * used by the GPU, not on the doubles the loaders compute with: exp(89) is a
 * finite double but +Inf in float32.
 */
import { EmptySceneError, TooLargeError } from './errors';
import { cloudBytesPerSplat, formatBytes } from './budget';
import { memoryBudgetOf, type LoadOptions } from './load-options';
import { dcFence, quantile, sampleStride, SCALE_EXTENT_FACTOR, scaleLimitAt, scaleLimitOf, shFence } from './robust';
import { computeBounds, shCoeffCount, type SanitizeReport, type ShDegree, type SplatCloud } from './splat-cloud';

/**
 * Largest |coordinate| kept. Beyond it the projection (a 4x4 matrix times
 * the position, then squares in the covariance projection) can overflow
 * float32; no real scene is 10^15 units across.
 */
export const MAX_ABS_POSITION = 1e15;
/**
 * Largest linear scale kept (larger ones are clamped to it): 65504 is the
 * largest finite half float, so a later `pack2x16float` of scales stays
 * finite, and its square (the covariance) is far inside float32.
 */
export const MAX_SCALE = 65504;
/** Largest |SH coefficient| kept (clamped beyond): finite as a half float too. */
export const MAX_ABS_SH = 65504;

/** Why a splat was dropped or changed; the strings are the keys of SanitizeReport.reasons. */
export const REASONS = [
  'non-finite position', // dropped
  'position out of range', // dropped
  'non-finite scale', // dropped
  'scale overflow', // clamped to MAX_SCALE
  'non-finite opacity', // clamped to 0
  'degenerate rotation', // replaced by identity (zero, NaN or Inf quaternion)
  'non-finite sh', // NaN -> 0, +-Inf -> +-MAX_ABS_SH
  'sh out of range', // clamped to +-MAX_ABS_SH
  'non-finite colour', // point-cloud colour NaN/Inf -> mid grey
  'scale implausible', // dropped: larger than the scene's robust extent makes plausible (robust.ts)
  'colour outlier', // DC colour clamped to the scene's robust range (robust.ts)
  'sh outlier', // higher-band SH clamped to the scene's robust range (robust.ts)
] as const;
export type Reason = (typeof REASONS)[number];

export const R_POS_NONFINITE = 0;
export const R_POS_RANGE = 1;
export const R_SCALE_NONFINITE = 2;
export const R_SCALE_OVERFLOW = 3;
export const R_OPACITY = 4;
export const R_ROTATION = 5;
export const R_SH_NONFINITE = 6;
export const R_SH_RANGE = 7;
export const R_COLOUR = 8;
export const R_SCALE_IMPLAUSIBLE = 9;
export const R_COLOUR_OUTLIER = 10;
export const R_SH_OUTLIER = 11;

/** Counts of dropped and clamped splats, per reason. */
export class Tally {
  dropped = 0;
  clamped = 0;
  readonly perReason = new Float64Array(REASONS.length);
  /** Which output splats (by index) are counted in `clamped` already; allocated at the first clamp. */
  private marks: Uint8Array | null = null;

  /** One splat dropped for `reason`. */
  drop(reason: number): void {
    this.dropped++;
    this.perReason[reason]++;
  }

  /**
   * One splat kept with values changed; `mask` has bit r set for each reason r.
   * With `index` (the splat's index in the output), a splat clamped again by a
   * later pass counts once in `clamped` (its new reasons still count).
   */
  clamp(mask: number, index?: number): void {
    for (let r = 0; r < REASONS.length; r++) if (mask & (1 << r)) this.perReason[r]++;
    if (index !== undefined) {
      if (this.marks === null || this.marks.length <= index) {
        const grown = new Uint8Array(Math.max(index + 1, (this.marks?.length ?? 0) * 2, 1024));
        if (this.marks !== null) grown.set(this.marks);
        this.marks = grown;
      }
      if (this.marks[index] === 1) return;
      this.marks[index] = 1;
    }
    this.clamped++;
  }

  /** Whether output splat `index` is counted as clamped (by a clamp with an index). */
  isClamped(index: number): boolean {
    return this.marks !== null && index < this.marks.length && this.marks[index] === 1;
  }

  /**
   * Output splat `index` dropped for `reason` after it was written (the scene
   * pass of SplatSink.finish): no longer counted as clamped.
   */
  dropWritten(reason: number, index: number): void {
    this.drop(reason);
    if (this.isClamped(index)) {
      this.clamped--;
      this.marks![index] = 0;
    }
  }

  /** The marks follow a compaction: splat `from` is now at `to` (to <= from). */
  moveMark(from: number, to: number): void {
    if (this.marks === null || from >= this.marks.length) {
      if (this.marks !== null && to < this.marks.length) this.marks[to] = 0;
      return;
    }
    this.marks[to] = this.marks[from]!;
    if (to !== from) this.marks[from] = 0;
  }

  report(): SanitizeReport {
    const reasons: Record<string, number> = {};
    REASONS.forEach((name, r) => {
      if (this.perReason[r]! > 0) reasons[name] = this.perReason[r]!;
    });
    return { dropped: this.dropped, clamped: this.clamped, reasons };
  }
}

/** One line for people: "3 dropped (non-finite position: 3), 1 clamped (scale overflow: 1)", or "none". */
export function describeSanitized(r: SanitizeReport | undefined): string {
  if (r === undefined || (r.dropped === 0 && r.clamped === 0)) return 'none';
  const why = Object.entries(r.reasons).map(([k, v]) => `${k}: ${v}`).join(', ');
  return `${r.dropped} dropped, ${r.clamped} clamped (${why})`;
}

/** An SH value inside +-MAX_ABS_SH (NaN -> 0, beyond the limit -> the limit). */
export function clampSh(v: number): number {
  if (v <= MAX_ABS_SH && v >= -MAX_ABS_SH) return v;
  if (v !== v) return 0;
  return v > 0 ? MAX_ABS_SH : -MAX_ABS_SH;
}

/**
 * The output arrays of a load, written splat by splat. They grow (doubling)
 * up to the number of rows the header declares, so that a stream whose size
 * is unknown never allocates for rows that never arrive; `finish` trims them.
 */
export class SplatSink {
  count = 0;
  capacity = 0;
  readonly K3: number;
  positions = new Float32Array(0);
  scales = new Float32Array(0);
  rotations = new Float32Array(0);
  opacities = new Float32Array(0);
  sh = new Float32Array(0);

  /** Most splats the arrays may grow to under the load's memory budget. */
  private readonly maxCapacity: number;
  private readonly budget: number;

  /**
   * @param shDegree - SH degree of every splat
   * @param initial - rows to allocate now (the declared count when the bytes are known to be present)
   * @param file - for errors
   * @param options - `memoryBudget`: the arrays never grow past it (TooLargeError)
   */
  constructor(readonly shDegree: ShDegree, initial: number, readonly file: string, options?: LoadOptions) {
    this.K3 = shCoeffCount(shDegree) * 3;
    this.budget = memoryBudgetOf(options);
    this.maxCapacity = Math.floor(this.budget / cloudBytesPerSplat(shDegree));
    // A declared count is checked against the budget by the loader (checkMemory); a hint is only a start.
    this.grow(Math.min(initial, this.maxCapacity));
  }

  /** Makes room for `n` more splats. */
  reserve(n: number): void {
    const need = this.count + n;
    if (need > this.capacity) this.grow(Math.max(need, Math.min(this.capacity * 2, this.maxCapacity)));
  }

  private grow(capacity: number): void {
    const K3 = this.K3;
    if (capacity > this.maxCapacity) {
      throw new TooLargeError(
        this.file,
        `${capacity} splats of SH degree ${this.shDegree} need ${formatBytes(capacity * cloudBytesPerSplat(this.shDegree))}, more than the memory budget of ${formatBytes(this.budget)} (LoadOptions.memoryBudget)`,
      );
    }
    try {
      const positions = new Float32Array(capacity * 3);
      const scales = new Float32Array(capacity * 3);
      const rotations = new Float32Array(capacity * 4);
      const opacities = new Float32Array(capacity);
      const sh = new Float32Array(capacity * K3);
      const n = this.count;
      positions.set(this.positions.subarray(0, n * 3));
      scales.set(this.scales.subarray(0, n * 3));
      rotations.set(this.rotations.subarray(0, n * 4));
      opacities.set(this.opacities.subarray(0, n));
      sh.set(this.sh.subarray(0, n * K3));
      Object.assign(this, { positions, scales, rotations, opacities, sh, capacity });
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      throw new TooLargeError(this.file, `${capacity} splats of SH degree ${this.shDegree} need ${formatBytes(capacity * (14 + K3) * 4)} of arrays, more than this platform allocates (${e.message})`);
    }
  }

  /**
   * The finished cloud: arrays trimmed to the splats written, bounds, source
   * and the sanitize report.
   *
   * @throws EmptySceneError when no splat is left
   */
  finish(format: string, tally: Tally, declared: number): SplatCloud {
    this.containOutliers(tally);
    const n = this.count;
    if (n === 0) {
      const report = tally.report();
      throw new EmptySceneError(
        this.file,
        tally.dropped > 0
          ? `all ${tally.dropped} splats were dropped as undrawable (${Object.entries(report.reasons).map(([k, v]) => `${k}: ${v}`).join(', ')})`
          : `the file declares ${declared} splats: nothing to draw`,
      );
    }
    const trim = <T extends Float32Array>(a: T, per: number): Float32Array => (a.length === n * per ? a : a.slice(0, n * per));
    const positions = trim(this.positions, 3);
    return {
      count: n,
      shDegree: this.shDegree,
      positions,
      scales: trim(this.scales, 3),
      rotations: trim(this.rotations, 4),
      opacities: trim(this.opacities, 1),
      sh: trim(this.sh, this.K3),
      bounds: computeBounds(positions),
      source: { name: this.file, format },
      sanitized: tally.report(),
    };
  }

  /**
   * The scene pass (robust.ts), on the splats written: drops those whose scale
   * the scene's own robust extent makes implausible (compacting the arrays);
   * replaces colour values that carry no colour (+-MAX_ABS_SH: past the half-float
   * range or not finite in the file, clamped by the decoder) by the channel's
   * median (DC) or 0 (higher bands); then clamps DC colour and higher-band SH
   * outliers to the scene's robust fences, computed after that replacement (so
   * computing them again on the result gives the same fences). Counted in `tally`
   * ('scale implausible', 'colour outlier', 'sh outlier').
   */
  private containOutliers(tally: Tally): void {
    const n = this.count;
    if (n === 0) return;
    const { positions: p, scales: s, rotations: r, opacities: o, sh, K3 } = this;
    const limit = scaleLimitOf(p, s, n);
    // Every splat's limit is at least this: most splats pass without their distance computed.
    const least = Math.max(SCALE_EXTENT_FACTOR * limit.diagonal, limit.floor);
    let j = 0;
    for (let i = 0; i < n; i++) {
      const m = Math.max(s[i * 3]!, s[i * 3 + 1]!, s[i * 3 + 2]!);
      if (m > least && m > scaleLimitAt(limit, p[i * 3]!, p[i * 3 + 1]!, p[i * 3 + 2]!)) {
        tally.dropWritten(R_SCALE_IMPLAUSIBLE, i);
        continue;
      }
      if (j !== i) {
        p.copyWithin(j * 3, i * 3, i * 3 + 3);
        s.copyWithin(j * 3, i * 3, i * 3 + 3);
        r.copyWithin(j * 4, i * 4, i * 4 + 4);
        o[j] = o[i]!;
        sh.copyWithin(j * K3, i * K3, i * K3 + K3);
        tally.moveMark(i, j);
      }
      j++;
    }
    this.count = j;
    if (j === 0) return;
    // Values that carry no colour (+-MAX_ABS_SH) become the median of the channel's others (DC) or 0 (higher bands);
    // the fences are those of the values after that, from the same sample robust.ts takes.
    const stride = sampleStride(j);
    const samples: number[][] = Array.from({ length: K3 }, () => []);
    for (let i = 0; i < j; i += stride) {
      for (let c = 0; c < K3; c++) {
        const v = sh[i * K3 + c]!;
        if (v < MAX_ABS_SH && v > -MAX_ABS_SH) samples[c]!.push(c < 3 ? v : Math.abs(v));
      }
    }
    const sorted = samples.map((a) => Float64Array.from(a).sort());
    // As float32 (what the array will hold), so that the fences of the result are these.
    const none = sorted.map((a, c) => (c >= 3 || a.length === 0 ? 0 : Math.fround(quantile(a, 0.5))));
    const fences = sorted.map((a, c) => {
      // The sample with the replaced values put back, as the fences of the result will see it.
      const missing = Math.ceil(j / stride) - a.length;
      const full = missing === 0 ? a : Float64Array.from([...a, ...new Array<number>(missing).fill(none[c]!)]).sort();
      return c < 3 ? dcFence(full) : ([-shFence(full), shFence(full)] as [number, number]);
    });
    // Clamped to the fence rounded to float32 towards the inside, so that fences computed again match.
    const lo = fences.map(([l]) => inward(l, 1)), hi = fences.map(([, h]) => inward(h, -1));
    for (let i = 0; i < j; i++) {
      const b = i * K3;
      let flags = 0;
      for (let c = 0; c < K3; c++) {
        const v = sh[b + c]!;
        if (v >= lo[c]! && v <= hi[c]!) continue;
        const why = 1 << (c < 3 ? R_COLOUR_OUTLIER : R_SH_OUTLIER);
        if (v >= MAX_ABS_SH || v <= -MAX_ABS_SH) sh[b + c] = none[c]!;
        else sh[b + c] = v < lo[c]! ? lo[c]! : hi[c]!;
        flags |= why;
      }
      if (flags !== 0) tally.clamp(flags, i);
    }
  }
}

/** `v` as a float32 on the side of `dir` (1: not below v, -1: not above v): the nearest one inside a fence; infinities stay. */
function inward(v: number, dir: 1 | -1): number {
  if (!(v - v === 0)) return v;
  const f = Math.fround(v);
  if (dir === 1 ? f >= v : f <= v) return f;
  // One float32 step towards the inside.
  const buf = new Float32Array([f]);
  const bits = new Int32Array(buf.buffer);
  bits[0] += (f > 0) === (dir === 1) ? 1 : -1;
  if (f === 0) return dir === 1 ? 1.4e-45 : -1.4e-45;
  return buf[0]!;
}
