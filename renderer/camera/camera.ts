/**
 * Camera math shared by the browser viewer and the headless CLI: the pose type,
 * view/projection matrices, the `--camera` argument format, and fitting a view
 * to a scene. Pure functions, no DOM.
 *
 * Conventions (docs/ARCHITECTURE.md): poses are in the
 * file's own world frame with no implicit flip; the view matrix is gl-matrix's
 * right-handed `lookAt` (camera looks down its -z, `up` points up in the
 * image) and the projection is `perspectiveZO` (WebGPU clip depth 0..1).
 */
import { mat4 } from 'gl-matrix';
import type { Bounds } from '../../scenes/splat-cloud';

/** A 3-vector as a plain, serialisable tuple. */
export type Vec3 = [number, number, number];

/** Where the camera is and where it looks; plain numbers so it can go into JSON, URLs and CLI flags. */
export interface CameraPose {
  /** Camera position. */
  eye: Vec3;
  /** The point looked at (also the orbit pivot). */
  target: Vec3;
  /** World direction that appears upwards in the image (need not be orthogonal to the view direction). */
  up: Vec3;
  /** Vertical field of view in degrees. */
  fovyDeg: number;
}

/** The world axes a scene's "up" can be set to from the UI. */
export type UpAxis = '-y' | '+y' | '+z' | '-z';

/** Vertical field of view used when none is given. */
const DEFAULT_FOVY_DEG = 60;

/** The world-space unit vector of an up axis. */
export function upVector(axis: UpAxis): Vec3 {
  switch (axis) {
    case '-y':
      return [0, -1, 0];
    case '+y':
      return [0, 1, 0];
    case '+z':
      return [0, 0, 1];
    case '-z':
      return [0, 0, -1];
  }
}

/**
 * The default viewing direction for an up axis. Each is chosen so that world
 * +x points to the right of the image (forward x up = +x), so switching the up
 * axis never mirrors the scene and x stays rightwards. For '-y' this is +z,
 * the COLMAP camera's own forward; for '+y' it is -z, the OpenGL/glTF
 * convention; for '+z' it is +y, Blender's front view.
 */
export function defaultForward(axis: UpAxis): Vec3 {
  switch (axis) {
    case '-y':
      return [0, 0, 1];
    case '+y':
      return [0, 0, -1];
    case '+z':
      return [0, 1, 0];
    case '-z':
      return [0, -1, 0];
  }
}

/**
 * The up axis closest to an arbitrary up vector, by its larger |component| of
 * y and z. An x-dominant up falls back to a y axis, whose default forwards
 * (along z) are still orthogonal to it.
 */
function nearestUpAxis(up: readonly number[]): UpAxis {
  const [, y, z] = up;
  if (Math.abs(z) > Math.abs(y)) return z > 0 ? '+z' : '-z';
  return y > 0 ? '+y' : '-y';
}

/** View matrix of a pose: gl-matrix `mat4.lookAt` (right-handed, camera looks down -z, no flip). */
export function viewMatrix(pose: CameraPose): Float32Array {
  const out = new Float32Array(16);
  mat4.lookAt(out, pose.eye, pose.target, pose.up);
  return out;
}

/**
 * Perspective projection for WebGPU: gl-matrix `mat4.perspectiveZO`, which
 * maps view depth [near, far] to clip depth [0, 1].
 */
export function projectionMatrix(fovyDeg: number, aspect: number, near: number, far: number): Float32Array {
  const out = new Float32Array(16);
  mat4.perspectiveZO(out, (fovyDeg * Math.PI) / 180, aspect, near, far);
  return out;
}

// ---------------------------------------------------------------------------
// --camera "eye=X,Y,Z target=X,Y,Z up=X,Y,Z fovy=DEG"

// Strict decimal numbers only: Number() would accept '', ' ', '0x10' and 'Infinity'.
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function parseNumbers(token: string, text: string, n: number, what: string): number[] {
  const parts = text.split(',');
  if (parts.length !== n || !parts.every((p) => NUMBER_RE.test(p))) {
    throw new Error(`camera: bad token "${token}" (expected ${what})`);
  }
  return parts.map(Number);
}

/**
 * Parses the CLI camera argument `"eye=X,Y,Z target=X,Y,Z up=X,Y,Z fovy=DEG"`.
 *
 * Keys may come in any order; spaces around `,` and `=` are tolerated. `eye`
 * and `target` are required. `up` defaults to (0,1,0) and is taken literally
 * in the file's world frame, with no implicit flip: a COLMAP scene (y down)
 * needs `up=0,-1,0` to appear upright. `fovy` defaults to 60 degrees.
 *
 * @throws Error with a one-line message naming the offending token on bad input.
 */
export function parseCameraArg(s: string): CameraPose {
  const normalised = s.trim().replace(/\s*([,=])\s*/g, '$1');
  if (normalised === '') throw new Error('camera: empty camera argument (expected "eye=X,Y,Z target=X,Y,Z [up=X,Y,Z] [fovy=DEG]")');
  const seen = new Map<string, string>();
  let eye: Vec3 | undefined;
  let target: Vec3 | undefined;
  let up: Vec3 = [0, 1, 0];
  let fovyDeg = DEFAULT_FOVY_DEG;
  for (const token of normalised.split(/\s+/)) {
    const eq = token.indexOf('=');
    if (eq <= 0) throw new Error(`camera: bad token "${token}" (expected key=value with key eye, target, up or fovy)`);
    const key = token.slice(0, eq).toLowerCase();
    const value = token.slice(eq + 1);
    if (seen.has(key)) throw new Error(`camera: bad token "${token}" (${key} given twice)`);
    seen.set(key, token);
    switch (key) {
      case 'eye':
        eye = parseNumbers(token, value, 3, 'eye=X,Y,Z with three numbers') as Vec3;
        break;
      case 'target':
        target = parseNumbers(token, value, 3, 'target=X,Y,Z with three numbers') as Vec3;
        break;
      case 'up':
        up = parseNumbers(token, value, 3, 'up=X,Y,Z with three numbers') as Vec3;
        break;
      case 'fovy': {
        fovyDeg = parseNumbers(token, value, 1, 'fovy=DEG with one number')[0];
        if (!(fovyDeg > 0 && fovyDeg < 180)) throw new Error(`camera: bad token "${token}" (fovy must be between 0 and 180 degrees, exclusive)`);
        break;
      }
      default:
        throw new Error(`camera: bad token "${token}" (unknown key "${key}"; expected eye, target, up or fovy)`);
    }
  }
  if (!eye) throw new Error('camera: missing eye=X,Y,Z');
  if (!target) throw new Error('camera: missing target=X,Y,Z');
  const dir = sub(target, eye);
  if (length(dir) === 0) throw new Error(`camera: bad token "${seen.get('target')}" (target equals eye, so there is no view direction)`);
  // lookAt needs an up with a component across the view direction; otherwise the roll is undefined.
  const upLen = length(up);
  if (upLen === 0 || length(cross(dir, up)) <= 1e-9 * length(dir) * upLen) {
    throw new Error(`camera: bad token "${seen.get('up') ?? 'up=0,1,0 (default)'}" (up is zero or parallel to the view direction)`);
  }
  return { eye, target, up, fovyDeg };
}

function formatNumber(v: number, digits: number | undefined): string {
  const x = digits === undefined ? v : Number(v.toPrecision(digits));
  // -0 would print as "0" anyway, but normalise so equal poses give equal strings.
  return String(x === 0 ? 0 : x);
}

/**
 * Formats a pose as a `--camera` argument; the inverse of {@link parseCameraArg}.
 * Without `digits` numbers print exactly (shortest round-tripping form);
 * with `digits` they are rounded to that many significant digits for display.
 */
export function formatCameraArg(pose: CameraPose, digits?: number): string {
  const v = (a: readonly number[]) => a.map((x) => formatNumber(x, digits)).join(',');
  return `eye=${v(pose.eye)} target=${v(pose.target)} up=${v(pose.up)} fovy=${formatNumber(pose.fovyDeg, digits)}`;
}

// ---------------------------------------------------------------------------
// Fitting a view to a scene

/**
 * Every stride-th point whose coordinates are all finite, at most about
 * `maxSamples` of them, split into one array an axis (valid up to `n`); with
 * `extra`, its value for each point kept, in `values` (valid up to `n` too).
 */
export function sampleFinite(
  positions: Float32Array,
  maxSamples: number,
  extra?: (i: number) => number,
): { axes: [Float64Array, Float64Array, Float64Array]; n: number; values: Float64Array | null } {
  const count = Math.floor(positions.length / 3);
  const stride = Math.max(1, Math.ceil(count / Math.max(1, maxSamples)));
  const cap = Math.ceil(count / stride);
  const axes: [Float64Array, Float64Array, Float64Array] = [new Float64Array(cap), new Float64Array(cap), new Float64Array(cap)];
  const values = extra ? new Float64Array(cap) : null;
  let n = 0;
  for (let i = 0; i < count; i += stride) {
    const x = positions[3 * i];
    const y = positions[3 * i + 1];
    const z = positions[3 * i + 2];
    if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) continue;
    axes[0][n] = x;
    axes[1][n] = y;
    axes[2][n] = z;
    if (values) values[n] = extra!(i);
    n++;
  }
  return { axes, n, values };
}

/**
 * Per-axis percentile bounds of a positions array (x, y, z per point).
 *
 * Trained scenes carry "floaters" far from the content (and sometimes a
 * sky shell); the full bounds then frame mostly empty space. Percentiles over
 * a strided sample of at most `maxSamples` points ignore them and stay cheap
 * (a few ms for 6M points). Points with a non-finite coordinate are skipped.
 * The percentile indices round outwards, so `lo = 0, hi = 1` gives the exact
 * bounds of the sample.
 *
 * @param lo lower percentile in [0, 1] (default 2%)
 * @param hi upper percentile in [0, 1] (default 98%)
 */
export function robustBounds(positions: Float32Array, lo = 0.02, hi = 0.98, maxSamples = 100_000): Bounds {
  if (!(lo >= 0 && hi <= 1 && lo <= hi)) throw new Error(`robustBounds: need 0 <= lo <= hi <= 1, got lo=${lo} hi=${hi}`);
  const { axes, n } = sampleFinite(positions, maxSamples);
  if (n === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  const iLo = Math.floor(lo * (n - 1));
  const iHi = Math.ceil(hi * (n - 1));
  const min: Vec3 = [0, 0, 0];
  const max: Vec3 = [0, 0, 0];
  for (let a = 0; a < 3; a++) {
    // A typed-array sort is numeric and fast; 100k floats sort in a few ms.
    const sorted = axes[a].subarray(0, n).sort();
    min[a] = sorted[iLo];
    max[a] = sorted[iHi];
  }
  return { min, max };
}

/** Centre of a box. */
export function boundsCenter(b: Bounds): Vec3 {
  return [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2];
}

/** Radius of the box's bounding sphere (half its diagonal); 0 for an empty or point box. */
export function boundsRadius(b: Bounds): number {
  const r = length(sub(b.max as Vec3, b.min as Vec3)) / 2;
  return Number.isFinite(r) ? r : 0;
}

/**
 * Makes `forward` a unit vector orthogonal to `up`; falls back to the up
 * axis' default forward (then any orthogonal axis) when it is parallel to up.
 */
export function orthogonalForward(up: readonly number[], forward?: readonly number[]): Vec3 {
  const u = normalize(up as Vec3);
  const candidates: Vec3[] = [];
  if (forward) candidates.push([forward[0], forward[1], forward[2]]);
  candidates.push(defaultForward(nearestUpAxis(u)), [1, 0, 0], [0, 0, 1]);
  for (const f of candidates) {
    const d = dot(f, u);
    const o: Vec3 = [f[0] - d * u[0], f[1] - d * u[1], f[2] - d * u[2]];
    const len = length(o);
    if (len > 1e-6 * Math.max(1, length(f))) return [o[0] / len, o[1] / len, o[2] / len];
  }
  return [1, 0, 0]; // unreachable for a non-zero up: x and z cannot both be parallel to it
}

/**
 * A pose that frames a box: the target is the box centre and the eye backs
 * off along -forward until the box's bounding sphere fits the narrower of the
 * vertical and horizontal fields of view.
 *
 * @param up world up (normalised here)
 * @param aspect viewport width / height
 * @param forward viewing direction; defaults to {@link defaultForward} of the
 *   up axis nearest `up`, made orthogonal to `up`. For the COLMAP default
 *   (up -y) the camera sits at centre - z * dist looking +z.
 * @throws Error when `up` is the zero vector.
 */
export function fitPose(bounds: Bounds, up: readonly number[], fovyDeg: number, aspect: number, forward?: readonly number[]): CameraPose {
  const u = normalize(up as Vec3);
  if (length(u) === 0) throw new Error('fitPose: up must be non-zero');
  const f = orthogonalForward(u, forward);
  const centre = boundsCenter(bounds);
  const dist = fitDistance(boundsRadius(bounds), fovyDeg, aspect);
  const eye: Vec3 = [centre[0] - f[0] * dist, centre[1] - f[1] * dist, centre[2] - f[2] * dist];
  return { eye, target: centre, up: u, fovyDeg };
}

/**
 * Distance at which a sphere of `radius` just fits the view. A point-sized
 * (or empty) scene gets radius 1 so the eye never lands on the target.
 */
export function fitDistance(radius: number, fovyDeg: number, aspect: number): number {
  const r = radius > 0 && Number.isFinite(radius) ? radius : 1;
  const halfY = (fovyDeg * Math.PI) / 360;
  const halfX = Math.atan(Math.tan(halfY) * (aspect > 0 ? aspect : 1));
  // sin, not tan: the sphere touches the frustum planes, not the view axis' perpendicular.
  return r / Math.sin(Math.min(halfY, halfX));
}

/**
 * Clip planes for a pose and the scene's full (not robust) bounds.
 *
 * There is no depth test for splats (they are sorted and blended), so depth
 * precision barely matters; what the planes do is cull. `far` must reach the
 * farthest box corner or distant splats would be clipped away, so it is the
 * distance to that corner plus a margin. `near` culls splats just in front of
 * the lens, which would otherwise cover the screen with one huge blurred
 * quad: 1% of the distance to the target is closer than anything one
 * inspects, and the `far * 1e-4` floor keeps the near/far ratio sane when
 * the camera sits on its target.
 */
export function nearFar(pose: CameraPose, bounds: Bounds): { near: number; far: number } {
  let farthest = 0;
  for (let c = 0; c < 8; c++) {
    const corner: Vec3 = [
      c & 1 ? bounds.max[0] : bounds.min[0],
      c & 2 ? bounds.max[1] : bounds.min[1],
      c & 4 ? bounds.max[2] : bounds.min[2],
    ];
    const d = length(sub(corner, pose.eye));
    if (d > farthest) farthest = d;
  }
  const toTarget = length(sub(pose.target, pose.eye));
  let far = Math.max(farthest, toTarget) * 1.05;
  if (!(far > 0) || !Number.isFinite(far)) far = 1;
  let near = Math.max(far * 1e-4, 0.01 * toTarget);
  if (!(near < far)) near = far * 1e-4;
  return { near, far };
}

// ---------------------------------------------------------------------------
// Small tuple helpers (gl-matrix works on the same tuples, but these keep the
// pose math allocation-light and readable).

/** a - b */
export function sub(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
/** a x b */
export function cross(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
/** a . b */
export function dot(a: readonly number[], b: readonly number[]): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/** |a| */
export function length(a: readonly number[]): number {
  return Math.hypot(a[0], a[1], a[2]);
}
/** a / |a|, or (0,0,0) for a zero vector. */
export function normalize(a: readonly number[]): Vec3 {
  const l = length(a);
  return l > 0 ? [a[0] / l, a[1] / l, a[2] / l] : [0, 0, 0];
}
