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
