/**
 * Orbit / pan / zoom / fly camera controller: pure state, no DOM. The viewer's
 * `attachControls` (app/input.ts) feeds it from pointer, wheel and
 * keyboard events.
 *
 * The state is an anchor point, a log-distance and yaw/pitch around a fixed
 * world up vector, so the camera never rolls and zoom is multiplicative. In
 * orbit mode the anchor is the target (the camera circles it); in fly mode
 * the anchor is the eye (the camera turns in place). Input moves a goal
 * state; `update(dt)` moves the current state towards it with exponential
 * damping, x += (goal - x) * (1 - exp(-k dt)), which lands in the same place
 * whatever the frame rate.
 */
import type { Bounds } from '../../scenes/splat-cloud';
import { type CameraPose, type UpAxis, type Vec3, boundsCenter, boundsRadius, dot, fitDistance, fitPose, length, normalize, sub, upVector } from './camera';
import { type ControlMode, type ControlState as State, MAX_PITCH, UpBasis, clamp, cloneState, wrapPi } from './controller-state';

export type { ControlMode } from './controller-state';

/** Tuning of a {@link CameraController}; every field has a default. */
export interface CameraControllerOptions {
  /** Orbit rotation in radians per dragged pixel (default 0.005: ~115 degrees across 400 px). */
  rotateSpeed?: number;
  /** Fly-mode look-around in radians per dragged pixel (default 0.003; slower, since turning in place swings the whole view). */
  lookSpeed?: number;
  /** Zoom exponent per wheel pixel: distance *= exp(delta * zoomSpeed) (default 0.0015: ~16% per 100 px notch). */
  zoomSpeed?: number;
  /** Damping rate k in 1/s (default 12: ~15% of the way per 60 Hz frame); Infinity disables damping. */
  damping?: number;
  /** Fly speed in scene radii per second (default 0.5); see {@link CameraController.moveSpeed}. */
  moveSpeed?: number;
  /** Viewport width / height, used when framing (default 1). */
  aspect?: number;
}

/** How {@link CameraController.frame} places the camera. */
export interface FrameOptions {
  /** Viewport width / height; defaults to the controller's `aspect`. */
  aspect?: number;
  /**
   * Keep the current viewing direction (what the F key wants) rather than
   * look along the up axis' default forward (what a freshly loaded scene
   * wants). Default true.
   */
  keepDirection?: boolean;
  /** Also make this the home pose that `reset()` returns to, refitted when the up axis changes. Default false. */
  setHome?: boolean;
  /** Jump there instead of gliding. Default false. */
  snap?: boolean;
}

// Below these the current state snaps to the goal and update() reports rest;
// 1e-5 rad is ~0.01 px on a 1000 px view, invisible.
const EPS_ANGLE = 1e-5;
const EPS_LOG = 1e-5;
const EPS_POS = 1e-5; // relative to the eye-target distance

/**
 * Camera state machine driven by input deltas and stepped once a frame.
 * Everything is in world units of the scene; nothing here touches the DOM.
 */
export class CameraController {
  /** Orbit rotation, radians per pixel. */
  rotateSpeed: number;
  /** Fly look-around, radians per pixel. */
  lookSpeed: number;
  /** Zoom exponent per wheel pixel. */
  zoomSpeed: number;
  /** Damping rate in 1/s; Infinity snaps. */
  damping: number;
  /**
   * Fly speed in scene radii per second: the same slider value feels the same
   * in a 1 m object scan and a 500 m aerial scene. The world speed is
   * `moveSpeed * sceneScale`.
   */
  moveSpeed: number;
  /**
   * World size that fly speed and zoom limits scale with: the bounding-sphere
   * radius of the last framed bounds, or half the initial eye-target distance
   * before any scene is framed.
   */
  sceneScale: number;
  /** Viewport width / height, used when framing. */
  aspect: number;

  private cur: State;
  private goal: State;
  private modeValue: ControlMode = 'orbit';
  /** The world up and the basis yaw and pitch are measured in (controller-state.ts). */
  private basis: UpBasis;
  private fovy: number;
  private home: CameraPose;
  private homeBounds: Bounds | undefined;
  private sceneBounds: Bounds | undefined;
  private moveInput: Vec3 = [0, 0, 0];

  /** Starts at `pose`, which is also the home pose until `frame(..., { setHome })` or `setHome`. */
  constructor(pose: CameraPose, opts: CameraControllerOptions = {}) {
    this.rotateSpeed = opts.rotateSpeed ?? 0.005;
    this.lookSpeed = opts.lookSpeed ?? 0.003;
    this.zoomSpeed = opts.zoomSpeed ?? 0.0015;
    this.damping = opts.damping ?? 12;
    this.moveSpeed = opts.moveSpeed ?? 0.5;
    this.aspect = opts.aspect ?? 1;
    this.fovy = pose.fovyDeg;
    this.basis = new UpBasis(pose.up);
    this.cur = this.basis.state(pose, 'orbit');
    this.goal = cloneState(this.cur);
    const d = length(sub(pose.target, pose.eye));
    this.sceneScale = d > 0 && Number.isFinite(d) ? d / 2 : 1;
    this.home = this.pose;
  }

  // -------------------------------------------------------------------------
  // Reading and writing the pose

  /** The current (damped) pose. Its `up` is the controller's up vector. */
  get pose(): CameraPose {
    return this.basis.pose(this.cur, this.modeValue, this.fovy);
  }

  /** Where the camera is heading; equals `pose` once `update` reports rest. */
  get goalPose(): CameraPose {
    return this.basis.pose(this.goal, this.modeValue, this.fovy);
  }

  /**
   * Jumps to `pose` (no damping), switching to orbit mode. The pose's `up`
   * becomes the orbit axis, so the view is reproduced exactly; the home pose
   * is untouched.
   */
  setPose(pose: CameraPose): void {
    this.modeValue = 'orbit';
    this.fovy = pose.fovyDeg;
    this.basis = new UpBasis(pose.up);
    this.cur = this.basis.state(pose, 'orbit');
    this.goal = cloneState(this.cur);
  }

  /**
   * Glides to `pose` (damped), switching to orbit mode; its fovy applies at
   * once. If its `up` differs, the controller first re-bases onto it (the
   * view rolls at once, then glides). Returns false, changing nothing, for a
   * pose whose eye equals its target or whose up is zero.
   */
  setGoal(pose: CameraPose): boolean {
    const d = length(sub(pose.target, pose.eye));
    if (!(d > 0) || !Number.isFinite(d) || !(length(pose.up) > 0)) return false;
    if (dot(normalize(pose.up), this.basis.up) < 1 - 1e-9) this.rebase(pose.up);
    this.mode = 'orbit';
    this.fovyDeg = pose.fovyDeg;
    this.goal = this.unwrapTo(this.basis.state(pose, 'orbit'));
    return true;
  }

  /** The home pose (`reset()` goes there): a scene's first view. */
  get homePose(): CameraPose {
    const h = this.home;
    return { eye: [...h.eye], target: [...h.target], up: [...h.up], fovyDeg: h.fovyDeg };
  }

  /** Makes `pose` (default: the current pose) the one `reset()` returns to. */
  setHome(pose: CameraPose = this.pose): void {
    this.home = { eye: [...pose.eye], target: [...pose.target], up: [...pose.up], fovyDeg: pose.fovyDeg };
    this.homeBounds = undefined;
  }

  /** Vertical field of view in degrees, clamped to [1, 170]; applies at once. */
  get fovyDeg(): number {
    return this.fovy;
  }
  set fovyDeg(v: number) {
    if (Number.isFinite(v)) this.fovy = clamp(v, 1, 170);
  }

  /** The orbit axis (unit vector). */
  get up(): Vec3 {
    return [...this.basis.up];
  }

  /** Orbit or fly; switching keeps the view exactly where it is. */
  get mode(): ControlMode {
    return this.modeValue;
  }
  set mode(m: ControlMode) {
    if (m === this.modeValue) return;
    this.cur = this.basis.convertAnchor(this.cur, m);
    this.goal = this.basis.convertAnchor(this.goal, m);
    this.modeValue = m;
  }

  /** The bounds `frame()` with no argument (the F key) fits, if a scene was framed. */
  get bounds(): Bounds | undefined {
    return this.sceneBounds;
  }

  // -------------------------------------------------------------------------
  // Stepping

  /**
   * Advances the damping by `dtSeconds` (and fly movement from
   * `setMoveInput`). Returns true when the pose changed, so the renderer can
   * skip re-sorting while the camera rests.
   */
  update(dtSeconds: number): boolean {
    const dt = Number.isFinite(dtSeconds) && dtSeconds > 0 ? dtSeconds : 0;
    const [mf, mr, mu] = this.moveInput;
    if (dt > 0 && (mf !== 0 || mr !== 0 || mu !== 0)) this.moveLocal(mf, mr, mu, dt);

    const c = this.cur;
    const g = this.goal;
    const dist = Math.exp(Math.max(c.logDist, g.logDist));
    const atRest =
      Math.abs(g.yaw - c.yaw) < EPS_ANGLE &&
      Math.abs(g.pitch - c.pitch) < EPS_ANGLE &&
      Math.abs(g.logDist - c.logDist) < EPS_LOG &&
      length(sub(g.anchor, c.anchor)) < EPS_POS * dist;
    const changed =
      g.yaw !== c.yaw || g.pitch !== c.pitch || g.logDist !== c.logDist || length(sub(g.anchor, c.anchor)) !== 0;
    if (atRest || !(this.damping < Infinity)) {
      this.cur = cloneState(g);
      return changed;
    }
    const a = 1 - Math.exp(-dt * this.damping);
    if (a === 0) return false;
    c.yaw += (g.yaw - c.yaw) * a;
    c.pitch += (g.pitch - c.pitch) * a;
    c.logDist += (g.logDist - c.logDist) * a;
    for (let i = 0; i < 3; i++) c.anchor[i] += (g.anchor[i] - c.anchor[i]) * a;
    return true;
  }

  /** Skips the remaining glide: the current state becomes the goal. */
  snap(): void {
    this.cur = cloneState(this.goal);
  }

  // -------------------------------------------------------------------------
  // Input

  /**
   * Rotates by a pointer drag. Orbit mode circles the target; fly mode turns
   * in place. Both are "grab the scene": the scene follows the pointer.
   */
  orbit(dxPixels: number, dyPixels: number): void {
    const g = this.goal;
    if (this.modeValue === 'orbit') {
      // Drag right: the camera swings left around the target, so the scene turns right.
      g.yaw += dxPixels * this.rotateSpeed;
      // Drag down: the camera rises and looks down, so the scene's top tilts towards the viewer.
      g.pitch = clamp(g.pitch + dyPixels * this.rotateSpeed, -MAX_PITCH, MAX_PITCH);
    } else {
      // Turning in place: the view direction moves against the drag so the scene follows it.
      g.yaw -= dxPixels * this.lookSpeed;
      g.pitch = clamp(g.pitch - dyPixels * this.lookSpeed, -MAX_PITCH, MAX_PITCH);
    }
  }

  /**
   * Slides eye and target together in the image plane so that the point at
   * the target's depth stays under the pointer.
   */
  pan(dxPixels: number, dyPixels: number, viewportHeight: number): void {
    const g = this.goal;
    const { right, camUp } = this.basis.axes(g);
    const worldPerPixel = (2 * Math.exp(g.logDist) * Math.tan((this.fovy * Math.PI) / 360)) / Math.max(1, viewportHeight);
    // Screen y grows downwards; dragging down moves the scene down, i.e. the camera up.
    const sx = -dxPixels * worldPerPixel;
    const sy = dyPixels * worldPerPixel;
    for (let i = 0; i < 3; i++) g.anchor[i] += right[i] * sx + camUp[i] * sy;
  }

  /**
   * Dollies towards (negative delta, wheel up) or away from the target:
   * distance *= exp(wheelDelta * zoomSpeed). Multiplicative, so it never
   * reaches or crosses the target. Switches to orbit mode.
   */
  zoom(wheelDelta: number): void {
    if (Number.isFinite(wheelDelta)) this.zoomBy(Math.exp(wheelDelta * this.zoomSpeed));
  }

  /**
   * Multiplies the eye-target distance by `factor` (pinch zoom), kept within
   * [1e-4, 1e4] x sceneScale (a distance already outside is not pulled in).
   */
  zoomBy(factor: number): void {
    if (!(factor > 0) || !Number.isFinite(factor)) return;
    this.mode = 'orbit';
    const g = this.goal;
    const lo = Math.min(Math.log(this.sceneScale * 1e-4), g.logDist);
    const hi = Math.max(Math.log(this.sceneScale * 1e4), g.logDist);
    g.logDist = clamp(g.logDist + Math.log(factor), lo, hi);
  }

  /**
   * Fly movement for `dt` seconds: `forward` along the view direction,
   * `right` across it, `upDelta` along world up, each a rate in [-1, 1]
   * (larger for Shift-faster) times `moveSpeed * sceneScale` per second.
   * Moves eye and target together and switches to fly mode.
   */
  moveLocal(forward: number, right: number, upDelta: number, dt: number): void {
    if (!(dt > 0) || !Number.isFinite(dt)) return;
    this.mode = 'fly';
    const g = this.goal;
    const { fwd, right: r } = this.basis.axes(g);
    const u = this.basis.up;
    const s = this.moveSpeed * this.sceneScale * dt;
    for (let i = 0; i < 3; i++) g.anchor[i] += (fwd[i] * forward + r[i] * right + u[i] * upDelta) * s;
  }

  /**
   * Held-key movement, integrated by `update(dt)` until set back to zero
   * (rates as in {@link moveLocal}).
   */
  setMoveInput(forward: number, right: number, upDelta: number): void {
    this.moveInput = [forward || 0, right || 0, upDelta || 0];
  }

  /**
   * Turns to look at `point` and makes it the orbit pivot, keeping the eye
   * where it is (double-click focus).
   */
  focusOn(point: readonly number[]): void {
    const eye = this.goalPose.eye;
    if (length(sub(point, eye)) === 0) return;
    this.mode = 'orbit';
    this.goal = this.unwrapTo(this.basis.state({ eye, target: [point[0], point[1], point[2]], up: this.basis.up, fovyDeg: this.fovy }, 'orbit'));
  }

  /**
   * Frames `bounds` (remembered for later argument-less calls, e.g. the F
   * key): target at the centre, distance so the bounding sphere fits the
   * view. Returns false when there is nothing to frame.
   *
   * On scene load: `frame(robustBounds(cloud.positions), { keepDirection: false, setHome: true, snap: true })`.
   */
  frame(bounds?: Bounds, fit: FrameOptions = {}): boolean {
    if (bounds) {
      this.sceneBounds = bounds;
      const r = boundsRadius(bounds);
      this.sceneScale = r > 0 ? r : 1;
    }
    const b = bounds ?? this.sceneBounds;
    if (!b) return false;
    const aspect = fit.aspect ?? this.aspect;
    if (fit.setHome) {
      this.home = fitPose(b, this.basis.up, this.fovy, aspect);
      this.homeBounds = b;
    }
    this.mode = 'orbit';
    const keep = fit.keepDirection ?? true;
    const g = this.goal;
    // The basis forward is the up axis' default forward, so yaw = pitch = 0 is fitPose's direction.
    const next: State = {
      anchor: boundsCenter(b),
      logDist: Math.log(fitDistance(boundsRadius(b), this.fovy, aspect)),
      yaw: keep ? g.yaw : 0,
      pitch: keep ? g.pitch : 0,
    };
    this.goal = keep ? next : this.unwrapTo(next);
    if (fit.snap) this.snap();
    return true;
  }

  /** Glides back to the home pose (the initial or last home-setting fitted pose). */
  reset(): void {
    this.setGoal(this.home);
  }

  /**
   * Changes the world up (an axis name or any non-zero vector). The eye and
   * target stay put; the image rolls so the new up points up. A home pose
   * fitted from bounds is refitted for the new up.
   */
  setUp(axis: UpAxis | readonly number[]): void {
    const u = typeof axis === 'string' ? upVector(axis) : normalize(axis);
    if (length(u) === 0) return;
    this.rebase(u);
    if (this.homeBounds) this.home = fitPose(this.homeBounds, this.basis.up, this.home.fovyDeg, this.aspect);
  }

  // -------------------------------------------------------------------------
  // Internals

  /** Re-expresses current and goal states around a new up without moving the camera. */
  private rebase(up: readonly number[]): void {
    const mode = this.modeValue;
    const curPose = this.basis.pose(this.cur, mode, this.fovy);
    const goalPose = this.basis.pose(this.goal, mode, this.fovy);
    this.basis = new UpBasis(up);
    curPose.up = this.basis.up;
    goalPose.up = this.basis.up;
    this.cur = this.basis.state(curPose, mode);
    this.goal = this.basis.state(goalPose, mode);
    this.goal = this.unwrapTo(this.goal);
  }

  /** Shifts the goal's yaw by whole turns to the one nearest the current yaw, so a glide never spins round. */
  private unwrapTo(s: State): State {
    s.yaw = this.cur.yaw + wrapPi(s.yaw - this.cur.yaw);
    return s;
  }
}
