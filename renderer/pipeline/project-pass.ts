import commonWgsl from '../../shaders/splat_common.wgsl?raw';
import projectWgsl from '../../shaders/project.wgsl?raw';
import type { ScenePrecision } from './scene-precision';
import { sceneWgsl } from './scene-wgsl';

const WORKGROUP_SIZE = 256;
const MAX_GROUPS_X = 65535;

const pipelines = new WeakMap<GPUDevice, Map<ScenePrecision, { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline }>>();

function pipelineFor(device: GPUDevice, precision: ScenePrecision) {
  let byPrecision = pipelines.get(device);
  if (!byPrecision) pipelines.set(device, (byPrecision = new Map()));
  let p = byPrecision.get(precision);
  if (!p) {
    const storage = (type: GPUBufferBindingType): GPUBindGroupLayoutEntry['buffer'] => ({ type });
    const layout = device.createBindGroupLayout({
      label: 'ProjectPass.layout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
        { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: storage('read-only-storage') },
        { binding: 2, visibility: GPUShaderStage.COMPUTE, buffer: storage('read-only-storage') },
        { binding: 3, visibility: GPUShaderStage.COMPUTE, buffer: storage('storage') },
        { binding: 4, visibility: GPUShaderStage.COMPUTE, buffer: storage('storage') },
        { binding: 5, visibility: GPUShaderStage.COMPUTE, buffer: storage('storage') },
        { binding: 6, visibility: GPUShaderStage.COMPUTE, buffer: storage('read-only-storage') },
        { binding: 7, visibility: GPUShaderStage.COMPUTE, buffer: storage('read-only-storage') },
      ],
    });
    const module = device.createShaderModule({ label: 'ProjectPass.module', code: `${commonWgsl}\n${sceneWgsl(precision)}\n${projectWgsl}` });
    const pipeline = device.createComputePipeline({
      label: 'ProjectPass.pipeline',
      layout: device.createPipelineLayout({ label: 'ProjectPass.pipelineLayout', bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main', constants: { WORKGROUP_SIZE } },
    });
    p = { layout, pipeline };
    byPrecision.set(precision, p);
  }
  return p;
}

export interface ProjectBuffers {
  frame: GPUBuffer;
  centers: GPUBuffer;
  covs: GPUBuffer;
  /** The SH buffers (the compact scene's opacity is there). */
  sh0: GPUBuffer;
  sh1: GPUBuffer;
  /** How the scene buffers are laid out (GpuScene.precision). */
  precision: ScenePrecision;
  keys: GPUBuffer;
  values: GPUBuffer;
  /** Indirect draw arguments; word 1 (instanceCount) is the append counter. */
  drawArgs: GPUBuffer;
}

/**
 * The project/cull pass: one thread per splat computes its view depth, culls it,
 * and appends (depth key, id) of the visible ones (shaders/project.wgsl).
 */
export class ProjectPass {
  private readonly pipeline: GPUComputePipeline;
  private readonly bindGroup: GPUBindGroup;
  private readonly groups: [number, number];

  constructor(device: GPUDevice, buffers: ProjectBuffers, readonly splatCount: number) {
    const { layout, pipeline } = pipelineFor(device, buffers.precision);
    this.pipeline = pipeline;
    this.bindGroup = device.createBindGroup({
      label: 'ProjectPass.bindGroup',
      layout,
      entries: [buffers.frame, buffers.centers, buffers.covs, buffers.keys, buffers.values, buffers.drawArgs, buffers.sh0, buffers.sh1].map(
        (buffer, binding) => ({ binding, resource: { buffer } }),
      ),
    });
    const total = Math.max(1, Math.ceil(splatCount / WORKGROUP_SIZE));
    // More than 65,535 workgroups spill into y; the shader linearises (x, y).
    const x = Math.min(total, MAX_GROUPS_X);
    this.groups = [x, Math.ceil(total / x)];
  }

  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    const pass = encoder.beginComputePass({ label: 'ProjectPass.pass', timestampWrites });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.dispatchWorkgroups(this.groups[0], this.groups[1]);
    pass.end();
  }
}
