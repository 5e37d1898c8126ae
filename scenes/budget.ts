/**
 * What a load may take: memory (LoadOptions.memoryBudget, default 4 GB) and
 * inflation (at most MAX_INFLATE_RATIO times the compressed bytes), checked on
 * the sizes a file declares before anything is allocated or inflated, so that a
 * small hostile file (a header declaring 2^32 - 1 points, a gzip of zeros, ZSTD
 * run-length frames) ends in one typed line instead of gigabytes.
 */
import { CompressionBombError, TooLargeError, type SceneLoadErrorDetails } from './errors';
import { memoryBudgetOf, type LoadOptions } from './load-options';
import { shCoeffCount } from './splat-cloud';

/**
 * Largest inflation accepted: inflated bytes past this many times the compressed
 * bytes are a decompression bomb. Deflate reaches ~1032x on zeros; real scene
 * data (positions, colours, rotations) compresses a few times at most.
 */
export const MAX_INFLATE_RATIO = 1000;
/** Bytes any compressed input may inflate to whatever its size (tiny files, headers). */
export const INFLATE_SLACK = 1 << 16;

/** Bytes a SplatCloud holds a splat at an SH degree: 14 floats (position, scale, rotation, opacity) and 3 per SH coefficient. */
export function cloudBytesPerSplat(shDegree: number): number {
  return (14 + shCoeffCount(shDegree) * 3) * 4;
}

/** A byte count for people: "4 GB", "3.42 GB", "512 MB", "12 KB" (decimal units; a checked, finite count). */
export function formatBytes(n: number): string {
  if (!(n >= 0 && n < Infinity)) return 'an unbounded number of bytes';
  if (n >= 1e9) return `${+(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${+(n / 1e6).toFixed(2)} MB`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)} KB`;
  return `${n} bytes`;
}

/**
 * Refuses a scene whose declared splats (and `extraBytes` of decoding it holds at
 * once: inflated attributes, decoded textures) need more than the load's memory budget.
 *
 * @param what - what declares the count, e.g. "the SPZ header", "meta.json"
 * @throws TooLargeError naming the file, the count and the budget
 */
export function checkMemory(file: string, count: number, shDegree: number, options: LoadOptions | undefined, what: string, extraBytes = 0, details: SceneLoadErrorDetails = {}): void {
  const budget = memoryBudgetOf(options);
  const need = count * cloudBytesPerSplat(shDegree) + extraBytes;
  if (need <= budget) return;
  const extra = extraBytes > 0 ? ` (${formatBytes(extraBytes)} of it to decode them)` : '';
  throw new TooLargeError(
    file,
    `${what}: ${count} splats of SH degree ${shDegree} need ${formatBytes(need)}${extra}, more than the memory budget of ${formatBytes(budget)} (LoadOptions.memoryBudget)`,
    details,
  );
}

/** The most bytes `compressed` bytes may inflate to (MAX_INFLATE_RATIO times, plus INFLATE_SLACK). */
export function inflationLimit(compressed: number): number {
  return compressed * MAX_INFLATE_RATIO + INFLATE_SLACK;
}

/**
 * Refuses inflation past MAX_INFLATE_RATIO: `inflated` bytes (declared, or
 * inflated so far) from `compressed` bytes (the container's, or consumed so far).
 *
 * @param what - whose bytes, e.g. "the gzip stream", "zip entry 'meta.json'"
 * @throws CompressionBombError
 */
export function checkInflation(file: string, what: string, inflated: number, compressed: number, details: SceneLoadErrorDetails = {}): void {
  if (inflated <= inflationLimit(compressed)) return;
  throw new CompressionBombError(
    file,
    `${what}: ${inflated} bytes inflated from ${compressed} compressed bytes, more than ${MAX_INFLATE_RATIO}x: refused as a decompression bomb`,
    details,
  );
}
