/**
 * The scene a viewer shows: the renderer that draws it (made again on a new
 * device after a loss), its order probe, its identity and source, the scenes
 * shown so far, when its first frame was submitted and done, and a streamed LOD
 * scene's view (lod-stream.ts) with its splat budget.
 *
 * A streamed LOD scene is one object of the renderer among the placed ones
 * (objects.ts): each frame its selection sees the camera in its object's frame and
 * runs under what the other shown objects leave of the budget, and a new drawn set
 * swaps its object's scene only (SplatRenderer.setObjectScene: the others stay on
 * the GPU, assembled with it by GPU copies).
 *
 * Any scene shown is the renderer's object `handle`, which Viewer.sceneObject
 * (objects.ts) places, crops, hides; `clear` takes it off screen (its remove()).
 */
import { unionBounds, type Bounds, type SplatCloud } from '../../scenes/splat-cloud';
import { croppedBounds } from '../../scenes/crop';
import { IDENTITY_TRANSFORM, transformBounds, type SplatTransform } from '../../scenes/transform';
import type { FrameCamera } from '../stage/frame-uniforms';
import type { PackedScene } from '../gpu-scene/compact-pack';
import type { BodyView } from '../camera/framing';
import type { DrawName } from '../draw/draw-strategies';
import type { BudgetLimits } from '../frame/gpu-budget';
import { SplatRenderer, type ObjectHandle, type PreparedScene } from '../frame/splat-renderer';
import type { ScenePrecision } from '../gpu-scene/scene-precision';
import type { LodStats } from '../lod/lod-scene';
import { listStrategies } from '../order/strategies';
import { startingStrategy } from '../profile/auto-strategy';
import { DrawnOrderProbe } from '../profile/benchmark-path';
import { DEFAULT_LOD_BUDGET } from './lod-source';
import type { LodStreamView } from './lod-stream';
import type { SceneInput } from './sources';
import { yieldToPage } from './tasks';

/** A scene made ready to show without a long task: set up on the GPU, with its order probe and its first view. */
export interface ReadyScene {
  prepared: PreparedScene;
  probe: DrawnOrderProbe;
  view: BodyView;
}

/** The scene's resident GPU buffers (Viewer.sceneMemory). */
export interface SceneMemory {
  bytes: number;
  bytesPerSplat: number;
  precision: string;
  pages: { centers: number; covariances: number; sh: number };
}

export class SceneHolder {
  /** Draws the scene (a new one on a new device). */
  renderer: SplatRenderer;
  /** The drawn order's probe of the scene on screen (the benchmark's). */
  probe: DrawnOrderProbe | null = null;
  /** What load() was given for the scene on screen (opened again after a loss that kept no cloud). */
  source: SceneInput | null = null;
  /** The identity of the scene on screen (a URL, `file:NAME`, a generated spec), or null. */
  sceneId: string | null = null;
  /** Identities of the scenes shown so far, in order. */
  readonly scenesShown: string[] = [];
  /** performance.now() of the current scene's first submitted frame, or null before it. */
  firstFrameAt: number | null = null;
  /** performance.now() when the GPU finished the current scene's first frame, or null before. */
  firstFrameDoneAt: number | null = null;
  private firstFrameId: number | null = null;
  /** The streamed LOD scene on screen (lod-stream.ts), or null. */
  lodStream: LodStreamView | null = null;
  /**
   * The scene's object in the renderer (Viewer.sceneObject's: placed, cropped, hidden
   * there like an added one; a streamed LOD scene's drawn set swapped there as the view
   * changes), or null without one.
   */
  handle: ObjectHandle | null = null;
  /** The splat budget a streamed LOD scene opens with (ViewerOptions.lodBudget). */
  lodBudget = DEFAULT_LOD_BUDGET;
  /**
   * The scene load() showed, as kept on the CPU: its cloud and the packed arrays it was
   * uploaded from (the cloud then lacks its SH); what a lost device's recovery uploads
   * again. Not the renderer's drawn cloud: with placed objects (objects.ts) that is their
   * assembly.
   */
  private kept: { cloud: SplatCloud; packed: PackedScene | null } | null = null;

  constructor(device: GPUDevice, private readonly format: GPUTextureFormat, strategy: string, draw: DrawName, budgetLimits: BudgetLimits, precision?: ScenePrecision) {
    this.renderer = new SplatRenderer(device, format, strategy, draw, {}, budgetLimits);
    if (precision) this.renderer.precision = precision;
  }

  /** The scene on screen (kept on the CPU for recovery): load()'s, or a streamed LOD scene's drawn set; null without one. */
  get cloud(): SplatCloud | null {
    return this.lodStream ? (this.lodObject()?.cloud ?? null) : (this.kept?.cloud ?? null);
  }

  /** The streamed LOD scene's object in the renderer, or null. */
  private lodObject(): { cloud: SplatCloud; transform: SplatTransform } | null {
    return this.handle === null ? null : (this.renderer.objects.find((o) => o.handle === this.handle) ?? null);
  }

  /** What load() showed as kept on the CPU: its cloud and the packed arrays it was uploaded from (null for a streamed LOD scene, or none). */
  get keptScene(): { cloud: SplatCloud; packed: PackedScene | null } | null {
    return this.lodStream ? null : this.kept;
  }

  /**
   * A streamed LOD scene's frame (frame.ts, before the frame is encoded): its selection for
   * `camera` in its object's frame, within the budget less the other shown objects' splats;
   * when the drawn set changed, its object's scene swapped (the others untouched). Never waits;
   * nothing while its object is hidden (it streams again once shown).
   */
  lodFrame(camera: FrameCamera): void {
    const lod = this.lodStream;
    const handle = this.handle;
    if (!lod || handle === null) return;
    const r = this.renderer;
    let placed: SplatTransform | null = null;
    let others = 0;
    for (const o of r.objects) {
      if (o.handle !== handle) others += o.visible ? o.cloud.count : 0;
      else if (o.visible) placed = o.transform;
      else return;
    }
    if (!placed) return;
    const next = lod.frame(camera, placed, others);
    if (next) r.setObjectScene(handle, next);
  }

  /**
   * With a streamed LOD scene on screen, what a frame's depth range covers: its manifest's
   * bound as placed (not the drawn set's: the range would change with it) and the other
   * shown objects as placed; null for any other scene.
   */
  get lodBounds(): Bounds | null {
    if (!this.lodStream) return null;
    const handle = this.handle;
    const boxes: Bounds[] = [];
    let placed: SplatTransform = IDENTITY_TRANSFORM;
    for (const o of this.renderer.objects) {
      if (o.handle === handle) placed = o.transform;
      else if (o.visible) boxes.push(transformBounds(o.transform, croppedBounds(o.cloud.bounds, o.crop)));
    }
    return unionBounds([transformBounds(placed, this.lodStream.meta.bound), ...boxes]);
  }

  /**
   * Shows `cloud` opened from `source`: made ready already (`ready`), else set up
   * here at once; `lod`: the streamed LOD scene it is the first view of. `keepObjects`
   * (a streamed LOD scene opened again after a lost device): added as the first object,
   * the placed objects put back already stay; else it replaces every object.
   * @returns its object in the renderer (at the identity, shown)
   */
  show(device: GPUDevice, source: SceneInput, cloud: SplatCloud, id: string, ready: ReadyScene | null, lod: LodStreamView | null = null, keepObjects = false): ObjectHandle | null {
    this.source = source;
    this.lodStream?.destroy();
    this.lodStream = null;
    this.handle = null;
    let handle: ObjectHandle | null = null;
    if (ready) {
      try {
        handle = this.renderer.adoptScene(ready.prepared, keepObjects && lod !== null);
      } catch (e) {
        ready.probe.destroy(); // adoptScene freed the rest
        throw e;
      }
    } else {
      this.renderer.setScene(cloud);
      handle = this.renderer.objects[0]?.handle ?? null; // the one object now
    }
    this.handle = handle;
    // A streamed LOD scene's chunks are no cloud kept: after a loss its source opens again.
    this.kept = lod ? null : { cloud, packed: this.renderer.scenePacked };
    this.probe?.destroy();
    this.probe = ready?.probe ?? new DrawnOrderProbe(device, cloud.count);
    this.sceneId = id;
    this.scenesShown.push(id);
    this.firstFrameAt = null;
    this.firstFrameDoneAt = null;
    this.firstFrameId = null;
    this.lodStream = lod;
    return handle;
  }

  /**
   * The scene leaves the screen (Viewer.sceneObject's remove()): its object in the
   * renderer removed and freed (the added objects drawn on), nothing of it kept (a lost
   * device brings back none); Viewer.scene is null until load() shows another.
   */
  clear(): void {
    const handle = this.handle;
    if (handle !== null && this.renderer.objects.some((o) => o.handle === handle)) this.renderer.removeObject(handle);
    this.forget();
    this.source = null;
    this.sceneId = null;
  }

  /** Nothing of the scene kept: its handle, what a lost device would bring back, its LOD stream and drawn-order probe. */
  private forget(): void {
    this.handle = null;
    this.kept = null;
    this.lodStream?.destroy();
    this.lodStream = null;
    this.probe?.destroy();
    this.probe = null;
  }

  /** Frame `frameId` of the scene was submitted: its first, if none was before. */
  frameSubmitted(frameId: number): void {
    if (this.firstFrameAt !== null) return;
    this.firstFrameAt = performance.now();
    this.firstFrameId = frameId;
  }

  /** Frame `frameId`'s GPU work completed at `done`. */
  frameCompleted(frameId: number, done: number): void {
    if (frameId === this.firstFrameId) this.firstFrameDoneAt = done;
  }

  /** The scene's resident GPU buffers, or null without a scene (Viewer.sceneMemory). */
  get memory(): SceneMemory | null {
    const r = this.renderer;
    const c = r.cloud;
    const precision = r.scenePrecision;
    const paging = r.scenePaging;
    if (!c || precision === null || !paging) return null;
    const bytes = r.sceneBytes;
    return { bytes, bytesPerSplat: bytes / Math.max(1, c.count), precision, pages: { centers: paging.centers.pages, covariances: paging.covs.pages, sh: paging.sh.pages } };
  }

  /** A streamed LOD scene's figures, or null for any other scene. */
  get lod(): LodStats | null {
    return this.lodStream ? { ...this.lodStream.lod.stats } : null;
  }

  /** The splats a streamed LOD scene may draw (this one and those opened later). */
  setLodBudget(splats: number): void {
    if (!(splats >= 1)) throw new RangeError(`setLodBudget: expected a count >= 1, got ${splats}`);
    this.lodBudget = Math.round(splats);
    if (this.lodStream) this.lodStream.budget = this.lodBudget;
  }

  /**
   * The scene made again on a new `device` (the old one was lost): a renderer with the
   * same sort and draw (else the adapter's default; `retry` then asks for them again),
   * the scene uploaded from the cloud kept on the CPU. Null, with nothing kept, when
   * `stale()` says a newer recovery took over. `reopen`: no cloud was kept (none, or a
   * streamed LOD scene's chunks), so the source must open again.
   */
  async remake(device: GPUDevice, budgetLimits: BudgetLimits, stale: () => boolean, retry: (change: () => void) => void): Promise<{ uploadError: unknown; reopen: boolean } | null> {
    const old = this.renderer;
    // A streamed LOD scene's chunks were on the lost device: its source opens again, nothing is uploaded from the CPU.
    const cloud = this.lodStream ? null : (this.kept?.cloud ?? null);
    let renderer: SplatRenderer;
    try {
      renderer = new SplatRenderer(device, this.format, old.strategy, old.draw, {}, budgetLimits);
    } catch {
      // The old strategy or draw is not available on this device: the adapter's default.
      const first = startingStrategy(device.adapterInfo ?? {}, device.features, listStrategies(device));
      renderer = new SplatRenderer(device, this.format, first, 'quads', {}, budgetLimits);
    }
    renderer.precision = old.precision;
    let prepared: PreparedScene | null = null;
    let uploadError: unknown = null;
    if (cloud) {
      try {
        // From what was kept: the packed scene the loader's worker made (the cloud then lacks its SH), or the cloud.
        prepared = await renderer.prepareScene(cloud, yieldToPage, undefined, undefined, this.kept?.packed ?? null);
      } catch (err) {
        uploadError = err;
      }
    }
    if (stale()) {
      prepared?.destroy();
      renderer.destroy();
      return null;
    }
    // The switch: the new renderer takes the scene (its placement is the objects' to put back: objects.ts remake).
    this.handle = prepared ? renderer.adoptScene(prepared) : null;
    if (!prepared) this.kept = null; // not on the new device: no scene on screen
    this.renderer = renderer;
    if (old.strategy !== renderer.strategy) retry(() => renderer.setStrategy(old.strategy));
    if (old.draw !== renderer.draw) retry(() => renderer.setDraw(old.draw));
    old.destroy();
    this.probe?.destroy();
    this.lodStream?.destroy();
    this.lodStream = null;
    this.probe = prepared && cloud ? new DrawnOrderProbe(device, cloud.count) : null;
    return { uploadError, reopen: !cloud };
  }

  destroy(): void {
    this.forget();
    this.renderer.destroy();
  }
}
