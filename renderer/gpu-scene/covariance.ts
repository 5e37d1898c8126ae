/**
 * The product's 3D covariance of a splat, packed on upload by GpuScene:
 * Sigma = R S S^T R^T for the rotation R of the quaternion (w, x, y, z) and
 * S = diag(sx, sy, sz). The oracle (test/reference/forward-model.ts) has its own
 * and test/unit/product-vs-oracle.test.ts checks this one against it.
 */

/**
 * Writes the six unique entries of Sigma, [xx, xy, xz, yy, yz, zz], at out[o .. o + 6).
 * The quaternion need not be unit (it is normalised); a zero quaternion is the identity.
 */
export function packCovariance(
  out: { [i: number]: number },
  o: number,
  sx: number, sy: number, sz: number,
  qw: number, qx: number, qy: number, qz: number,
): void {
  const len = Math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
  let w = 1, x = 0, y = 0, z = 0;
  if (len > 0) {
    w = qw / len;
    x = qx / len;
    y = qy / len;
    z = qz / len;
  }
  // Rows of R S (the rotation's columns scaled by the axis lengths).
  const a0 = (1 - 2 * (y * y + z * z)) * sx, a1 = 2 * (x * y - w * z) * sy, a2 = 2 * (x * z + w * y) * sz;
  const b0 = 2 * (x * y + w * z) * sx, b1 = (1 - 2 * (x * x + z * z)) * sy, b2 = 2 * (y * z - w * x) * sz;
  const c0 = 2 * (x * z - w * y) * sx, c1 = 2 * (y * z + w * x) * sy, c2 = (1 - 2 * (x * x + y * y)) * sz;
  // Sigma = (R S)(R S)^T: dot products of those rows.
  out[o] = a0 * a0 + a1 * a1 + a2 * a2;
  out[o + 1] = a0 * b0 + a1 * b1 + a2 * b2;
  out[o + 2] = a0 * c0 + a1 * c1 + a2 * c2;
  out[o + 3] = b0 * b0 + b1 * b1 + b2 * b2;
  out[o + 4] = b0 * c0 + b1 * c1 + b2 * c2;
  out[o + 5] = c0 * c0 + c1 * c1 + c2 * c2;
}
