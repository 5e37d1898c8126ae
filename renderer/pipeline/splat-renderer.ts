import type { GpuSorter, SorterFactory } from '../../sort/types';
import { sortBufferUsage } from '../../sort/types';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { CpuDepthSort } from './cpu-depth-sort';
import { DrawPass } from './draw-pass';
import { FrameUniforms, type FrameCamera, type FrameSettings } from './frame-uniforms';
import { GpuScene } from './gpu-scene';
import { ProjectPass } from './project-pass';
import { gpuFactoryOf } from './strategies';

export type { FrameCamera, FrameSettings } from './frame-uniforms';

/** Where a frame's stages write timestamps: 6 consecutive queries from `base`. */
export interface FrameTimestamps {
  querySet: GPUQuerySet;
  /** project begin/end, sort begin/end, draw begin/end at base .. base + 5. */
  base: number;
}

export const FRAME_STAGES = ['project', 'sort', 'draw'] as const;

export interface EncodeOptions {
  background: readonly [number, number, number];
  /**
   * Re-project and re-sort this frame (default true). False reuses the last order
   * and count: right when neither the camera nor the scene changed.
   */
  sort?: boolean;
  /** Draw the raster-floor variant (same quads, trivial fragment shader). */
  rasterFloor?: boolean;
}

/**
 * One frame of the pipeline:
 *   project (depth keys + cull + append) -> sort (the chosen GpuSorter, count on
 *   the GPU) -> draw (instanced quads back to front, drawIndirect)
 * or, with the `cpu` strategy, depths and sort on the CPU (CpuDepthSort) and only
 * the draw on the GPU. Owns the scene's GPU buffers and the (key, id) buffers.
 */
export class SplatRenderer {
  private readonly uniforms: FrameUniforms;
  private scene: GpuScene | null = null;
  private keys: GPUBuffer | null = null;
  private values: GPUBuffer | null = null;
  /** drawIndirect arguments (vertexCount, instanceCount, firstVertex, firstInstance). */
  private readonly drawArgs: GPUBuffer;
  private project: ProjectPass | null = null;
  private draw: DrawPass | null = null;
  private floor: DrawPass | null = null;
  private sorter: GpuSorter | null = null;
  private cpuSort: CpuDepthSort | null = null;
  private strategyName: string;
  private factory: SorterFactory | null;
  private static readonly DRAW_ARGS_RESET = new Uint32Array([4, 0, 0, 0]);

  constructor(
    readonly device: GPUDevice,
    readonly format: GPUTextureFormat,
    strategy: string,
  ) {
    this.uniforms = new FrameUniforms(device);
    this.factory = gpuFactoryOf(strategy);
    this.strategyName = strategy;
    this.drawArgs = device.createBuffer({
      label: 'SplatRenderer.drawArgs',
      size: 16,
      usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
    });
  }

  get cloud(): SplatCloud | null {
    return this.scene?.cloud ?? null;
  }

  get strategy(): string {
    return this.strategyName;
  }

  /** The `cpu` strategy's last depth + sort wall time in ms (null for GPU strategies). */
  get cpuSortMs(): number | null {
    return this.cpuSort ? this.cpuSort.lastSortMs : null;
  }

  /** Replaces the scene; the previous scene's GPU memory is freed. */
  setScene(cloud: SplatCloud): void {
    const device = this.device;
    const scene = new GpuScene(device, cloud);
    const capacity = Math.max(1, cloud.count);
    const usage = sortBufferUsage();
    const keys = device.createBuffer({ label: 'SplatRenderer.keys', size: capacity * 4, usage });
    const values = device.createBuffer({ label: 'SplatRenderer.values', size: capacity * 4, usage });
    this.releaseScene();
    this.scene = scene;
    this.keys = keys;
    this.values = values;
    this.project = new ProjectPass(
      device,
      { frame: this.uniforms.buffer, centers: scene.centers, covs: scene.covs, keys, values, drawArgs: this.drawArgs },
      cloud.count,
    );
    const drawBuffers = {
      frame: this.uniforms.buffer,
      centers: scene.centers,
      covs: scene.covs,
      sh: scene.sh,
      order: values,
      drawArgs: this.drawArgs,
    };
    this.draw = new DrawPass(device, this.format, drawBuffers);
    this.floor = new DrawPass(device, this.format, drawBuffers, 'floor');
    // Nothing is sorted for the new scene yet: a frame that skips the sort draws nothing.
    device.queue.writeBuffer(this.drawArgs, 0, SplatRenderer.DRAW_ARGS_RESET);
    this.createSortState();
  }

  /** Switches the sort strategy live; the old strategy's memory is freed, the scene stays. */
  setStrategy(name: string): void {
    if (name === this.strategyName) return;
    this.factory = gpuFactoryOf(name); // throws for an unknown name, changing nothing
    this.strategyName = name;
    this.destroySortState();
    if (this.scene) this.createSortState();
  }

  private createSortState(): void {
    const scene = this.scene!;
    if (this.factory) this.sorter = this.factory.create(this.device, Math.max(1, scene.count));
    else this.cpuSort = new CpuDepthSort(scene.cloud.positions, scene.count);
  }

  private destroySortState(): void {
    this.sorter?.destroy();
    this.sorter = null;
    this.cpuSort?.destroy();
    this.cpuSort = null;
  }

  /** Records one frame into `encoder`, drawing into `target` (of this renderer's format). */
  encodeFrame(
    encoder: GPUCommandEncoder,
    target: GPUTextureView,
    camera: FrameCamera,
    settings: FrameSettings & EncodeOptions,
    timestamps?: FrameTimestamps,
  ): void {
    const scene = this.scene;
    if (!scene || !this.project || !this.draw || !this.floor || !this.keys || !this.values) {
      const bg = settings.background;
      const pass = encoder.beginRenderPass({
        label: 'SplatRenderer.clear',
        colorAttachments: [{ view: target, clearValue: { r: bg[0], g: bg[1], b: bg[2], a: 1 }, loadOp: 'clear', storeOp: 'store' }],
      });
      pass.end();
      return;
    }
    const ts = timestamps;
    const computeTs = (i: number): GPUComputePassTimestampWrites | undefined =>
      ts && { querySet: ts.querySet, beginningOfPassWriteIndex: ts.base + i, endOfPassWriteIndex: ts.base + i + 1 };
    const sortNow = settings.sort !== false;
    this.uniforms.write(camera, settings, scene.count, scene.shDegree, scene.shStride);

    if (this.sorter) {
      if (sortNow) {
        this.device.queue.writeBuffer(this.drawArgs, 0, SplatRenderer.DRAW_ARGS_RESET);
        this.project.encode(encoder, computeTs(0));
        this.sorter.encode(
          encoder,
          { keys: this.keys, values: this.values, count: this.drawArgs, countOffset: 4, keyBits: settings.keyBits },
          ts && { querySet: ts.querySet, beginIndex: ts.base + 2, endIndex: ts.base + 3 },
        );
      } else {
        this.emptyPasses(encoder, computeTs);
      }
    } else if (this.cpuSort) {
      const order = this.cpuSort.take();
      if (order) {
        this.device.queue.writeBuffer(this.values, 0, order.buffer, order.byteOffset, order.byteLength);
        this.device.queue.writeBuffer(this.drawArgs, 0, new Uint32Array([4, order.length, 0, 0]));
      }
      // Until the first order arrives the draw keeps what the buffers hold: the last
      // strategy's order, or nothing for a new scene (setScene empties the draw).
      if (sortNow) this.cpuSort.request(camera.view, settings.keyBits, camera.near, camera.far);
      // The GPU does no project or sort work: empty passes keep the timestamps defined (~0 ms).
      this.emptyPasses(encoder, computeTs);
    }
    (settings.rasterFloor ? this.floor : this.draw).encode(
      encoder,
      target,
      settings.background,
      ts && { querySet: ts.querySet, beginningOfPassWriteIndex: ts.base + 4, endOfPassWriteIndex: ts.base + 5 },
    );
  }

  private emptyPasses(encoder: GPUCommandEncoder, computeTs: (i: number) => GPUComputePassTimestampWrites | undefined): void {
    for (const i of [0, 2]) {
      const w = computeTs(i);
      if (w) encoder.beginComputePass({ label: 'SplatRenderer.skipped', timestampWrites: w }).end();
    }
  }

  /** Resolves once the `cpu` strategy's sort in flight has finished (no-op otherwise). */
  async settleCpuSort(): Promise<void> {
    await this.cpuSort?.settle();
  }

  /** GPU buffers for tests and profiling: sorted (key, id) pairs and the draw arguments. */
  get debugBuffers(): { keys: GPUBuffer; values: GPUBuffer; drawArgs: GPUBuffer } | null {
    return this.keys && this.values ? { keys: this.keys, values: this.values, drawArgs: this.drawArgs } : null;
  }

  private releaseScene(): void {
    this.destroySortState();
    this.scene?.destroy();
    this.keys?.destroy();
    this.values?.destroy();
    this.scene = null;
    this.keys = this.values = null;
    this.project = this.draw = this.floor = null;
  }

  destroy(): void {
    this.releaseScene();
    this.uniforms.destroy();
    this.drawArgs.destroy();
  }
}
