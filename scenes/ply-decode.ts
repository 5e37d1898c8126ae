/**
 * From raw 3DGS vertex properties to the activated, structure-of-arrays
 * SplatCloud: property lookup by name, SH layout, and the per-splat kernel
 * shared by every PLY route (binary fast path, DataView path, loaders.gl).
 */
import { SceneLoadError } from './errors';
import { shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';

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
 * Finds the splat properties by name and the SH degree from the number of
 * `f_rest_*` properties.
 *
 * @param names - property names of the vertex element, in declaration order
 * @param file - file name, for errors
 * @throws SceneLoadError `missing-property` naming the first missing property,
 *   `bad-sh` when the f_rest count is not 0, 9, 24 or 45
 */
export function resolveSplatProperties(names: readonly string[], file: string): SplatPropertyIndex {
  const index = new Map<string, number>();
  names.forEach((n, i) => index.set(n, i));
  const need = (name: string): number => {
    const i = index.get(name);
    if (i === undefined) {
      throw new SceneLoadError(file, 'missing-property', `the vertex element has no property '${name}', which a Gaussian splat PLY needs`, { property: name });
    }
    return i;
  };
  for (const name of REQUIRED_SPLAT_PROPERTIES) need(name);

  const restCount = names.filter((n) => F_REST.test(n)).length;
  const shDegree = F_REST_COUNT_TO_DEGREE.get(restCount);
  if (shDegree === undefined) {
    throw new SceneLoadError(
      file,
      'bad-sh',
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
  return {
    shDegree,
    x: need('x'), y: need('y'), z: need('z'),
    opacity: need('opacity'),
    scale: [need('scale_0'), need('scale_1'), need('scale_2')],
    rot: [need('rot_0'), need('rot_1'), need('rot_2'), need('rot_3')],
    sh,
  };
}

/** The arrays of a SplatCloud, before bounds and source are attached. */
export type SplatArrays = Pick<SplatCloud, 'count' | 'shDegree' | 'positions' | 'scales' | 'rotations' | 'opacities' | 'sh'>;

/**
 * The per-splat kernel: reads raw 3DGS values from interleaved float rows and
 * writes activated SoA arrays.
 *
 * Activations: opacity = sigmoid(logit) (+Inf -> 1, -Inf -> 0); scale =
 * exp(log-scale); rotation normalised (zero or non-finite length -> identity).
 * Garbage never becomes NaN downstream: a non-finite position or scale turns
 * the splat invisible (opacity 0, value 0); a NaN opacity is 0; non-finite SH
 * values are 0.
 *
 * @param src - rows of `stride` floats
 * @param stride - floats per row
 * @param count - number of rows
 * @param ix - where each property sits in a row
 */
export function decodeSplats(src: Float32Array, stride: number, count: number, ix: SplatPropertyIndex): SplatArrays {
  const K3 = shCoeffCount(ix.shDegree) * 3;
  const positions = new Float32Array(count * 3);
  const scales = new Float32Array(count * 3);
  const rotations = new Float32Array(count * 4);
  const opacities = new Float32Array(count);
  const sh = new Float32Array(count * K3);
  const { x: ox, y: oy, z: oz, opacity: oo } = ix;
  const [os0, os1, os2] = ix.scale;
  const [or0, or1, or2, or3] = ix.rot;
  const shIx = ix.sh;

  for (let i = 0; i < count; i++) {
    const b = i * stride;
    let visible = true;

    let x = src[b + ox], y = src[b + oy], z = src[b + oz];
    // x - x is 0 for finite x and NaN for NaN or +-Infinity.
    if (x - x + (y - y) + (z - z) !== 0) {
      if (x - x !== 0) x = 0;
      if (y - y !== 0) y = 0;
      if (z - z !== 0) z = 0;
      visible = false;
    }
    positions[i * 3] = x;
    positions[i * 3 + 1] = y;
    positions[i * 3 + 2] = z;

    let s0 = Math.exp(src[b + os0]), s1 = Math.exp(src[b + os1]), s2 = Math.exp(src[b + os2]);
    if (!(s0 < Infinity && s1 < Infinity && s2 < Infinity)) {
      if (!(s0 < Infinity)) s0 = 0;
      if (!(s1 < Infinity)) s1 = 0;
      if (!(s2 < Infinity)) s2 = 0;
      visible = false;
    }
    scales[i * 3] = s0;
    scales[i * 3 + 1] = s1;
    scales[i * 3 + 2] = s2;

    const qw = src[b + or0], qx = src[b + or1], qy = src[b + or2], qz = src[b + or3];
    const len2 = qw * qw + qx * qx + qy * qy + qz * qz;
    if (len2 > 0 && len2 < Infinity) {
      const inv = 1 / Math.sqrt(len2);
      rotations[i * 4] = qw * inv;
      rotations[i * 4 + 1] = qx * inv;
      rotations[i * 4 + 2] = qy * inv;
      rotations[i * 4 + 3] = qz * inv;
    } else {
      rotations[i * 4] = 1; // the others stay 0: identity
    }

    // exp(-(+Inf)) = 0 -> 1; exp(-(-Inf)) = Inf -> 0; only NaN needs a case.
    const a = 1 / (1 + Math.exp(-src[b + oo]));
    opacities[i] = visible && a === a ? a : 0;

    const d = i * K3;
    for (let j = 0; j < K3; j++) {
      const v = src[b + shIx[j]];
      sh[d + j] = v - v === 0 ? v : 0;
    }
  }
  return { count, shDegree: ix.shDegree, positions, scales, rotations, opacities, sh };
}
