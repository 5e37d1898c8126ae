/**
 * Exporting a placed object (issue 32): the splats it shows, where it shows them, as a
 * file of their own. Its crop box applied (crop.ts: splats whose centre is outside
 * left out, in the object's own frame), then its transform baked in (transform.ts
 * transformCloud: centres, rotations, scales, the SH bands rotated), then written as a
 * 3DGS PLY (write-ply.ts, the INRIA layout) or an SPZ (write-spz.ts, version 3). Pure:
 * bytes in memory, no GPU, no I/O.
 */
import { cropCloud, type SplatCrop } from './crop';
import type { SplatCloud } from './splat-cloud';
import { IDENTITY_TRANSFORM, isIdentity, transformCloud, type SplatTransform } from './transform';
import { writeSplatPly } from './write-ply';
import { writeSpz } from './write-spz';

export type ExportFormat = 'ply' | 'spz';

/** The most fractional bits SPZ's 24-bit fixed-point centres get (the format's usual 12). */
const SPZ_MAX_FRACTIONAL_BITS = 12;

/**
 * The object's splats as placed: `cloud` (in its own frame, with its SH: a cloud without
 * SH writes degree-0 colour from nothing, so pass the full cloud) cropped by `crop`, moved
 * by `transform`.
 */
export function placedCloud(cloud: SplatCloud, transform: SplatTransform = IDENTITY_TRANSFORM, crop: SplatCrop | null = null): SplatCloud {
  const cropped = cropCloud(cloud, crop);
  return isIdentity(transform) ? cropped : transformCloud(cropped, transform);
}

/**
 * The file of an object placed by `transform` and cropped by `crop` (see the module's
 * comment). SPZ keeps centres in 24-bit fixed point: as many fractional bits (up to 12)
 * as the farthest centre leaves room for.
 * @throws RangeError for another format, or a cloud whose SH does not match its degree
 */
export function exportObject(cloud: SplatCloud, transform: SplatTransform | null, crop: SplatCrop | null, format: ExportFormat): Uint8Array {
  const expected = cloud.count * (cloud.shDegree + 1) ** 2 * 3;
  if (cloud.sh.length !== expected) {
    throw new RangeError(`export: ${cloud.source.name}: its SH holds ${cloud.sh.length} numbers, ${expected} for ${cloud.count} splats of degree ${cloud.shDegree}`);
  }
  const placed = placedCloud(cloud, transform ?? IDENTITY_TRANSFORM, crop);
  if (format === 'ply') return writeSplatPly(placed);
  if (format === 'spz') return writeSpz(placed, { version: 3, fractionalBits: spzFractionalBits(placed) });
  throw new RangeError(`export: format '${String(format)}': expected 'ply' or 'spz'`);
}

/** The fractional bits that keep every centre of `cloud` within SPZ's 24-bit signed range. */
export function spzFractionalBits(cloud: SplatCloud): number {
  let far = 0;
  for (const v of cloud.positions) far = Math.max(far, Math.abs(v));
  if (far === 0) return SPZ_MAX_FRACTIONAL_BITS;
  const bits = Math.floor(Math.log2((2 ** 23 - 1) / far));
  return Math.max(0, Math.min(SPZ_MAX_FRACTIONAL_BITS, bits));
}
