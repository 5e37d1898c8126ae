/**
 * Rotating spherical harmonics: the coefficients a splat's colour has once its
 * object is rotated by R, band by band (the real-basis Wigner D matrices of the
 * basis in sh.ts, whatever its order and signs).
 *
 * A splat's colour along the unit direction d is 0.5 + sum_k Y_k(d) f_k. Rotated by R,
 * it must show along d what it showed along R^T d: sum_k Y_k(d) f'_k = sum_k Y_k(R^T d) f_k
 * for every d. Each band l (2l + 1 functions) is closed under rotation: the row of its
 * basis values y(R^T d) = y(d) A_l for one (2l + 1)-square matrix A_l, hence f'_l = A_l f_l.
 * A_l is fitted here from the basis itself at 64 directions spread over the sphere
 * (least squares, exact up to rounding: both sides are the same polynomials), so it
 * follows sh.ts's order and sign convention by construction. The DC term (band 0) is
 * unchanged.
 */
import { shCoeffCount } from './splat-cloud';
import { shBasisInto } from './sh';

/** A 3x3 rotation, row-major (r[3 * row + col]). */
export type Mat3 = ArrayLike<number>;

/** Directions the fit samples (a Fibonacci sphere: evenly spread, never degenerate). */
const SAMPLES = 64;
const DIRECTIONS: readonly (readonly [number, number, number])[] = Array.from({ length: SAMPLES }, (_, s) => {
  const z = 1 - (2 * s + 1) / SAMPLES;
  const r = Math.sqrt(1 - z * z);
  const phi = s * Math.PI * (3 - Math.sqrt(5));
  return [r * Math.cos(phi), r * Math.sin(phi), z] as const;
});

/**
 * The band matrices of rotation `r` up to `degree`: bands[l] (l = 1 .. degree) is
 * A_l, (2l + 1) x (2l + 1) row-major, with f'_l = A_l f_l (bands[0] is [1]).
 */
export function shRotationBands(r: Mat3, degree: number): Float64Array[] {
  const bands: Float64Array[] = [Float64Array.of(1)];
  if (degree < 1) return bands;
  const all = shCoeffCount(degree);
  const y = new Float64Array(all);
  const yr = new Float64Array(all);
  // Per sample: the basis at d and at R^T d.
  const at: Float64Array[] = [];
  const atRotated: Float64Array[] = [];
  for (const [x, yy, z] of DIRECTIONS) {
    shBasisInto(degree, x, yy, z, y);
    // R^T d: column j of R dotted with d.
    const rx = r[0] * x + r[3] * yy + r[6] * z;
    const ry = r[1] * x + r[4] * yy + r[7] * z;
    const rz = r[2] * x + r[5] * yy + r[8] * z;
    shBasisInto(degree, rx, ry, rz, yr);
    at.push(y.slice());
    atRotated.push(yr.slice());
  }
  for (let l = 1; l <= degree; l++) {
    const n = 2 * l + 1;
    const first = l * l;
    // Normal equations: (Y^T Y) A = Y^T Z, Y and Z the samples' band-l rows.
    const yty = new Float64Array(n * n);
    const ytz = new Float64Array(n * n);
    for (let s = 0; s < SAMPLES; s++) {
      const a = at[s]!, b = atRotated[s]!;
      for (let i = 0; i < n; i++) {
        const ai = a[first + i]!;
        for (let j = 0; j < n; j++) {
          yty[i * n + j] += ai * a[first + j]!;
          ytz[i * n + j] += ai * b[first + j]!;
        }
      }
    }
    // y(R^T d) = y(d) A  =>  Z = Y A  =>  A = (Y^T Y)^-1 Y^T Z; then f' = A f.
    bands.push(solve(yty, ytz, n));
  }
  return bands;
}

/** X with M X = B (n x n, row-major; M symmetric positive definite here), by Gauss-Jordan with partial pivoting. */
function solve(m: Float64Array, b: Float64Array, n: number): Float64Array {
  const a = Float64Array.from(m);
  const x = Float64Array.from(b);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r * n + c]!) > Math.abs(a[p * n + c]!)) p = r;
    if (p !== c) {
      for (let k = 0; k < n; k++) {
        [a[c * n + k], a[p * n + k]] = [a[p * n + k]!, a[c * n + k]!];
        [x[c * n + k], x[p * n + k]] = [x[p * n + k]!, x[c * n + k]!];
      }
    }
    const d = a[c * n + c]!;
    for (let k = 0; k < n; k++) {
      a[c * n + k] = a[c * n + k]! / d;
      x[c * n + k] = x[c * n + k]! / d;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r * n + c]!;
      if (f === 0) continue;
      for (let k = 0; k < n; k++) {
        a[r * n + k] = a[r * n + k]! - f * a[c * n + k]!;
        x[r * n + k] = x[r * n + k]! - f * x[c * n + k]!;
      }
    }
  }
  return x;
}

/**
 * The SH of `count` splats of `degree` (SplatCloud.sh's layout: coefficient-major,
 * sh[(i K + k) 3 + c]) as their object rotated by `r` shows them: a new array.
 */
export function rotateSh(sh: Float32Array, count: number, degree: number, r: Mat3): Float32Array {
  const out = Float32Array.from(sh);
  if (degree < 1) return out;
  const bands = shRotationBands(r, degree);
  const K = shCoeffCount(degree);
  const f = new Float64Array(7);
  for (let i = 0; i < count; i++) {
    for (let l = 1; l <= degree; l++) {
      const n = 2 * l + 1;
      const a = bands[l]!;
      const base = (i * K + l * l) * 3;
      for (let c = 0; c < 3; c++) {
        for (let j = 0; j < n; j++) f[j] = sh[base + 3 * j + c]!;
        for (let row = 0; row < n; row++) {
          let v = 0;
          for (let j = 0; j < n; j++) v += a[row * n + j]! * f[j]!;
          out[base + 3 * row + c] = v;
        }
      }
    }
  }
  return out;
}
