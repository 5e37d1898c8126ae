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
 *
 * The scene load() shows is a SplatObject too (Viewer.sceneObject, `sceneEntry`): the
 * renderer's first object, placed, cropped, hidden and exported as an added one, not
 * among `list` (Viewer.objects: the added ones). Its cloud is the scene holder's
 * (scene-holder.ts; a streamed LOD scene's: its drawn set now, its bounds the
 * manifest's); its remove() takes the scene off screen (SceneHolder.clear); after a
 * lost device the holder uploads it again and `remake` places it as it was (a streamed
 * LOD scene opens again: `sceneBack`). A new load() ends it with the rest.
 */
import { checkCrop, croppedBounds, type SplatCrop } from '../../scenes/crop';
import type { ExportFormat } from '../../scenes/export';
import type { Bounds, SplatCloud } from '../../scenes/splat-cloud';
import { IDENTITY_TRANSFORM, transformBounds, transformCloud, type SplatTransform } from '../../scenes/transform';
import { toTransform, transformOf, type ObjectCrop, type ObjectTransform, type ObjectTransformInit } from './object-transform';
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
export type { ObjectCrop, ObjectTransform, ObjectTransformInit } from './object-transform';

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
  /** The loaded scene's cloud now (a streamed LOD scene's: its drawn set), or null. */
  sceneCloud(): SplatCloud | null;
  /** The loaded scene taken off screen (its object's remove()): its GPU memory freed, nothing of it kept. */
  removeScene(): void;
  /** Frame the camera on this cloud (as placed): the first thing on screen. */
  frame(cloud: SplatCloud): void;
  /** What is drawn changed: redraw (the figures start over where the drawn set changed). */
  changed(): void;
}

/**
 * add() of a streamed LOD source (lod-meta.json): one streamed LOD scene is shown at a
 * time, the one load() opens, as one object among the added ones (its budget shared).
 * Also export() of that scene's object (Viewer.sceneObject): its splats are a view's
 * selection of levels, streamed; export the source's finest level instead.
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
  /** A streamed LOD scene's: its manifest's bound (its `cloud` is then its drawn set when shown). */
  readonly lodBound?: Bounds | null;
}

/** The loaded scene as ViewerObjects takes it (ViewerParts.show): what it is made of, where it is in `renderer`. */
export interface ShownScene {
  name: string;
  cloud: SplatCloud;
  packed: PackedScene | null;
  renderer: SplatRenderer;
  handle: ObjectHandle | null;
  /** A streamed LOD scene's manifest bound, else null. */
  lodBound: Bounds | null;
}

/**
 * A placed object of a viewer (Viewer.add), or the scene load() shows (Viewer.sceneObject):
 * where it is, whether it is shown, its crop box, and its splats. Setting `transform` or
 * `crop` writes its entry in the object table only; `visible` and `remove()` assemble the
 * drawn scene again on the GPU. After remove() (or a load(), which replaces everything)
 * it is `removed` and its setters throw.
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

  /** Its splats (before the crop; a streamed LOD scene's: those drawn now). */
  get splats(): number {
    return this.owner.cloudOf(this.entry).count;
  }

  /** The SH degree of its splats. */
  get shDegree(): number {
    return this.owner.cloudOf(this.entry).shDegree;
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

  /** Its splats' bounds in its own frame (before the crop and the transform): a crop box's natural start. A streamed LOD scene's: its manifest's bound. */
  get localBounds(): Bounds {
    const b = this.entry.lodBound ?? this.entry.cloud.bounds;
    return { min: [...b.min], max: [...b.max] };
  }

  /** Its axis-aligned bounds as placed (within its crop box), in the world's frame. */
  get bounds(): Bounds {
    const { transform, crop } = this.entry;
    return transformBounds(transform, croppedBounds(this.entry.lodBound ?? this.entry.cloud.bounds, crop));
  }

  /** Whether it was removed (remove(), or a load() that replaced everything). */
  get removed(): boolean {
    return this.entry.removed;
  }

  /**
   * Takes it out of the viewer and frees its GPU memory; the others are drawn on. Nothing after the first call.
   * Viewer.sceneObject's: the scene leaves the screen (Viewer.scene and sceneObject become null; load() shows another).
   */
  remove(): void {
    this.owner.remove(this.entry);
  }
}

export class ViewerObjects {
  /** The objects there are, in the order added, and the SplatObject of each (a removed one's entry is left to the host's reference). */
  private readonly entries: Entry[] = [];
  /** The loaded scene's entry (Viewer.sceneObject), or null. */
  private sceneEntry: Entry | null = null;
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

  /** The loaded scene's object (Viewer.sceneObject), or null. */
  get sceneObject(): SplatObject | null {
    return this.sceneEntry ? this.views.get(this.sceneEntry)! : null;
  }

  /** The object placed under `handle` on the renderer drawing now (the loaded scene's or an added one), or null: Viewer.pick's. */
  objectOf(handle: ObjectHandle): SplatObject | null {
    const e = [this.sceneEntry, ...this.entries].find((x) => x !== null && x.handle === handle && x.owner === this.hooks.renderer());
    return e ? this.views.get(e)! : null;
  }

  /** @internal An entry's splats now: a streamed LOD scene's drawn set, else what it was made of. */
  cloudOf(e: Entry): SplatCloud {
    return (e.lodBound && e === this.sceneEntry && e.owner !== null ? this.hooks.sceneCloud() : null) ?? e.cloud;
  }

  /** load() showed a scene (the objects ended already: sceneReplaced): its SplatObject, placed where the renderer has it (the identity). */
  sceneShown(s: ShownScene): SplatObject {
    this.endScene();
    const entry: Entry = { name: s.name, cloud: s.cloud, packed: s.packed, transform: IDENTITY_TRANSFORM, visible: true, crop: null, handle: s.handle, owner: s.handle === null ? null : s.renderer, removed: false, lodBound: s.lodBound };
    this.sceneEntry = entry;
    return this.viewOf(entry);
  }

  /** A streamed LOD scene opened again after a lost device (`handle` in `renderer`): its object placed as it was. */
  sceneBack(renderer: SplatRenderer, handle: ObjectHandle | null): void {
    const e = this.sceneEntry;
    if (!e || handle === null) return;
    e.handle = handle;
    e.owner = renderer;
    this.place(renderer, e);
  }

  /** A streamed LOD scene's reopening after a lost device failed: its object ends (unless a newer scene took over). */
  sceneLost(): void {
    if (this.sceneEntry?.owner === null) this.endScene();
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
        const first = [this.sceneEntry, ...this.entries].every((e) => !e?.visible);
        const entry: Entry = { name, cloud, packed, transform, visible: options.visible ?? true, crop, handle: null, owner: null, removed: false };
        entry.handle = renderer.addGpuObject(scene, transform, entry.visible); // takes the scene (destroyed if refused)
        entry.owner = renderer;
        if (crop) renderer.setObjectCrop(entry.handle, crop);
        this.entries.push(entry);
        const view = this.viewOf(entry);
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
    if (entry.lodBound) throw new LodObjectRefused(`${entry.name}: a streamed LOD scene cannot be exported (its splats are levels chosen for the view): export its finest level, loaded whole`);
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
    this.endScene();
  }

  /**
   * A lost device's recovery made `renderer` (the loaded scene on it already, as object
   * `sceneHandle`; null: not uploaded, or a streamed LOD scene that opens again): the
   * scene placed as it was, then every object uploaded again from what was kept, where
   * it was, as it was, in order.
   * @returns the first error an object met (it is left out; the rest come back), or null
   */
  remake(renderer: SplatRenderer, sceneHandle: ObjectHandle | null): unknown {
    let error: unknown = null;
    const s = this.sceneEntry;
    if (s && s.owner !== renderer) {
      s.handle = null;
      s.owner = null;
      if (sceneHandle !== null) {
        try {
          this.sceneBack(renderer, sceneHandle);
        } catch (err) {
          error = err; // drawn at the identity, shown
        }
      } else if (!s.lodBound) this.endScene(); // not on the new device (a streamed LOD scene's object waits for sceneBack)
    }
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
    if (e === this.sceneEntry) {
      this.hooks.removeScene(); // its renderer object too
      this.endScene();
      this.hooks.changed();
      return;
    }
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

  private endScene(): void {
    if (this.sceneEntry) this.end(this.sceneEntry);
    this.sceneEntry = null;
  }

  private viewOf(entry: Entry): SplatObject {
    const view = new SplatObject(entry, this);
    this.views.set(entry, view);
    this.entryOfView.set(view, entry);
    return view;
  }

  /** `e`'s placement kept on the CPU, applied to its object in `renderer` (made at the identity, shown, uncropped). */
  private place(renderer: SplatRenderer, e: Entry): void {
    const h = e.handle!;
    renderer.setObjectTransform(h, e.transform);
    if (e.crop) renderer.setObjectCrop(h, e.crop);
    if (!e.visible) renderer.setObjectVisible(h, false);
  }

  private entryOf(object: SplatObject): Entry {
    const e = this.entryOfView.get(object);
    if (!e) throw new Error(`${object.name}: not an object of this viewer`);
    this.live(e);
    return e;
  }
}
