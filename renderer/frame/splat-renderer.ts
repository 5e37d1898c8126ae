import { sortBufferUsage } from '../../sort/types';
import type { Bounds, SanitizeReport, ShDegree, SplatCloud } from '../../scenes/splat-cloud';
import { IDENTITY_TRANSFORM, type SplatTransform } from '../../scenes/transform';
import { DrawArgs } from '../stage/draw-args';
import type { FrameTimestamps } from '../stage/frame-stages';
import { FrameUniforms, type FrameCamera, type FrameSettings } from '../stage/frame-uniforms';
import { allocateOrThrow, assertSceneFits, bindingLimit, type BudgetLimits } from './gpu-budget';
import { GpuScene } from '../gpu-scene/gpu-scene';
import type { PackedScene } from '../gpu-scene/compact-pack';
import { DEFAULT_PRECISION, type ScenePrecision } from '../gpu-scene/scene-precision';
import type { ScenePaging } from '../gpu-scene/scene-wgsl';
import { ProjectPass } from '../project/project-pass';
import { PagedBuffer, sortPagingFor } from '../gpu-scene/paging';
import { strategyByName, type SortStrategy, type SortTarget, type StrategyInfo } from '../order/strategies';
import { drawKindByName, refusalOf, type Draw, type DrawContext, type DrawKind, type DrawName, type DrawnOrder, type EncodeOptions } from '../draw/draw-strategies';
import type { TileRasterizerOptions } from '../draw/tiles/tile-rasterizer';
import type { PairStatus } from '../draw/tiles/pair-budget';
import { assembleScenes, assemblySize } from '../gpu-scene/assemble';
import { MAX_OBJECTS } from '../gpu-scene/objects';
import { World, type ObjectHandle } from './world';

export type { FrameCamera, FrameSettings } from '../stage/frame-uniforms';
export type { FrameTimestamps } from '../stage/frame-stages';
export type { DrawName, EncodeOptions } from '../draw/draw-strategies';
export type { ObjectHandle } from './world';
export type { SplatTransform } from '../../scenes/transform';
export { drawShape, F2B_MIN_LAYERS } from '../draw/quads/draw-order';

/**
 * A scene set up on the GPU and not drawn yet (SplatRenderer.prepareScene): its
 * buffers, its sort buffers and the active draw's state, built while the scene on
 * screen keeps drawing. SplatRenderer.adoptScene switches to it (owning it from
 * then on); `destroy` frees it when it is not wanted after all.
 */
export interface PreparedScene {
  readonly cloud: SplatCloud;
  destroy(): void;
}

class Prepared implements PreparedScene {
  constructor(
    readonly scene: GpuScene,
    readonly keys: PagedBuffer,
    readonly values: PagedBuffer,
    readonly target: SortTarget,
    /** The active draw's state for it (made with the draw and sort strategy of its day). */
    public state: Draw,
  ) {}

  get cloud(): SplatCloud {
    return this.scene.cloud;
  }

  destroy(): void {
    this.state.destroy();
    this.scene.destroy();
    this.keys.destroy();
    this.values.destroy();
  }
}

/** What SplatRenderer.objects tells of a placed object. */
export interface ObjectInfo {
  readonly handle: ObjectHandle;
  /** Its splats, in its own frame. */
  readonly cloud: SplatCloud;
  readonly transform: SplatTransform;
  readonly visible: boolean;
}

/**
 * One frame of the pipeline: the frame uniforms, then the draw strategy's frame
 * (draw/draw.ts; draw-strategies.ts lists them), which orders the splats with the
 * sort strategy (order/strategies.ts) or hands its own keys to the strategy's GPU
 * sorter. Owns the scene's GPU buffers, the (key, id) buffers and the draw
 * arguments, which a sort strategy fills, and the active draw's state for the scene:
 * only that draw's state is alive, switching frees it.
 *
 * Placed objects (issue 32: addObject, setObjectTransform, setObjectVisible,
 * removeObject): each object's splats on the GPU once, in its own frame (world.ts owns
 * them); the shown ones drawn in one frame and one sort, as one scene: the one shown
 * object's own, or several assembled by GPU copies (renderer/gpu-scene/assemble.ts),
 * each splat read through its object's entry in the scene's object table
 * (renderer/gpu-scene/objects.ts: transform, SH degree, compact ranges). Moving an
 * object rewrites its table entry (a uniform, with the next frame); adding, showing,
 * hiding or removing one assembles the drawn scene again from the objects' own buffers
 * (GPU copies; nothing uploaded from the CPU) and makes its sort buffers and draw state.
 * setScene, prepareScene + adoptScene and setGpuScene replace every object with one at the
 * identity: a plain scene is drawn exactly as before.
 */
export class SplatRenderer {
  private readonly uniforms: FrameUniforms;
  /** The drawn scene: the one drawn object's own (owned by `world`), or an assembly of several (owned here: `ownsScene`). */
  private scene: GpuScene | null = null;
  /** Whether `scene` is an assembly this renderer made (else an object's scene, the world's). */
  private ownsScene = false;
  /** The placed objects (their scenes on the GPU). */
  private readonly world = new World();
  /** Each drawn object's run in the drawn scene's object table. */
  private drawnRuns = new Map<ObjectHandle, number>();
  private keys: PagedBuffer | null = null;
  private values: PagedBuffer | null = null;
  /** drawIndirect arguments (struct DrawArgs of shaders/stage/splat_common.wgsl). */
  private readonly drawArgs: GPUBuffer;
  private target: SortTarget | null = null;
  private sortStrategy: SortStrategy;
  /** The draw strategy. */
  private drawKind: DrawKind<DrawName>;
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
    this.drawArgs = device.createBuffer({
      label: 'SplatRenderer.drawArgs',
      size: DrawArgs.size,
      usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
    });
    const sortPageBytes = this.budgetLimits.sortPageBytes;
    this.drawContext = { device, format, frame: this.uniforms.buffer, bindingBytes: this.bindingBytes, tileOptions, ...(sortPageBytes ? { sortPageBytes } : {}) };
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
    let bytes = this.ownsScene ? (this.scene?.bytes ?? 0) : 0;
    for (const o of this.world.objects) bytes += o.scene.bytes;
    return bytes;
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
    const { keys, values, target } = this.sortTargetFor(scene);
    this.adoptScene(new Prepared(scene, keys, values, target, this.drawFor(scene, target)));
  }

  /** The most bytes one binding holds under this renderer's limits (what GpuScene and the draws page their arrays under). */
  get bindingBytes(): number {
    return bindingLimit(this.budgetLimits).bytes;
  }

  /**
   * Switches to a scene already on the GPU (a streamed LOD scene's drawn set,
   * assembled by GPU copies: renderer/lod/chunk-pool.ts), owned here from now
   * on; the previous scene's GPU memory is freed. Its sort buffers and the
   * active draw's state are made for it, as for any scene.
   * @throws GpuBudgetError, changing nothing (the scene is not taken), when a
   *   buffer of the scene would exceed a binding limit
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
    const { keys, values, target } = this.sortTargetFor(scene);
    return new Prepared(scene, keys, values, target, this.drawFor(scene, target));
  }

  /**
   * The scene set up on the GPU for {@link adoptScene}, for a page that must keep
   * drawing the scene on screen meanwhile: its buffers uploaded a slice at a time
   * (GpuScene.create), then its sort buffers and the active draw's state, with
   * `pause()` awaited between these steps. Nothing of the scene on screen changes.
   * `progress` hears the splats uploaded so far whenever the upload hands the thread back.
   * Aborting `signal` (a cancelled load) stops it at the next slice or step: everything
   * made for it is destroyed, the scene on screen stays, and the promise rejects with
   * `signal.reason`.
   * `packed`: the scene packed compact already (the loader's worker), uploaded as is
   * and kept for a lost device's recovery; `cloud` may then lack its SH.
   * @throws GpuBudgetError as setScene, before any upload; GpuMemoryError when the
   *   device runs out of memory making the scene's or the draw's buffers (all of them freed)
   */
  async prepareScene(cloud: SplatCloud, pause: () => Promise<void>, progress?: (uploaded: number) => void, signal?: AbortSignal, packed?: PackedScene | null): Promise<PreparedScene> {
    const budget = assertSceneFits(cloud.source.name, cloud.count, cloud.shDegree, this.draw, this.budgetLimits, packed ? 'compact' : this.precision);
    const scene = await GpuScene.create(this.device, cloud, bindingLimit(this.budgetLimits).bytes, pause, {
      precision: packed ? 'compact' : this.precision,
      ...(packed ? { packed } : {}),
      ...(progress ? { progress } : {}),
      ...(signal ? { signal } : {}),
    });
    let sort: ReturnType<SplatRenderer['sortTargetFor']> | null = null;
    try {
      await pause();
      signal?.throwIfAborted();
      sort = this.sortTargetFor(scene);
      await pause();
      signal?.throwIfAborted();
      const target = sort.target;
      // The draw's buffers (records, pairs, the sorter's): the device may run out of memory here too.
      const state = await allocateOrThrow(this.device, () => this.drawFor(scene, target), (draw) => draw.destroy(), {
        scene: cloud.source.name,
        count: cloud.count,
        what: 'the sort and draw buffers',
        bytes: budget.totalBytes - scene.bytes,
      });
      return new Prepared(scene, sort.keys, sort.values, target, state);
    } catch (e) {
      scene.destroy();
      sort?.keys.destroy();
      sort?.values.destroy();
      throw e;
    }
  }

  /**
   * Switches to a scene from {@link prepareScene} (owned here from now on); the
   * previous scene's GPU memory is freed. Only references change hands, unless the
   * draw or the sort strategy changed since it was prepared: then that state is built
   * again here.
   * @throws GpuBudgetError, changing nothing and freeing `prepared`, when the draw
   *   changed since and the scene does not fit it
   */
  adoptScene(prepared: PreparedScene): void {
    if (!(prepared instanceof Prepared)) throw new TypeError('adoptScene takes a scene from this renderer\'s prepareScene');
    const { scene, state } = prepared;
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
    for (const o of this.world.clear()) o.scene.destroy();
    const object = this.world.add(scene, IDENTITY_TRANSFORM);
    this.show(scene, false, [object.handle], prepared);
  }

  /** Makes `scene` the drawn one (its sort buffers and draw state made already: `sorted`). */
  private show(scene: GpuScene, owns: boolean, handles: readonly ObjectHandle[], sorted: { keys: PagedBuffer; values: PagedBuffer; target: SortTarget; state: Draw }): void {
    this.scene = scene;
    this.ownsScene = owns;
    this.drawnRuns = new Map(handles.map((h, k) => [h, k]));
    this.keys = sorted.keys;
    this.values = sorted.values;
    this.target = sorted.target;
    this.active = sorted.state;
    // Nothing is sorted for the new scene yet: a frame that skips the sort draws nothing.
    this.target.writeCount(0);
  }

  /** The placed objects, in the order added (setScene's scene is the one object after it). */
  get objects(): ObjectInfo[] {
    return this.world.objects.map((o) => ({ handle: o.handle, cloud: o.scene.cloud, transform: o.transform, visible: o.visible }));
  }

  /** The bounds of the shown objects as placed now (the drawn scene's cloud keeps those of when it was assembled); null when none is shown. */
  get worldBounds(): Bounds | null {
    return this.world.bounds();
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
    const precision = this.world.precision ?? (packed ? 'compact' : this.precision);
    if (packed && precision !== 'compact') throw new RangeError(`addObject: a packed (compact) scene among objects kept ${precision}`);
    this.assertObjectsFit(cloud.source.name, [{ count: cloud.count, shDegree: cloud.shDegree }], precision);
    const scene = new GpuScene(this.device, cloud, this.bindingBytes, { precision, ...(packed ? { packed } : {}) });
    return this.addGpuObject(scene, transform);
  }

  /**
   * Adds a placed object whose splats are on the GPU already (GpuScene.create: an
   * upload paced over frames), owned here from now on (destroyed if refused).
   * @throws as addObject
   */
  addGpuObject(scene: GpuScene, transform: SplatTransform = IDENTITY_TRANSFORM, visible = true): ObjectHandle {
    const precision = this.world.precision;
    try {
      if (precision !== null && scene.precision !== precision) throw new RangeError(`addObject: a scene kept ${scene.precision} among objects kept ${precision}`);
      if (visible) this.assertObjectsFit(scene.cloud.source.name, [scene], scene.precision);
    } catch (e) {
      scene.destroy();
      throw e;
    }
    const object = this.world.add(scene, transform, visible);
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
   * Places an object anew: its entry in the object table, written with the next frame
   * (no scene buffer is written, no splat touched on the CPU).
   */
  setObjectTransform(handle: ObjectHandle, transform: SplatTransform): void {
    const o = this.world.get(handle);
    o.transform = transform;
    const run = this.drawnRuns.get(handle);
    if (run !== undefined) this.scene!.objects.setTransform(run, transform);
  }

  /**
   * Shows or hides an object: the drawn scene assembled again without or with it (GPU
   * copies of the shown objects' buffers).
   * @throws GpuBudgetError or RangeError, changing nothing, when showing it would not fit (as addObject)
   */
  setObjectVisible(handle: ObjectHandle, visible: boolean): void {
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

  /** Removes an object and frees its GPU memory; the others are drawn on (assembled again on the GPU). */
  removeObject(handle: ObjectHandle): void {
    const { object, restore } = this.world.take(handle);
    try {
      this.redraw();
    } catch (e) {
      restore();
      throw e;
    }
    object.scene.destroy();
  }

  /**
   * Whether the shown objects and `more` would fit one drawn scene: at most MAX_OBJECTS,
   * and the binding limits (gpu-budget.ts) for their splats at their largest SH degree.
   * @throws RangeError, GpuBudgetError
   */
  private assertObjectsFit(name: string, more: readonly { count: number; shDegree: number }[], precision: ScenePrecision): void {
    const parts = [...this.world.drawn().map((o) => o.scene), ...more].map((scene) => ({ scene }));
    if (parts.length > MAX_OBJECTS) throw new RangeError(`${name}: ${parts.length} objects shown at once, at most ${MAX_OBJECTS}`);
    const { count, shDegree } = assemblySize(parts);
    assertSceneFits(name, count, shDegree, this.draw, this.budgetLimits, precision);
  }

  /**
   * Draws the shown objects from now on: the one's own scene (its table holding its
   * transform), or an assembly of several (GPU copies), with new sort buffers and draw
   * state; the previous drawn state is freed once the new one is made (a failure
   * changes nothing). None shown: nothing drawn (the background).
   */
  private redraw(): void {
    const drawn = this.world.drawn();
    if (drawn.length === 0) {
      this.releaseScene();
      this.drawnRuns = new Map();
      return;
    }
    let scene: GpuScene;
    let owns = false;
    if (drawn.length === 1) {
      const o = drawn[0]!;
      scene = o.scene;
      scene.objects.setRuns([{ first: 0, count: scene.count, transform: o.transform, shDegree: scene.shDegree, decode: scene.decode }]);
    } else {
      scene = assembleScenes(this.device, drawn, this.bindingBytes);
      owns = true;
    }
    let sort: ReturnType<SplatRenderer['sortTargetFor']> | null = null;
    let state: Draw;
    try {
      sort = this.sortTargetFor(scene);
      state = this.drawFor(scene, sort.target);
    } catch (e) {
      sort?.keys.destroy();
      sort?.values.destroy();
      if (owns) scene.destroy();
      throw e;
    }
    this.releaseScene();
    this.show(scene, owns, drawn.map((o) => o.handle), { ...sort, state });
  }

  /** A scene's (key, id) buffers and project pass: what a sort strategy fills. */
  private sortTargetFor(scene: GpuScene): { keys: PagedBuffer; values: PagedBuffer; target: SortTarget } {
    const device = this.device;
    const cloud = scene.cloud;
    // In pages when one binding does not hold a u32 a splat (the sort then merges them: sort/paged-sort.ts).
    const paging = sortPagingFor(cloud.count, Math.min(this.bindingBytes, this.budgetLimits.sortPageBytes ?? Infinity));
    const usage = sortBufferUsage();
    const keys = new PagedBuffer(device, 'SplatRenderer.keys', paging, usage);
    const values = new PagedBuffer(device, 'SplatRenderer.values', paging, usage);
    const drawArgs = this.drawArgs;
    const project = new ProjectPass(device, { frame: this.uniforms.buffer, scene, keys, values, drawArgs }, cloud.count);
    const target: SortTarget = {
      cloud,
      objects: scene.objects,
      keys,
      values,
      drawArgs,
      project,
      // The count only: the vertex count is the draw's (quads writes it every frame).
      writeCount: (count) => device.queue.writeBuffer(drawArgs, DrawArgs.countOffset, new Uint32Array([count])),
    };
    return { keys, values, target };
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
    this.active = this.scene && this.target ? this.drawFor(this.scene, this.target) : null;
  }

  /**
   * Compiles on the side what switching to draw `name` would compile on the spot (the
   * tiles draw's compute pipelines, for this scene, sort and the last frame's target):
   * the switch then holds up no frame. Resolves at once for the draw in use, without a
   * scene, and where the draw has nothing slow to compile (quads: render pipelines,
   * quick to make; tiles under a host sort).
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
   * Renders one frame with the floor's geometry and counts its fragments (slow: an
   * atomic per fragment; a measurement for bench:frame, not a frame to time):
   * `covered`, the pixels the geometry covers, and `contributing`, those where the
   * splat's alpha passes the fragment test (the pixels that can change). The quads
   * draw's only: rejects under another.
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
   * Resolves once a host sort in flight (the CPU strategy's) has finished and the
   * tiles draw's pair counts of the submitted frames are in. True when the last
   * frame is not the chosen draw's own picture yet: a host sort's order arrived after
   * it was drawn, or the tiles draw's pairs did not fit (that frame was complete, drawn
   * by its fallback) and the buffers have grown since. Draw it again for that picture
   * (one-shot renders; a live view just draws its next frame).
   */
  async settle(): Promise<boolean> {
    return (await this.active?.settle()) ?? false;
  }

  /** GPU buffers for tests and profiling: sorted (key, id) pairs (their pages) and the draw arguments. */
  get debugBuffers(): { keys: readonly GPUBuffer[]; values: readonly GPUBuffer[]; drawArgs: GPUBuffer } | null {
    return this.keys && this.values ? { keys: this.keys.buffers, values: this.values.buffers, drawArgs: this.drawArgs } : null;
  }

  /** Frees the drawn state: the draw's, the sort buffers, and the drawn scene if it is an assembly (the objects' stay). */
  private releaseScene(): void {
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
    for (const o of this.world.clear()) o.scene.destroy();
    this.uniforms.destroy();
    this.drawArgs.destroy();
  }
}
