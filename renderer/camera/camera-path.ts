/**
 * Camera paths: the pose at any time of a keyframed path (path-format.ts), the frames
 * of a frame rate, and an orbit preset. Pure functions, no DOM; docs/PATHS.md.
 *
 * Interpolation (chosen for a camera operator; the tests in camera-path.test.ts hold it):
 * - Every keyframe is reached at its own time: retiming a keyframe changes the flight.
 * - The eye runs along a centripetal Catmull-Rom spline (alpha 0.5) through the
 *   keyframes' eyes, walked by arc length (path-spline.ts ArcLengthSpline). How far
 *   along it is at time t, s(t), is a C1 monotone cubic (PCHIP, MonotoneCubic) through
 *   the points (t_k, S_k), S_k the arc length at keyframe k. So the speed is continuous:
 *   where the times follow the distances (t_k proportional to S_k) the speed is constant
 *   (exactly, where the data lies on one line); where they disagree, the speed of one
 *   span eases into the next's across the keyframe (PCHIP's slope there is the weighted
 *   harmonic mean of the two spans' average speeds) instead of jumping. An eye standing
 *   still between two keyframes (a pan or a zoom on the spot) stops there smoothly.
 *   Why not one constant speed over the whole path (keyframe times setting only order and
 *   duration): a camera operator retimes a keyframe to be somewhere at a moment.
 * - The look-at target runs along its own centripetal spline, by its own arc length, its
 *   progress the same kind of monotone cubic through (t_k, arc length at k): the view
 *   direction is C1 in time, so the angular velocity has no jump at a keyframe.
 * - Up: a Catmull-Rom spline over the keyframe times through the keyframes' unit ups,
 *   normalised. FOV: a monotone cubic of the times through the keyframes' fovy, at rest
 *   at both ends (the zoom eases in and out, never overshoots).
 * - Before the first keyframe's time the pose is the first keyframe's; at and after
 *   the last, the last's. No ease-in/out of the motion at the ends: the camera starts
 *   and stops at speed (the bench measures a steady flight).
 */
import { length, normalize, sub, type CameraPose, type Vec3 } from './camera';
import { ArcLengthSpline, CatmullRom, MonotoneCubic } from './path-spline';
import { validateCameraPath, type CameraPath, type PathKeyframe } from './path-format';

export * from './path-format';

/** A path made ready to sample: its curves and timing, built once. */
export class PathSampler {
  /** The first keyframe's time (seconds); before it the pose holds. */
  readonly start: number;
  /** The last keyframe's time: frames run from 0 to it. */
  readonly duration: number;
  /** When the camera reaches each keyframe (seconds): the keyframes' own times. */
  readonly arrivals: number[];
  private readonly eye: ArcLengthSpline;
  private readonly target: ArcLengthSpline;
  private readonly eyeProgress: MonotoneCubic;
  private readonly targetProgress: MonotoneCubic;
  private readonly up: CatmullRom;
  private readonly fovy: MonotoneCubic;

  constructor(readonly path: CameraPath) {
    const ks = path.keyframes;
    if (ks.length < 2) throw new Error('PathSampler: a path needs at least 2 keyframes');
    this.start = ks[0].time;
    this.duration = ks[ks.length - 1].time;
    this.arrivals = ks.map((k) => k.time);
    this.eye = new ArcLengthSpline(ks.map((k) => k.eye));
    this.target = new ArcLengthSpline(ks.map((k) => k.target));
    this.eyeProgress = new MonotoneCubic(this.arrivals, this.eye.keyLengths);
    this.targetProgress = new MonotoneCubic(this.arrivals, this.target.keyLengths);
    this.up = new CatmullRom(
      ks.map((k) => normalize(k.up)),
      this.arrivals,
    );
    this.fovy = new MonotoneCubic(
      this.arrivals,
      ks.map((k) => k.fovyDeg),
      'zero',
    );
  }

  /** The pose at time t (seconds; clamped to the first and last keyframe's times). */
  poseAt(t: number): CameraPose {
    const x = Math.min(this.duration, Math.max(this.start, Number.isFinite(t) ? t : this.start));
    const eye = this.eye.at(this.eyeProgress.at(x));
    const target = this.target.at(this.targetProgress.at(x));
    let up = normalize(this.up.at(x));
    if (length(up) === 0) up = normalize(this.path.keyframes[this.keyframeBefore(x)].up);
    return { eye, target, up, fovyDeg: this.fovy.at(x) };
  }

  /** Index of the last keyframe the camera has reached at time t. */
  keyframeBefore(t: number): number {
    let i = 0;
    while (i + 1 < this.arrivals.length && this.arrivals[i + 1] <= t) i++;
    return i;
  }

  /** The eye's speed (scene units a second) at time t. */
  speedAt(t: number): number {
    return this.eyeProgress.slope(t);
  }
}

const samplers = new WeakMap<CameraPath, PathSampler>();

/** The sampler of a path, built on first use and kept while the path object lives (so treat a sampled path as immutable). */
export function pathSampler(path: CameraPath): PathSampler {
  let s = samplers.get(path);
  if (!s) {
    s = new PathSampler(path);
    samplers.set(path, s);
  }
  return s;
}

/** The pose of `path` at time t seconds (see the module comment); `fovyDeg` is the vertical FOV. */
export function poseAt(path: CameraPath, t: number): CameraPose {
  return pathSampler(path).poseAt(t);
}

/**
 * Frames of a path at `fps` frames a second: frame i at time i / fps for
 * i = 0 .. floor(duration x fps), where duration is the last keyframe's time. So
 * floor(duration x fps) + 1 frames, the first at 0 and the last at the last
 * keyframe's time whenever duration x fps is whole (4 s at 30 fps: 121 frames, the
 * last at 4.0 s); otherwise the last frame falls less than 1 / fps before it.
 */
export function frameCount(path: CameraPath, fps: number): number {
  if (!(fps > 0 && Number.isFinite(fps))) throw new RangeError(`fps must be a positive number, got ${fps}`);
  const d = path.keyframes[path.keyframes.length - 1].time;
  // 1e-9: 2.1 s at 10 fps is 21 whole steps, though 2.1 * 10 = 20.999999999999996.
  return Math.floor(d * fps + 1e-9) + 1;
}

/** Frame i's time (seconds) and pose, for i = 0 .. frameCount - 1. */
export function pathFrames(path: CameraPath, fps: number): { index: number; time: number; pose: CameraPose }[] {
  const sampler = pathSampler(path);
  const n = frameCount(path, fps);
  const frames: { index: number; time: number; pose: CameraPose }[] = [];
  for (let i = 0; i < n; i++) {
    const time = Math.min(i / fps, sampler.duration);
    frames.push({ index: i, time, pose: sampler.poseAt(time) });
  }
  return frames;
}

/** Options of {@link orbitPath}. */
export interface OrbitOptions {
  /** Full turns in the time (default 1); negative turns the other way. */
  turns?: number;
  /** Keyframes a turn (default 16: the spline keeps within 0.1% of the circle's radius). */
  keysPerTurn?: number;
}

/**
 * An orbit as a path: `seconds` around the framing pose's target, at its eye's
 * distance and elevation, turning right-handed about its up (counter-clockwise seen
 * from up), looking at the target, with its up and fovy. The framing pose is the
 * scene's (the page's first view, or fitPose): the orbit starts there.
 *
 * @throws CameraPathError when the framing pose is unusable (eye on the target, up along the view).
 */
export function orbitPath(framing: CameraPose, seconds: number, options: OrbitOptions = {}): CameraPath {
  if (!(seconds > 0 && Number.isFinite(seconds))) throw new RangeError(`orbitPath: seconds must be positive, got ${seconds}`);
  const turns = options.turns ?? 1;
  const perTurn = options.keysPerTurn ?? 16;
  if (!(turns !== 0 && Number.isFinite(turns)) || !(Number.isInteger(perTurn) && perTurn >= 3)) {
    throw new RangeError(`orbitPath: turns must be non-zero and keysPerTurn an integer >= 3 (got ${turns}, ${perTurn})`);
  }
  const centre = framing.target;
  const u = normalize(framing.up);
  const offset = sub(framing.eye, centre);
  const along = offset[0] * u[0] + offset[1] * u[1] + offset[2] * u[2];
  const flat: Vec3 = [offset[0] - along * u[0], offset[1] - along * u[1], offset[2] - along * u[2]];
  // b = u x flat: a quarter turn on from flat, right-handed about u.
  const b: Vec3 = [u[1] * flat[2] - u[2] * flat[1], u[2] * flat[0] - u[0] * flat[2], u[0] * flat[1] - u[1] * flat[0]];
  const keys = Math.max(2, Math.ceil(Math.abs(turns) * perTurn)) + 1;
  const keyframes: PathKeyframe[] = [];
  for (let i = 0; i < keys; i++) {
    const f = i / (keys - 1);
    const a = 2 * Math.PI * turns * f;
    const c = Math.cos(a);
    const s = Math.sin(a);
    const eye: Vec3 = [0, 1, 2].map((j) => centre[j] + along * u[j] + c * flat[j] + s * b[j]) as Vec3;
    keyframes.push({ time: seconds * f, eye, target: [...centre], up: [...u], fovyDeg: framing.fovyDeg });
  }
  return validateCameraPath({ keyframes });
}
