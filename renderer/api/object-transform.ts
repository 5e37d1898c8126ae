/**
 * A placed object's transform and crop box as the library takes and gives them
 * (SplatObject.transform / crop, AddOptions: objects.ts), and their conversion to
 * scenes/transform.ts's SplatTransform.
 */
import { IDENTITY_TRANSFORM, makeTransform, similarityFromMatrix, transformMatrix, type SplatTransform } from '../../scenes/transform';

/**
 * Where an object is, as the library takes it: any of its parts (a part left out keeps
 * its value, the identity's for a new object), or a column-major 4x4 matrix of a
 * similarity (16 numbers: uniform scale, rotation, translation). The object's own
 * frame is its file's; a point p of it is drawn at rotation (scale p) + position.
 */
export type ObjectTransformInit =
  | {
      /** Translation [x, y, z]. */
      position?: ArrayLike<number>;
      /** A unit quaternion [w, x, y, z] (w first: the order of the splat files' rot_0..3); normalised. */
      rotation?: ArrayLike<number>;
      /** Uniform scale, > 0. */
      scale?: number;
    }
  | ArrayLike<number>;

/** Where an object is (SplatObject.transform). */
export interface ObjectTransform {
  position: [number, number, number];
  /** A unit quaternion [w, x, y, z]. */
  rotation: [number, number, number, number];
  scale: number;
  /** The same, as a column-major 4x4 matrix (object -> world). */
  matrix: number[];
}

/** A crop box in the object's own frame: splats whose centre is outside are not drawn (nor exported). */
export interface ObjectCrop {
  min: [number, number, number];
  max: [number, number, number];
}

/** The transform `t` asks for, its parts left out taken from `base`. @throws RangeError for a malformed one */
export function toTransform(t: ObjectTransformInit, base: SplatTransform = IDENTITY_TRANSFORM): SplatTransform {
  if (t === null || typeof t !== 'object') throw new RangeError('transform: expected { position, rotation, scale } or 16 numbers');
  if (isArrayLike(t)) return similarityFromMatrix(t);
  const parts = t as Exclude<ObjectTransformInit, ArrayLike<number>>;
  return makeTransform({ translation: parts.position ?? base.translation, rotation: parts.rotation ?? base.rotation, scale: parts.scale ?? base.scale });
}

function isArrayLike(t: object): t is ArrayLike<number> {
  return Array.isArray(t) || ArrayBuffer.isView(t) || typeof (t as { length?: unknown }).length === 'number';
}

/** A transform as the library gives it. */
export function transformOf(t: SplatTransform): ObjectTransform {
  return { position: [...t.translation], rotation: [...t.rotation], scale: t.scale, matrix: Array.from(transformMatrix(t)) };
}
