import { describe, expect, it } from 'vitest';
import { axisDragDistance, croppedBox, dragFace, eulerToQuat, faceCenter, FACES, faceName, moveFace, project, quatToEuler, rotate, screenCamera, toWorld, type V3 } from './object-math';

const close = (a: readonly number[], b: readonly number[], tol = 1e-9) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);

/** The rotation matrix's action, built by hand as Rz(z) Ry(y) Rx(x). */
function eulerRotate(deg: V3, v: V3): V3 {
  const [a, b, c] = deg.map((d) => (d * Math.PI) / 180) as V3;
  const rx = (p: V3): V3 => [p[0], Math.cos(a) * p[1] - Math.sin(a) * p[2], Math.sin(a) * p[1] + Math.cos(a) * p[2]];
  const ry = (p: V3): V3 => [Math.cos(b) * p[0] + Math.sin(b) * p[2], p[1], -Math.sin(b) * p[0] + Math.cos(b) * p[2]];
  const rz = (p: V3): V3 => [Math.cos(c) * p[0] - Math.sin(c) * p[1], Math.sin(c) * p[0] + Math.cos(c) * p[1], p[2]];
  return rz(ry(rx(v)));
}

describe('Euler angles and quaternions (X, then Y, then Z about the world axes)', () => {
  it('single axes give the textbook quaternions', () => {
    const h = Math.SQRT1_2;
    expect(close(eulerToQuat([90, 0, 0]), [h, h, 0, 0])).toBe(true);
    expect(close(eulerToQuat([0, 90, 0]), [h, 0, h, 0])).toBe(true);
    expect(close(eulerToQuat([0, 0, 90]), [h, 0, 0, h])).toBe(true);
    expect(close(eulerToQuat([0, 0, 0]), [1, 0, 0, 0])).toBe(true);
  });

  it('the quaternion rotates as Rz Ry Rx, is unit, and comes back to the same angles', () => {
    const cases: V3[] = [[30, -20, 75], [-170, 60, 10], [5, 89, -120], [120, -45, 179]];
    for (const e of cases) {
      const q = eulerToQuat(e);
      expect(Math.abs(Math.hypot(...q) - 1)).toBeLessThan(1e-12);
      for (const v of [[1, 0, 0], [0, 1, 0], [0.3, -0.5, 2]] as V3[]) expect(close(rotate(q, v), eulerRotate(e, v), 1e-9)).toBe(true);
      expect(close(quatToEuler(q), e, 1e-7)).toBe(true);
    }
  });

  it('a quaternion that is not unit, or -q, reads as the same angles; gimbal lock keeps the rotation', () => {
    const q = eulerToQuat([10, 20, 30]);
    expect(close(quatToEuler(q.map((x) => 3 * x)), [10, 20, 30], 1e-7)).toBe(true);
    expect(close(quatToEuler(q.map((x) => -x)), [10, 20, 30], 1e-7)).toBe(true);
    const locked = eulerToQuat([40, 90, 15]);
    const e = quatToEuler(locked);
    expect(e[1]).toBeCloseTo(90, 6);
    const q2 = eulerToQuat(e);
    for (const v of [[1, 0, 0], [0, 1, 0], [0, 0, 1]] as V3[]) expect(close(rotate(q2, v), rotate(locked, v), 1e-6)).toBe(true);
  });
});

describe('the screen and drags along an axis', () => {
  // Looking down -z from z = 10 at the origin, +y up, 90 degrees: 1 world unit at depth 10 is 40 px on an 800x800 viewport.
  const cam = screenCamera({ eye: [0, 0, 10], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 90 }, 800, 800);

  it('projects like lookAt + perspective: the target at the centre, +x right, +y up', () => {
    expect(project(cam, [0, 0, 0])).toEqual({ x: 400, y: 400, depth: 10 });
    const p = project(cam, [1, 2, 0])!;
    expect(p.x).toBeCloseTo(440, 9);
    expect(p.y).toBeCloseTo(320, 9);
    expect(project(cam, [0, 0, 11])).toBeNull(); // behind the eye
    // Aspect: a wider viewport keeps the vertical field of view.
    const wide = screenCamera({ eye: [0, 0, 10], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 90 }, 1600, 800);
    expect(project(wide, [1, 0, 0])!.x).toBeCloseTo(840, 9);
  });

  it('a drag along an axis moves by the pixels over the axis pixels a unit; across it, nothing; toward the viewer, nothing', () => {
    expect(axisDragDistance(cam, [0, 0, 0], [1, 0, 0], [40, 0])).toBeCloseTo(1, 9);
    expect(axisDragDistance(cam, [0, 0, 0], [1, 0, 0], [-80, 0])).toBeCloseTo(-2, 9);
    expect(axisDragDistance(cam, [0, 0, 0], [1, 0, 0], [0, 55])).toBeCloseTo(0, 9);
    // +y is up on the screen: a drag upward (negative y pixels) is +y.
    expect(axisDragDistance(cam, [0, 0, 0], [0, 1, 0], [7, -40])).toBeCloseTo(1, 9);
    // A diagonal axis: only the drag's part along its screen direction counts.
    const d = Math.SQRT1_2;
    expect(axisDragDistance(cam, [0, 0, 0], [d, d, 0], [40 * d, -40 * d])).toBeCloseTo(1, 6);
    expect(axisDragDistance(cam, [0, 0, 0], [0, 0, 1], [30, 30])).toBe(0);
  });

  it('farther objects move more per pixel', () => {
    expect(axisDragDistance(cam, [0, 0, -10], [1, 0, 0], [40, 0])).toBeCloseTo(2, 6);
  });
});

describe('crop box faces', () => {
  const box = { min: [-1, -2, -3] as V3, max: [1, 2, 3] as V3 };

  it('six faces with their centres', () => {
    expect(FACES.map(faceName)).toEqual(['x-min', 'x-max', 'y-min', 'y-max', 'z-min', 'z-max']);
    expect(faceCenter(box, { axis: 0, side: 'max' })).toEqual([1, 0, 0]);
    expect(faceCenter(box, { axis: 2, side: 'min' })).toEqual([0, 0, -3]);
  });

  it('moving a face moves that face only, and never past the opposite one', () => {
    expect(moveFace(box, { axis: 1, side: 'max' }, -0.5)).toEqual({ min: [-1, -2, -3], max: [1, 1.5, 3] });
    expect(moveFace(box, { axis: 1, side: 'min' }, 0.5)).toEqual({ min: [-1, -1.5, -3], max: [1, 2, 3] });
    const squashed = moveFace(box, { axis: 0, side: 'min' }, 10, 0.01);
    expect(squashed.min[0]).toBeCloseTo(0.99, 12);
    expect(squashed.max[0]).toBe(1);
  });

  it('a face dragged on the screen moves along its normal through the transform (rotation, scale, translation)', () => {
    const cam = screenCamera({ eye: [0, 0, 10], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 90 }, 800, 800);
    // Rotated 90 degrees about z: the object's +x is the world's +y; scale 2: one object unit is 2 world units (80 px at depth 10).
    const t = { position: [0, 0, 0], rotation: [Math.SQRT1_2, 0, 0, Math.SQRT1_2], scale: 2 };
    const start = { min: [-1, -1, -1] as V3, max: [1, 1, 1] as V3 };
    const world = toWorld(t, [1, 0, 0]);
    expect(close(world, [0, 2, 0], 1e-12)).toBe(true);
    // Dragging the x-max face 40 px up the screen (world +y): half an object unit outward.
    const moved = dragFace(cam, t, start, { axis: 0, side: 'max' }, [0, -40]);
    expect(moved.max[0]).toBeCloseTo(1.5, 6);
    expect(close(moved.min, start.min)).toBe(true);
    expect(close(moved.max.slice(1), [1, 1])).toBe(true);
    // Sideways (world x, the object's -y): the x face does not move.
    expect(dragFace(cam, t, start, { axis: 0, side: 'max' }, [60, 0]).max[0]).toBeCloseTo(1, 6);
    // The y-min face goes toward world -x when dragged left, i.e. toward object +y: inward.
    expect(dragFace(cam, t, start, { axis: 1, side: 'min' }, [-40, 0]).min[1]).toBeCloseTo(-0.5, 6);
  });

  it('the box drawn is the bounds within the crop', () => {
    expect(croppedBox(box, null)).toBe(box);
    expect(croppedBox(box, { min: [0, -5, -1], max: [5, 1, 1] })).toEqual({ min: [0, -2, -1], max: [1, 1, 1] });
  });
});
