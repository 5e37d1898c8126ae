/**
 * Cropping a placed object (issue 32): an axis-aligned box in the object's own frame
 * (the frame its file is in, before its transform), outside of which its splats are
 * not drawn. A splat is kept when its centre is inside the box, faces included; its
 * extent is not looked at (a splat whose centre is inside may reach past the box).
 *
 * The GPU applies it per splat as it projects (shaders/gpu-scene/objects.wgsl
 * objectKeeps, from the object table: renderer/gpu-scene/objects.ts); the CPU here
 * (cropCloud) for export (export.ts) and as the tests' oracle: the same rule.
 */
import { computeBounds, type Bounds, type SplatCloud } from './splat-cloud';
import type { Vec3 } from './transform';

/** A box in an object's own frame: min <= max on each axis. */
export interface SplatCrop {
  min: Vec3;
  max: Vec3;
}

/**
 * The crop as given, checked: three finite (or infinite: an open side) numbers each,
 * min <= max on each axis.
 * @throws RangeError naming what is wrong
 */
export function checkCrop(crop: { min: ArrayLike<number>; max: ArrayLike<number> }): SplatCrop {
  const { min, max } = crop;
  if (!min || !max || min.length !== 3 || max.length !== 3) throw new RangeError('crop: expected { min: [x, y, z], max: [x, y, z] }');
  for (let a = 0; a < 3; a++) {
    if (Number.isNaN(min[a]) || Number.isNaN(max[a]) || typeof min[a] !== 'number' || typeof max[a] !== 'number') {
      throw new RangeError(`crop: min ${Array.from(min).join(',')}, max ${Array.from(max).join(',')}: expected numbers`);
    }
    if (!(min[a]! <= max[a]!)) throw new RangeError(`crop: min ${Array.from(min).join(',')} exceeds max ${Array.from(max).join(',')} on axis ${'xyz'[a]}`);
  }
  return { min: [min[0]!, min[1]!, min[2]!], max: [max[0]!, max[1]!, max[2]!] };
}

/** Whether the point (x, y, z) is kept by `crop` (inside, faces included; null keeps every point). */
export function cropKeeps(crop: SplatCrop | null, x: number, y: number, z: number): boolean {
  if (!crop) return true;
  return x >= crop.min[0] && x <= crop.max[0] && y >= crop.min[1] && y <= crop.max[1] && z >= crop.min[2] && z <= crop.max[2];
}

/** The splats of `cloud` whose centres `crop` keeps, in order (a new cloud; `cloud` itself when `crop` is null). */
export function cropCloud(cloud: SplatCloud, crop: SplatCrop | null): SplatCloud {
  if (!crop) return cloud;
  const n = cloud.count;
  const p = cloud.positions;
  const kept: number[] = [];
  for (let i = 0; i < n; i++) if (cropKeeps(crop, p[3 * i]!, p[3 * i + 1]!, p[3 * i + 2]!)) kept.push(i);
  const m = kept.length;
  const K3 = n > 0 && cloud.sh.length > 0 ? cloud.sh.length / n : 0;
  const positions = new Float32Array(m * 3);
  const scales = new Float32Array(m * 3);
  const rotations = new Float32Array(m * 4);
  const opacities = new Float32Array(m);
  const sh = new Float32Array(m * K3);
  for (let j = 0; j < m; j++) {
    const i = kept[j]!;
    positions.set(p.subarray(3 * i, 3 * i + 3), 3 * j);
    scales.set(cloud.scales.subarray(3 * i, 3 * i + 3), 3 * j);
    rotations.set(cloud.rotations.subarray(4 * i, 4 * i + 4), 4 * j);
    opacities[j] = cloud.opacities[i]!;
    if (K3 > 0) sh.set(cloud.sh.subarray(K3 * i, K3 * (i + 1)), K3 * j);
  }
  return { ...cloud, count: m, positions, scales, rotations, opacities, sh, bounds: computeBounds(positions) };
}

/** `bounds` within the crop box (what a cropped object can show); `bounds` itself for no crop. */
export function croppedBounds(bounds: Bounds, crop: SplatCrop | null): Bounds {
  if (!crop) return bounds;
  const min = [0, 1, 2].map((a) => Math.max(bounds.min[a]!, crop.min[a]!)) as [number, number, number];
  const max = [0, 1, 2].map((a) => Math.min(bounds.max[a]!, crop.max[a]!)) as [number, number, number];
  // Nothing inside: an empty box at the crop's nearest corner (min = max).
  for (let a = 0; a < 3; a++) if (max[a]! < min[a]!) max[a] = min[a]!;
  return { min, max };
}
