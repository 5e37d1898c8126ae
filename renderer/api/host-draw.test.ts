import { describe, expect, it } from 'vitest';
import type { Bounds } from '../../scenes/splat-cloud';
import { projectionMatrix, viewMatrix, type CameraPose } from '../camera/camera';
import { poseOf, projectionPlanes } from './host-draw';

describe('drawOver: a host camera given as its matrices', () => {
  it('reads near, far and reversed-Z from a WebGPU projection (finite and infinite far planes)', () => {
    const close = (a: { near: number; far: number; reversed: boolean }, near: number, far: number, reversed: boolean) => {
      expect(a.reversed).toBe(reversed);
      expect(a.near).toBeCloseTo(near, 4);
      if (far === Infinity) expect(a.far).toBe(Infinity);
      else expect(a.far / far).toBeCloseTo(1, 4);
    };
    close(projectionPlanes(projectionMatrix(60, 1.5, 0.1, 500)), 0.1, 500, false);
    close(projectionPlanes(projectionMatrix(60, 1.5, 0.1, Infinity)), 0.1, Infinity, false);
    const reversed = (near: number, far: number) => {
      const p = projectionMatrix(60, 1.5, near, far === Infinity ? 1 : far);
      p[10] = far === Infinity ? 0 : near / (far - near);
      p[14] = far === Infinity ? near : (near * far) / (far - near);
      return p;
    };
    close(projectionPlanes(reversed(0.1, 500)), 0.1, 500, true);
    close(projectionPlanes(reversed(0.1, Infinity)), 0.1, Infinity, true);
    const offAxis = projectionMatrix(60, 1.5, 0.1, 500);
    offAxis[8] = 0.2;
    expect(() => projectionPlanes(offAxis)).toThrow(RangeError);
  });

  it('gives back the pose a view matrix was made from (its eye, direction, up and field of view)', () => {
    const pose: CameraPose = { eye: [3, -2, 5], target: [0.5, 1, -1], up: [0, 1, 0], fovyDeg: 50 };
    const bounds: Bounds = { min: [-1, -1, -1], max: [1, 1, 1] };
    const back = poseOf({ view: viewMatrix(pose), projection: projectionMatrix(50, 4 / 3, 0.1, 100) }, bounds, 400, 300);
    for (let a = 0; a < 3; a++) expect(back.eye[a]).toBeCloseTo(pose.eye[a]!, 5);
    expect(back.fovyDeg).toBeCloseTo(50, 5);
    const again = viewMatrix(back);
    const original = viewMatrix(pose);
    for (let i = 0; i < 16; i++) expect(again[i]).toBeCloseTo(original[i]!, 5);
    expect(() => poseOf({ view: viewMatrix(pose), projection: projectionMatrix(50, 2, 0.1, 100) }, bounds, 400, 300)).toThrow(/aspect/);
  });
});
