/**
 * The state a CameraController (controller.ts) moves and damps, and its geometry: an
 * anchor point, a log-distance and yaw/pitch measured in a fixed basis around the world
 * up vector (UpBasis), and the conversions between such a state and a camera pose. Pure
 * functions of their arguments; the controller owns the states and the basis.
 */
import { type CameraPose, type Vec3, cross, dot, length, normalize, orthogonalForward, sub } from './camera';

/** Orbit: drag circles the target. Fly: drag turns the camera in place; W/A/S/D switch to it. */
export type ControlMode = 'orbit' | 'fly';

export interface ControlState {
  /** Target in orbit mode, eye in fly mode. */
  anchor: Vec3;
  /** log(distance eye-target): zoom is multiplicative, and damping in log space feels even at every scale. */
  logDist: number;
  /** Rotation around up, from the basis forward towards the basis right (radians, unwrapped). */
  yaw: number;
  /** Elevation of the eye above the target (radians); positive looks down. */
  pitch: number;
}

// Short of +-90 degrees: at the pole the view direction is parallel to up and lookAt's roll is undefined.
export const MAX_PITCH = Math.PI / 2 - 1e-3;

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

export function wrapPi(a: number): number {
  return a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
}

export function cloneState(s: ControlState): ControlState {
  return { anchor: [...s.anchor], logDist: s.logDist, yaw: s.yaw, pitch: s.pitch };
}

/**
 * The world up (a unit vector; a zero vector gives +y) and the fixed forward and right
 * that yaw and pitch are measured from: yaw = pitch = 0 looks along the up axis' default
 * forward (orthogonalForward), which is fitPose's direction.
 */
export class UpBasis {
  readonly up: Vec3;
  readonly forward: Vec3;
  readonly right: Vec3;

  constructor(up: readonly number[]) {
    const u = normalize(up);
    this.up = length(u) > 0 ? u : [0, 1, 0];
    this.forward = orthogonalForward(this.up);
    this.right = cross(this.forward, this.up);
  }

  /** The view direction of a state. */
  direction(s: ControlState): Vec3 {
    const cp = Math.cos(s.pitch);
    const cy = Math.cos(s.yaw);
    const sy = Math.sin(s.yaw);
    const sp = Math.sin(s.pitch);
    const f = this.forward;
    const r = this.right;
    const u = this.up;
    return [
      cp * (cy * f[0] + sy * r[0]) - sp * u[0],
      cp * (cy * f[1] + sy * r[1]) - sp * u[1],
      cp * (cy * f[2] + sy * r[2]) - sp * u[2],
    ];
  }

  /** View direction, image right and image up of a state (lookAt's axes). */
  axes(s: ControlState): { fwd: Vec3; right: Vec3; camUp: Vec3 } {
    const fwd = this.direction(s);
    const right = normalize(cross(fwd, this.up));
    return { fwd, right, camUp: cross(right, fwd) };
  }

  /** The pose of a state in `mode` (its up: this basis' up). */
  pose(s: ControlState, mode: ControlMode, fovyDeg: number): CameraPose {
    const f = this.direction(s);
    const d = Math.exp(s.logDist);
    const a = s.anchor;
    const off: Vec3 = [f[0] * d, f[1] * d, f[2] * d];
    const eye: Vec3 = mode === 'orbit' ? [a[0] - off[0], a[1] - off[1], a[2] - off[2]] : [a[0], a[1], a[2]];
    const target: Vec3 = mode === 'orbit' ? [a[0], a[1], a[2]] : [a[0] + off[0], a[1] + off[1], a[2] + off[2]];
    return { eye, target, up: [...this.up], fovyDeg };
  }

  /** The state of a pose in `mode` (the pose's up ignored: this basis' is used). */
  state(pose: CameraPose, mode: ControlMode): ControlState {
    let dir = sub(pose.target, pose.eye);
    let d = length(dir);
    if (!(d > 0) || !Number.isFinite(d)) {
      // Degenerate pose: look along the basis forward from a unit distance.
      dir = [...this.forward];
      d = 1;
    }
    const f: Vec3 = [dir[0] / d, dir[1] / d, dir[2] / d];
    const pitch = clamp(Math.asin(clamp(-dot(f, this.up), -1, 1)), -MAX_PITCH, MAX_PITCH);
    const fx = dot(f, this.forward);
    const fy = dot(f, this.right);
    const yaw = fx === 0 && fy === 0 ? 0 : Math.atan2(fy, fx);
    const anchor: Vec3 = mode === 'orbit' ? [...pose.target] : [...pose.eye];
    return { anchor, logDist: Math.log(d), yaw, pitch };
  }

  /** The same view with the anchor of mode `to`: the eye (fly) or the target (orbit). */
  convertAnchor(s: ControlState, to: ControlMode): ControlState {
    const f = this.direction(s);
    const d = Math.exp(s.logDist);
    const sign = to === 'fly' ? -1 : 1; // orbit -> fly: eye = target - f d; fly -> orbit: target = eye + f d
    return {
      anchor: [s.anchor[0] + sign * f[0] * d, s.anchor[1] + sign * f[1] * d, s.anchor[2] + sign * f[2] * d],
      logDist: s.logDist,
      yaw: s.yaw,
      pitch: s.pitch,
    };
  }
}
