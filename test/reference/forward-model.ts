/**
 * CPU mirror of the renderer's per-splat math: the forward model that the GPU
 * shaders implement, written as small pure functions (no GPU, no state).
 *
 * It is the specification in executable form: the CPU reference rasteriser
 * (test/reference/raster.ts) is built from these functions, and GPU results
 * are compared against it. Everything is computed in float64 (JS numbers)
 * from float32 inputs; the GPU computes in f32, so expect agreement to a few
 * ulps of f32, not bit-exactness.
 *
 * Conventions (also in docs/ARCHITECTURE.md):
 *
 * Camera
 *   V = gl-matrix `mat4.lookAt(eye, target, up)` (right-handed; the camera looks
 *   down -z in view space, +y is up in view space).
 *   P = `mat4.perspectiveZO(fovy, width / height, near, far)`.
 *   Pixels: x_pix = (ndc_x * 0.5 + 0.5) * W, y_pix = (0.5 - ndc_y * 0.5) * H
 *   (row 0 is the top); pixel (px, py) has its centre at (px + 0.5, py + 0.5).
 *   Focal lengths in pixels: fy = H / (2 tan(fovy / 2)), fx = fy.
 *
 * Culling (a culled splat is "not drawn": no key, no quad)
 *   t = V [p, 1], depth d = -t.z. Culled when d <= near, when the centre's
 *   |ndc_x| > 1.3 or |ndc_y| > 1.3, or when det(cov2D) <= 0.
 *
 * 3D covariance
 *   R from the quaternion (w, x, y, z) (normalised here; the scene stores unit
 *   quaternions), S = diag(scale * splatScale), Sigma = R S S^T R^T, stored as
 *   the 6 unique entries [xx, xy, xz, yy, yz, zz].
 *
 * EWA projection
 *   limx = 1.3 tan(fovx/2), limy = 1.3 tan(fovy/2), tan(fovx/2) = tan(fovy/2) W/H.
 *   tx = clamp(t.x / d, -limx, limx) d, ty = clamp(t.y / d, -limy, limy) d.
 *   J = [[fx/d, 0, fx tx/d^2], [0, -fy/d, -fy ty/d^2]]   (pixel y points down)
 *   Wv = upper-left 3x3 of V.  cov2D = J Wv Sigma Wv^T J^T + 0.3 I  (low-pass).
 *   conic = inverse(cov2D) as [a, b, c] for [[a, b], [b, c]].
 *   radius (pixels, quad sizing) = 3 sqrt(lambda_max(cov2D)).
 *
 * Anti-aliased mode (optional; FrameSettings.antialias, off by default)
 *   Mip-Splatting's 2D filter (gsplat's rasterize_mode="antialiased"): the opacity
 *   is scaled by sqrt(det(cov2D - 0.3 I) / det(cov2D)) (cov2D - 0.3 I: before the
 *   low-pass; 0 when that det is <= 0), which keeps the splat's alpha integrated over
 *   the screen. Every opacity test below (alpha >= 1/255) uses the scaled opacity.
 *
 * Fragment
 *   dx = q - centre for the pixel centre q (pixels); power = dx^T conic dx.
 *   alpha = opacity exp(-0.5 power); the fragment contributes nothing when
 *   power > 9 or alpha < 1/255. No other clamp (no 0.99 cap).
 *
 * Colour
 *   dir = normalize(p - eye) in WORLD space; rgb = max(0, 0.5 + sum_k Y_k(dir) sh_k)
 *   with the SH basis and sign convention of the 3DGS reference implementation,
 *   evaluated up to a chosen degree (<= the scene's). No upper clamp.
 *
 * Order and blending
 *   key = 0xFFFFFFFF - floatBitsAsU32(d) (d > 0 for every drawn splat), sorted
 *   ascending: larger depth first (back to front); ties in any order.
 *   Premultiplied over: dst.rgb = rgb alpha + (1 - alpha) dst.rgb,
 *   dst.a = alpha + (1 - alpha) dst.a, starting from 0.
 *   Final straight colour: accum.rgb + (1 - accum.a) background.
 */
import { mat4 } from 'gl-matrix';

// ---------------------------------------------------------------------------
// Constants of the model

/** Added to both diagonal entries of the 2D covariance (anti-aliasing low-pass), in pixels^2. */
export const LOW_PASS = 0.3;
/** Centres with |ndc_x| or |ndc_y| beyond this are culled; also the EWA clamp factor on tan(fov/2). */
export const FRUSTUM_GUARD = 1.3;
/** A fragment contributes only where dx^T conic dx <= CUTOFF_POWER (3 sigma). */
export const CUTOFF_POWER = 9;
/** Radius of the quad in standard deviations: radius = SIGMA_EXTENT * sqrt(lambda_max). */
export const SIGMA_EXTENT = 3;
/** Fragments with alpha below this contribute nothing. */
export const MIN_ALPHA = 1 / 255;

/** SH constants of the 3DGS reference implementation. */
export const SH_C0 = 0.28209479177387814;
export const SH_C1 = 0.4886025119029199;
export const SH_C2: readonly number[] = [
  1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396,
];
export const SH_C3: readonly number[] = [
  -0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658,
  1.445305721320277, -0.5900435899266435,
];

// ---------------------------------------------------------------------------
// Types

/** Anything indexable as [x, y, z] (tuple, number[], Float32Array view...). */
export type Vec3Like = ArrayLike<number>;
/** A quaternion as [w, x, y, z]. */
export type QuatLike = ArrayLike<number>;
export type Vec2 = [number, number];
export type Vec3 = [number, number, number];
/** Symmetric 2x2 matrix [[a, b], [b, c]] stored as [a, b, c]. */
export type Sym2 = [number, number, number];

/** A look-at camera as given on the command line / in tests. */
export interface CameraSpec {
  eye: Vec3Like;
  target: Vec3Like;
  up: Vec3Like;
  /** Vertical field of view in degrees. */
  fovyDeg: number;
  near: number;
  far: number;
}

/** Everything per-frame the model needs, derived once from a CameraSpec and an image size. */
export interface CameraFrame {
  width: number;
  height: number;
  near: number;
  far: number;
  eye: Vec3;
  /** mat4.lookAt(eye, target, up), column-major (gl-matrix Float32Array). */
  view: mat4;
  /** mat4.perspectiveZO(fovy, width / height, near, far), column-major. */
  proj: mat4;
  /** proj * view. */
  viewProj: mat4;
  /** Focal lengths in pixels; fx === fy. */
  fx: number;
  fy: number;
  /** tan(fovx / 2) = tan(fovy / 2) * width / height. */
  tanHalfFovX: number;
  tanHalfFovY: number;
}

/** Result of the EWA projection of one covariance. */
export interface Projected2D {
  /** J Wv Sigma Wv^T J^T + LOW_PASS I, pixels^2, as [a, b, c]. */
  cov2D: Sym2;
  /** inverse(cov2D) as [a, b, c]. */
  conic: Sym2;
  /** det(cov2D) (> 0). */
  det: number;
  /** SIGMA_EXTENT * sqrt(lambda_max(cov2D)), pixels. */
  radius: number;
  /**
   * The anti-aliased mode's opacity factor, sqrt(det(cov2D - LOW_PASS I) / det(cov2D))
   * (antialiasFactor); 0 when the det before the low-pass is <= 0.
   */
  aaFactor: number;
}

/** A splat that survives culling: everything the draw stage needs except colour and opacity. */
export interface ProjectedSplat extends Projected2D {
  /** View-space depth d = -(V p).z (> near). */
  depth: number;
  /** depthKey(depth): ascending order = back to front. */
  key: number;
  /** Normalised device coordinates of the centre (x right, y up). */
  ndc: Vec2;
  /** Centre in pixels (x right, y down, row 0 at the top). */
  center: Vec2;
}

// ---------------------------------------------------------------------------
// Camera

/** Build the per-frame camera quantities for an image of width x height pixels. */
export function makeCameraFrame(cam: CameraSpec, width: number, height: number): CameraFrame {
  const fovy = (cam.fovyDeg * Math.PI) / 180;
  const view = mat4.lookAt(
    mat4.create(),
    [cam.eye[0], cam.eye[1], cam.eye[2]],
    [cam.target[0], cam.target[1], cam.target[2]],
    [cam.up[0], cam.up[1], cam.up[2]],
  );
  const proj = mat4.perspectiveZO(mat4.create(), fovy, width / height, cam.near, cam.far);
  const viewProj = mat4.multiply(mat4.create(), proj, view);
  const tanHalfFovY = Math.tan(fovy / 2);
  const fy = height / (2 * tanHalfFovY);
  return {
    width,
    height,
    near: cam.near,
    far: cam.far,
    eye: [cam.eye[0], cam.eye[1], cam.eye[2]],
    view,
    proj,
    viewProj,
    fx: fy,
    fy,
    tanHalfFovX: (tanHalfFovY * width) / height,
    tanHalfFovY,
  };
}

/** m * [p, 1] for a column-major 4x4 matrix; returns [x, y, z, w]. */
export function transformPoint(m: ArrayLike<number>, p: Vec3Like): [number, number, number, number] {
  const x = p[0], y = p[1], z = p[2];
  return [
    m[0] * x + m[4] * y + m[8] * z + m[12],
    m[1] * x + m[5] * y + m[9] * z + m[13],
    m[2] * x + m[6] * y + m[10] * z + m[14],
    m[3] * x + m[7] * y + m[11] * z + m[15],
  ];
}

/** NDC -> pixel coordinates (row 0 at the top). */
export function ndcToPixel(ndcX: number, ndcY: number, width: number, height: number): Vec2 {
  return [(ndcX * 0.5 + 0.5) * width, (0.5 - ndcY * 0.5) * height];
}

/** Unit vector from the eye to p in world space (the SH view direction). */
export function viewDirection(p: Vec3Like, eye: Vec3Like): Vec3 {
  const x = p[0] - eye[0], y = p[1] - eye[1], z = p[2] - eye[2];
  const len = Math.hypot(x, y, z);
  return len > 0 ? [x / len, y / len, z / len] : [0, 0, 1];
}

// ---------------------------------------------------------------------------
// Spherical harmonics

/**
 * The SH basis values Y_k(dir) for k = 0 .. (degree+1)^2 - 1, in the 3DGS
 * reference order and sign convention (real SH with the Condon-Shortley phase):
 *   k=0: C0;  k=1: -C1 y;  k=2: C1 z;  k=3: -C1 x;
 *   k=4..8:  C2[0] xy, C2[1] yz, C2[2] (2zz - xx - yy), C2[3] xz, C2[4] (xx - yy);
 *   k=9..15: C3[0] y(3xx - yy), C3[1] xyz, C3[2] y(4zz - xx - yy),
 *            C3[3] z(2zz - 3xx - 3yy), C3[4] x(4zz - xx - yy), C3[5] z(xx - yy),
 *            C3[6] x(xx - 3yy).
 * `dir` must be a unit vector. degree must be 0..3.
 */
export function shBasis(degree: number, dir: Vec3Like): Float64Array {
  if (!(degree >= 0 && degree <= 3) || !Number.isInteger(degree)) {
    throw new RangeError(`SH degree must be 0..3, got ${degree}`);
  }
  const out = new Float64Array((degree + 1) * (degree + 1));
  out[0] = SH_C0;
  if (degree < 1) return out;
  const x = dir[0], y = dir[1], z = dir[2];
  out[1] = -SH_C1 * y;
  out[2] = SH_C1 * z;
  out[3] = -SH_C1 * x;
  if (degree < 2) return out;
  const xx = x * x, yy = y * y, zz = z * z;
  const xy = x * y, yz = y * z, xz = x * z;
  out[4] = SH_C2[0] * xy;
  out[5] = SH_C2[1] * yz;
  out[6] = SH_C2[2] * (2 * zz - xx - yy);
  out[7] = SH_C2[3] * xz;
  out[8] = SH_C2[4] * (xx - yy);
  if (degree < 3) return out;
  out[9] = SH_C3[0] * y * (3 * xx - yy);
  out[10] = SH_C3[1] * xy * z;
  out[11] = SH_C3[2] * y * (4 * zz - xx - yy);
  out[12] = SH_C3[3] * z * (2 * zz - 3 * xx - 3 * yy);
  out[13] = SH_C3[4] * x * (4 * zz - xx - yy);
  out[14] = SH_C3[5] * z * (xx - yy);
  out[15] = SH_C3[6] * x * (xx - 3 * yy);
  return out;
}

/**
 * Raw SH sum per channel, sum_k Y_k(dir) * coeffs[offset + k*3 + c], for
 * k < (degree+1)^2 (no +0.5, no clamp). `coeffs` is coefficient-major, as in
 * SplatCloud.sh: for splat i of a scene with K coefficients per channel pass
 * `offset = i * K * 3`. Evaluating a lower degree than the scene's simply
 * uses the first (degree+1)^2 coefficients.
 */
export function evalSH(degree: number, dir: Vec3Like, coeffs: ArrayLike<number>, offset = 0): Vec3 {
  const basis = shBasis(degree, dir);
  let r = 0, g = 0, b = 0;
  for (let k = 0; k < basis.length; k++) {
    const o = offset + k * 3;
    r += basis[k] * coeffs[o];
    g += basis[k] * coeffs[o + 1];
    b += basis[k] * coeffs[o + 2];
  }
  return [r, g, b];
}

/** Splat colour: max(0, 0.5 + evalSH(...)) per channel. */
export function shColor(degree: number, dir: Vec3Like, coeffs: ArrayLike<number>, offset = 0): Vec3 {
  const s = evalSH(degree, dir, coeffs, offset);
  return [Math.max(0, 0.5 + s[0]), Math.max(0, 0.5 + s[1]), Math.max(0, 0.5 + s[2])];
}

// ---------------------------------------------------------------------------
// Covariance

/**
 * Rotation matrix of the quaternion q = (w, x, y, z), row-major 3x3
 * (normalised first; a zero quaternion gives the identity).
 */
export function quatToMat3(q: QuatLike): number[] {
  let w = q[0], x = q[1], y = q[2], z = q[3];
  const n = Math.hypot(w, x, y, z);
  if (n > 0) {
    w /= n; x /= n; y /= n; z /= n;
  } else {
    w = 1;
  }
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  ];
}

/**
 * World-space 3D covariance Sigma = R S S^T R^T with S = diag(scale * splatScale),
 * returned as the 6 unique entries [xx, xy, xz, yy, yz, zz].
 */
export function covariance3D(scale: Vec3Like, quat: QuatLike, splatScale = 1): Float32Array {
  const out = new Float32Array(6);
  covariance3DInto(out, 0, scale[0] * splatScale, scale[1] * splatScale, scale[2] * splatScale, quat[0], quat[1], quat[2], quat[3]);
  return out;
}

/**
 * covariance3D without allocating, for whole scenes:
 * writes [xx, xy, xz, yy, yz, zz] of R(w,x,y,z) diag(sx,sy,sz)^2 R^T at out[o..o+6).
 * The quaternion is normalised first; a zero quaternion is the identity.
 */
export function covariance3DInto(
  out: { [i: number]: number },
  o: number,
  sx: number, sy: number, sz: number,
  w: number, x: number, y: number, z: number,
): void {
  const n = Math.sqrt(w * w + x * x + y * y + z * z);
  if (n > 0) {
    w /= n; x /= n; y /= n; z /= n;
  } else {
    w = 1;
  }
  // M = R S: column j of R scaled by s_j; Sigma = M M^T.
  const m00 = (1 - 2 * (y * y + z * z)) * sx, m01 = 2 * (x * y - w * z) * sy, m02 = 2 * (x * z + w * y) * sz;
  const m10 = 2 * (x * y + w * z) * sx, m11 = (1 - 2 * (x * x + z * z)) * sy, m12 = 2 * (y * z - w * x) * sz;
  const m20 = 2 * (x * z - w * y) * sx, m21 = 2 * (y * z + w * x) * sy, m22 = (1 - 2 * (x * x + y * y)) * sz;
  out[o] = m00 * m00 + m01 * m01 + m02 * m02;
  out[o + 1] = m00 * m10 + m01 * m11 + m02 * m12;
  out[o + 2] = m00 * m20 + m01 * m21 + m02 * m22;
  out[o + 3] = m10 * m10 + m11 * m11 + m12 * m12;
  out[o + 4] = m10 * m20 + m11 * m21 + m12 * m22;
  out[o + 5] = m20 * m20 + m21 * m21 + m22 * m22;
}

/** Largest eigenvalue of a symmetric 2x2 [a, b, c]. */
export function lambdaMax(m: Sym2): number {
  const mid = 0.5 * (m[0] + m[2]);
  const det = m[0] * m[2] - m[1] * m[1];
  return mid + Math.sqrt(Math.max(0, mid * mid - det));
}

/**
 * EWA projection of a world-space covariance (6 entries, as covariance3D)
 * for a splat whose view-space position is tView = V [p, 1] (xyz).
 * Returns null when det(cov2D) <= 0 (not drawn). Does not cull on depth: the
 * caller (projectSplat) does; the depth used is d = -tView.z.
 */
export function projectCovariance(cov3D: ArrayLike<number>, tView: Vec3Like, frame: CameraFrame): Projected2D | null {
  const d = -tView[2];
  const limx = FRUSTUM_GUARD * frame.tanHalfFovX;
  const limy = FRUSTUM_GUARD * frame.tanHalfFovY;
  const tx = Math.min(limx, Math.max(-limx, tView[0] / d)) * d;
  const ty = Math.min(limy, Math.max(-limy, tView[1] / d)) * d;
  const { fx, fy } = frame;
  // J (2x3)
  const j00 = fx / d, j02 = (fx * tx) / (d * d);
  const j11 = -fy / d, j12 = (-fy * ty) / (d * d);
  // Wv: upper-left 3x3 of the column-major view matrix; Wv[r][c] = V[c*4 + r].
  const V = frame.view;
  // T = J Wv (2x3)
  const t00 = j00 * V[0] + j02 * V[2], t01 = j00 * V[4] + j02 * V[6], t02 = j00 * V[8] + j02 * V[10];
  const t10 = j11 * V[1] + j12 * V[2], t11 = j11 * V[5] + j12 * V[6], t12 = j11 * V[9] + j12 * V[10];
  const sxx = cov3D[0], sxy = cov3D[1], sxz = cov3D[2], syy = cov3D[3], syz = cov3D[4], szz = cov3D[5];
  // U = T Sigma (2x3)
  const u00 = t00 * sxx + t01 * sxy + t02 * sxz;
  const u01 = t00 * sxy + t01 * syy + t02 * syz;
  const u02 = t00 * sxz + t01 * syz + t02 * szz;
  const u10 = t10 * sxx + t11 * sxy + t12 * sxz;
  const u11 = t10 * sxy + t11 * syy + t12 * syz;
  const u12 = t10 * sxz + t11 * syz + t12 * szz;
  // cov2D = U T^T + LOW_PASS I
  const a = u00 * t00 + u01 * t01 + u02 * t02 + LOW_PASS;
  const b = u00 * t10 + u01 * t11 + u02 * t12;
  const c = u10 * t10 + u11 * t11 + u12 * t12 + LOW_PASS;
  const det = a * c - b * b;
  if (!(det > 0)) return null;
  const cov2D: Sym2 = [a, b, c];
  return {
    cov2D,
    conic: [c / det, -b / det, a / det],
    det,
    radius: SIGMA_EXTENT * Math.sqrt(lambdaMax(cov2D)),
    aaFactor: antialiasFactor(cov2D),
  };
}

/**
 * The anti-aliased mode's opacity factor of a splat whose 2D covariance (with the
 * low-pass) is cov2D: sqrt(det(cov2D - LOW_PASS I) / det(cov2D)), in [0, 1); 0 when
 * the det before the low-pass is <= 0 (or cov2D's is).
 */
export function antialiasFactor(cov2D: Sym2): number {
  const [a, b, c] = cov2D;
  const det = a * c - b * b;
  const det0 = (a - LOW_PASS) * (c - LOW_PASS) - b * b;
  return det0 > 0 && det > 0 ? Math.sqrt(det0 / det) : 0;
}

/** The opacity a projected splat is drawn with: scaled by its aaFactor in the anti-aliased mode. */
export function effectiveOpacity(opacity: number, p: Projected2D, antialias = false): number {
  return antialias ? opacity * p.aaFactor : opacity;
}

/**
 * Full per-splat projection: cull on depth and frustum, centre in pixels,
 * EWA covariance, conic, radius and sort key. Returns null when not drawn.
 * cov3D is covariance3D(scale, quat, splatScale).
 */
export function projectSplat(frame: CameraFrame, position: Vec3Like, cov3D: ArrayLike<number>): ProjectedSplat | null {
  const t = transformPoint(frame.view, position);
  const depth = -t[2];
  if (!(depth > frame.near)) return null;
  const clip = transformPoint(frame.viewProj, position);
  const ndcX = clip[0] / clip[3];
  const ndcY = clip[1] / clip[3];
  if (!(Math.abs(ndcX) <= FRUSTUM_GUARD && Math.abs(ndcY) <= FRUSTUM_GUARD)) return null;
  const p2 = projectCovariance(cov3D, t, frame);
  if (!p2) return null;
  return {
    ...p2,
    depth,
    key: depthKey(depth),
    ndc: [ndcX, ndcY],
    center: ndcToPixel(ndcX, ndcY, frame.width, frame.height),
  };
}

// ---------------------------------------------------------------------------
// Fragments and blending

/** Mahalanobis power dx^T conic dx for an offset (dx, dy) in pixels from the centre. */
export function gaussianPower(conic: Sym2, dx: number, dy: number): number {
  return conic[0] * dx * dx + 2 * conic[1] * dx * dy + conic[2] * dy * dy;
}

/**
 * Alpha of a fragment at offset (dx, dy) (pixel centre minus splat centre):
 * opacity * exp(-0.5 power), or 0 when power > cutoffPower (default CUTOFF_POWER;
 * 8 for the renderer's 2 sqrt(2) sigma cut) or alpha < MIN_ALPHA.
 */
export function fragmentAlpha(opacity: number, conic: Sym2, dx: number, dy: number, cutoffPower = CUTOFF_POWER): number {
  const power = gaussianPower(conic, dx, dy);
  if (power > cutoffPower) return 0;
  const alpha = opacity * Math.exp(-0.5 * power);
  return alpha < MIN_ALPHA ? 0 : alpha;
}

/**
 * Premultiplied "over" of one fragment onto an accumulator (back to front):
 * dst.rgb = rgb * alpha + (1 - alpha) * dst.rgb; dst.a = alpha + (1 - alpha) * dst.a.
 * dst holds r, g, b, a at dst[offset .. offset+3] and is updated in place.
 */
export function blendOver(dst: { [i: number]: number }, offset: number, rgb: Vec3Like, alpha: number): void {
  const k = 1 - alpha;
  dst[offset] = rgb[0] * alpha + k * dst[offset];
  dst[offset + 1] = rgb[1] * alpha + k * dst[offset + 1];
  dst[offset + 2] = rgb[2] * alpha + k * dst[offset + 2];
  dst[offset + 3] = alpha + k * dst[offset + 3];
}

/** Straight colour of an accumulated (premultiplied) pixel over a background. */
export function compositeOverBackground(accumRgb: Vec3Like, accumAlpha: number, background: Vec3Like): Vec3 {
  const k = 1 - accumAlpha;
  return [accumRgb[0] + k * background[0], accumRgb[1] + k * background[1], accumRgb[2] + k * background[2]];
}

// ---------------------------------------------------------------------------
// Sort keys

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** IEEE-754 bits of Math.fround(x) as an unsigned 32-bit integer (WGSL bitcast<u32>(f32)). */
export function floatBitsAsU32(x: number): number {
  f32Scratch[0] = x;
  return u32Scratch[0];
}

/**
 * Order-preserving map of any float32 (not NaN) to u32: a < b  =>  key(a) < key(b)
 * (negatives: all bits flipped; non-negatives: sign bit set). -0 maps just below +0.
 */
export function floatToOrderedKey(x: number): number {
  const bits = floatBitsAsU32(x);
  return (bits & 0x80000000 ? ~bits : bits | 0x80000000) >>> 0;
}

/**
 * The renderer's depth key: 0xFFFFFFFF - floatBitsAsU32(d). For d > 0 (every
 * drawn splat has d > near > 0) the float bits grow with d, so an ASCENDING
 * sort of keys puts the largest depth first (back to front). Not ordered
 * for d <= 0 (such splats are culled before keys are written).
 */
export function depthKey(d: number): number {
  return (0xffffffff - floatBitsAsU32(d)) >>> 0;
}
