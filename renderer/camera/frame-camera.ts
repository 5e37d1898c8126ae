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
