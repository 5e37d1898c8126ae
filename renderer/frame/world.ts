/**
 * The renderer's placed objects (issue 32): each a scene on the GPU of its own (a
 * GpuScene, uploaded once, owned here), a transform (scenes/transform.ts) and whether
 * it is shown. SplatRenderer draws the shown ones in one frame and one sort: the one
 * shown object's own scene, or an assembly of several (renderer/gpu-scene/assemble.ts),
 * read through the drawn scene's object table (renderer/gpu-scene/objects.ts).
 */
import type { Bounds } from '../../scenes/splat-cloud';
import type { SplatTransform } from '../../scenes/transform';
import type { SplatCrop } from '../../scenes/crop';
import type { GpuScene } from '../gpu-scene/gpu-scene';
import { placedBounds } from '../gpu-scene/assemble';
import type { ScenePrecision } from '../gpu-scene/scene-precision';

/** A placed object of a SplatRenderer (addObject; setScene's scene is one too: `objects`). */
export type ObjectHandle = number & { readonly __objectHandle: unique symbol };

export interface WorldObject {
  readonly handle: ObjectHandle;
  /** Its splats on the GPU, in its own frame (a streamed LOD object's: its drawn set, swapped as it changes). */
  scene: GpuScene;
  transform: SplatTransform;
  visible: boolean;
  /** Its crop box in its own frame (scenes/crop.ts), or null: every splat drawn. */
  crop: SplatCrop | null;
}

export class World {
  private readonly list: WorldObject[] = [];
  private next = 1;

  /** The objects, in the order added. */
  get objects(): readonly WorldObject[] {
    return this.list;
  }

  /** The precision the objects are kept at (the first's); null without one. */
  get precision(): ScenePrecision | null {
    return this.list[0]?.scene.precision ?? null;
  }

  /** The objects drawn: shown and holding splats, in the order added. */
  drawn(): WorldObject[] {
    return this.list.filter((o) => o.visible && o.scene.count > 0);
  }

  /** The bounds of the drawn objects as placed now (within their crop boxes); null when none is drawn. */
  bounds(): Bounds | null {
    const drawn = this.drawn();
    return drawn.length > 0 ? placedBounds(drawn) : null;
  }

  /** A new object, last (`first`: before the others). */
  add(scene: GpuScene, transform: SplatTransform, visible = true, first = false): WorldObject {
    const o: WorldObject = { handle: this.next++ as ObjectHandle, scene, transform, visible, crop: null };
    if (first) this.list.unshift(o);
    else this.list.push(o);
    return o;
  }

  /** @throws RangeError for a handle that is not an object here (removed, or another renderer's) */
  get(handle: ObjectHandle): WorldObject {
    const o = this.list.find((x) => x.handle === handle);
    if (!o) throw new RangeError(`no object ${handle} in this renderer (removed, or never added)`);
    return o;
  }

  /** Takes an object out (its scene is the caller's to destroy); `restore` puts it back where it was. */
  take(handle: ObjectHandle): { object: WorldObject; restore(): void } {
    const object = this.get(handle);
    const at = this.list.indexOf(object);
    this.list.splice(at, 1);
    return { object, restore: () => void this.list.splice(at, 0, object) };
  }

  /** Takes every object out (their scenes are the caller's to destroy). */
  clear(): WorldObject[] {
    return this.list.splice(0, this.list.length);
  }
}
