import { sortBufferUsage } from '../../sort/types';
import type { SanitizeReport, ShDegree, SplatCloud } from '../../scenes/splat-cloud';
import { DrawArgs } from '../stage/draw-args';
import { estimateLayers } from '../draw/quads/depth-complexity';
import { COVERAGE_BYTES, DEFAULT_GEOMETRY, DEFAULT_LIST, DrawPass, drawsFrontToBack, VERTICES_PER_SPLAT, type DrawOrder, type DrawShape } from '../draw/quads/quads-draw';
import { stageIndices, stageWrites, type FrameTimestamps } from '../stage/frame-stages';
import { FrameUniforms, type FrameCamera, type FrameSettings } from '../stage/frame-uniforms';
import { allocateOrThrow, assertSceneFits, bindingLimit, type BudgetLimits } from './gpu-budget';
import { GpuScene } from '../gpu-scene/gpu-scene';
import type { PackedScene } from '../gpu-scene/compact-pack';
import { DEFAULT_PRECISION, type ScenePrecision } from '../gpu-scene/scene-precision';
import type { ScenePaging } from '../gpu-scene/scene-wgsl';
import { ProjectPass } from '../project/project-pass';
import { PagedBuffer, sortPagingFor } from '../gpu-scene/paging';
import { strategyByName, type SortState, type SortStrategy, type SortTarget, type StrategyInfo } from '../order/strategies';
import { drawByName, type DrawName } from '../draw/draw-strategies';
import { compileTilesAhead, TileRasterizer, type TileRasterizerOptions } from '../draw/tiles/tile-rasterizer';
import type { PairStatus } from '../draw/tiles/pair-budget';

export type { FrameCamera, FrameSettings } from '../stage/frame-uniforms';
export type { FrameTimestamps } from '../stage/frame-stages';
export type { DrawName } from '../draw/draw-strategies';

/**
 * 'auto' draws front to back from this many layers over the mean pixel
 * (depth-complexity.ts). On the H200 (docs/PERFORMANCE.md) front to back is slower
 * at biker's ~11 layers and 0.75x / 0.6x of back to front at the replicated 1M / 6M
 * files' ~94 / ~560 layers.
 */
export const F2B_MIN_LAYERS = 32;

/**
 * The geometry and extent a frame's settings ask for (defaults: DEFAULT_GEOMETRY, the
 * model's 3 sigma); an explicit draw order is set here, 'auto' is left to the renderer.
 */
export function drawShape(settings: FrameSettings): DrawShape {
  const order = settings.drawOrder ?? 'auto';
  return {
    ...(order !== 'auto' ? { frontToBack: order === 'front-to-back' } : {}),
    ...(settings.f2bChunks !== undefined ? { chunks: settings.f2bChunks } : {}),
    geometry: settings.geometry ?? DEFAULT_GEOMETRY,
    sigmaCut: settings.sigmaCut ?? false,
    ...(settings.autoArea !== undefined ? { autoArea: settings.autoArea } : {}),
    ...(settings.listDraw !== undefined ? { list: settings.listDraw } : {}),
  };
}

export interface EncodeOptions {
  background: readonly [number, number, number];
  /**
   * Re-project and re-sort this frame (default true). False reuses the last order
   * and count: right when neither the camera nor the scene changed.
   */
  sort?: boolean;
  /** Draw the raster-floor variant (same geometry, trivial fragment shader). */
  rasterFloor?: boolean;
  /**
   * The target texture has STORAGE_BINDING usage: the tiles draw writes it directly
   * where its format allows (tiles/tile-pipelines.ts canBlendInto), with no image
   * copied onto it. Default false.
   */
  targetStorage?: boolean;
}

/** The state of the active draw for a scene: the sort strategy's and the quads draw's, or the tiles draw's. */
interface DrawState {
  draw: DrawName;
  strategy: SortStrategy;
  sortState: SortState | null;
  quads: DrawPass | null;
  tiles: TileRasterizer | null;
}

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
    public state: DrawState,
  ) {}

  get cloud(): SplatCloud {
    return this.scene.cloud;
  }

  destroy(): void {
    destroyDrawState(this.state);
    this.scene.destroy();
    this.keys.destroy();
    this.values.destroy();
  }
}

function destroyDrawState(state: DrawState): void {
  state.sortState?.destroy();
  state.quads?.destroy();
  state.tiles?.destroy();
}

/**
 * One frame of the pipeline, by the draw strategy (draw-strategies.ts):
 *   quads: ordering (the sort strategy: project + GPU sort, or the CPU worker's
 *          order) -> draw (prepare records, then one polygon per splat back to
 *          front, drawIndirect; draw-pass.ts, its geometry and cut from the settings)
 *   tiles: the compute tile rasteriser (tiles/tile-rasterizer.ts) with the sort
 *          strategy's GPU sorter
 * Owns the scene's GPU buffers, the (key, id) buffers and the draw arguments;
 * the strategy (strategies.ts) fills the ids and the count. Only the active draw's
 * state is alive: switching frees the other's.
 */
export class SplatRenderer {
  private readonly uniforms: FrameUniforms;
  private scene: GpuScene | null = null;
  private keys: PagedBuffer | null = null;
  private values: PagedBuffer | null = null;
  /** drawIndirect arguments (struct DrawArgs of shaders/stage/splat_common.wgsl). */
  private readonly drawArgs: GPUBuffer;
  /** The quads draw's prepare + draw passes (with their per-splat records); null under tiles. */
  private quads: DrawPass | null = null;
  /** Vertices a splat of the shape drawn last (DrawArgs.vertexCount). */
  private vertexCount = VERTICES_PER_SPLAT[DEFAULT_GEOMETRY];
  private target: SortTarget | null = null;
  private sortState: SortState | null = null;
  private sortStrategy: SortStrategy;
  private drawName: DrawName = 'quads';
  /** Whether the last frame's target could be a storage texture (the tiles blend writes it directly then). */
  private lastTargetStorage = false;
  private tiles: TileRasterizer | null = null;
  private orderDrawn: Exclude<DrawOrder, 'auto'> = 'back-to-front';
  private layers: { cloud: SplatCloud; key: string; value: number } | null = null;
  /** The limits the scene budget is checked against (gpu-budget.ts). */
  private readonly budgetLimits: BudgetLimits;

  constructor(
    readonly device: GPUDevice,
    readonly format: GPUTextureFormat,
    strategy: string,
    draw: string = 'quads',
    private readonly tileOptions: TileRasterizerOptions = {},
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
    this.drawName = this.checkedDraw(draw, this.sortStrategy);
    this.drawArgs = device.createBuffer({
      label: 'SplatRenderer.drawArgs',
      size: DrawArgs.size,
      usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
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

  /** GPU memory of the scene's buffers (centres, covariances, SH), in bytes; 0 without a scene. */
  get sceneBytes(): number {
    return this.scene?.bytes ?? 0;
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
    return this.drawName;
  }

  /** The tiles draw's pair buffers (capacity, last count, overflow / cap warnings); null for quads or no scene. */
  get tileStatus(): PairStatus | null {
    return this.tiles?.status ?? null;
  }

  /** The last sort's wall time in ms when the strategy sorts on the host (null for a GPU sort, or no scene). */
  get hostSortMs(): number | null {
    return this.sortState ? this.sortState.hostSortMs : null;
  }

  /**
   * Whether a scene of `count` splats of SH `degree` would fit this renderer's
   * draw and the binding limits: the check prepareScene makes, for a caller
   * that knows the count early (a file's header) and need not load the rest.
   * @throws GpuBudgetError when it would not
   */
  assertFits(scene: string, count: number, degree: ShDegree): void {
    assertSceneFits(scene, count, degree, this.drawName, this.budgetLimits, this.precision);
  }

  /**
   * Replaces the scene; the previous scene's GPU memory is freed.
   * @throws GpuBudgetError, changing nothing (the previous scene stays), when a
   *   buffer of the scene would exceed a binding limit (gpu-budget.ts)
   */
  setScene(cloud: SplatCloud): void {
    assertSceneFits(cloud.source.name, cloud.count, cloud.shDegree, this.drawName, this.budgetLimits, this.precision);
    const scene = new GpuScene(this.device, cloud, bindingLimit(this.budgetLimits).bytes, { precision: this.precision });
    const { keys, values, target } = this.sortTargetFor(scene);
    this.adoptScene(new Prepared(scene, keys, values, target, this.drawStateFor(scene, target)));
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
    assertSceneFits(scene.cloud.source.name, scene.count, scene.cloud.shDegree, this.drawName, this.budgetLimits, scene.precision);
    const { keys, values, target } = this.sortTargetFor(scene);
    return new Prepared(scene, keys, values, target, this.drawStateFor(scene, target));
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
    const budget = assertSceneFits(cloud.source.name, cloud.count, cloud.shDegree, this.drawName, this.budgetLimits, packed ? 'compact' : this.precision);
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
      const state = await allocateOrThrow(this.device, () => this.drawStateFor(scene, target), destroyDrawState, {
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
    if (state.draw !== this.drawName || state.strategy !== this.sortStrategy) {
      destroyDrawState(state);
      try {
        assertSceneFits(scene.cloud.source.name, scene.count, scene.cloud.shDegree, this.drawName, this.budgetLimits, scene.precision);
      } catch (e) {
        prepared.scene.destroy();
        prepared.keys.destroy();
        prepared.values.destroy();
        throw e;
      }
      prepared.state = this.drawStateFor(scene, prepared.target);
    }
    this.releaseScene();
    this.scene = scene;
    this.keys = prepared.keys;
    this.values = prepared.values;
    this.target = prepared.target;
    this.sortState = prepared.state.sortState;
    this.quads = prepared.state.quads;
    this.tiles = prepared.state.tiles;
    // Nothing is sorted for the new scene yet: a frame that skips the sort draws nothing.
    this.target.writeCount(0);
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
      keys,
      values,
      drawArgs,
      project,
      writeCount: (count) => device.queue.writeBuffer(drawArgs, 0, DrawArgs.pack({ vertexCount: this.vertexCount, instanceCount: count })),
    };
    return { keys, values, target };
  }

  /** The order the last frame was drawn in ('auto' resolved), and the depth complexity 'auto' saw. */
  get drawOrder(): { order: Exclude<DrawOrder, 'auto'>; layers: number | null } {
    return { order: this.orderDrawn, layers: this.layers?.value ?? null };
  }

  /**
   * 'auto': front to back when the view's estimated depth complexity reaches
   * F2B_MIN_LAYERS. The estimate (a 4096-splat sample on the CPU) is kept while the
   * camera, the viewport and the splat scale stay the same.
   */
  private resolveOrder(camera: FrameCamera, splatScale: number): Exclude<DrawOrder, 'auto'> {
    const cloud = this.scene?.cloud;
    if (!cloud) return 'back-to-front';
    const key = `${Array.from(camera.view).join(',')}|${camera.width}x${camera.height}|${camera.fovyDeg}|${splatScale}`;
    if (this.layers?.cloud !== cloud || this.layers.key !== key) {
      this.layers = { cloud, key, value: estimateLayers(cloud, camera, splatScale) };
    }
    return this.layers.value >= F2B_MIN_LAYERS ? 'front-to-back' : 'back-to-front';
  }

  /** Switches the sort strategy live; the old strategy's memory is freed, the scene stays. */
  setStrategy(name: string): void {
    if (name === this.strategy) return;
    const next = strategyByName(name); // throws for an unknown name, changing nothing
    this.checkedDraw(this.drawName, next); // throws for a host sort under the tiles draw
    this.sortStrategy = next;
    if (this.tiles) {
      this.tiles.setSorter(next.sorter!);
    } else {
      // The quads draw's records stay: only the ordering changes hands.
      this.sortState?.destroy();
      this.sortState = this.target ? next.create(this.device, this.target) : null;
    }
  }

  /**
   * Switches the draw strategy live (`quads` | `tiles`); the old draw's memory is
   * freed, the scene and the sort strategy stay. Throws, changing nothing, for an
   * unknown name, for `tiles` under a host sort strategy, or (GpuBudgetError) when
   * the scene's buffers under the new draw exceed a binding limit.
   */
  setDraw(name: string): void {
    const draw = this.checkedDraw(name, this.sortStrategy);
    if (draw === this.drawName) return;
    const cloud = this.cloud;
    if (cloud) assertSceneFits(cloud.source.name, cloud.count, cloud.shDegree, draw, this.budgetLimits, this.scene?.precision ?? this.precision);
    this.drawName = draw;
    this.destroyDrawState();
    this.createDrawState();
  }

  /**
   * Compiles on the side what switching to draw `name` would compile on the spot (the
   * tiles draw's compute pipelines, for this scene, sort and the last frame's target):
   * the switch then holds up no frame. Resolves at once for the draw in use, without a
   * scene, for tiles under a host sort, and for quads (render pipelines: quick to make).
   */
  async compileDrawAhead(name: DrawName): Promise<void> {
    const scene = this.scene;
    const sorter = this.sortStrategy.sorter;
    if (name === this.drawName || !scene || name !== 'tiles' || !sorter) return;
    await compileTilesAhead(this.device, scene, sorter, this.format, this.lastTargetStorage, this.tileRasterizerOptions());
  }

  /** The tiles draw's options: the renderer's, its binding limit, and a test's smaller pair pages (gpu-budget.ts sortPageBytes). */
  private tileRasterizerOptions(): TileRasterizerOptions {
    return {
      ...this.tileOptions,
      bindingBytes: this.bindingBytes,
      ...(this.budgetLimits.sortPageBytes ? { pairPageBytes: this.budgetLimits.sortPageBytes } : {}),
    };
  }

  private checkedDraw(name: string, sort: SortStrategy): DrawName {
    const info = drawByName(name);
    if (info.needsGpuSorter && !sort.sorter) {
      throw new Error(`draw '${info.name}' sorts its (tile, depth) pairs on the GPU: sort strategy '${sort.info.name}' sorts on the host`);
    }
    return info.name;
  }

  private createDrawState(): void {
    if (!this.scene || !this.target) return;
    const state = this.drawStateFor(this.scene, this.target);
    this.sortState = state.sortState;
    this.quads = state.quads;
    this.tiles = state.tiles;
  }

  /** The active draw's state (this renderer's draw and sort strategy) for a scene. */
  private drawStateFor(scene: GpuScene, target: SortTarget): DrawState {
    const state: DrawState = { draw: this.drawName, strategy: this.sortStrategy, sortState: null, quads: null, tiles: null };
    if (this.drawName === 'tiles') {
      state.tiles = new TileRasterizer(this.device, this.uniforms.buffer, scene, this.sortStrategy.sorter!, this.tileRasterizerOptions());
      return state;
    }
    state.sortState = this.sortStrategy.create(this.device, target);
    state.quads = new DrawPass(
      this.device,
      this.format,
      {
        frame: this.uniforms.buffer,
        scene,
        bindingBytes: this.bindingBytes,
        order: target.values,
        drawArgs: this.drawArgs,
      },
      scene.count,
    );
    return state;
  }

  private destroyDrawState(): void {
    destroyDrawState({ draw: this.drawName, strategy: this.sortStrategy, sortState: this.sortState, quads: this.quads, tiles: this.tiles });
    this.sortState = null;
    this.quads = null;
    this.tiles = null;
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
    if (!scene || !((this.sortState && this.quads) || this.tiles)) {
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
    if (this.tiles) {
      // The tile path always redraws (its image depends on every setting); the
      // key-bits setting caps the depth bits of its (tile, depth) keys.
      this.tiles.encode(
        encoder,
        target,
        this.format,
        {
          width: camera.width,
          height: camera.height,
          depthBits: settings.keyBits,
          background: settings.background,
          targetStorage: settings.targetStorage ?? false,
        },
        (stage) => stageWrites(timestamps, stage),
      );
      return;
    }
    const shape = drawShape(settings);
    // Front to back draws strips only: a triangle list stays back to front.
    shape.frontToBack ??= !(shape.list ?? DEFAULT_LIST) && this.resolveOrder(camera, settings.splatScale) === 'front-to-back';
    this.orderDrawn = drawsFrontToBack(shape, 'splat') ? 'front-to-back' : 'back-to-front';
    this.vertexCount = VERTICES_PER_SPLAT[shape.geometry];
    this.sortState!.encode(encoder, { camera, keyBits: settings.keyBits, sortNow: settings.sort !== false, timestamps });
    // The vertex count follows the shape every frame, also when the order is reused
    // (after the strategy's own writes: the queue applies them in order).
    this.device.queue.writeBuffer(this.drawArgs, DrawArgs.vertexCountOffset, new Uint32Array([this.vertexCount]));
    const writes = stageWrites(timestamps, 'draw');
    this.quads!.encode(
      encoder,
      target,
      camera,
      settings.background,
      shape,
      coverage ? 'count' : settings.rasterFloor ? 'floor' : 'splat',
      stageIndices(writes),
      coverage,
    );
  }

  /**
   * Renders one frame with the floor's geometry and counts its fragments (slow: an
   * atomic per fragment; a measurement for bench:frame, not a frame to time):
   * `covered`, the pixels the geometry covers, and `contributing`, those where the
   * splat's alpha passes the fragment test (the pixels that can change).
   */
  async measureCoverage(
    target: GPUTextureView,
    camera: FrameCamera,
    settings: FrameSettings & EncodeOptions,
  ): Promise<{ covered: number; contributing: number }> {
    if (!this.scene) return { covered: 0, contributing: 0 };
    if (this.tiles) throw new Error("measureCoverage counts the quads draw's fragments: the draw strategy is 'tiles'");
    const device = this.device;
    const coverage = device.createBuffer({
      label: 'SplatRenderer.coverage',
      size: COVERAGE_BYTES,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    const readback = device.createBuffer({ label: 'SplatRenderer.coverageReadback', size: COVERAGE_BYTES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = device.createCommandEncoder({ label: 'SplatRenderer.measureCoverage' });
    this.encodeFrame(encoder, target, camera, settings, undefined, coverage);
    encoder.copyBufferToBuffer(coverage, 0, readback, 0, COVERAGE_BYTES);
    device.queue.submit([encoder.finish()]);
    await this.settle();
    await readback.mapAsync(GPUMapMode.READ);
    const counts = new Uint32Array(readback.getMappedRange().slice(0));
    readback.unmap();
    readback.destroy();
    coverage.destroy();
    let covered = 0;
    let contributing = 0;
    for (let i = 0; i < counts.length; i += 2) {
      covered += counts[i];
      contributing += counts[i + 1];
    }
    return { covered, contributing };
  }

  /**
   * Call after submitting a frame encoded by encodeFrame: starts the non-blocking
   * read-back of what the frame counted (the tiles draw's pairs; a few frames late).
   */
  submitted(): void {
    this.tiles?.submitted();
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
    const orderWaiting = (await this.sortState?.settle()) ?? false;
    const grown = (await this.tiles?.settle()) ?? false;
    return orderWaiting || grown;
  }

  /** GPU buffers for tests and profiling: sorted (key, id) pairs (their pages) and the draw arguments. */
  get debugBuffers(): { keys: readonly GPUBuffer[]; values: readonly GPUBuffer[]; drawArgs: GPUBuffer } | null {
    return this.keys && this.values ? { keys: this.keys.buffers, values: this.values.buffers, drawArgs: this.drawArgs } : null;
  }

  private releaseScene(): void {
    this.destroyDrawState();
    this.scene?.destroy();
    this.keys?.destroy();
    this.values?.destroy();
    this.scene = null;
    this.keys = this.values = null;
    this.target = null;
  }

  destroy(): void {
    this.releaseScene();
    this.uniforms.destroy();
    this.drawArgs.destroy();
  }
}
