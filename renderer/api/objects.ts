/**
 * A viewer's placed objects (issue 32; Viewer.add, Viewer.objects, Viewer.export): scenes
 * added beside the one load() shows, each placed by its own transform, cropped, shown or
 * hidden, drawn with the rest in one frame and one sort (SplatRenderer.addObject and
 * friends, renderer/frame/placed-objects.ts).
 *
 * add() reads the source through the same loader as load() (SceneLoader: one Web
 * Worker a load; a loader of its own each add, so that a load and an add, or two adds,
 * never cancel each other), packed compact in the worker when the viewer keeps scenes
 * compact, then uploads the new object only, in slices (GpuScene.create); the objects
 * there are stay where they are on the GPU. Moving or cropping an object writes its
 * entry in the object table only; showing, hiding or removing one assembles the drawn
 * scene again by GPU copies.
 *
 * What each object was made from (its cloud, or the packed arrays the worker made and
 * the cloud without its SH) and how it is placed are kept here: after a lost device
 * (recovery.ts) every object is uploaded again to the new renderer, where it was, as it
 * was (remake); export() writes it from them (scenes/export.ts). load() replaces
 * everything: the objects there are end with the switch (sceneReplaced).
 */
import { checkCrop, croppedBounds, type SplatCrop } from '../../scenes/crop';
import type { ExportFormat } from '../../scenes/export';
import type { Bounds, SplatCloud } from '../../scenes/splat-cloud';
import { IDENTITY_TRANSFORM, makeTransform, similarityFromMatrix, transformBounds, transformCloud, transformMatrix, type SplatTransform } from '../../scenes/transform';
import { decodeCompact, type PackedScene } from '../gpu-scene/compact-pack';
import { GpuScene } from '../gpu-scene/gpu-scene';
import type { ObjectHandle, SplatRenderer } from '../frame/splat-renderer';
import { loadOptionsFor } from './load-sh';
import { isLodSource } from './lod-source';
import { SceneLoadCancelled, SceneLoader } from './scene-loader';
import type { RenderSettings } from './settings';
import { normalizeSource, type SceneInput } from './sources';
import { yieldToPage } from './tasks';

export type { ExportFormat } from '../../scenes/export';

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

/** What add() takes beside the source. */
export interface AddOptions {
  /** Where the object is (default the identity). */
  transform?: ObjectTransformInit;
  /** Its crop box (default none). */
  crop?: { min: ArrayLike<number>; max: ArrayLike<number> } | null;
  /** Shown (default true). */
  visible?: boolean;
  /** Its name when the source carries none (an ArrayBuffer, a Blob). */
  name?: string;
  /** Aborting it stops the read or the upload: add() rejects with SceneLoadCancelled. */
  signal?: AbortSignal;
}

/** What the objects need of their viewer. */
export interface ObjectHooks {
  settings: RenderSettings;
  /** The renderer drawing now (a new one after a lost device). */
  renderer(): SplatRenderer;
  /** Whether anything is on screen (a loaded scene): the first object added to an empty viewer is framed. */
  sceneShown(): boolean;
  /** Frame the camera on this cloud (as placed): the first thing on screen. */
  frame(cloud: SplatCloud): void;
  /** What is drawn changed: redraw (the figures start over where the drawn set changed). */
  changed(): void;
}

/**
 * add() of a streamed LOD source (lod-meta.json): one streamed LOD scene is shown at a
 * time, the one load() opens, as one object among the added ones (its budget shared).
 */
export class LodObjectRefused extends Error {
  override name = 'LodObjectRefused';
}

/** An object's state, kept on the CPU (what a lost device's recovery and export need). */
interface Entry {
  readonly name: string;
  /** Its splats in its own frame (without SH when `packed`). */
  readonly cloud: SplatCloud;
  /** The compact arrays the loader's worker packed (uploaded as they are), or null. */
  readonly packed: PackedScene | null;
  transform: SplatTransform;
  visible: boolean;
  crop: SplatCrop | null;
  /** Its handle in `owner`, the renderer it is on. */
  handle: ObjectHandle | null;
  owner: SplatRenderer | null;
  removed: boolean;
}

/**
 * A placed object of a viewer (Viewer.add): where it is, whether it is shown, its crop
 * box, and its splats. Setting `transform` or `crop` writes its entry in the object
 * table only; `visible` and `remove()` assemble the drawn scene again on the GPU.
 * After remove() (or a load(), which replaces everything) it is `removed` and its
 * setters throw.
 */
export class SplatObject {
  /** @internal */
  constructor(
    private readonly entry: Entry,
    private readonly owner: ViewerObjects,
  ) {}

  /** Its name: the file's, or AddOptions.name. */
  get name(): string {
    return this.entry.name;
  }

  /** Its splats (before the crop). */
  get splats(): number {
    return this.entry.cloud.count;
  }

  /** The SH degree of its splats. */
  get shDegree(): number {
    return this.entry.cloud.shDegree;
  }

  /** Where it is: position, rotation (a unit quaternion [w, x, y, z]), scale, and the matrix. */
  get transform(): ObjectTransform {
    return transformOf(this.entry.transform);
  }

  /** Moves it: any of position, rotation [w, x, y, z], scale (the rest kept), or a 4x4 similarity. @throws RangeError for a malformed one */
  set transform(t: ObjectTransformInit) {
    this.owner.setTransform(this.entry, toTransform(t, this.entry.transform));
  }

  get visible(): boolean {
    return this.entry.visible;
  }

  /** @throws GpuBudgetError or RangeError, changing nothing, when showing it would not fit the GPU */
  set visible(v: boolean) {
    this.owner.setVisible(this.entry, v);
  }

  /** Its crop box in its own frame, or null. */
  get crop(): ObjectCrop | null {
    const c = this.entry.crop;
    return c ? { min: [...c.min], max: [...c.max] } : null;
  }

  /** @throws RangeError for a box turned inside out or not of numbers */
  set crop(c: { min: ArrayLike<number>; max: ArrayLike<number> } | null) {
    this.owner.setCrop(this.entry, c === null ? null : checkCrop(c));
  }

  /** Its splats' bounds in its own frame (before the crop and the transform): a crop box's natural start. */
  get localBounds(): Bounds {
    const b = this.entry.cloud.bounds;
    return { min: [...b.min], max: [...b.max] };
  }

  /** Its axis-aligned bounds as placed (within its crop box), in the world's frame. */
  get bounds(): Bounds {
    const { cloud, transform, crop } = this.entry;
    return transformBounds(transform, croppedBounds(cloud.bounds, crop));
  }

  /** Whether it was removed (remove(), or a load() that replaced everything). */
  get removed(): boolean {
    return this.entry.removed;
  }

  /** Takes it out of the viewer and frees its GPU memory; the others are drawn on. Nothing after the first call. */
  remove(): void {
    this.owner.remove(this.entry);
  }
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

export class ViewerObjects {
  /** The objects there are, in the order added, and the SplatObject of each (a removed one's entry is left to the host's reference). */
  private readonly entries: Entry[] = [];
  private readonly views = new WeakMap<Entry, SplatObject>();
  private readonly entryOfView = new WeakMap<SplatObject, Entry>();
  /** The loaders of the adds in flight (each its own). */
  private readonly loaders = new Set<SceneLoader>();
  private ended = false;

  constructor(private readonly hooks: ObjectHooks) {}

  /** The objects there are, in the order added. */
  get list(): SplatObject[] {
    return this.entries.map((e) => this.views.get(e)!);
  }

  /** The object placed under `handle` on the renderer drawing now, or null (the loaded scene's, or none): Viewer.pick's. */
  objectOf(handle: ObjectHandle): SplatObject | null {
    const e = this.entries.find((x) => x.handle === handle && x.owner === this.hooks.renderer());
    return e ? this.views.get(e)! : null;
  }

  /**
   * Viewer.add: reads `source` (the loader's worker), uploads it as a new object in
   * slices, places it. Rejects with the loader's typed error, GpuBudgetError /
   * GpuMemoryError (nothing added), SceneLoadCancelled (the signal, or destroy()), or an
   * Error for a streamed LOD source (one is load()ed; objects are added beside it).
   */
  async add(source: SceneInput, options: AddOptions = {}): Promise<SplatObject> {
    const { hooks } = this;
    const transform = options.transform === undefined ? IDENTITY_TRANSFORM : toTransform(options.transform);
    const crop = options.crop ? checkCrop(options.crop) : null;
    const normal = normalizeSource(source, loadOptionsFor(hooks.settings.loadSh as 0 | 1 | 2 | 3), options.name);
    const name = normal.kind === 'generated' ? normal.spec : normal.load.name;
    if (normal.kind === 'load' && isLodSource(normal.load)) throw new LodObjectRefused(`${name}: a streamed LOD scene (lod-meta.json) cannot be added as an object: load() it (objects are added beside it)`);
    const signal = options.signal;
    signal?.throwIfAborted();
    const loader = new SceneLoader();
    this.loaders.add(loader);
    const aborted = () => loader.cancel();
    signal?.addEventListener('abort', aborted);
    try {
      const pack = hooks.renderer().precision === 'compact';
      const loaded = await loader.load(normal.kind === 'generated' ? { kind: 'generated', name, spec: normal.spec, options: loadOptionsFor(hooks.settings.loadSh as 0 | 1 | 2 | 3), pack } : { ...normal.load, pack }, () => undefined);
      const { cloud, packed } = loaded;
      if (this.ended) throw new SceneLoadCancelled(name);
      // Uploaded to the renderer drawing now; should a lost device's recovery replace it meanwhile, again to the new one.
      for (;;) {
        signal?.throwIfAborted();
        const renderer = hooks.renderer();
        renderer.assertFits(name, cloud.count, cloud.shDegree);
        const precision = packed ? 'compact' : renderer.precision;
        const scene = await GpuScene.create(renderer.device, cloud, renderer.bindingBytes, yieldToPage, { precision, ...(packed ? { packed } : {}), ...(signal ? { signal } : {}) });
        if (this.ended) {
          scene.destroy();
          throw new SceneLoadCancelled(name);
        }
        if (hooks.renderer() !== renderer) {
          scene.destroy();
          continue;
        }
        const first = !hooks.sceneShown() && this.entries.every((e) => !e.visible);
        const entry: Entry = { name, cloud, packed, transform, visible: options.visible ?? true, crop, handle: null, owner: null, removed: false };
        entry.handle = renderer.addGpuObject(scene, transform, entry.visible); // takes the scene (destroyed if refused)
        entry.owner = renderer;
        if (crop) renderer.setObjectCrop(entry.handle, crop);
        this.entries.push(entry);
        const view = new SplatObject(entry, this);
        this.views.set(entry, view);
        this.entryOfView.set(view, entry);
        if (first && entry.visible) hooks.frame(transformCloud({ ...cloud, sh: new Float32Array(0) }, transform));
        hooks.changed();
        return view;
      }
    } catch (e) {
      if (signal?.aborted && !(e instanceof SceneLoadCancelled)) throw new SceneLoadCancelled(name);
      throw e;
    } finally {
      signal?.removeEventListener('abort', aborted);
      this.loaders.delete(loader);
    }
  }

  /**
   * Viewer.export: the object as a file (scenes/export.ts: its crop applied, its
   * transform baked in, SH rotated). A packed object is written as the GPU draws it
   * (its compact arrays decoded).
   */
  async export(object: SplatObject, format: ExportFormat): Promise<Blob> {
    const entry = this.entryOf(object);
    // The writers load with the first export (not in the page's first bundle).
    const { exportObject } = await import('../../scenes/export');
    const { cloud, packed } = entry;
    const full = packed ? decodeCompact(packed, packed.decode, cloud, packed.shStride) : cloud;
    const bytes = exportObject(full, entry.transform, entry.crop, format);
    return new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' });
  }

  /** load() replaced everything: every object ended with the switch (the renderer freed them). */
  sceneReplaced(): void {
    for (const e of this.entries) this.end(e);
    this.entries.length = 0;
  }

  /**
   * A lost device's recovery made `renderer` (the loaded scene on it already): every
   * object uploaded again from what was kept, where it was, as it was, in order.
   * @returns the first error an object met (it is left out; the rest come back), or null
   */
  remake(renderer: SplatRenderer): unknown {
    let error: unknown = null;
    for (const e of [...this.entries]) {
      if (e.owner === renderer) continue; // added to the new renderer already
      try {
        const precision = e.packed ? 'compact' : renderer.precision;
        const scene = new GpuScene(renderer.device, e.cloud, renderer.bindingBytes, { precision, ...(e.packed ? { packed: e.packed } : {}) });
        e.handle = renderer.addGpuObject(scene, e.transform, e.visible);
        e.owner = renderer;
        if (e.crop) renderer.setObjectCrop(e.handle, e.crop);
      } catch (err) {
        error ??= err;
        this.end(e);
        this.entries.splice(this.entries.indexOf(e), 1);
      }
    }
    return error;
  }

  /** @internal SplatObject's setter. */
  setTransform(e: Entry, t: SplatTransform): void {
    this.live(e);
    e.transform = t;
    const r = this.current(e);
    if (r) r.setObjectTransform(e.handle!, t);
    this.hooks.changed();
  }

  /** @internal */
  setVisible(e: Entry, visible: boolean): void {
    this.live(e);
    if (e.visible === visible) return;
    const r = this.current(e);
    if (r) r.setObjectVisible(e.handle!, visible); // throws, changing nothing, when it would not fit
    e.visible = visible;
    this.hooks.changed();
  }

  /** @internal */
  setCrop(e: Entry, crop: SplatCrop | null): void {
    this.live(e);
    e.crop = crop;
    const r = this.current(e);
    if (r) r.setObjectCrop(e.handle!, crop);
    this.hooks.changed();
  }

  /** @internal */
  remove(e: Entry): void {
    if (e.removed) return;
    const r = this.current(e);
    if (r) r.removeObject(e.handle!);
    this.end(e);
    const at = this.entries.indexOf(e);
    if (at >= 0) this.entries.splice(at, 1);
    this.hooks.changed();
  }

  /** Adds in flight stop (they reject with SceneLoadCancelled); the objects' GPU memory is the renderer's to free. */
  destroy(): void {
    this.ended = true;
    for (const l of this.loaders) l.cancel();
    this.loaders.clear();
    this.sceneReplaced();
  }

  /** The renderer `e` is on, if it is the one drawing now (else a lost device's: the recovery brings it back as it is). */
  private current(e: Entry): SplatRenderer | null {
    return e.owner !== null && e.owner === this.hooks.renderer() && e.handle !== null ? e.owner : null;
  }

  private live(e: Entry): void {
    if (e.removed) throw new Error(`${e.name}: this object was removed from the viewer`);
  }

  private end(e: Entry): void {
    e.removed = true;
    e.handle = null;
    e.owner = null;
  }

  private entryOf(object: SplatObject): Entry {
    const e = this.entryOfView.get(object);
    if (!e) throw new Error(`${object.name}: not an object of this viewer`);
    this.live(e);
    return e;
  }
}
