/**
 * From raw 3DGS vertex properties to the activated, structure-of-arrays
 * SplatCloud: property lookup by name, SH layout, and the per-splat kernel
 * shared by every route (binary fast path, DataView and ASCII readers, .splat, .spz).
 */
import { BadShError, MissingPropertyError } from './errors';
import { clampSh, MAX_ABS_POSITION, MAX_ABS_SH, MAX_SCALE, R_OPACITY, R_POS_NONFINITE, R_POS_RANGE, R_ROTATION, R_SCALE_NONFINITE, R_SCALE_OVERFLOW, R_SH_NONFINITE, R_SH_RANGE, type SplatSink, type Tally } from './sanitize';
import { keptShDegree, type LoadOptions } from './load-options';
import { shCoeffCount, type ShDegree } from './splat-cloud';

/** Properties every 3DGS splat PLY has (normals are optional and ignored). */
export const REQUIRED_SPLAT_PROPERTIES = [
  'x', 'y', 'z',
  'f_dc_0', 'f_dc_1', 'f_dc_2',
  'opacity',
  'scale_0', 'scale_1', 'scale_2',
  'rot_0', 'rot_1', 'rot_2', 'rot_3',
] as const;

/** Number of `f_rest_*` properties for each SH degree 0..3. */
const F_REST_COUNT_TO_DEGREE: ReadonlyMap<number, ShDegree> = new Map([[0, 0], [9, 1], [24, 2], [45, 3]]);

const F_REST = /^f_rest_(\d+)$/;

/**
 * Whether a vertex element with these property names is meant to be a
 * Gaussian splat (it has at least one splat-only property), as opposed to a
 * plain point cloud. A splat element that misses some properties is then an
 * error rather than silently a point cloud.
 */
export function looksLikeSplats(names: readonly string[]): boolean {
  return names.some((n) => (n !== 'x' && n !== 'y' && n !== 'z' && (REQUIRED_SPLAT_PROPERTIES as readonly string[]).includes(n)) || F_REST.test(n));
}

/**
 * Indices of the splat properties in a row of floats (one float per
 * property, in the element's declaration order).
 */
export interface SplatPropertyIndex {
  shDegree: ShDegree;
  x: number; y: number; z: number;
  opacity: number;
  scale: [number, number, number];
  /** rot_0..rot_3 (w, x, y, z). */
  rot: [number, number, number, number];
  /**
   * Source index of each SH value in SplatCloud's coefficient-major order:
   * entry k * 3 + c is coefficient k (0 = f_dc) of channel c. The file is
   * channel-major for f_rest (f_rest_{c * (K - 1) + k - 1}), so this is where
   * the transposition happens.
   */
  sh: Int32Array;
}

/**
 * The index of the loaders' own row layout, used by formats that are not
 * PLY (.splat, .spz) to reach the shared kernel: x, y, z, log-scale x3,
 * rotation w, x, y, z, opacity logit, then the SH coefficients in
 * SplatCloud's coefficient-major order.
 */
export function canonicalRowIndex(shDegree: ShDegree): { index: SplatPropertyIndex; stride: number } {
  const K3 = shCoeffCount(shDegree) * 3;
  const sh = new Int32Array(K3);
  for (let k = 0; k < K3; k++) sh[k] = 11 + k;
  return { index: { shDegree, x: 0, y: 1, z: 2, scale: [3, 4, 5], rot: [6, 7, 8, 9], opacity: 10, sh }, stride: 11 + K3 };
}

/**
 * Finds the splat properties by name and the SH degree from the number of
 * `f_rest_*` properties.
 *
 * @param names - property names of the vertex element, in declaration order
 * @param file - file name, for errors
 * @param options - `maxShDegree` drops the higher bands from the index (their
 *   properties are still required, as the file's own degree says)
 * @throws SceneLoadError `missing-property` naming the first missing property,
 *   `bad-sh` when the f_rest count is not 0, 9, 24 or 45
 */
export function resolveSplatProperties(names: readonly string[], file: string, options?: LoadOptions): SplatPropertyIndex {
  const index = new Map<string, number>();
  names.forEach((n, i) => index.set(n, i));
  const need = (name: string): number => {
    const i = index.get(name);
    if (i === undefined) {
      throw new MissingPropertyError(file, `the vertex element has no property '${name}', which a Gaussian splat PLY needs`, { element: 'vertex', property: name });
    }
    return i;
  };
  for (const name of REQUIRED_SPLAT_PROPERTIES) need(name);

  const restCount = names.filter((n) => F_REST.test(n)).length;
  const shDegree = F_REST_COUNT_TO_DEGREE.get(restCount);
  if (shDegree === undefined) {
    throw new BadShError(
      file,
      `the vertex element has ${restCount} f_rest_* properties; a whole SH degree 1, 2 or 3 needs 9, 24 or 45 (or none for degree 0)`,
      { property: 'f_rest_*' },
    );
  }
  const K = shCoeffCount(shDegree);
  const sh = new Int32Array(K * 3);
  for (let c = 0; c < 3; c++) {
    sh[c] = need(`f_dc_${c}`);
    for (let k = 1; k < K; k++) sh[k * 3 + c] = need(`f_rest_${c * (K - 1) + k - 1}`);
  }
  // Coefficient-major: the first K' * 3 entries are the bands up to the kept degree.
  const kept = keptShDegree(shDegree, options);
  return {
    shDegree: kept,
    x: need('x'), y: need('y'), z: need('z'),
    opacity: need('opacity'),
    scale: [need('scale_0'), need('scale_1'), need('scale_2')],
    rot: [need('rot_0'), need('rot_1'), need('rot_2'), need('rot_3')],
    sh: kept === shDegree ? sh : sh.slice(0, shCoeffCount(kept) * 3),
  };
}

/**
 * The per-splat kernel: reads raw 3DGS values from interleaved float rows and
 * appends activated SoA splats to `sink` (which must have room for `rows`).
 *
 * Activations: opacity = sigmoid(logit) (+Inf -> 1, -Inf -> 0); scale =
 * exp(log-scale); rotation normalised.
 * What cannot be drawn is dropped or clamped and counted in `tally` (see
 * sanitize.ts): a NaN/Inf or out-of-range position or a NaN log-scale drops
 * the splat; a scale whose exp overflows MAX_SCALE (in float32 that is
 * log-scale > ~88.7 already) is clamped; a NaN opacity becomes 0; a zero or
 * non-finite quaternion becomes the identity; SH values are clamped to
 * +-MAX_ABS_SH (NaN -> 0).
 *
 * @param src - rows of `stride` floats
 * @param at - float index of the first row in `src`
 * @param stride - floats per row
 * @param rows - number of rows
 * @param ix - where each property sits in a row
 * @returns the number of splats appended
 */
export function decodeSplatRows(src: Float32Array, at: number, stride: number, rows: number, ix: SplatPropertyIndex, sink: SplatSink, tally: Tally): number {
  const K3 = sink.K3;
  const { positions, scales, rotations, opacities, sh } = sink;
  const { x: ox, y: oy, z: oz, opacity: oo } = ix;
  const [os0, os1, os2] = ix.scale;
  const [or0, or1, or2, or3] = ix.rot;
  const shIx = ix.sh;
  const first = sink.count;
  let j = first;
  // Limits as locals, so the hot loop compares against constants.
  const maxP = MAX_ABS_POSITION, maxS = MAX_SCALE, maxSh = MAX_ABS_SH;

  for (let i = 0; i < rows; i++) {
    const b = at + i * stride;
    const x = src[b + ox]!, y = src[b + oy]!, z = src[b + oz]!;
    // One comparison chain per axis is false for NaN as well as for too large values.
    if (!(x <= maxP && x >= -maxP && y <= maxP && y >= -maxP && z <= maxP && z >= -maxP)) {
      tally.drop(x - x + (y - y) + (z - z) === 0 ? R_POS_RANGE : R_POS_NONFINITE);
      continue;
    }
    const l0 = src[b + os0]!, l1 = src[b + os1]!, l2 = src[b + os2]!;
    if (l0 !== l0 || l1 !== l1 || l2 !== l2) {
      tally.drop(R_SCALE_NONFINITE);
      continue;
    }
    let flags = 0;
    let s0 = Math.exp(l0), s1 = Math.exp(l1), s2 = Math.exp(l2);
    if (!(s0 <= maxS && s1 <= maxS && s2 <= maxS)) {
      if (!(s0 <= maxS)) s0 = maxS;
      if (!(s1 <= maxS)) s1 = maxS;
      if (!(s2 <= maxS)) s2 = maxS;
      flags |= 1 << R_SCALE_OVERFLOW;
    }
    positions[j * 3] = x;
    positions[j * 3 + 1] = y;
    positions[j * 3 + 2] = z;
    scales[j * 3] = s0;
    scales[j * 3 + 1] = s1;
    scales[j * 3 + 2] = s2;

    const qw = src[b + or0]!, qx = src[b + or1]!, qy = src[b + or2]!, qz = src[b + or3]!;
    const len2 = qw * qw + qx * qx + qy * qy + qz * qz;
    if (len2 > 0 && len2 < Infinity) {
      const inv = 1 / Math.sqrt(len2);
      rotations[j * 4] = qw * inv;
      rotations[j * 4 + 1] = qx * inv;
      rotations[j * 4 + 2] = qy * inv;
      rotations[j * 4 + 3] = qz * inv;
    } else {
      rotations[j * 4] = 1;
      rotations[j * 4 + 1] = 0;
      rotations[j * 4 + 2] = 0;
      rotations[j * 4 + 3] = 0;
      flags |= 1 << R_ROTATION;
    }

    // exp(-(+Inf)) = 0 -> 1; exp(-(-Inf)) = Inf -> 0; only NaN needs a case.
    const a = 1 / (1 + Math.exp(-src[b + oo]!));
    if (a === a) {
      opacities[j] = a;
    } else {
      opacities[j] = 0;
      flags |= 1 << R_OPACITY;
    }

    const d = j * K3;
    for (let k = 0; k < K3; k++) {
      const v = src[b + shIx[k]!]!;
      if (v <= maxSh && v >= -maxSh) {
        sh[d + k] = v;
      } else {
        sh[d + k] = clampSh(v);
        flags |= 1 << (v - v !== 0 ? R_SH_NONFINITE : R_SH_RANGE);
      }
    }
    if (flags !== 0) tally.clamp(flags, j);
    j++;
  }
  sink.count = j;
  return j - first;
}
