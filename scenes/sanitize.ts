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

/** Counts of dropped and clamped splats, per reason. */
export class Tally {
  dropped = 0;
  clamped = 0;
  readonly perReason = new Float64Array(REASONS.length);

  /** One splat dropped for `reason`. */
  drop(reason: number): void {
    this.dropped++;
    this.perReason[reason]++;
  }

  /** One splat kept with values changed; `mask` has bit r set for each reason r. */
  clamp(mask: number): void {
    this.clamped++;
    for (let r = 0; r < REASONS.length; r++) if (mask & (1 << r)) this.perReason[r]++;
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

  /**
   * @param shDegree - SH degree of every splat
   * @param initial - rows to allocate now (the declared count when the bytes are known to be present)
   * @param file - for errors
   */
  constructor(readonly shDegree: ShDegree, initial: number, readonly file: string) {
    this.K3 = shCoeffCount(shDegree) * 3;
    this.grow(initial);
  }

  /** Makes room for `n` more splats. */
  reserve(n: number): void {
    const need = this.count + n;
    if (need > this.capacity) this.grow(Math.max(need, this.capacity * 2));
  }

  private grow(capacity: number): void {
    const K3 = this.K3;
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
      throw new TooLargeError(this.file, `${capacity} splats of SH degree ${this.shDegree} need ${Math.round((capacity * (14 + K3) * 4) / 2 ** 20)} MiB of arrays, more than this platform allocates (${e.message})`);
    }
  }

  /**
   * The finished cloud: arrays trimmed to the splats written, bounds, source
   * and the sanitize report.
   *
   * @throws EmptySceneError when no splat is left
   */
  finish(format: string, tally: Tally, declared: number): SplatCloud {
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
}
