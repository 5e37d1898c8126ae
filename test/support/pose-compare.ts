import { expect } from 'vitest';
import { type CameraPose, length, normalize, sub } from '../../renderer/camera/camera';

/** The pose the camera tests start from: 5 in front of the origin, -y up, 60 degrees. */
export const START: CameraPose = { eye: [0, 0, -5], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 };

/** The eye's distance to the target. */
export function dist(p: CameraPose): number {
  return length(sub(p.target, p.eye));
}

export function expectVecClose(a: readonly number[], b: readonly number[], eps = 1e-9): void {
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i]), `index ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
}

/** Eye, target and up direction within eps; the same field of view. */
export function expectPoseClose(a: CameraPose, b: CameraPose, eps = 1e-9): void {
  expectVecClose(a.eye, b.eye, eps);
  expectVecClose(a.target, b.target, eps);
  expectVecClose(normalize(a.up), normalize(b.up), eps);
  expect(a.fovyDeg).toBeCloseTo(b.fovyDeg, 9);
}
