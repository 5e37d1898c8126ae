/**
 * Placing a splat object (issue 32): a similarity transform x' = R (s x) + t, a unit
 * quaternion R, a uniform scale s > 0 and a translation t, the same for the GPU (the
 * object table: renderer/gpu-scene/objects.ts, the transform applied per splat as it is
 * drawn) and the CPU (transformCloud: the cloud's splats moved for good, for export and
 * as the tests' oracle). Matrices are column-major (gl-matrix's, the camera's).
 *
 * A splat of centre p, rotation q, scales (linear) sigma and SH f becomes: centre R (s p) + t,
 * rotation R q (its covariance s^2 R Sigma R^T), scales s sigma (log-scales + ln s), and SH
 * rotated by R (sh-rotate.ts: the view direction seen in the object's frame is R^-1 of the
 * world one); opacity unchanged.
 */
import { computeBounds, type Bounds, type SplatCloud } from './splat-cloud';
import { rotateSh } from './sh-rotate';

export type Vec3 = readonly [number, number, number];
/** A unit quaternion w, x, y, z (SplatCloud.rotations' order). */
export type Quat = readonly [number, number, number, number];

export interface SplatTransform {
  translation: Vec3;
  /** A unit quaternion (w, x, y, z). */
  rotation: Quat;
  /** Uniform scale, > 0. */
  scale: number;
}

export const IDENTITY_TRANSFORM: SplatTransform = Object.freeze({ translation: [0, 0, 0] as const, rotation: [1, 0, 0, 0] as const, scale: 1 });

/**
 * A transform from its parts (defaults: the identity's), the rotation normalised.
 * @throws RangeError for a non-finite part, a zero rotation or a scale <= 0
 */
export function makeTransform(parts: { translation?: ArrayLike<number>; rotation?: ArrayLike<number>; scale?: number } = {}): SplatTransform {
  const t = parts.translation ?? [0, 0, 0];
  const q = parts.rotation ?? [1, 0, 0, 0];
  const s = parts.scale ?? 1;
  if (t.length !== 3 || ![0, 1, 2].every((i) => Number.isFinite(t[i]))) throw new RangeError(`transform: translation ${Array.from(t).join(',')}: expected 3 finite numbers`);
  if (q.length !== 4 || ![0, 1, 2, 3].every((i) => Number.isFinite(q[i]))) throw new RangeError(`transform: rotation ${Array.from(q).join(',')}: expected a quaternion W,X,Y,Z`);
  const n = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!);
  if (!(n > 1e-12)) throw new RangeError('transform: the rotation quaternion is zero');
  if (!(s > 0 && Number.isFinite(s))) throw new RangeError(`transform: scale ${s}: expected a finite number > 0`);
  return { translation: [t[0]!, t[1]!, t[2]!], rotation: [q[0]! / n, q[1]! / n, q[2]! / n, q[3]! / n], scale: s };
}

/**
 * `translate=X,Y,Z rotate=W,X,Y,Z scale=S` (any of the three, in any order; the CLI's
 * --transform), or `matrix=M0,...,M15` (a column-major 4x4 similarity).
 * @throws Error naming the word at fault
 */
export function parseTransform(text: string): SplatTransform {
  const parts: { translation?: number[]; rotation?: number[]; scale?: number } = {};
  const words = text.trim().split(/\s+/).filter((w) => w.length > 0);
  const numbers = (key: string, value: string, n: number): number[] => {
    const v = value.split(',').map(Number);
    if (v.length !== n || v.some((x) => !Number.isFinite(x))) throw new Error(`transform: ${key}=${value}: expected ${n} numbers`);
    return v;
  };
  for (const word of words) {
    const eq = word.indexOf('=');
    const key = eq < 0 ? word : word.slice(0, eq);
    const value = eq < 0 ? '' : word.slice(eq + 1);
    if (key === 'translate') parts.translation = numbers(key, value, 3);
    else if (key === 'rotate') parts.rotation = numbers(key, value, 4);
    else if (key === 'scale') parts.scale = numbers(key, value, 1)[0]!;
    else if (key === 'matrix') return similarityFromMatrix(numbers(key, value, 16));
    else throw new Error(`transform: unknown word '${word}' (expected translate=X,Y,Z rotate=W,X,Y,Z scale=S or matrix=16 numbers)`);
  }
  return makeTransform(parts);
}

/** Whether `t` is exactly the identity. */
export function isIdentity(t: SplatTransform): boolean {
  const [x, y, z] = t.translation;
  const [w, a, b, c] = t.rotation;
  return x === 0 && y === 0 && z === 0 && w === 1 && a === 0 && b === 0 && c === 0 && t.scale === 1;
}

/** The rotation of unit quaternion q as a 3x3 matrix, row-major. */
export function rotationMatrix(q: Quat): Float64Array {
  const [w, x, y, z] = q;
  return Float64Array.of(
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  );
}

/** The Hamilton product a b (rotation b, then a). */
export function multiplyQuat(a: Quat, b: Quat): [number, number, number, number] {
  const [aw, ax, ay, az] = a;
  const [bw, bx, by, bz] = b;
  return [
    aw * bw - ax * bx - ay * by - az * bz,
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
  ];
}

/** The model matrix [s R | t] (object -> world), column-major. */
export function transformMatrix(t: SplatTransform): Float64Array {
  const r = rotationMatrix(t.rotation);
  const s = t.scale;
  const [tx, ty, tz] = t.translation;
  return Float64Array.of(
    s * r[0]!, s * r[3]!, s * r[6]!, 0,
    s * r[1]!, s * r[4]!, s * r[7]!, 0,
    s * r[2]!, s * r[5]!, s * r[8]!, 0,
    tx, ty, tz, 1,
  );
}

/**
 * The similarity a column-major 4x4 matrix holds (uniform scale, rotation, translation).
 * @throws RangeError when it is not one (a shear, a non-uniform scale, a reflection, a projective row)
 */
export function similarityFromMatrix(m: ArrayLike<number>): SplatTransform {
  if (m.length !== 16) throw new RangeError(`transform: a matrix of ${m.length} numbers, not 16`);
  const col = (j: number): [number, number, number] => [m[4 * j]!, m[4 * j + 1]!, m[4 * j + 2]!];
  const cols = [col(0), col(1), col(2)];
  const s = Math.cbrt(det3(cols));
  const tol = 1e-5;
  if (!(s > 0) || Math.abs(m[3]!) > tol || Math.abs(m[7]!) > tol || Math.abs(m[11]!) > tol || Math.abs(m[15]! - 1) > tol) {
    throw new RangeError('transform: the matrix is not a similarity (uniform scale, rotation, translation)');
  }
  const r = cols.map((c) => c.map((v) => v / s));
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const dot = r[i]![0]! * r[j]![0]! + r[i]![1]! * r[j]![1]! + r[i]![2]! * r[j]![2]!;
      if (Math.abs(dot - (i === j ? 1 : 0)) > 1e-4) throw new RangeError('transform: the matrix is not a similarity (uniform scale, rotation, translation)');
    }
  }
  // Row-major R: R[row][col] = r[col][row].
  const R = (row: number, c: number) => r[c]![row]!;
  return makeTransform({ translation: [m[12]!, m[13]!, m[14]!], rotation: quatFromMatrix(R), scale: s });
}

function det3(c: number[][]): number {
  const [a, b, d] = c as [number[], number[], number[]];
  return a[0]! * (b[1]! * d[2]! - b[2]! * d[1]!) - b[0]! * (a[1]! * d[2]! - a[2]! * d[1]!) + d[0]! * (a[1]! * b[2]! - a[2]! * b[1]!);
}

/** The unit quaternion of a rotation matrix R(row, col) (Shepperd's method). */
function quatFromMatrix(R: (row: number, col: number) => number): [number, number, number, number] {
  const trace = R(0, 0) + R(1, 1) + R(2, 2);
  if (trace > 0) {
    const s = 2 * Math.sqrt(trace + 1);
    return [s / 4, (R(2, 1) - R(1, 2)) / s, (R(0, 2) - R(2, 0)) / s, (R(1, 0) - R(0, 1)) / s];
  }
  if (R(0, 0) > R(1, 1) && R(0, 0) > R(2, 2)) {
    const s = 2 * Math.sqrt(1 + R(0, 0) - R(1, 1) - R(2, 2));
    return [(R(2, 1) - R(1, 2)) / s, s / 4, (R(0, 1) + R(1, 0)) / s, (R(0, 2) + R(2, 0)) / s];
  }
  if (R(1, 1) > R(2, 2)) {
    const s = 2 * Math.sqrt(1 + R(1, 1) - R(0, 0) - R(2, 2));
    return [(R(0, 2) - R(2, 0)) / s, (R(0, 1) + R(1, 0)) / s, s / 4, (R(1, 2) + R(2, 1)) / s];
  }
  const s = 2 * Math.sqrt(1 + R(2, 2) - R(0, 0) - R(1, 1));
  return [(R(1, 0) - R(0, 1)) / s, (R(0, 2) + R(2, 0)) / s, (R(1, 2) + R(2, 1)) / s, s / 4];
}

/** The column-major product a b of two 4x4 matrices (f64). */
export function multiplyMat4(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const out = new Float64Array(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      out[4 * c + r] = a[r]! * b[4 * c]! + a[4 + r]! * b[4 * c + 1]! + a[8 + r]! * b[4 * c + 2]! + a[12 + r]! * b[4 * c + 3]!;
    }
  }
  return out;
}

/** R (s p) + t. */
export function transformPoint(t: SplatTransform, p: ArrayLike<number>): [number, number, number] {
  const r = rotationMatrix(t.rotation);
  const s = t.scale;
  const x = s * p[0]!, y = s * p[1]!, z = s * p[2]!;
  return [
    r[0]! * x + r[1]! * y + r[2]! * z + t.translation[0],
    r[3]! * x + r[4]! * y + r[5]! * z + t.translation[1],
    r[6]! * x + r[7]! * y + r[8]! * z + t.translation[2],
  ];
}

/** The inverse: R^T (p - t) / s (a world point in the object's frame: the eye the object's SH sees from). */
export function inverseTransformPoint(t: SplatTransform, p: ArrayLike<number>): [number, number, number] {
  const r = rotationMatrix(t.rotation);
  const x = p[0]! - t.translation[0], y = p[1]! - t.translation[1], z = p[2]! - t.translation[2];
  const s = t.scale;
  return [(r[0]! * x + r[3]! * y + r[6]! * z) / s, (r[1]! * x + r[4]! * y + r[7]! * z) / s, (r[2]! * x + r[5]! * y + r[8]! * z) / s];
}

/** The axis-aligned bounds of a box's eight corners transformed. */
export function transformBounds(t: SplatTransform, b: Bounds): Bounds {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let c = 0; c < 8; c++) {
    const p = transformPoint(t, [c & 1 ? b.max[0] : b.min[0], c & 2 ? b.max[1] : b.min[1], c & 4 ? b.max[2] : b.min[2]]);
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a]!, p[a]!);
      max[a] = Math.max(max[a]!, p[a]!);
    }
  }
  return { min, max };
}

/**
 * The cloud with the transform applied to every splat, on the CPU (a new cloud; the
 * source is kept): centres R (s p) + t, rotations R q, scales s sigma, the SH's higher
 * bands rotated (sh-rotate.ts), opacities shared. What the GPU draws for the object
 * placed by `t`; an export writes this.
 */
export function transformCloud(cloud: SplatCloud, t: SplatTransform): SplatCloud {
  const n = cloud.count;
  const r = rotationMatrix(t.rotation);
  const s = t.scale;
  const [tx, ty, tz] = t.translation;
  const positions = new Float32Array(n * 3);
  const scales = new Float32Array(n * 3);
  const rotations = new Float32Array(n * 4);
  const p = cloud.positions, sc = cloud.scales, q = cloud.rotations;
  for (let i = 0; i < n; i++) {
    const x = s * p[3 * i]!, y = s * p[3 * i + 1]!, z = s * p[3 * i + 2]!;
    positions[3 * i] = r[0]! * x + r[1]! * y + r[2]! * z + tx;
    positions[3 * i + 1] = r[3]! * x + r[4]! * y + r[5]! * z + ty;
    positions[3 * i + 2] = r[6]! * x + r[7]! * y + r[8]! * z + tz;
    scales[3 * i] = s * sc[3 * i]!;
    scales[3 * i + 1] = s * sc[3 * i + 1]!;
    scales[3 * i + 2] = s * sc[3 * i + 2]!;
    const rq = multiplyQuat(t.rotation, [q[4 * i]!, q[4 * i + 1]!, q[4 * i + 2]!, q[4 * i + 3]!]);
    const len = Math.hypot(rq[0], rq[1], rq[2], rq[3]) || 1;
    for (let k = 0; k < 4; k++) rotations[4 * i + k] = rq[k]! / len;
  }
  return {
    ...cloud,
    positions,
    scales,
    rotations,
    sh: cloud.sh.length > 0 ? rotateSh(cloud.sh, n, cloud.shDegree, r) : cloud.sh,
    bounds: computeBounds(positions),
  };
}
