import commonWgsl from '../../shaders/splat_common.wgsl?raw';
import splatWgsl from '../../shaders/splat.wgsl?raw';
import { SH_WGSL } from './sh-wgsl';

/** Vertices of one splat's quad: a triangle strip over CORNERS in shaders/splat.wgsl. */
export const QUAD_VERTICES = 4;

/** 'splat': the real draw; 'floor': the same quads with a trivial fragment shader. */
export type DrawVariant = 'splat' | 'floor';

interface DrawPipelines {
  layout: GPUBindGroupLayout;
  byKey: Map<string, GPURenderPipeline>;
}
const cache = new WeakMap<GPUDevice, DrawPipelines>();

function pipelinesFor(device: GPUDevice): DrawPipelines {
  let p = cache.get(device);
  if (!p) {
    const vis = GPUShaderStage.VERTEX;
    const layout = device.createBindGroupLayout({
      label: 'DrawPass.layout',
      entries: [
        { binding: 0, visibility: vis | GPUShaderStage.FRAGMENT, buffer: { type: 'uniform' } },
        { binding: 1, visibility: vis, buffer: { type: 'read-only-storage' } },
        { binding: 2, visibility: vis, buffer: { type: 'read-only-storage' } },
        { binding: 3, visibility: vis, buffer: { type: 'read-only-storage' } },
        { binding: 4, visibility: vis, buffer: { type: 'read-only-storage' } },
      ],
    });
    p = { layout, byKey: new Map() };
    cache.set(device, p);
  }
  return p;
}

function pipelineFor(
  device: GPUDevice,
  format: GPUTextureFormat,
  variant: DrawVariant,
): { layout: GPUBindGroupLayout; pipeline: GPURenderPipeline } {
  const p = pipelinesFor(device);
  const key = `${format}/${variant}`;
  let pipeline = p.byKey.get(key);
  if (!pipeline) {
    const module = device.createShaderModule({ label: 'DrawPass.module', code: `${SH_WGSL}\n${commonWgsl}\n${splatWgsl}` });
    pipeline = device.createRenderPipeline({
      label: `DrawPass.pipeline(${key})`,
      layout: device.createPipelineLayout({ label: 'DrawPass.pipelineLayout', bindGroupLayouts: [p.layout] }),
      vertex: { module, entryPoint: 'vs' },
      fragment: {
        module,
        entryPoint: variant === 'floor' ? 'fs_floor' : 'fs',
        targets: [
          {
            format,
            // Premultiplied colour, back to front: dst = src + (1 - src.a) * dst.
            blend: {
              color: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
              alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
            },
          },
        ],
      },
      primitive: { topology: 'triangle-strip' },
    });
    p.byKey.set(key, pipeline);
  }
  return { layout: p.layout, pipeline };
}

export interface DrawBuffers {
  frame: GPUBuffer;
  centers: GPUBuffer;
  covs: GPUBuffer;
  sh: GPUBuffer;
  /** Sorted splat ids, back to front. */
  order: GPUBuffer;
  drawArgs: GPUBuffer;
}

/** The splat draw: one instanced quad per sorted id (shaders/splat.wgsl), count from drawArgs. */
export class DrawPass {
  private readonly pipeline: GPURenderPipeline;
  private readonly bindGroup: GPUBindGroup;
  private readonly drawArgs: GPUBuffer;

  constructor(
    device: GPUDevice,
    readonly format: GPUTextureFormat,
    buffers: DrawBuffers,
    readonly variant: DrawVariant = 'splat',
  ) {
    const { layout, pipeline } = pipelineFor(device, format, variant);
    this.pipeline = pipeline;
    this.drawArgs = buffers.drawArgs;
    this.bindGroup = device.createBindGroup({
      label: 'DrawPass.bindGroup',
      layout,
      entries: [buffers.frame, buffers.centers, buffers.covs, buffers.sh, buffers.order].map((buffer, binding) => ({
        binding,
        resource: { buffer },
      })),
    });
  }

  encode(
    encoder: GPUCommandEncoder,
    target: GPUTextureView,
    background: readonly [number, number, number],
    timestampWrites?: GPURenderPassTimestampWrites,
  ): void {
    const pass = encoder.beginRenderPass({
      label: 'DrawPass.pass',
      colorAttachments: [
        {
          view: target,
          clearValue: { r: background[0], g: background[1], b: background[2], a: 1 },
          loadOp: 'clear',
          storeOp: 'store',
        },
      ],
      timestampWrites,
    });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.drawIndirect(this.drawArgs, 0);
    pass.end();
  }
}
