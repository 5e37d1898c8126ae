/**
 * The object panel's maths (object-panel.ts, object-overlay.ts), pure: Euler angles and
 * unit quaternions, a point of the world on the screen for the viewer's camera pose,
 * a screen drag as a distance along an axis, and a crop box's faces.
 *
 * Euler angles are in degrees, applied about the world's fixed axes X first, then Y,
 * then Z: R = Rz(z) Ry(y) Rx(x) (yaw-pitch-roll, "ZYX intrinsic"). Quaternions are
 * [w, x, y, z], w first, as the library takes them.
 */

import { cross, dot, normalize, sub } from '../renderer/api/index';

export type V3 = [number, number, number];
export type Quat = [number, number, number, number];
export interface Box {
  min: V3;
  max: V3;
}

const RAD = Math.PI / 180;

/** Euler angles in degrees (X, then Y, then Z about the world's axes) as a unit quaternion [w, x, y, z]. */
export function eulerToQuat(deg: readonly number[]): Quat {
  const [hx, hy, hz] = [deg[0]! * RAD * 0.5, deg[1]! * RAD * 0.5, deg[2]! * RAD * 0.5];
  const [cx, sx, cy, sy, cz, sz] = [Math.cos(hx), Math.sin(hx), Math.cos(hy), Math.sin(hy), Math.cos(hz), Math.sin(hz)];
  return [
    cx * cy * cz + sx * sy * sz,
    sx * cy * cz - cx * sy * sz,
    cx * sy * cz + sx * cy * sz,
    cx * cy * sz - sx * sy * cz,
  ];
}

/** A quaternion [w, x, y, z] (normalised here) as Euler angles in degrees, eulerToQuat's order; at y = ±90° x takes it all. */
export function quatToEuler(q: readonly number[]): V3 {
  const n = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!) || 1;
  const [w, x, y, z] = [q[0]! / n, q[1]! / n, q[2]! / n, q[3]! / n];
  const sinY = Math.max(-1, Math.min(1, 2 * (w * y - x * z)));
  if (Math.abs(sinY) > 1 - 1e-9) {
    // Gimbal lock: only x - z (or x + z) is defined; z = 0.
    return [wrapDeg((2 * Math.atan2(x, w)) / RAD), sinY > 0 ? 90 : -90, 0];
  }
  const ax = Math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y));
  const az = Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
  return [ax / RAD, Math.asin(sinY) / RAD, az / RAD];
}

function wrapDeg(d: number): number {
  return ((((d + 180) % 360) + 360) % 360) - 180;
}

/** v rotated by the unit quaternion q [w, x, y, z]. */
export function rotate(q: readonly number[], v: readonly number[]): V3 {
  const [w, x, y, z] = [q[0]!, q[1]!, q[2]!, q[3]!];
  // t = 2 (q.xyz x v); v' = v + w t + q.xyz x t
  const tx = 2 * (y * v[2]! - z * v[1]!);
  const ty = 2 * (z * v[0]! - x * v[2]!);
  const tz = 2 * (x * v[1]! - y * v[0]!);
  return [v[0]! + w * tx + (y * tz - z * ty), v[1]! + w * ty + (z * tx - x * tz), v[2]! + w * tz + (x * ty - y * tx)];
}

/** Where an object is: x' = R (s x) + t (the library's transform). */
export interface Placement {
  position: readonly number[];
  rotation: readonly number[];
  scale: number;
}

/** A point of the object's own frame in the world. */
export function toWorld(t: Placement, p: readonly number[]): V3 {
  const r = rotate(t.rotation, [p[0]! * t.scale, p[1]! * t.scale, p[2]! * t.scale]);
  return [r[0] + t.position[0]!, r[1] + t.position[1]!, r[2] + t.position[2]!];
}

/** The 8 corners of a box (bit 0: x max, bit 1: y max, bit 2: z max). */
export function boxCorners(b: Box): V3[] {
  const out: V3[] = [];
  for (let i = 0; i < 8; i++) out.push([i & 1 ? b.max[0] : b.min[0], i & 2 ? b.max[1] : b.min[1], i & 4 ? b.max[2] : b.min[2]]);
  return out;
}

/** The 12 edges of a box as pairs of boxCorners' indices. */
export const BOX_EDGES: readonly (readonly [number, number])[] = [
  [0, 1], [2, 3], [4, 5], [6, 7],
  [0, 2], [1, 3], [4, 6], [5, 7],
  [0, 4], [1, 5], [2, 6], [3, 7],
];

/** The camera as the overlay sees it: the viewer's pose (eye, target, up, vertical field of view) on a viewport of CSS pixels. */
export interface ScreenCamera {
  eye: V3;
  /** The camera's right, up and backward axes in the world (gl-matrix lookAt's: it looks down -back). */
  right: V3;
  up: V3;
  back: V3;
  /** 1 / tan(fovy / 2). */
  f: number;
  width: number;
  height: number;
}

export function screenCamera(pose: { eye: readonly number[]; target: readonly number[]; up: readonly number[]; fovyDeg: number }, width: number, height: number): ScreenCamera {
  const back = normalize(sub(pose.eye, pose.target));
  const right = normalize(cross(pose.up, back));
  const up = cross(back, right);
  return { eye: [pose.eye[0]!, pose.eye[1]!, pose.eye[2]!], right, up, back, f: 1 / Math.tan((pose.fovyDeg * RAD) / 2), width, height };
}

/** Where a world point is drawn, in CSS pixels from the viewport's top left, and its depth in front of the eye; null behind the eye (or nearly at it). */
export function project(cam: ScreenCamera, p: readonly number[]): { x: number; y: number; depth: number } | null {
  const d = sub(p, cam.eye);
  const depth = -dot(d, cam.back);
  if (depth < 1e-6) return null;
  const ndcX = (cam.f * dot(d, cam.right)) / (depth * (cam.width / cam.height));
  const ndcY = (cam.f * dot(d, cam.up)) / depth;
  return { x: ((ndcX + 1) / 2) * cam.width, y: ((1 - ndcY) / 2) * cam.height, depth };
}

/** The world length that covers `px` CSS pixels at `depth` in front of the eye. */
export function worldPerPixels(cam: ScreenCamera, depth: number, px: number): number {
  return (px * 2 * depth) / (cam.f * cam.height);
}

/**
 * How far along the world direction `dir` (a unit vector) from `origin` a screen drag
 * of `drag` CSS pixels asks to move: the drag projected onto the axis's direction on
 * the screen, scaled by the axis's pixels a world unit there. 0 for an axis that points
 * at the viewer (no screen direction) or an origin behind the eye.
 */
export function axisDragDistance(cam: ScreenCamera, origin: readonly number[], dir: readonly number[], drag: readonly [number, number]): number {
  const s0 = project(cam, origin);
  if (!s0) return 0;
  const step = worldPerPixels(cam, s0.depth, 50);
  const s1 = project(cam, [origin[0]! + dir[0]! * step, origin[1]! + dir[1]! * step, origin[2]! + dir[2]! * step]);
  if (!s1) return 0;
  const ux = s1.x - s0.x;
  const uy = s1.y - s0.y;
  const uu = ux * ux + uy * uy;
  if (uu < 1e-6) return 0;
  return ((drag[0] * ux + drag[1] * uy) / uu) * step;
}

/** A face of a box: its axis (0 x, 1 y, 2 z) and side. */
export interface Face {
  axis: 0 | 1 | 2;
  side: 'min' | 'max';
}

export const FACES: readonly Face[] = [0, 1, 2].flatMap((axis) => (['min', 'max'] as const).map((side) => ({ axis: axis as 0 | 1 | 2, side })));

/** A face's name as the overlay's handles carry it: `x-min` ... `z-max`. */
export function faceName(face: Face): string {
  return `${'xyz'[face.axis]}-${face.side}`;
}

/** The centre of a face of a box. */
export function faceCenter(b: Box, face: Face): V3 {
  const c: V3 = [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2];
  c[face.axis] = b[face.side][face.axis];
  return c;
}

/**
 * The box with one face moved by `delta` along its axis (+ toward the axis's positive
 * end, whichever side), in the box's frame; a face never passes the opposite one (the
 * box keeps `minSize` along the axis).
 */
export function moveFace(b: Box, face: Face, delta: number, minSize = 1e-4): Box {
  const out: Box = { min: [...b.min], max: [...b.max] };
  const a = face.axis;
  if (face.side === 'min') out.min[a] = Math.min(b.min[a] + delta, b.max[a] - minSize);
  else out.max[a] = Math.max(b.max[a] + delta, b.min[a] + minSize);
  return out;
}

/**
 * A crop face dragged on the screen: the face's centre and axis taken into the world
 * through the object's placement, the drag projected onto the axis's screen direction
 * (axisDragDistance), the world distance divided by the scale back into the object's
 * frame, the face moved by it (moveFace). `start` is the box when the drag began and
 * `drag` the pixels from there.
 */
export function dragFace(cam: ScreenCamera, t: Placement, start: Box, face: Face, drag: readonly [number, number]): Box {
  const origin = toWorld(t, faceCenter(start, face));
  const axis: V3 = [0, 0, 0];
  axis[face.axis] = 1;
  const dir = rotate(t.rotation, axis);
  return moveFace(start, face, axisDragDistance(cam, origin, dir, drag) / t.scale);
}

/** An object's box in its own frame with its crop applied (their intersection; the bounds alone without a crop). */
export function croppedBox(bounds: Box, crop: Box | null): Box {
  if (!crop) return bounds;
  const min: V3 = [0, 0, 0];
  const max: V3 = [0, 0, 0];
  for (let i = 0; i < 3; i++) {
    min[i] = Math.max(bounds.min[i]!, crop.min[i]!);
    max[i] = Math.max(min[i]!, Math.min(bounds.max[i]!, crop.max[i]!));
  }
  return { min, max };
}
