import type { GpuSorter, SorterFactory } from '../sort/types';
import { sortBufferUsage } from '../sort/types';
import type { SplatCloud } from '../scenes/splat-cloud';
import { DrawPass } from './draw-pass';
import { FrameUniforms, type FrameCamera, type FrameSettings } from './frame-uniforms';
import { GpuScene } from './gpu-scene';
import { ProjectPass } from './project-pass';

export type { FrameCamera, FrameSettings } from './frame-uniforms';

/** Where a frame's stages write timestamps: 6 consecutive queries from `base`. */
export interface FrameTimestamps {
  querySet: GPUQuerySet;
  /** project begin/end, sort begin/end, draw begin/end at base .. base + 5. */
  base: number;
}

export const FRAME_STAGES = ['project', 'sort', 'draw'] as const;

/**
 * One frame of the pipeline, all on the GPU:
 *   project (depth keys + cull + append) -> sort (the chosen GpuSorter, count on
 *   the GPU) -> draw (instanced quads back to front, drawIndirect).
 * Owns the scene's GPU buffers and the (key, id) buffers the sort works on.
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
  private sorter: GpuSorter | null = null;
  private sorterFactory: SorterFactory;
  private static readonly DRAW_ARGS_RESET = new Uint32Array([4, 0, 0, 0]);

  constructor(
    readonly device: GPUDevice,
    readonly format: GPUTextureFormat,
    sorter: SorterFactory,
  ) {
    this.uniforms = new FrameUniforms(device);
    this.sorterFactory = sorter;
    this.drawArgs = device.createBuffer({
      label: 'SplatRenderer.drawArgs',
      size: 16,
      usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
    });
  }

  get cloud(): SplatCloud | null {
    return this.scene?.cloud ?? null;
  }

  get sorterName(): string {
    return this.sorterFactory.name;
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
    this.draw = new DrawPass(device, this.format, {
      frame: this.uniforms.buffer,
      centers: scene.centers,
      covs: scene.covs,
      sh: scene.sh,
      order: values,
      drawArgs: this.drawArgs,
    });
    this.sorter = this.sorterFactory.create(device, capacity);
  }

  /** Switches the sort strategy live; the old sorter's scratch memory is freed. */
  setSorter(factory: SorterFactory): void {
    if (factory === this.sorterFactory) return;
    const next = this.scene ? factory.create(this.device, Math.max(1, this.scene.count)) : null;
    this.sorter?.destroy();
    this.sorter = next;
    this.sorterFactory = factory;
  }

  /** Records one frame into `encoder`, drawing into `target` (of this renderer's format). */
  encodeFrame(
    encoder: GPUCommandEncoder,
    target: GPUTextureView,
    camera: FrameCamera,
    settings: FrameSettings & { background: readonly [number, number, number] },
    timestamps?: FrameTimestamps,
  ): void {
    const scene = this.scene;
    if (!scene || !this.project || !this.draw || !this.sorter || !this.keys || !this.values) {
      // No scene: just clear to the background.
      const pass = encoder.beginRenderPass({
        label: 'SplatRenderer.clear',
        colorAttachments: [{ view: target, clearValue: { r: settings.background[0], g: settings.background[1], b: settings.background[2], a: 1 }, loadOp: 'clear', storeOp: 'store' }],
      });
      pass.end();
      return;
    }
    this.device.queue.writeBuffer(this.drawArgs, 0, SplatRenderer.DRAW_ARGS_RESET);
    this.uniforms.write(camera, settings, scene.count, scene.shDegree, scene.shStride);
    const ts = timestamps;
    this.project.encode(encoder, ts && { querySet: ts.querySet, beginningOfPassWriteIndex: ts.base, endOfPassWriteIndex: ts.base + 1 });
    this.sorter.encode(
      encoder,
      { keys: this.keys, values: this.values, count: this.drawArgs, countOffset: 4, keyBits: settings.keyBits },
      ts && { querySet: ts.querySet, beginIndex: ts.base + 2, endIndex: ts.base + 3 },
    );
    this.draw.encode(
      encoder,
      target,
      settings.background,
      ts && { querySet: ts.querySet, beginningOfPassWriteIndex: ts.base + 4, endOfPassWriteIndex: ts.base + 5 },
    );
  }

  /** GPU buffers for tests and profiling: sorted (key, id) pairs and the draw arguments. */
  get debugBuffers(): { keys: GPUBuffer; values: GPUBuffer; drawArgs: GPUBuffer } | null {
    return this.keys && this.values ? { keys: this.keys, values: this.values, drawArgs: this.drawArgs } : null;
  }

  private releaseScene(): void {
    this.sorter?.destroy();
    this.sorter = null;
    this.scene?.destroy();
    this.keys?.destroy();
    this.values?.destroy();
    this.scene = null;
    this.keys = this.values = null;
    this.project = this.draw = null;
  }

  destroy(): void {
    this.releaseScene();
    this.uniforms.destroy();
    this.drawArgs.destroy();
  }
}
