import type { Bounds, SanitizeReport, ShDegree, SplatCloud } from '../../scenes/splat-cloud';
import { IDENTITY_TRANSFORM, type SplatTransform } from '../../scenes/transform';
import type { SplatCrop } from '../../scenes/crop';
import type { FrameTimestamps } from '../stage/frame-stages';
import { FrameUniforms, type FrameCamera, type FrameSettings } from '../stage/frame-uniforms';
import { assertSceneFits, bindingLimit, type BudgetLimits } from './gpu-budget';
import { GpuScene } from '../gpu-scene/gpu-scene';
import type { PackedScene } from '../gpu-scene/compact-pack';
import { DEFAULT_PRECISION, type ScenePrecision } from '../gpu-scene/scene-precision';
import type { ScenePaging } from '../gpu-scene/scene-wgsl';
import type { PagedBuffer } from '../gpu-scene/paging';
import { strategyByName, type SortStrategy, type SortTarget, type StrategyInfo } from '../order/strategies';
import { drawKindByName, refusalOf, type Draw, type DrawContext, type DrawKind, type DrawName, type DrawnOrder, type EncodeOptions } from '../draw/draw-strategies';
import type { TileRasterizerOptions } from '../draw/tiles/tile-rasterizer';
import type { PairStatus } from '../draw/tiles/pair-budget';
import type { ObjectHandle } from './world';
import { PlacedObjects, type ObjectInfo } from './placed-objects';
import { Prepared, SceneSetup, type PreparedScene } from './scene-setup';

export type { FrameCamera, FrameSettings } from '../stage/frame-uniforms';
export type { FrameTimestamps } from '../stage/frame-stages';
export type { DrawName, EncodeOptions, HostDepth, OutputDepth } from '../draw/draw-strategies';
export { CompositionRefused } from '../draw/draw-strategies';
export type { ObjectHandle } from './world';
export type { ObjectInfo } from './placed-objects';
export type { PreparedScene } from './scene-setup';
export type { SplatTransform } from '../../scenes/transform';
export type { SplatCrop } from '../../scenes/crop';
export { drawShape, F2B_MIN_LAYERS } from '../draw/quads/draw-order';

/**
 * One frame of the pipeline: the frame uniforms, then the draw strategy's frame
 * (draw/draw.ts; draw-strategies.ts lists them), which orders the splats with the
 * sort strategy (order/strategies.ts) or hands its own keys to the strategy's GPU
 * sorter. Owns the scene's GPU buffers, the (key, id) buffers and the draw
 * arguments, which a sort strategy fills, and the active draw's state for the scene:
 * only that draw's state is alive, switching frees it.
 *
 * Placed objects (issue 32: addObject, setObjectTransform, setObjectCrop, setObjectVisible,
 * removeObject; placed-objects.ts): the shown ones drawn in one frame and one sort, as
 * one scene, set up here (scene-setup.ts: its sort buffers and draw state) like any.
 * setScene, prepareScene + adoptScene and setGpuScene replace every object with one at the
 * identity: a plain scene is drawn exactly as before.
 */
export class SplatRenderer {
  private readonly uniforms: FrameUniforms;
  /** The drawn scene: the one drawn object's own (owned by `placed`), or an assembly of several (owned here: `ownsScene`). */
  private scene: GpuScene | null = null;
  /** Whether `scene` is an assembly this renderer made (else an object's scene, `placed`'s). */
  private ownsScene = false;
  /** The placed objects (their scenes on the GPU). */
  private readonly placed: PlacedObjects;
  /** Sets scenes up: their sort buffers and draw state (it owns the draw arguments). */
  private readonly setup: SceneSetup;
  private keys: PagedBuffer | null = null;
  private values: PagedBuffer | null = null;
  private target: SortTarget | null = null;
  private sortStrategy: SortStrategy;
  /** The draw strategy. */
  private drawKind: DrawKind<DrawName>;
  /** A draw other than the one in use, kept between auto's probe frames (encodeProbeFrame) for the scene it was made for. */
  private side: { kind: DrawKind<DrawName>; scene: GpuScene; draw: Draw } | null = null;
  /** Its state for the scene on screen; null without a scene. */
  private active: Draw | null = null;
  /** What every draw this renderer makes is lent. */
  private readonly drawContext: DrawContext;
  /** Whether the last frame's target could be a storage texture (the tiles blend writes it directly then). */
  private lastTargetStorage = false;
  /** The limits the scene budget is checked against (gpu-budget.ts). */
  private readonly budgetLimits: BudgetLimits;

  constructor(
    readonly device: GPUDevice,
    readonly format: GPUTextureFormat,
    strategy: string,
    draw: string = 'quads',
    tileOptions: TileRasterizerOptions = {},
    /** The limits the scene budget is checked against: the device's, or lower ones (tests, a smaller adapter's). */
    budgetLimits: BudgetLimits = device.limits,
  ) {
    // The stage's buffer count is the device's own (paging needs it); a caller's limits lower only the binding size.
    this.budgetLimits = {
      maxStorageBufferBindingSize: budgetLimits.maxStorageBufferBindingSize,
      maxBufferSize: budgetLimits.maxBufferSize,
      maxStorageBuffersPerShaderStage: Math.min(budgetLimits.maxStorageBuffersPerShaderStage ?? Infinity, device.limits.maxStorageBuffersPerShaderStage),
      ...(budgetLimits.sortPageBytes ? { sortPageBytes: budgetLimits.sortPageBytes } : {}),
    };
    this.uniforms = new FrameUniforms(device);
    this.sortStrategy = strategyByName(strategy);
    this.drawKind = this.checkedDraw(draw, this.sortStrategy);
    const sortPageBytes = this.budgetLimits.sortPageBytes;
    this.setup = new SceneSetup(device, this.uniforms.buffer, this.bindingBytes, sortPageBytes, (scene, target) => this.drawFor(scene, target));
    this.drawContext = { device, format, frame: this.uniforms.buffer, bindingBytes: this.bindingBytes, tileOptions, ...(sortPageBytes ? { sortPageBytes } : {}) };
    this.placed = new PlacedObjects({
      device,
      bindingBytes: this.bindingBytes,
      assertFits: (name, count, shDegree, precision) => assertSceneFits(name, count, shDegree, this.draw, this.budgetLimits, precision),
      drawScene: (scene, owns) => this.drawObjects(scene, owns),
    });
  }

  /**
   * How the next scene (setScene, prepareScene) is kept on the GPU: 'compact' (the
   * default, 72 B a splat at SH3) or 'full' (scene-precision.ts). The scene on screen
   * keeps its own (`scenePrecision`).
   */
  precision: ScenePrecision = DEFAULT_PRECISION;

  get cloud(): SplatCloud | null {
    return this.scene?.cloud ?? null;
  }

  /** The precision of the scene on the GPU; null without a scene. */
  get scenePrecision(): ScenePrecision | null {
    return this.scene?.precision ?? null;
  }

  /** GPU memory of the scene's buffers (centres, covariances, SH), in bytes: every object's and an assembly's of several; 0 without a scene. */
  get sceneBytes(): number {
    return (this.ownsScene ? (this.scene?.bytes ?? 0) : 0) + this.placed.bytes;
  }

  /** What the compact packing replaced or clamped (non-finite or out-of-range values); null without a scene. */
  get packReport(): SanitizeReport | null {
    return this.scene?.packReport ?? null;
  }

  /** The packed scene the scene on screen was made from (prepareScene's `packed`), or null. */
  get scenePacked(): PackedScene | null {
    return this.scene?.packed ?? null;
  }

  /** How the scene's arrays are paged over bindings (GpuScene.paging: one page each unless a binding cannot hold one); null without a scene. */
  get scenePaging(): ScenePaging | null {
    return this.scene?.paging ?? null;
  }

  /** The name of the sort strategy. */
  get strategy(): string {
    return this.sortStrategy.info.name;
  }

  /** The sort strategy's description. */
  get strategyInfo(): StrategyInfo {
    return this.sortStrategy.info;
  }

  /** The draw strategy. */
  get draw(): DrawName {
    return this.drawKind.info.name;
  }

  /** The tiles draw's pair buffers (capacity, last count, overflow / cap warnings); null for quads or no scene. */
  get tileStatus(): PairStatus | null {
    return this.active?.tileStatus ?? null;
  }

  /** The last sort's wall time in ms when the strategy sorts on the host (null for a GPU sort, the tiles draw, or no scene). */
  get hostSortMs(): number | null {
    return this.active?.hostSortMs ?? null;
  }

  /**
   * Whether a scene of `count` splats of SH `degree` would fit this renderer's
   * draw and the binding limits: the check prepareScene makes, for a caller
   * that knows the count early (a file's header) and need not load the rest.
   * @throws GpuBudgetError when it would not
   */
  assertFits(scene: string, count: number, degree: ShDegree): void {
    assertSceneFits(scene, count, degree, this.draw, this.budgetLimits, this.precision);
  }

  /**
   * Replaces the scene; the previous scene's GPU memory is freed.
   * @throws GpuBudgetError, changing nothing (the previous scene stays), when a
   *   buffer of the scene would exceed a binding limit (gpu-budget.ts)
   */
  setScene(cloud: SplatCloud): void {
    assertSceneFits(cloud.source.name, cloud.count, cloud.shDegree, this.draw, this.budgetLimits, this.precision);
    const scene = new GpuScene(this.device, cloud, bindingLimit(this.budgetLimits).bytes, { precision: this.precision });
    this.adoptScene(this.setup.setUp(scene));
  }

  /** The most bytes one binding holds under this renderer's limits (what GpuScene and the draws page their arrays under). */
  get bindingBytes(): number {
    return bindingLimit(this.budgetLimits).bytes;
  }

  /**
   * Switches to a scene already on the GPU (a streamed LOD scene's drawn set: chunk-pool.ts),
   * owned here from now on, replacing every object (setObjectScene swaps one object's).
   * @throws GpuBudgetError, changing nothing (the scene is not taken), past a binding limit
   */
  setGpuScene(scene: GpuScene): void {
    this.adoptScene(this.prepareGpuScene(scene));
  }

  /**
   * A scene already on the GPU set up for {@link adoptScene} (its sort buffers and
   * the active draw's state), owned by the result from now on.
   * @throws GpuBudgetError, taking nothing, as setGpuScene
   */
  prepareGpuScene(scene: GpuScene): PreparedScene {
    assertSceneFits(scene.cloud.source.name, scene.count, scene.cloud.shDegree, this.draw, this.budgetLimits, scene.precision);
    return this.setup.setUp(scene);
  }

  /**
   * The scene set up on the GPU for {@link adoptScene} while the scene on screen keeps
   * drawing (unchanged): uploaded a slice at a time (GpuScene.create), then its sort buffers
   * and draw state, `pause()` awaited between steps; `progress` hears the splats uploaded.
   * Aborting `signal` stops it at the next slice or step (all made for it destroyed; the
   * promise rejects with `signal.reason`).
   * `packed`: the scene packed compact already (the loader's worker), uploaded as is
   * and kept for a lost device's recovery; `cloud` may then lack its SH.
   * @throws GpuBudgetError as setScene, before any upload; GpuMemoryError when the
   *   device runs out of memory making the scene's or the draw's buffers (all of them freed)
   */
  async prepareScene(cloud: SplatCloud, pause: () => Promise<void>, progress?: (uploaded: number) => void, signal?: AbortSignal, packed?: PackedScene | null): Promise<PreparedScene> {
    const precision = packed ? 'compact' : this.precision;
    const budget = assertSceneFits(cloud.source.name, cloud.count, cloud.shDegree, this.draw, this.budgetLimits, precision);
    return this.setup.upload(cloud, { precision, packed, pause, progress, signal, budgetBytes: budget.totalBytes });
  }

  /**
   * Switches to a scene from {@link prepareScene} (owned here from now on); the
   * previous scene's GPU memory is freed. Only references change hands, unless the
   * draw or the sort strategy changed since it was prepared: then that state is built
   * again here.
   * `keepObjects` (a lost device's recovery opening a streamed LOD scene again beside the
   * objects put back already): the scene is added as the first object instead, the others stay.
   * @returns the scene's object handle
   * @throws GpuBudgetError, changing nothing and freeing `prepared`, when the draw
   *   changed since and the scene does not fit it
   */
  adoptScene(prepared: PreparedScene, keepObjects = false): ObjectHandle {
    if (!(prepared instanceof Prepared)) throw new TypeError('adoptScene takes a scene from this renderer\'s prepareScene');
    const { scene, state } = prepared;
    if (keepObjects && this.placed.objects.length > 0) {
      // Drawn with the others: an assembly, set up anew (its own sort and draw state go).
      for (const d of [state, prepared.keys, prepared.values]) d.destroy();
      return this.placed.addGpu(scene, IDENTITY_TRANSFORM, true, true);
    }
    if (state.kind !== this.drawKind || state.sort !== this.sortStrategy) {
      state.destroy();
      try {
        assertSceneFits(scene.cloud.source.name, scene.count, scene.cloud.shDegree, this.draw, this.budgetLimits, scene.precision);
      } catch (e) {
        prepared.scene.destroy();
        prepared.keys.destroy();
        prepared.values.destroy();
        throw e;
      }
      prepared.state = this.drawFor(scene, prepared.target);
    }
    this.releaseScene();
    // Every object goes: the scene is the one object now, at the identity.
    const handle = this.placed.replaceWith(scene);
    this.show(scene, false, prepared);
    return handle;
  }

  /** Makes `scene` the drawn one (its sort buffers and draw state made already: `sorted`). */
  private show(scene: GpuScene, owns: boolean, sorted: { keys: PagedBuffer; values: PagedBuffer; target: SortTarget; state: Draw }): void {
    this.scene = scene;
    this.ownsScene = owns;
    this.keys = sorted.keys;
    this.values = sorted.values;
    this.target = sorted.target;
    this.active = sorted.state;
    // Nothing is sorted for the new scene yet: a frame that skips the sort draws nothing.
    this.target.writeCount(0);
  }

  /** The placed objects, in the order added (setScene's scene is the one object after it). */
  get objects(): ObjectInfo[] {
    return this.placed.objects;
  }

  /** The bounds of the shown objects as placed now (the drawn scene's cloud keeps those of when it was assembled); null when none is shown. */
  get worldBounds(): Bounds | null {
    return this.placed.bounds;
  }

  /**
   * Adds a placed object: `cloud` uploaded once (at the precision of the objects there
   * are, else `precision`; `packed`: compact arrays packed already, as prepareScene
   * takes them), placed by `transform` (x' = R (s x) + t; default the identity), drawn
   * with the others in one frame and one sort. Nothing of the other objects is uploaded
   * again: the drawn scene is assembled anew from their buffers on the GPU.
   * @throws GpuBudgetError, adding nothing, when the objects drawn together would exceed a
   *   binding limit; RangeError past MAX_OBJECTS shown objects, or for a packed scene
   *   among full ones
   */
  addObject(cloud: SplatCloud, transform: SplatTransform = IDENTITY_TRANSFORM, packed?: PackedScene | null): ObjectHandle {
    return this.placed.add(cloud, transform, packed, this.precision);
  }

  /** Adds a placed object whose splats are on the GPU already (GpuScene.create), owned here from now on (destroyed if refused). @throws as addObject */
  addGpuObject(scene: GpuScene, transform: SplatTransform = IDENTITY_TRANSFORM, visible = true): ObjectHandle {
    return this.placed.addGpu(scene, transform, visible);
  }

  /** Places an object anew: its entry in the object table, written with the next frame (no scene buffer written, no splat touched on the CPU). */
  setObjectTransform(handle: ObjectHandle, transform: SplatTransform): void {
    this.placed.setTransform(handle, transform);
  }

  /**
   * Crops an object to a box in its own frame (scenes/crop.ts; null: no crop): splats whose
   * centre is outside are not drawn (culled in the project passes of both draws). Its
   * entry in the object table only, written with the next frame.
   */
  setObjectCrop(handle: ObjectHandle, crop: SplatCrop | null): void {
    this.placed.setCrop(handle, crop);
  }

  /**
   * Shows or hides an object: the drawn scene assembled again without or with it (GPU
   * copies of the shown objects' buffers).
   * @throws GpuBudgetError or RangeError, changing nothing, when showing it would not fit (as addObject)
   */
  setObjectVisible(handle: ObjectHandle, visible: boolean): void {
    this.placed.setVisible(handle, visible);
  }

  /**
   * Swaps an object's splats for `scene` (on the GPU already, owned here from now on; the
   * old scene freed): a streamed LOD object's new drawn set (renderer/lod/lod-scene.ts),
   * assembled again with the other shown objects by GPU copies, nothing of theirs uploaded.
   * @throws GpuBudgetError or RangeError, changing nothing (`scene` destroyed), as addObject
   */
  setObjectScene(handle: ObjectHandle, scene: GpuScene): void {
    this.placed.setScene(handle, scene);
  }

  /** Removes an object and frees its GPU memory; the others are drawn on (assembled again on the GPU). */
  removeObject(handle: ObjectHandle): void {
    this.placed.remove(handle);
  }

  /**
   * Draws the placed objects' drawn scene from now on (ObjectsRenderer.drawScene), with
   * new sort buffers and draw state; the previous drawn state is freed once the new one
   * is made (a failure changes nothing, and destroys `scene` if `owns`). null: nothing drawn.
   */
  private drawObjects(scene: GpuScene | null, owns: boolean): void {
    if (!scene) {
      this.releaseScene();
      return;
    }
    let prepared: Prepared;
    try {
      prepared = this.setup.setUp(scene);
    } catch (e) {
      if (owns) scene.destroy();
      throw e;
    }
    this.releaseScene();
    this.show(scene, owns, prepared);
  }

  /** The order the last frame was drawn in ('auto' resolved), and the depth complexity 'auto' saw. */
  get drawOrder(): DrawnOrder {
    return this.active?.drawOrder ?? { order: 'back-to-front', layers: null };
  }

  /** Switches the sort strategy live; the old strategy's memory is freed, the scene stays. */
  setStrategy(name: string): void {
    if (name === this.strategy) return;
    const next = strategyByName(name); // throws for an unknown name, changing nothing
    this.checkedDraw(this.draw, next); // throws for a sort strategy the draw cannot use
    this.sortStrategy = next;
    this.active?.setStrategy(next);
    this.releaseProbeDraw();
  }

  /**
   * Switches the draw strategy live (`quads` | `tiles`); the old draw's memory is
   * freed, the scene and the sort strategy stay. Throws, changing nothing, for an
   * unknown name, for a draw the sort strategy cannot serve (draw-strategies.ts
   * drawRefusal), or (GpuBudgetError) when the scene's buffers under the new draw
   * exceed a binding limit.
   */
  setDraw(name: string): void {
    const kind = this.checkedDraw(name, this.sortStrategy);
    if (kind === this.drawKind) return;
    const cloud = this.cloud;
    if (cloud) assertSceneFits(cloud.source.name, cloud.count, cloud.shDegree, kind.info.name, this.budgetLimits, this.scene?.precision ?? this.precision);
    this.drawKind = kind;
    this.active?.destroy();
    // The draw auto's probes kept (its buffers grown for this scene already), else a new one.
    const side = this.side;
    if (side && side.kind === kind && side.scene === this.scene) {
      this.active = side.draw;
      this.side = null;
    } else this.active = this.scene && this.target ? this.drawFor(this.scene, this.target) : null;
  }

  /**
   * Compiles on the side what switching to draw `name` would compile on the spot (the tiles
   * draw's compute pipelines for this scene, sort and target): the switch holds up no frame.
   * At once for the draw in use, without a scene, or with nothing slow to compile.
   */
  async compileDrawAhead(name: DrawName): Promise<void> {
    const kind = drawKindByName(name);
    if (kind === this.drawKind || !this.scene) return;
    await kind.compileAhead(this.drawContext, this.scene, this.sortStrategy, this.lastTargetStorage);
  }

  /** The draw called `name`, if it can use sort strategy `sort`; throws (drawRefusal's line) if not. */
  private checkedDraw(name: string, sort: SortStrategy): DrawKind<DrawName> {
    const kind = drawKindByName(name);
    const refusal = refusalOf(kind, sort);
    if (refusal) throw new Error(refusal);
    return kind;
  }

  /** The active draw's state (this renderer's draw and sort strategy) for a scene. */
  private drawFor(scene: GpuScene, target: SortTarget): Draw {
    return this.drawKind.create(this.drawContext, scene, target, this.sortStrategy);
  }

  /** Records one frame into `encoder`, drawing into `target` (of this renderer's format). */
  encodeFrame(
    encoder: GPUCommandEncoder,
    target: GPUTextureView,
    camera: FrameCamera,
    settings: FrameSettings & EncodeOptions,
    timestamps?: FrameTimestamps,
    coverage?: GPUBuffer,
  ): void {
    const scene = this.scene;
    const draw = this.active;
    if (!scene || !draw) {
      const bg = settings.background;
      const pass = encoder.beginRenderPass({
        label: 'SplatRenderer.clear',
        colorAttachments: [{ view: target, clearValue: { r: bg[0], g: bg[1], b: bg[2], a: 1 }, loadOp: 'clear', storeOp: 'store' }],
      });
      pass.end();
      return;
    }
    this.uniforms.write(camera, settings, scene);
    this.lastTargetStorage = settings.targetStorage ?? false;
    draw.encode(encoder, { target, camera, settings, ...(timestamps ? { timestamps } : {}), ...(coverage ? { coverage } : {}) });
  }

  /**
   * Makes draw `name` ready for auto's probes of it (encodeProbeFrame): another draw than
   * the one in use, its state kept between probes as the draw in use keeps its own (its
   * buffers grow from what its frames counted); setDraw to it makes it the draw in use;
   * releaseProbeDraw frees it. Nothing for the draw in use.
   * @throws as setDraw, changing nothing, for a draw the sort cannot serve or the scene does not fit
   */
  prepareProbeDraw(name: DrawName): void {
    const kind = this.checkedDraw(name, this.sortStrategy);
    const scene = this.scene;
    if (kind === this.drawKind || !scene || !this.target) return;
    if (this.side && this.side.kind === kind && this.side.scene === scene) return;
    const cloud = scene.cloud;
    assertSceneFits(cloud.source.name, cloud.count, cloud.shDegree, kind.info.name, this.budgetLimits, scene.precision);
    this.releaseProbeDraw();
    this.side = { kind, scene, draw: kind.create(this.drawContext, scene, this.target, this.sortStrategy) };
  }

  /** Records one frame of the draw prepareProbeDraw made ready (the draw in use without one) into `encoder`: auto's probe, a window of the view offscreen. */
  encodeProbeFrame(encoder: GPUCommandEncoder, target: GPUTextureView, camera: FrameCamera, settings: FrameSettings & EncodeOptions, timestamps?: FrameTimestamps): void {
    const side = this.side;
    if (!side || side.scene !== this.scene) {
      this.encodeFrame(encoder, target, camera, settings, timestamps);
      return;
    }
    this.uniforms.write(camera, settings, side.scene);
    side.draw.encode(encoder, { target, camera, settings, ...(timestamps ? { timestamps } : {}) });
  }

  /** Call after submitting a frame encoded by encodeProbeFrame (the probed draw's read-back of what it counted). */
  probeSubmitted(): void {
    this.side?.draw.submitted();
  }

  /** Frees the draw auto probed (encodeProbeFrame), if it is not the one in use now. */
  releaseProbeDraw(): void {
    this.side?.draw.destroy();
    this.side = null;
  }

  /**
   * One frame with the floor's geometry, its fragments counted (slow: bench:frame's measurement):
   * `covered` pixels the geometry covers, `contributing` those the splat's alpha passes. Quads only.
   */
  async measureCoverage(
    target: GPUTextureView,
    camera: FrameCamera,
    settings: FrameSettings & EncodeOptions,
  ): Promise<{ covered: number; contributing: number }> {
    if (!this.scene || !this.active) return { covered: 0, contributing: 0 };
    return this.active.measureCoverage((encoder, coverage) => this.encodeFrame(encoder, target, camera, settings, undefined, coverage));
  }

  /**
   * Call after submitting a frame encoded by encodeFrame: starts the non-blocking
   * read-back of what the frame counted (the tiles draw's pairs; a few frames late).
   */
  submitted(): void {
    this.active?.submitted();
  }

  /**
   * Resolves once a host sort in flight (the CPU strategy's) has finished and the tiles draw's
   * pair counts of the submitted frames are in. True when the last frame is not the chosen
   * draw's own picture yet (a host sort's order came after it, or the tiles' pairs did not fit
   * and the buffers have grown since): draw it again for that picture (one-shot renders).
   */
  async settle(): Promise<boolean> {
    return (await this.active?.settle()) ?? false;
  }

  /** GPU buffers for tests, profiling and the GPU pick (pixel-pick.ts): sorted (key, id) pairs (their pages), the draw arguments, the drawn scene. */
  get debugBuffers(): { keys: readonly GPUBuffer[]; values: readonly GPUBuffer[]; drawArgs: GPUBuffer; scene: GpuScene } | null {
    return this.keys && this.values && this.scene ? { keys: this.keys.buffers, values: this.values.buffers, drawArgs: this.setup.drawArgs, scene: this.scene } : null;
  }

  /** Frees the drawn state: the draw's, the sort buffers, and the drawn scene if it is an assembly (the objects' stay). */
  private releaseScene(): void {
    this.releaseProbeDraw();
    this.active?.destroy();
    this.active = null;
    if (this.ownsScene) this.scene?.destroy();
    this.ownsScene = false;
    this.keys?.destroy();
    this.values?.destroy();
    this.scene = null;
    this.keys = this.values = null;
    this.target = null;
  }

  destroy(): void {
    this.releaseScene();
    this.placed.destroy();
    this.uniforms.destroy();
    this.setup.destroy();
  }
}
