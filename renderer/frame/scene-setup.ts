/**
 * A scene set up for SplatRenderer to draw: its (key, id) sort buffers and project
 * pass (the SortTarget a sort strategy fills) and the active draw's state. SceneSetup
 * makes them for a scene on the GPU (setScene, prepareGpuScene, the placed objects'
 * drawn scene) or uploads a scene and makes them a step at a time (prepareScene),
 * while the scene on screen keeps drawing. It owns the drawIndirect arguments every
 * scene's project pass and sort fill.
 */
import { sortBufferUsage } from '../../sort/types';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { DrawArgs } from '../stage/draw-args';
import { allocateOrThrow } from './gpu-budget';
import { GpuScene } from '../gpu-scene/gpu-scene';
import type { PackedScene } from '../gpu-scene/compact-pack';
import type { ScenePrecision } from '../gpu-scene/scene-precision';
import { ProjectPass } from '../project/project-pass';
import { PagedBuffer, sortPagingFor } from '../gpu-scene/paging';
import type { SortTarget } from '../order/strategies';
import type { Draw } from '../draw/draw-strategies';

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

export class Prepared implements PreparedScene {
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

/** prepareScene's upload: the scene's precision, its compact arrays if packed already, the pacing. */
export interface StagedUpload {
  readonly precision: ScenePrecision;
  readonly packed?: PackedScene | null | undefined;
  readonly pause: () => Promise<void>;
  readonly progress?: ((uploaded: number) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The bytes the budget check counted for the scene with its sort and draw buffers (for GpuMemoryError's message). */
  readonly budgetBytes: number;
}

export class SceneSetup {
  /** drawIndirect arguments (struct DrawArgs of shaders/stage/splat_common.wgsl). */
  readonly drawArgs: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    /** The frame uniforms' buffer (the project pass reads it). */
    private readonly frame: GPUBuffer,
    /** The most bytes one binding holds (a scene's arrays are paged under it). */
    private readonly bindingBytes: number,
    /** The most bytes a page of the sort's keys or values holds, when lower than `bindingBytes` (BudgetLimits.sortPageBytes). */
    private readonly sortPageBytes: number | undefined,
    /** The active draw's state for a scene (the renderer's draw and sort strategy of the moment). */
    private readonly drawFor: (scene: GpuScene, target: SortTarget) => Draw,
  ) {
    this.drawArgs = device.createBuffer({
      label: 'SplatRenderer.drawArgs',
      size: DrawArgs.size,
      usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
    });
  }

  /**
   * A scene on the GPU set up: its sort buffers and the active draw's state, owned by
   * the result with the scene. The sort buffers are freed when the draw's state cannot
   * be made (the scene stays the caller's then).
   */
  setUp(scene: GpuScene): Prepared {
    const sort = this.sortTargetFor(scene);
    try {
      return new Prepared(scene, sort.keys, sort.values, sort.target, this.drawFor(scene, sort.target));
    } catch (e) {
      sort.keys.destroy();
      sort.values.destroy();
      throw e;
    }
  }

  /**
   * `cloud` uploaded a slice at a time (GpuScene.create), then its sort buffers and the
   * active draw's state made, with `pause()` awaited between these steps; aborting
   * `signal` stops it at the next slice or step, everything made for it destroyed.
   * @throws GpuMemoryError when the device runs out of memory (all of it freed)
   */
  async upload(cloud: SplatCloud, up: StagedUpload): Promise<Prepared> {
    const { packed, pause, progress, signal } = up;
    const scene = await GpuScene.create(this.device, cloud, this.bindingBytes, pause, {
      precision: up.precision,
      ...(packed ? { packed } : {}),
      ...(progress ? { progress } : {}),
      ...(signal ? { signal } : {}),
    });
    let sort: ReturnType<SceneSetup['sortTargetFor']> | null = null;
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
        bytes: up.budgetBytes - scene.bytes,
      });
      return new Prepared(scene, sort.keys, sort.values, target, state);
    } catch (e) {
      scene.destroy();
      sort?.keys.destroy();
      sort?.values.destroy();
      throw e;
    }
  }

  /** A scene's (key, id) buffers and project pass: what a sort strategy fills. */
  private sortTargetFor(scene: GpuScene): { keys: PagedBuffer; values: PagedBuffer; target: SortTarget } {
    const device = this.device;
    const cloud = scene.cloud;
    // In pages when one binding does not hold a u32 a splat (the sort then merges them: sort/paged-sort.ts).
    const paging = sortPagingFor(cloud.count, Math.min(this.bindingBytes, this.sortPageBytes ?? Infinity));
    const usage = sortBufferUsage();
    const keys = new PagedBuffer(device, 'SplatRenderer.keys', paging, usage);
    const values = new PagedBuffer(device, 'SplatRenderer.values', paging, usage);
    const drawArgs = this.drawArgs;
    const project = new ProjectPass(device, { frame: this.frame, scene, keys, values, drawArgs }, cloud.count);
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

  destroy(): void {
    this.drawArgs.destroy();
  }
}
