import { describe, expect, it } from 'vitest';
import { dot, length, normalize, sub, type CameraPose, type Vec3 } from './camera';
import { frameCount, orbitPath, parseCameraPath, pathFrames, PathSampler, poseAt, type CameraPath } from './camera-path';
import { ArcLengthSpline, CatmullRom, MonotoneCubic } from './path-spline';

/** Four keyframes spaced unevenly in space (spans about 5.1, 5.3, 6.5 long), their times roughly following distance. */
const KEYS = [
  { eye: [0, -1, -6], target: [0, 0, 0], up: [0, -1, 0], fovy: 60 },
  { eye: [4, -1.5, -3], target: [0.5, 0, 0], up: [0, -1, 0], fovy: 55 },
  { eye: [5, -2, 2], target: [0, 0.5, 0.5], up: [0, -1, 0], fovy: 50 },
  { eye: [0, -0.5, 5.5], target: [0, 0, 1], up: [0, -1, 0], fovy: 60 },
];
const timed = (times: number[]): CameraPath => parseCameraPath({ keyframes: KEYS.map((k, i) => ({ ...k, time: times[i] })) });
/** Times roughly proportional to distance (average span speeds 4.3, 4.1, 4.3). */
const EVEN = timed([0, 1.2, 2.5, 4]);
/** The same keyframes, times far from distance (average span speeds 7.3, 1.9, 13). */
const UNEVEN = timed([0, 0.7, 3.5, 4]);
const FPS = 30;

const angle = (a: Vec3, b: Vec3) => Math.acos(Math.min(1, Math.max(-1, dot(normalize(a), normalize(b)))));
const viewDir = (p: CameraPose) => normalize(sub(p.target, p.eye));
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];

/** Per frame step k (frame k to k + 1): eye speed and view angular velocity. */
function motion(poses: CameraPose[], fps: number): { speed: number[]; omega: number[] } {
  const speed: number[] = [];
  const omega: number[] = [];
  for (let k = 0; k + 1 < poses.length; k++) {
    speed.push(length(sub(poses[k + 1].eye, poses[k].eye)) * fps);
    omega.push(angle(viewDir(poses[k]), viewDir(poses[k + 1])) * fps);
  }
  return { speed, omega };
}

/** The step index whose interval holds time t at fps. */
const stepAt = (t: number, fps: number) => Math.floor(t * fps);

/** The largest frame-to-frame relative change of `v` over steps first..last (inclusive). */
function worstStep(v: number[], first = 1, last = v.length - 1): number {
  let worst = 0;
  for (let k = Math.max(1, first); k <= last; k++) worst = Math.max(worst, Math.abs(v[k] / v[k - 1] - 1));
  return worst;
}

/** Moves a path's eye along the spline by arc length, keyframe k at its own time, linearly in each span: what PCHIP replaces. */
function perSpanLinear(path: CameraPath): (t: number) => Vec3 {
  const spline = new ArcLengthSpline(path.keyframes.map((k) => k.eye));
  const times = path.keyframes.map((k) => k.time);
  return (t: number): Vec3 => {
    let i = 0;
    while (i < times.length - 2 && t > times[i + 1]) i++;
    const f = (t - times[i]) / (times[i + 1] - times[i]);
    return spline.at(spline.keyLengths[i] + f * (spline.keyLengths[i + 1] - spline.keyLengths[i]));
  };
}

describe('camera path: timing (each keyframe at its own time)', () => {
  it('reaches every keyframe at its own time: eye, target, fovy and up', () => {
    for (const path of [EVEN, UNEVEN]) {
      const s = new PathSampler(path);
      expect(s.arrivals).toEqual(path.keyframes.map((k) => k.time));
      path.keyframes.forEach((k) => {
        const p = s.poseAt(k.time);
        for (let c = 0; c < 3; c++) {
          expect(p.eye[c]).toBeCloseTo(k.eye[c], 9);
          expect(p.target[c]).toBeCloseTo(k.target[c], 9);
        }
        expect(p.fovyDeg).toBeCloseTo(k.fovyDeg, 9);
        expect(angle(p.up, k.up)).toBeLessThan(1e-9);
      });
    }
  });

  it('retiming a keyframe matters: the camera is at keyframe 1 at its new time', () => {
    const later = timed([0, 1.6, 2.5, 4]);
    expect(length(sub(poseAt(later, 1.2).eye, KEYS[1].eye as Vec3))).toBeGreaterThan(0.5);
    for (let c = 0; c < 3; c++) expect(poseAt(later, 1.6).eye[c]).toBeCloseTo(KEYS[1].eye[c], 9);
    // Only the timing changed: the curve is the same, so a point of one flight is on the other.
    const a = pathFrames(EVEN, 30).map((f) => f.pose.eye);
    const b = pathFrames(later, 30).map((f) => f.pose.eye);
    expect(length(sub(a[45], b[45]))).toBeGreaterThan(0.1);
  });

  it('times following distance: speed changes < 5% frame to frame away from the ends (measured: < 0.5%, ends included)', () => {
    const { speed } = motion(
      pathFrames(EVEN, FPS).map((f) => f.pose),
      FPS,
    );
    expect(worstStep(speed, 3, speed.length - 4)).toBeLessThan(0.05);
    expect(worstStep(speed)).toBeLessThan(0.005);
    // Near the path's average speed throughout (its length over its duration), never a stop.
    const mean = new ArcLengthSpline(EVEN.keyframes.map((k) => k.eye)).length / 4;
    for (const v of speed) expect(Math.abs(v / mean - 1)).toBeLessThan(0.1);
  });

  it('times far from distance: speed eases between spans (continuous at keyframes), where per-span linear timing jumps', () => {
    const s = new PathSampler(UNEVEN);
    const h = 1e-5;
    for (let i = 1; i < 3; i++) {
      const t = UNEVEN.keyframes[i].time;
      const vIn = length(sub(s.poseAt(t).eye, s.poseAt(t - h).eye)) / h;
      const vOut = length(sub(s.poseAt(t + h).eye, s.poseAt(t).eye)) / h;
      expect(vOut / vIn).toBeCloseTo(1, 2);
      expect(vIn).toBeCloseTo(s.speedAt(t), 1);
    }
    const frames = pathFrames(UNEVEN, 120);
    const ours = motion(
      frames.map((f) => f.pose),
      120,
    ).speed;
    const linear = perSpanLinear(UNEVEN);
    const theirs = motion(
      frames.map((f) => ({ ...f.pose, eye: linear(f.time) })),
      120,
    ).speed;
    // 120 fps: ours changes at most ~13% a frame (the spans' speeds differ 7x), per-span linear 70% at a keyframe.
    expect(worstStep(ours)).toBeLessThan(0.2);
    expect(worstStep(theirs)).toBeGreaterThan(0.5);
  });

  it('is continuous at keyframes: position, and velocity direction within a degree either side', () => {
    for (const path of [EVEN, UNEVEN]) {
      const s = new PathSampler(path);
      const h = 1e-4;
      for (let i = 1; i < 3; i++) {
        const a = path.keyframes[i].time;
        const before = s.poseAt(a - h).eye;
        const at = s.poseAt(a).eye;
        const after = s.poseAt(a + h).eye;
        expect(length(sub(after, before))).toBeLessThan(4 * h * s.speedAt(a));
        const vIn = sub(at, s.poseAt(a - 2 * h).eye);
        const vOut = sub(s.poseAt(a + 2 * h).eye, at);
        expect(angle(vIn, vOut) * (180 / Math.PI)).toBeLessThan(1);
        expect(length(vOut) / length(vIn)).toBeCloseTo(1, 2);
      }
    }
  });

  it('holds the first pose before the first keyframe time and the last after the last', () => {
    const late = parseCameraPath({ keyframes: [{ time: 1, eye: [0, 0, -5], target: [0, 0, 0] }, { time: 3, eye: [0, 0, -3], target: [0, 0, 0] }] });
    expect(poseAt(late, 0).eye).toEqual([0, 0, -5]);
    expect(poseAt(late, 0.5).eye).toEqual([0, 0, -5]);
    expect(poseAt(late, 2).eye[2]).toBeCloseTo(-4, 9);
    expect(poseAt(late, 9).eye).toEqual([0, 0, -3]);
  });
});

describe('camera path: orientation and FOV', () => {
  it('times following distance: angular velocity at a keyframe neither steps (0.8..1.25 across it) nor exceeds 2x its median', () => {
    const poses = pathFrames(EVEN, 120).map((f) => f.pose);
    const { omega } = motion(poses, 120);
    const med = median(omega);
    for (let i = 1; i < 3; i++) {
      const k = stepAt(EVEN.keyframes[i].time, 120);
      const before = omega[k - 1];
      const after = omega[k + 1];
      expect(after / before).toBeGreaterThan(0.8);
      expect(after / before).toBeLessThan(1.25);
      for (let j = k - 3; j <= k + 3; j++) expect(omega[j]).toBeLessThan(2 * med);
    }
    // Nowhere on the path a step: frame-to-frame change under 5% at 120 fps (measured < 1%).
    expect(worstStep(omega)).toBeLessThan(0.05);
  });

  it('a pan on the spot takes its authored time: the eye eases to a stop and out again, the turn is smooth', () => {
    const path = parseCameraPath({
      keyframes: [
        { time: 0, eye: [0, 0, -10], target: [0, 0, 0] },
        { time: 2, eye: [0, 0, -5], target: [0, 0, 0] },
        { time: 4, eye: [0, 0, -5], target: [5, 0, -5] }, // turn 90 degrees on the spot
        { time: 6, eye: [5, 0, -5], target: [10, 0, -5] },
      ],
    });
    const frames = pathFrames(path, 60);
    const { omega, speed } = motion(
      frames.map((f) => f.pose),
      60,
    );
    // The eye stands still through the pan, which the view turns through in its 2 s.
    for (const f of frames.filter((x) => x.time >= 2 && x.time <= 4)) expect(length(sub(f.pose.eye, [0, 0, -5]))).toBeLessThan(1e-9);
    expect(angle(viewDir(poseAt(path, 2)), viewDir(poseAt(path, 4))) * (180 / Math.PI)).toBeCloseTo(90, 6);
    expect(Math.max(...omega)).toBeLessThan((3 * (Math.PI / 2)) / 2);
    for (let k = 1; k < speed.length; k++) expect(Math.abs(speed[k] - speed[k - 1])).toBeLessThan(0.25 * Math.max(...speed));
  });

  it('fovy eases between keyframes without overshoot; up is interpolated and unit', () => {
    const path = parseCameraPath({
      keyframes: [
        { time: 0, eye: [0, 0, -5], target: [0, 0, 0], up: [0, 1, 0], fovy: 60 },
        { time: 1, eye: [0, 0, -4], target: [0, 0, 0], up: [0, 1, 0], fovy: 30 },
        { time: 2, eye: [0, 0, -3], target: [0, 0, 0], up: [1, 0, 0], fovy: 30 },
      ],
    });
    const frames = pathFrames(path, 50);
    const fovy = frames.map((f) => f.pose.fovyDeg);
    for (const f of fovy) expect(f).toBeGreaterThanOrEqual(30 - 1e-9);
    for (const f of fovy) expect(f).toBeLessThanOrEqual(60 + 1e-9);
    // At rest at the start (eased), monotone down to the keyframe, then flat.
    expect(Math.abs(fovy[1] - fovy[0])).toBeLessThan(Math.abs(fovy[2] - fovy[1]));
    for (let k = 1; k <= 50; k++) expect(fovy[k]).toBeLessThanOrEqual(fovy[k - 1] + 1e-12);
    for (let k = 51; k < fovy.length; k++) expect(fovy[k]).toBeCloseTo(30, 9);
    for (const f of frames) expect(length(f.pose.up)).toBeCloseTo(1, 12);
    // Up rolls from +y to +x monotonically in the last span.
    const rolls = frames.slice(50).map((f) => Math.atan2(f.pose.up[0], f.pose.up[1]));
    for (let k = 1; k < rolls.length; k++) expect(rolls[k]).toBeGreaterThanOrEqual(rolls[k - 1] - 1e-12);
    expect(rolls[rolls.length - 1]).toBeCloseTo(Math.PI / 2, 9);
  });
});

describe('camera path: frames of a frame rate', () => {
  it('floor(duration x fps) + 1 frames at i / fps, the last at the last keyframe time when whole', () => {
    expect(frameCount(UNEVEN, 30)).toBe(121);
    const f = pathFrames(UNEVEN, 2);
    expect(f.map((x) => x.time)).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4]);
    expect(f[8].pose.eye).toEqual(poseAt(UNEVEN, 4).eye);
    // 4 s at 3 fps: 13 frames, 0 .. 4.0.
    expect(frameCount(UNEVEN, 3)).toBe(13);
    expect(pathFrames(UNEVEN, 3)[12].time).toBe(4);
    // 2.1 s at 10 fps: 22 frames despite 2.1 * 10 = 20.999999999999996.
    const short = parseCameraPath({ keyframes: [{ time: 0, eye: [0, 0, -5], target: [0, 0, 0] }, { time: 2.1, eye: [1, 0, -5], target: [0, 0, 0] }] });
    expect(frameCount(short, 10)).toBe(22);
    // 2.5 s at 3 fps: 8 frames, the last at 7/3 s (< 1/fps before the end).
    const odd = parseCameraPath({ keyframes: [{ time: 0, eye: [0, 0, -5], target: [0, 0, 0] }, { time: 2.5, eye: [1, 0, -5], target: [0, 0, 0] }] });
    expect(frameCount(odd, 3)).toBe(8);
    expect(pathFrames(odd, 3)[7].time).toBeCloseTo(7 / 3, 12);
    expect(() => frameCount(UNEVEN, 0)).toThrow(RangeError);
  });
});

describe('camera path: orbit preset', () => {
  const framing: CameraPose = { eye: [1, -2, -5], target: [1, 0, 0], up: [0, -1, 0], fovyDeg: 50 };

  it('N seconds once around the target at the framing distance and elevation, at constant speed', () => {
    const path = orbitPath(framing, 8);
    expect(path.keyframes[0].time).toBe(0);
    expect(path.keyframes[path.keyframes.length - 1].time).toBe(8);
    const frames = pathFrames(path, 24);
    expect(frames).toHaveLength(8 * 24 + 1);
    const r = length(sub(framing.eye, framing.target));
    for (const { pose } of frames) {
      expect(Math.abs(length(sub(pose.eye, framing.target)) / r - 1)).toBeLessThan(1e-3);
      expect(pose.eye[1]).toBeCloseTo(-2, 2); // elevation along up kept
      expect(pose.target).toEqual(framing.target);
      expect(pose.up).toEqual([0, -1, 0]);
      expect(pose.fovyDeg).toBe(50);
    }
    expect(frames[0].pose.eye).toEqual(framing.eye);
    for (let c = 0; c < 3; c++) expect(frames[frames.length - 1].pose.eye[c]).toBeCloseTo(framing.eye[c], 9);
    // Half way: the far side.
    const half = frames[4 * 24].pose.eye;
    expect(half[0]).toBeCloseTo(1, 2);
    expect(half[2]).toBeCloseTo(5, 2);
    const { speed, omega } = motion(
      frames.map((f) => f.pose),
      24,
    );
    for (let k = 1; k < speed.length; k++) expect(Math.abs(speed[k] / speed[k - 1] - 1)).toBeLessThan(0.01);
    // The view sweeps a cone: its angular velocity is the orbit's times the sine of the cone's half-angle.
    for (const w of omega) expect(w).toBeCloseTo(((2 * Math.PI) / 8) * (5 / Math.hypot(2, 5)), 2);
  });

  it('turns right-handed about up; turns: -1 the other way; an unusable framing throws', () => {
    const quarter = (p: CameraPath) => poseAt(p, 2).eye;
    const fwd = quarter(orbitPath(framing, 8));
    const back = quarter(orbitPath(framing, 8, { turns: -1 }));
    expect(fwd[0] - 1).toBeCloseTo(-(back[0] - 1), 6);
    const u: Vec3 = [0, -1, 0];
    const from = sub(framing.eye, framing.target);
    const to = sub(fwd, framing.target);
    // (from x to) . up > 0 for a right-handed turn about up.
    const c: Vec3 = [from[1] * to[2] - from[2] * to[1], from[2] * to[0] - from[0] * to[2], from[0] * to[1] - from[1] * to[0]];
    expect(dot(c, u)).toBeGreaterThan(0);
    expect(() => orbitPath({ eye: [0, 5, 0], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 }, 4)).toThrow(/up: parallel/);
    expect(() => orbitPath(framing, 0)).toThrow(RangeError);
  });
});

describe('path-spline', () => {
  it('CatmullRom is C1 across its knots and passes through its points', () => {
    const pts: Vec3[] = [
      [0, 0, 0],
      [1, 2, 0],
      [3, 1, 1],
      [4, 4, 2],
    ];
    const cr = new CatmullRom(pts, [0, 0.3, 1.7, 2]);
    pts.forEach((p, i) => expect(cr.at(cr.knots[i])).toEqual(p.map((x) => expect.closeTo(x, 12))));
    for (const k of [0.3, 1.7]) {
      const a = cr.derivative(k - 1e-9);
      const b = cr.derivative(k + 1e-9);
      for (let c = 0; c < 3; c++) expect(a[c]).toBeCloseTo(b[c], 5);
    }
  });

  it('ArcLengthSpline: equal steps of s are equal chords on a curve; repeated points add no length', () => {
    const s = new ArcLengthSpline([
      [0, 0, 0],
      [1, 0, 0],
      [1, 0, 0],
      [1, 3, 0],
    ]);
    expect(s.keyLengths[1]).toBe(s.keyLengths[2]);
    const n = 200;
    const chords: number[] = [];
    for (let i = 0; i < n; i++) chords.push(length(sub(s.at(((i + 1) * s.length) / n), s.at((i * s.length) / n))));
    const step = s.length / n;
    for (const c of chords) expect(c).toBeLessThanOrEqual(step * (1 + 1e-9));
    expect(median(chords) / step).toBeCloseTo(1, 4);
    expect(new ArcLengthSpline([[1, 2, 3]]).at(5)).toEqual([1, 2, 3]);
  });

  it('MonotoneCubic: through its points, monotone, linear on linear data', () => {
    const m = new MonotoneCubic([0, 1, 3, 4], [0, 0, 5, 5.5]);
    for (let x = 0; x < 4; x += 0.01) expect(m.at(x + 0.01)).toBeGreaterThanOrEqual(m.at(x) - 1e-12);
    expect(m.at(3)).toBe(5);
    const lin = new MonotoneCubic([0, 1, 4, 5], [1, 3, 9, 11]);
    for (let x = 0; x <= 5; x += 0.25) expect(lin.at(x)).toBeCloseTo(1 + 2 * x, 12);
  });
});
