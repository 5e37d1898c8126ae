/**
 * Options every scene loader takes. Today one: the highest SH degree to keep.
 * Dropping the higher bands at parse time saves their memory on the CPU (the
 * loader never allocates them) as well as on the GPU; it is the way out when a
 * scene's SH does not fit the adapter (renderer/frame/gpu-budget.ts).
 */
import { shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';

export interface LoadOptions {
  /**
   * Keep SH bands up to this degree (0..3) and drop the rest while parsing.
   * Default: keep what the file has.
   */
  maxShDegree?: ShDegree;
}

/** The degree a loader keeps for a file of `fileDegree` under `options`. */
export function keptShDegree(fileDegree: ShDegree, options: LoadOptions | undefined): ShDegree {
  const max = options?.maxShDegree;
  return max === undefined || max >= fileDegree ? fileDegree : max;
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
