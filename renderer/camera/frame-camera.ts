import { mat4 } from 'gl-matrix';
import type { Bounds } from '../../scenes/splat-cloud';
import { nearFar, projectionMatrix, viewMatrix, type CameraPose } from './camera';
import type { FrameCamera } from '../stage/frame-uniforms';

/** The matrices and clip planes one frame uses for a pose, a viewport and a scene. */
export function frameCamera(pose: CameraPose, width: number, height: number, bounds: Bounds): FrameCamera {
  const { near, far } = nearFar(pose, bounds);
  return {
    view: viewMatrix(pose) as Float32Array,
    proj: projectionMatrix(pose.fovyDeg, width / height, near, far) as Float32Array,
    eye: pose.eye,
    fovyDeg: pose.fovyDeg,
    width,
    height,
    near,
    far,
  };
}

/**
 * The camera of a window of `full`'s view: its pixels x..x+width, y..y+height (from the top
 * left; outside the view, it shows nothing) drawn as the full view draws them, each splat
 * as many pixels (the same focal length: the field of view narrowed to the window's share of
 * the height, the projection scaled and moved onto the window), culled by the full view's
 * frustum (so that every window, and one outside the view, does the full view's per-splat
 * work: auto's probes, profile/auto-draw.ts).
 */
export function windowCamera(full: FrameCamera, win: { x: number; y: number; width: number; height: number }): FrameCamera {
  const { width: W, height: H } = full;
  const sx = W / win.width;
  const sy = H / win.height;
  const cx = (2 * (win.x + win.width / 2)) / W - 1;
  const cy = 1 - (2 * (win.y + win.height / 2)) / H;
  // Clip space: x' = sx (x - cx w), y' = sy (y - cy w); z and w as they were.
  const onto = mat4.fromValues(sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, -sx * cx, -sy * cy, 0, 1);
  const tanY = Math.tan((full.fovyDeg * Math.PI) / 360);
  return {
    ...full,
    proj: mat4.multiply(mat4.create(), onto, full.proj as mat4) as Float32Array,
    fovyDeg: (2 * Math.atan((tanY * win.height) / H) * 180) / Math.PI,
    width: win.width,
    height: win.height,
    cullTanHalfFov: full.cullTanHalfFov ?? [(tanY * W) / H, tanY],
  };
}

/**
 * Where world point `p` is drawn by `camera`: its pixel (from the top left, continuous: a
 * pixel's centre at +0.5) and its view depth (-z in view space); null behind the camera.
 */
export function projectToPixel(camera: FrameCamera, p: ArrayLike<number>): { x: number; y: number; depth: number } | null {
  const v = camera.view;
  const m = camera.proj;
  const t = [0, 1, 2, 3].map((r) => v[r]! * p[0]! + v[4 + r]! * p[1]! + v[8 + r]! * p[2]! + v[12 + r]!);
  const depth = -t[2]!;
  if (!(depth > 0)) return null;
  const c = [0, 1, 3].map((r) => m[r]! * t[0]! + m[4 + r]! * t[1]! + m[8 + r]! * t[2]! + m[12 + r]! * t[3]!);
  return { x: ((c[0]! / c[2]! + 1) / 2) * camera.width, y: ((1 - c[1]! / c[2]!) / 2) * camera.height, depth };
}

/** The world point seen at pixel (px, py) of `camera` (from the top left, continuous) at view depth `depth`. */
export function unproject(camera: FrameCamera, px: number, py: number, depth: number): [number, number, number] {
  const ndcX = (2 * px) / camera.width - 1;
  const ndcY = 1 - (2 * py) / camera.height;
  const v = [(ndcX * depth) / camera.proj[0]!, (ndcY * depth) / camera.proj[5]!, -depth];
  const inv = mat4.invert(mat4.create(), camera.view as mat4);
  if (!inv) throw new Error('unproject: the view matrix has no inverse');
  return [0, 1, 2].map((r) => inv[r]! * v[0]! + inv[4 + r]! * v[1]! + inv[8 + r]! * v[2]! + inv[12 + r]!) as [number, number, number];
}
