/**
 * The real spherical-harmonics basis of 3D Gaussian splatting, degrees 0..3, in
 * the reference order and sign convention (Condon-Shortley phase). Pure: the
 * loaders (DC colour), the generator, the renderer's CPU side and, through a
 * generated `const` prelude (renderer/project/sh-wgsl.ts), the WGSL all read
 * these numbers. The test oracle (test/reference/forward-model.ts) keeps its own
 * copy on purpose and test/unit/sh.test.ts compares the two.
 *
 * Colour of a splat seen along the unit direction d: 0.5 + sum_k Y_k(d) * sh_k.
 */

/** Y_0^0 = 1 / (2 sqrt(pi)). */
export const SH_C0 = 0.28209479177387814;
/** Degree 1: sqrt(3) / (2 sqrt(pi)). */
export const SH_C1 = 0.4886025119029199;
/** Degree 2, for xy, yz, (2zz - xx - yy), xz, (xx - yy). */
export const SH_C2: readonly number[] = [
  1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396,
];
/** Degree 3, for y(3xx - yy), xyz, y(4zz - xx - yy), z(2zz - 3xx - 3yy), x(4zz - xx - yy), z(xx - yy), x(xx - 3yy). */
export const SH_C3: readonly number[] = [
  -0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658,
  1.445305721320277, -0.5900435899266435,
];

/** The highest SH degree a scene may have. */
export const MAX_SH_DEGREE = 3;

/**
 * Writes the basis values Y_k(x, y, z) for k < (degree + 1)^2 into `out` (from 0)
 * and returns it. (x, y, z) must be a unit vector; degree 0..3.
 */
export function shBasisInto(degree: number, x: number, y: number, z: number, out: { [k: number]: number }): typeof out {
  if (!(Number.isInteger(degree) && degree >= 0 && degree <= MAX_SH_DEGREE)) {
    throw new RangeError(`SH degree must be 0..${MAX_SH_DEGREE}, got ${degree}`);
  }
  out[0] = SH_C0;
  if (degree < 1) return out;
  out[1] = -SH_C1 * y;
  out[2] = SH_C1 * z;
  out[3] = -SH_C1 * x;
  if (degree < 2) return out;
  const xx = x * x, yy = y * y, zz = z * z;
  out[4] = SH_C2[0] * x * y;
  out[5] = SH_C2[1] * y * z;
  out[6] = SH_C2[2] * (2 * zz - xx - yy);
  out[7] = SH_C2[3] * x * z;
  out[8] = SH_C2[4] * (xx - yy);
  if (degree < 3) return out;
  out[9] = SH_C3[0] * y * (3 * xx - yy);
  out[10] = SH_C3[1] * x * y * z;
  out[11] = SH_C3[2] * y * (4 * zz - xx - yy);
  out[12] = SH_C3[3] * z * (2 * zz - 3 * xx - 3 * yy);
  out[13] = SH_C3[4] * x * (4 * zz - xx - yy);
  out[14] = SH_C3[5] * z * (xx - yy);
  out[15] = SH_C3[6] * x * (xx - 3 * yy);
  return out;
}
