import { shCoeffCount } from '../../scenes/splat-cloud';

/**
 * How a scene is kept on the GPU (GpuScene):
 * - 'full': today's layout of before issue 17: centres and opacity as f32 (16 B),
 *   the 3D covariance as f32 (32 B), the SH as halves (96 B at SH3): 144 B a splat at SH3;
 * - 'compact' (the default): 72 B a splat at SH3, see renderer/gpu-scene/compact-pack.ts.
 * `?precision=full` in the page, `--precision full` in `npm run render` pick the full one.
 */
export type ScenePrecision = 'full' | 'compact';

export const PRECISIONS: readonly ScenePrecision[] = ['full', 'compact'];
export const DEFAULT_PRECISION: ScenePrecision = 'compact';

/** A precision from a flag or URL value. @throws Error naming `what` and the choices */
export function parsePrecision(value: string, what: string): ScenePrecision {
  if ((PRECISIONS as readonly string[]).includes(value)) return value as ScenePrecision;
  throw new Error(`${what} ${value}: expected one of ${PRECISIONS.join(', ')}`);
}

/** u32 words a splat's SH takes as f16 pairs (GpuScene.shStride of a full scene). */
export function shWordsPerSplat(degree: number): number {
  return Math.ceil((shCoeffCount(degree) * 3) / 2);
}

/** Bytes a splat takes in each of the scene's buffers (GpuScene), by precision and SH degree. */
export interface SceneLayout {
  /** `centers`: 16 in both. */
  centerBytes: number;
  /** `covs`: 32 (full: six f32 + max scale + pad) or 8 (compact: rotation + log-scales). */
  covBytes: number;
  /** u32 words of the SH array a splat (Frame.shStride). */
  shStride: number;
}

/**
 * Full: the SH as f16 pairs. Compact: a byte stream of opacity then the SH's higher
 * bands (3 bytes a coefficient past the DC term), 4 bytes a word.
 */
export function sceneLayout(degree: number, precision: ScenePrecision): SceneLayout {
  const coeffs = shCoeffCount(degree) * 3;
  if (precision === 'full') return { centerBytes: 16, covBytes: 32, shStride: Math.ceil(coeffs / 2) };
  return { centerBytes: 16, covBytes: 8, shStride: Math.ceil((1 + coeffs - 3) / 4) };
}

/** The resident scene buffers' bytes a splat (what `info --json` reports as gpu.sceneBytesPerSplat). */
export function sceneBytesPerSplat(degree: number, precision: ScenePrecision): number {
  const l = sceneLayout(degree, precision);
  return l.centerBytes + l.covBytes + 4 * l.shStride;
}
