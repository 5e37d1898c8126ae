/**
 * Options every scene loader takes: the highest SH degree to keep, and the
 * memory a load may take. Dropping the higher bands at parse time saves their
 * memory on the CPU (the loader never allocates them) as well as on the GPU; it
 * is the way out when a scene's SH does not fit the adapter
 * (renderer/frame/gpu-budget.ts).
 */
import { shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';

export interface LoadOptions {
  /**
   * Keep SH bands up to this degree (0..3) and drop the rest while parsing.
   * Default: keep what the file has.
   */
  maxShDegree?: ShDegree;
  /**
   * Most bytes a load may need: the cloud's arrays (4 bytes a value: 14 + 3 x the SH
   * coefficients a splat) plus what its decoding holds at once (inflated SPZ
   * attributes, decoded SOG textures). A file whose declared splat count needs
   * more is refused (TooLargeError naming the count and the budget) before its
   * arrays are allocated. Default {@link DEFAULT_MEMORY_BUDGET} (4 GB).
   */
  memoryBudget?: number;
}

/** The default memory budget of a load: 4 GB (4e9 bytes). */
export const DEFAULT_MEMORY_BUDGET = 4e9;

/** The budget a load works under: `options.memoryBudget` when it is a positive number, else the default. */
export function memoryBudgetOf(options: LoadOptions | undefined): number {
  const b = options?.memoryBudget;
  return typeof b === 'number' && b > 0 ? b : DEFAULT_MEMORY_BUDGET;
}

/** The degree a loader keeps for a file of `fileDegree` under `options`. */
export function keptShDegree(fileDegree: ShDegree, options: LoadOptions | undefined): ShDegree {
  const max = options?.maxShDegree;
  return max === undefined || max >= fileDegree ? fileDegree : max;
}

/**
 * Parses a user's byte count (`--memory-budget 600MB`): a positive number, with an
 * optional unit KB, MB, GB (powers of 1000) or KiB, MiB, GiB.
 * @throws RangeError naming `what` otherwise
 */
export function parseBytes(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?\s*$/i.exec(text);
  const unit: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30 };
  const n = m ? Number(m[1]) * unit[(m[2] ?? 'b').toLowerCase()]! : NaN;
  if (!(n > 0 && n < Infinity)) throw new RangeError(`${what} ${text}: expected a positive byte count, e.g. 600MB or 4GB`);
  return n;
}

/**
 * Parses a user's SH degree limit (`?sh=N`, `--sh N`): an integer 0..3.
 * @throws RangeError naming `what` otherwise
 */
export function parseShDegree(text: string, what: string): ShDegree {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 0 || n > 3) throw new RangeError(`${what} ${text}: expected an SH degree 0, 1, 2 or 3`);
  return n as ShDegree;
}

/**
 * A cloud made in memory (the generator) cut to `options.maxShDegree`: a copy of
 * its lower SH bands, the other arrays shared. Files drop the bands while parsing
 * instead; this is for clouds that never were a file. The same cloud when nothing is cut.
 */
export function withShDegree(cloud: SplatCloud, options: LoadOptions | undefined): SplatCloud {
  const degree = keptShDegree(cloud.shDegree, options);
  if (degree === cloud.shDegree) return cloud;
  const from = shCoeffCount(cloud.shDegree) * 3;
  const to = shCoeffCount(degree) * 3;
  const sh = new Float32Array(cloud.count * to);
  for (let i = 0; i < cloud.count; i++) sh.set(cloud.sh.subarray(i * from, i * from + to), i * to);
  return { ...cloud, shDegree: degree, sh };
}
