/**
 * Placed-object helpers shared by the objects' GPU tests: the CPU side of what the
 * renderer assembles (clouds merged into one), and placing a cloud by its robust centre.
 */
import { boundsCenter, robustBounds } from '../../renderer/camera/camera';
import { concatRuns, type SplatCloud } from '../../scenes/splat-cloud';
import { makeTransform, transformPoint, type SplatTransform } from '../../scenes/transform';

/** The clouds merged into one, back to back (at the highest SH degree among them: scenes/splat-cloud.ts concatRuns). */
export function mergeClouds(name: string, ...clouds: SplatCloud[]): SplatCloud {
  return concatRuns(clouds.map((cloud) => ({ cloud, from: 0, count: cloud.count })), { name, format: 'memory' });
}

/** The middle of `c`'s bounds (camera.ts boundsCenter). */
export function boundsCentre(c: SplatCloud): [number, number, number] {
  return boundsCenter(c.bounds);
}

/** The middle of `c`'s robust bounds. */
export function robustCentre(c: SplatCloud): [number, number, number] {
  const b = robustBounds(c.positions);
  return [0, 1, 2].map((a) => (b.min[a]! + b.max[a]!) / 2) as [number, number, number];
}

/** Half the diagonal of `c`'s robust bounds. */
export function robustRadius(c: SplatCloud): number {
  const b = robustBounds(c.positions);
  return Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]) / 2;
}

/** A transform turning `c` by `rotation`, scaling it by `scale` and putting its centre at `at`. */
/** The transform that turns and scales `c` by `rotation` and `scale` about `centreOf(c)` and puts that point at `at`. */
export function placedAt(
  c: SplatCloud,
  at: readonly number[],
  rotation: readonly number[],
  scale: number,
  centreOf: (c: SplatCloud) => [number, number, number] = robustCentre,
): SplatTransform {
  const turned = transformPoint(makeTransform({ rotation, scale }), centreOf(c));
  return makeTransform({ rotation, scale, translation: [at[0]! - turned[0], at[1]! - turned[1], at[2]! - turned[2]] });
}
