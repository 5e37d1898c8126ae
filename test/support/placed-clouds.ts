/**
 * Placed-object helpers shared by the objects' GPU tests: the CPU side of what the
 * renderer assembles (clouds merged into one), and placing a cloud by its robust centre.
 */
import { robustBounds } from '../../renderer/camera/camera';
import { computeBounds, shCoeffCount, type SplatCloud } from '../../scenes/splat-cloud';
import { makeTransform, transformPoint, type SplatTransform } from '../../scenes/transform';

/** The clouds merged into one (the same degree: the first's). */
export function mergeClouds(name: string, ...clouds: SplatCloud[]): SplatCloud {
  const degree = Math.max(...clouds.map((c) => c.shDegree)) as SplatCloud['shDegree'];
  const K = shCoeffCount(degree) * 3;
  const n = clouds.reduce((a, c) => a + c.count, 0);
  const out: SplatCloud = {
    count: n,
    shDegree: degree,
    positions: new Float32Array(n * 3),
    scales: new Float32Array(n * 3),
    rotations: new Float32Array(n * 4),
    opacities: new Float32Array(n),
    sh: new Float32Array(n * K),
    bounds: { min: [0, 0, 0], max: [0, 0, 0] },
    source: { name, format: 'memory' },
  };
  let at = 0;
  for (const c of clouds) {
    out.positions.set(c.positions, at * 3);
    out.scales.set(c.scales, at * 3);
    out.rotations.set(c.rotations, at * 4);
    out.opacities.set(c.opacities, at);
    const k = shCoeffCount(c.shDegree) * 3;
    for (let i = 0; i < c.count; i++) out.sh.set(c.sh.subarray(i * k, (i + 1) * k), (at + i) * K);
    at += c.count;
  }
  out.bounds = computeBounds(out.positions);
  return out;
}

/** The middle of `c`'s bounds. */
export function boundsCentre(c: SplatCloud): [number, number, number] {
  const b = c.bounds;
  return [0, 1, 2].map((a) => (b.min[a]! + b.max[a]!) / 2) as [number, number, number];
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
