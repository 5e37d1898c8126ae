import { describe, expect, it } from 'vitest';
import type { Bounds } from '../../scenes/splat-cloud';
import { type CameraPose, type Vec3, cross, dot, fitPose, length, normalize, sub, viewMatrix } from './camera';
import { CameraController } from './controller';
import { dist, expectPoseClose, expectVecClose, START } from '../../test/support/pose-compare';

/** Steps until the controller reports rest (or gives up after `maxSeconds`). */
function settle(c: CameraController, dt = 1 / 60, maxSeconds = 30): number {
  let steps = 0;
  while (c.update(dt)) {
    if (++steps * dt > maxSeconds) throw new Error('controller never came to rest');
  }
  return steps;
}

describe('CameraController', () => {
  it('starts at, and reports, the given pose', () => {
    const c = new CameraController(START);
    expectPoseClose(c.pose, START);
    expect(c.update(1 / 60)).toBe(false);
  });

  it('setPose reproduces an arbitrary view exactly, even with a slanted up', () => {
    const c = new CameraController(START);
    const pose: CameraPose = { eye: [3, -2, 7], target: [1, 0.5, -1], up: [0.2, -1, 0.3], fovyDeg: 42 };
    c.setPose(pose);
    expect(c.fovyDeg).toBe(42);
    const a = viewMatrix(c.pose);
    const b = viewMatrix(pose);
    for (let i = 0; i < 16; i++) expect(a[i]).toBeCloseTo(b[i], 5);
  });

  it('orbit keeps the distance and the target', () => {
    const c = new CameraController(START);
    c.orbit(123, 45);
    c.orbit(-30, -200);
    settle(c);
    expect(dist(c.pose)).toBeCloseTo(5, 9);
    expectVecClose(c.pose.target, [0, 0, 0]);
  });

  it('orbit is "grab the scene": dragging right swings the camera to its left, dragging down raises it', () => {
    const c = new CameraController(START, { damping: Infinity });
    // Camera right is +x for this pose (up -y, looking +z).
    c.orbit(50, 0);
    c.update(0);
    expect(c.pose.eye[0]).toBeLessThan(0);
    c.setPose(START);
    c.orbit(0, 50);
    c.update(0);
    // Up is -y: rising means y goes negative.
    expect(c.pose.eye[1]).toBeLessThan(0);
  });

  it('pitch stops short of the pole, so the view never degenerates', () => {
    const c = new CameraController(START, { damping: Infinity });
    c.orbit(0, 1e6);
    c.update(0);
    const p = c.pose;
    const f = normalize(sub(p.target, p.eye));
    expect(length(cross(f, p.up))).toBeGreaterThan(1e-4);
    expect(Array.from(viewMatrix(p)).every(Number.isFinite)).toBe(true);
    expect(dist(p)).toBeCloseTo(5, 9);
  });

  it('zoom is multiplicative and never reaches or crosses the target', () => {
    const c = new CameraController(START);
    c.zoom(100);
    settle(c);
    expect(dist(c.pose)).toBeGreaterThan(5);
    c.setPose(START);
    c.zoom(-100);
    settle(c);
    expect(dist(c.pose)).toBeLessThan(5);
    for (let i = 0; i < 1000; i++) c.zoom(-1e4);
    settle(c);
    const p = c.pose;
    expect(dist(p)).toBeGreaterThan(0);
    // Still on the same side of the target as it started.
    expect(dot(sub(p.eye, p.target), sub(START.eye, START.target))).toBeGreaterThan(0);
    expectVecClose(p.target, [0, 0, 0]);
  });

  it('zoomBy scales the distance', () => {
    const c = new CameraController(START, { damping: Infinity });
    c.zoomBy(0.5);
    c.update(0);
    expect(dist(c.pose)).toBeCloseTo(2.5, 9);
  });

  it('damping converges and reports rest', () => {
    const c = new CameraController(START);
    c.orbit(300, 100);
    c.pan(40, -20, 800);
    c.zoom(250);
    const goal = c.goalPose;
    expect(c.update(1 / 60)).toBe(true);
    const steps = settle(c);
    expect(steps * (1 / 60)).toBeLessThan(3);
    expectPoseClose(c.pose, goal, 1e-9);
    expect(c.update(1 / 60)).toBe(false);
  });

  it('damping is frame-rate independent: 60 steps of 1/60 s = 30 steps of 1/30 s', () => {
    const make = () => {
      // k = 4/s leaves e^-4 (~2%) of the way after the 1 s simulated here: mid-glide, not snapped to rest.
      const c = new CameraController(START, { damping: 4 });
      c.orbit(300, -120);
      c.pan(-80, 50, 600);
      c.zoom(-300);
      return c;
    };
    const a = make();
    const b = make();
    for (let i = 0; i < 60; i++) a.update(1 / 60);
    for (let i = 0; i < 30; i++) b.update(1 / 30);
    expect(length(sub(a.pose.eye, a.goalPose.eye))).toBeGreaterThan(1e-3);
    expect(a.update(0)).toBe(false); // a zero step changes nothing
    expectPoseClose(a.pose, b.pose, 1e-9);
  });

  it('pan moves eye and target together, keeping the point under the pointer', () => {
    const c = new CameraController(START, { damping: Infinity });
    c.pan(100, 0, 1000);
    c.update(0);
    const p = c.pose;
    const de = sub(p.eye, START.eye);
    const dt = sub(p.target, START.target);
    expectVecClose(de, dt);
    // Camera right is +x: dragging right moves the camera left by the world size of 100 px at the target's depth.
    const worldPerPixel = (2 * 5 * Math.tan(Math.PI / 6)) / 1000;
    expectVecClose(dt, [-100 * worldPerPixel, 0, 0]);
    // Dragging down (screen +y) moves the camera towards image-up, which is world -y here.
    c.pan(0, 100, 1000);
    c.update(0);
    expect(c.pose.target[1]).toBeCloseTo(-100 * worldPerPixel, 9);
  });

  it('moveLocal flies eye and target together, along the view, at moveSpeed x sceneScale', () => {
    const c = new CameraController(START, { damping: Infinity, moveSpeed: 2 });
    expect(c.sceneScale).toBeCloseTo(2.5, 12);
    c.moveLocal(1, 0, 0, 0.5);
    c.update(0);
    expect(c.mode).toBe('fly');
    expectVecClose(c.pose.eye, [0, 0, -5 + 2 * 2.5 * 0.5]);
    expectVecClose(c.pose.target, [0, 0, 2.5]);
    c.moveLocal(0, 1, 1, 0.1); // right = +x, up = -y for this pose
    c.update(0);
    expectVecClose(c.pose.eye, [0.5, -0.5, -2.5]);
  });

  it('setMoveInput keeps moving through update until cleared', () => {
    const c = new CameraController(START);
    c.setMoveInput(1, 0, 0);
    for (let i = 0; i < 30; i++) expect(c.update(1 / 60)).toBe(true);
    c.setMoveInput(0, 0, 0);
    settle(c);
    expect(c.pose.eye[2]).toBeGreaterThan(-5);
    expect(dist(c.pose)).toBeCloseTo(5, 9);
  });

  it('in fly mode a drag turns the camera in place', () => {
    const c = new CameraController(START, { damping: Infinity });
    c.mode = 'fly';
    expectPoseClose(c.pose, START);
    c.orbit(80, -40);
    c.update(0);
    expectVecClose(c.pose.eye, START.eye);
    expect(dist(c.pose)).toBeCloseTo(5, 9);
    // Grab-style: dragging right turns the view left (towards -x here).
    expect(c.pose.target[0]).toBeLessThan(0);
  });

  it('switching mode keeps the view, and zoom returns to orbit', () => {
    const c = new CameraController(START);
    c.orbit(50, 20);
    c.update(1 / 60);
    const before = c.pose;
    c.mode = 'fly';
    expectPoseClose(c.pose, before);
    c.zoom(10);
    expect(c.mode).toBe('orbit');
    expectPoseClose(c.pose, before);
  });

  it('reset returns to the fitted home pose', () => {
    const bounds: Bounds = { min: [-3, -1, 2], max: [5, 2, 9] };
    const c = new CameraController(START, { aspect: 16 / 9 });
    expect(c.frame(bounds, { keepDirection: false, setHome: true, snap: true })).toBe(true);
    const fitted = fitPose(bounds, [0, -1, 0], 60, 16 / 9);
    expectPoseClose(c.pose, fitted);
    c.orbit(400, 80);
    c.pan(30, 70, 720);
    c.zoom(-400);
    c.moveLocal(1, 1, 0, 0.3);
    settle(c);
    c.reset();
    settle(c);
    expectPoseClose(c.pose, fitted, 1e-6);
    expect(c.mode).toBe('orbit');
  });

  it('reset after whole turns glides straight back instead of spinning round', () => {
    const c = new CameraController(START, { rotateSpeed: 0.01 });
    c.orbit((10 * 2 * Math.PI) / 0.01, 0);
    c.snap();
    expectPoseClose(c.pose, START, 1e-6);
    c.reset();
    c.update(1 / 60);
    expectPoseClose(c.pose, START, 1e-6);
  });

  it('reset without a framed scene goes back to the constructor pose', () => {
    const c = new CameraController(START);
    c.setPose({ eye: [1, 1, 1], target: [0, 0, 3], up: [0, 0, 1], fovyDeg: 30 });
    c.reset();
    settle(c);
    expectPoseClose(c.pose, START, 1e-6);
  });

  it('frame (F) keeps the view direction and centres the bounds', () => {
    const bounds: Bounds = { min: [10, 10, 10], max: [12, 12, 12] };
    const c = new CameraController(START);
    expect(c.frame()).toBe(false); // no scene yet: nothing to frame
    c.orbit(200, 60);
    c.snap();
    const dirBefore = normalize(sub(c.pose.target, c.pose.eye));
    c.frame(bounds);
    settle(c);
    expectVecClose(c.pose.target, [11, 11, 11], 1e-6);
    expectVecClose(normalize(sub(c.pose.target, c.pose.eye)), dirBefore, 1e-6);
    expect(c.sceneScale).toBeCloseTo(Math.sqrt(3), 12);
    // The argument-less call reuses the remembered bounds.
    c.pan(100, 100, 500);
    c.frame();
    settle(c);
    expectVecClose(c.pose.target, [11, 11, 11], 1e-6);
  });

  it('setUp keeps eye and target and rolls the view; a bounds home is refitted', () => {
    const bounds: Bounds = { min: [-1, -1, -1], max: [1, 1, 1] };
    const c = new CameraController(START);
    c.frame(bounds, { keepDirection: false, setHome: true, snap: true });
    c.orbit(40, 10);
    c.snap();
    const before = c.pose;
    c.setUp('+y');
    expectVecClose(c.pose.eye, before.eye, 1e-9);
    expectVecClose(c.pose.target, before.target, 1e-9);
    expect(c.up).toEqual([0, 1, 0]);
    c.reset();
    settle(c);
    expectPoseClose(c.pose, fitPose(bounds, [0, 1, 0], 60, 1), 1e-6);
  });

  it('focusOn keeps the eye and turns to the point', () => {
    const c = new CameraController(START);
    c.focusOn([1, 1, 1]);
    settle(c);
    expectVecClose(c.pose.eye, START.eye, 1e-6);
    expectVecClose(c.pose.target, [1, 1, 1], 1e-6);
  });

  it('setGoal glides to a pose and refuses a degenerate one', () => {
    const c = new CameraController(START);
    const to: CameraPose = { eye: [2, -3, 1], target: [0, 0, 4], up: [0, -1, 0], fovyDeg: 70 };
    expect(c.setGoal(to)).toBe(true);
    expect(c.update(1 / 60)).toBe(true);
    settle(c);
    expectPoseClose(c.pose, to, 1e-6);
    expect(c.setGoal({ eye: [1, 1, 1], target: [1, 1, 1], up: [0, 1, 0], fovyDeg: 60 })).toBe(false);
    expect(c.update(1 / 60)).toBe(false);
  });

  it('fovyDeg is settable and clamped', () => {
    const c = new CameraController(START);
    c.fovyDeg = 90;
    expect(c.pose.fovyDeg).toBe(90);
    c.fovyDeg = 500;
    expect(c.fovyDeg).toBe(170);
    c.fovyDeg = NaN;
    expect(c.fovyDeg).toBe(170);
  });

  it('ignores garbage input', () => {
    const c = new CameraController(START);
    c.zoom(NaN);
    c.zoomBy(0);
    c.zoomBy(-1);
    c.moveLocal(1, 0, 0, NaN);
    expect(c.update(NaN)).toBe(false);
    expect(c.update(-1)).toBe(false);
    expectPoseClose(c.pose, START);
  });

  it('survives a degenerate starting pose', () => {
    const eye: Vec3 = [1, 2, 3];
    const c = new CameraController({ eye, target: eye, up: [0, 1, 0], fovyDeg: 60 });
    const p = c.pose;
    expect(dist(p)).toBeGreaterThan(0);
    expect(Array.from(viewMatrix(p)).every(Number.isFinite)).toBe(true);
  });
});
