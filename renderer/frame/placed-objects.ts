/**
 * A SplatRenderer's placed objects (issue 32: addObject, setObjectTransform,
 * setObjectVisible, removeObject): each object's splats on the GPU once, in its own
 * frame (world.ts holds them); the shown ones drawn in one frame and one sort, as one
 * scene: the one shown object's own, or several assembled by GPU copies
 * (renderer/gpu-scene/assemble.ts), each splat read through its object's entry in the
 * scene's object table (renderer/gpu-scene/objects.ts: transform, SH degree, compact
 * ranges). Moving an object rewrites its table entry (a uniform, with the next frame);
 * adding, showing, hiding or removing one assembles the drawn scene again from the
 * objects' own buffers (GPU copies; nothing uploaded from the CPU), which the renderer
 * sets up (sort buffers, draw state) and draws: ObjectsRenderer. A streamed LOD scene is
 * one object whose splats change with the view: `setScene` swaps its scene, and the
 * drawn scene is assembled again the same way.
 */
import type { Bounds, ShDegree, SplatCloud } from '../../scenes/splat-cloud';
import { IDENTITY_TRANSFORM, type SplatTransform } from '../../scenes/transform';
import type { SplatCrop } from '../../scenes/crop';
import { GpuScene } from '../gpu-scene/gpu-scene';
import type { PackedScene } from '../gpu-scene/compact-pack';
import type { ScenePrecision } from '../gpu-scene/scene-precision';
import { assembleScenes, assemblySize } from '../gpu-scene/assemble';
import { MAX_OBJECTS } from '../gpu-scene/objects';
import { World, type ObjectHandle, type WorldObject } from './world';

/** What SplatRenderer.objects tells of a placed object. */
export interface ObjectInfo {
  readonly handle: ObjectHandle;
  /** Its splats, in its own frame. */
  readonly cloud: SplatCloud;
  readonly transform: SplatTransform;
  readonly visible: boolean;
  /** Its crop box in its own frame, or null. */
  readonly crop: SplatCrop | null;
}

/** What the placed objects ask of the renderer that draws them (SplatRenderer). */
export interface ObjectsRenderer {
  readonly device: GPUDevice;
  /** The most bytes one binding holds (the objects' and an assembly's arrays are paged under it). */
  readonly bindingBytes: number;
  /**
   * Whether a drawn scene of `count` splats of SH `shDegree`, kept at `precision`,
   * fits the renderer's draw and binding limits (gpu-budget.ts).
   * @throws GpuBudgetError when not
   */
  assertFits(name: string, count: number, shDegree: ShDegree, precision: ScenePrecision): void;
  /**
   * Draws `scene` from now on, with new sort buffers and draw state; the previous drawn
   * state is freed once the new one is made. `owns`: an assembly, the renderer's from now
   * on (else an object's scene, owned here). null: nothing drawn (the background).
   * @throws changing nothing (an owned `scene` destroyed) when the new state cannot be made
   */
  drawScene(scene: GpuScene | null, owns: boolean): void;
}

export class PlacedObjects {
  /** The placed objects (their scenes on the GPU). */
  private readonly world = new World();
  /** The drawn scene (the renderer's to draw and free) and each drawn object's run in its object table; null while none is drawn. */
  private drawn: { readonly scene: GpuScene; readonly runs: ReadonlyMap<ObjectHandle, number> } | null = null;

  constructor(private readonly renderer: ObjectsRenderer) {}

  /** The placed objects, in the order added. */
  get objects(): ObjectInfo[] {
    return this.world.objects.map((o) => ({ handle: o.handle, cloud: o.scene.cloud, transform: o.transform, visible: o.visible, crop: o.crop }));
  }

  /** The bounds of the shown objects as placed now; null when none is shown. */
  get bounds(): Bounds | null {
    return this.world.bounds();
  }

  /** GPU memory of the objects' scenes, in bytes. */
  get bytes(): number {
    let bytes = 0;
    for (const o of this.world.objects) bytes += o.scene.bytes;
    return bytes;
  }

  /**
   * Every object goes (their GPU memory freed): `scene`, drawn already, is the one
   * object now, at the identity (owned here from now on).
   */
  replaceWith(scene: GpuScene): ObjectHandle {
    for (const o of this.world.clear()) o.scene.destroy();
    const object = this.world.add(scene, IDENTITY_TRANSFORM);
    this.drawn = { scene, runs: new Map([[object.handle, 0]]) };
    return object.handle;
  }

  /**
   * Adds an object: `cloud` uploaded once, at the precision of the objects there are,
   * else `precision` (SplatRenderer.addObject tells the rest).
   * @throws as SplatRenderer.addObject
   */
  add(cloud: SplatCloud, transform: SplatTransform, packed: PackedScene | null | undefined, precision: ScenePrecision): ObjectHandle {
    const kept = this.world.precision ?? (packed ? 'compact' : precision);
    if (packed && kept !== 'compact') throw new RangeError(`addObject: a packed (compact) scene among objects kept ${kept}`);
    this.assertObjectsFit(cloud.source.name, [{ count: cloud.count, shDegree: cloud.shDegree }], kept);
    const scene = new GpuScene(this.renderer.device, cloud, this.renderer.bindingBytes, { precision: kept, ...(packed ? { packed } : {}) });
    return this.addGpu(scene, transform);
  }

  /** Adds an object whose splats are on the GPU already, owned here from now on (destroyed if refused); `first`: before the others. */
  addGpu(scene: GpuScene, transform: SplatTransform, visible = true, first = false): ObjectHandle {
    const precision = this.world.precision;
    try {
      if (precision !== null && scene.precision !== precision) throw new RangeError(`addObject: a scene kept ${scene.precision} among objects kept ${precision}`);
      if (visible) this.assertObjectsFit(scene.cloud.source.name, [scene], scene.precision);
    } catch (e) {
      scene.destroy();
      throw e;
    }
    const object = this.world.add(scene, transform, visible, first);
    if (!visible) return object.handle;
    try {
      this.redraw();
    } catch (e) {
      this.world.take(object.handle);
      scene.destroy();
      throw e;
    }
    return object.handle;
  }

  /**
   * Swaps an object's splats for `scene` (on the GPU already, owned here from now on): a
   * streamed LOD object's new drawn set. Its transform, crop and visibility stay; the
   * drawn scene is assembled again by GPU copies (the other objects' buffers untouched,
   * nothing uploaded); the old scene is freed once the new one draws. A scene of no
   * splats draws nothing of the object.
   * @throws RangeError or GpuBudgetError, changing nothing (`scene` destroyed), as addGpu
   */
  setScene(handle: ObjectHandle, scene: GpuScene): void {
    let o: WorldObject;
    try {
      o = this.world.get(handle);
      const other = this.world.objects.find((x) => x !== o);
      if (other && scene.precision !== other.scene.precision) throw new RangeError(`setObjectScene: a scene kept ${scene.precision} among objects kept ${other.scene.precision}`);
      if (o.visible) this.assertObjectsFit(scene.cloud.source.name, [scene], scene.precision, o);
    } catch (e) {
      scene.destroy();
      throw e;
    }
    const old = o.scene;
    o.scene = scene;
    if (!o.visible) {
      old.destroy(); // not drawn: nothing to assemble again
      return;
    }
    try {
      this.redraw();
    } catch (e) {
      o.scene = old;
      scene.destroy();
      throw e;
    }
    old.destroy();
  }

  /** Places an object anew: its entry in the drawn scene's object table, if drawn. */
  setTransform(handle: ObjectHandle, transform: SplatTransform): void {
    const o = this.world.get(handle);
    o.transform = transform;
    const drawn = this.drawn;
    const run = drawn?.runs.get(handle);
    if (drawn && run !== undefined) drawn.scene.objects.setTransform(run, transform);
  }

  /** Crops an object (its own frame; null: none): its entry in the drawn scene's object table, if drawn. */
  setCrop(handle: ObjectHandle, crop: SplatCrop | null): void {
    const o = this.world.get(handle);
    o.crop = crop;
    const drawn = this.drawn;
    const run = drawn?.runs.get(handle);
    if (drawn && run !== undefined) drawn.scene.objects.setCrop(run, crop);
  }

  /** Shows or hides an object. @throws GpuBudgetError or RangeError, changing nothing, when showing it would not fit */
  setVisible(handle: ObjectHandle, visible: boolean): void {
    const o = this.world.get(handle);
    if (o.visible === visible) return;
    if (visible) this.assertObjectsFit(o.scene.cloud.source.name, [o.scene], o.scene.precision);
    o.visible = visible;
    try {
      this.redraw();
    } catch (e) {
      o.visible = !visible;
      throw e;
    }
  }

  /** Removes an object and frees its GPU memory; the others are drawn on. */
  remove(handle: ObjectHandle): void {
    const { object, restore } = this.world.take(handle);
    try {
      this.redraw();
    } catch (e) {
      restore();
      throw e;
    }
    object.scene.destroy();
  }

  /** Frees every object's GPU memory (the renderer's drawn state freed first). */
  destroy(): void {
    for (const o of this.world.clear()) o.scene.destroy();
  }

  /**
   * Whether the shown objects and `more` would fit one drawn scene: at most MAX_OBJECTS,
   * and the binding limits (gpu-budget.ts) for their splats at their largest SH degree.
   * @throws RangeError, GpuBudgetError
   */
  private assertObjectsFit(name: string, more: readonly { count: number; shDegree: number }[], precision: ScenePrecision, except?: WorldObject): void {
    const parts = [...this.world.drawn().filter((o) => o !== except).map((o) => o.scene), ...more].map((scene) => ({ scene }));
    if (parts.length > MAX_OBJECTS) throw new RangeError(`${name}: ${parts.length} objects shown at once, at most ${MAX_OBJECTS}`);
    const { count, shDegree } = assemblySize(parts);
    this.renderer.assertFits(name, count, shDegree, precision);
  }

  /**
   * Draws the shown objects from now on: the one's own scene (its table holding its
   * transform), or an assembly of several (GPU copies); a failure changes nothing.
   * None shown: nothing drawn (the background).
   */
  private redraw(): void {
    const drawn = this.world.drawn();
    if (drawn.length === 0) {
      this.renderer.drawScene(null, false);
      this.drawn = null;
      return;
    }
    let scene: GpuScene;
    let owns = false;
    if (drawn.length === 1) {
      const o = drawn[0]!;
      scene = o.scene;
      scene.objects.setRuns([{ first: 0, count: scene.count, transform: o.transform, shDegree: scene.shDegree, decode: scene.decode, crop: o.crop }]);
    } else {
      scene = assembleScenes(this.renderer.device, drawn, this.renderer.bindingBytes);
      owns = true;
    }
    this.renderer.drawScene(scene, owns);
    this.drawn = { scene, runs: new Map(drawn.map((o, k) => [o.handle, k])) };
  }
}
