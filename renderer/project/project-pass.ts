import commonWgsl from '../../shaders/stage/splat_common.wgsl?raw';
import projectWgsl from '../../shaders/project/project.wgsl?raw';
import type { GpuScene } from '../gpu-scene/gpu-scene';
import { pagedLayoutEntries, pagedWgsl, pagingKey, type PagedBuffer, type Paging } from '../gpu-scene/paging';
import { sceneKey, sceneLayoutEntries, sceneWgsl, type SceneBindings } from '../gpu-scene/scene-wgsl';

const WORKGROUP_SIZE = 256;
const MAX_GROUPS_X = 65535;

/** The scene's bindings in the project pass (shaders/project/project.wgsl). */
const SCENE_AT: SceneBindings = { centers: 1, covs: 2, sh: 6, objects: 7 };

const pipelines = new WeakMap<GPUDevice, Map<string, { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline }>>();

/** The keys' and values' first bindings (their pages: paging.ts pageBinding). */
const KEYS_AT = 3;
const VALUES_AT = 4;

/** The pass's pipeline for a scene's precision and paging, and the sort's paging (one per device and kind). */
function pipelineFor(device: GPUDevice, scene: GpuScene, sort: Paging) {
  let byKind = pipelines.get(device);
  if (!byKind) pipelines.set(device, (byKind = new Map()));
  const key = `${sceneKey(scene.precision, scene.paging)};${pagingKey(sort)}`;
  let p = byKind.get(key);
  if (!p) {
    const entry = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    const layout = device.createBindGroupLayout({
      label: 'ProjectPass.layout',
      entries: [
        entry(0, 'uniform'),
        ...pagedLayoutEntries(KEYS_AT, sort, GPUShaderStage.COMPUTE, 'storage'),
        ...pagedLayoutEntries(VALUES_AT, sort, GPUShaderStage.COMPUTE, 'storage'),
        entry(5, 'storage'),
        ...sceneLayoutEntries(scene.paging, SCENE_AT),
      ],
    });
    const sorted = (name: string, binding: number) => pagedWgsl({ name, type: 'u32', perSplat: '1u', paging: sort, binding, access: 'read_write' });
    const code = [commonWgsl, sceneWgsl(scene.precision, scene.paging, SCENE_AT), sorted('keys', KEYS_AT), sorted('values', VALUES_AT), projectWgsl].join('\n');
    const module = device.createShaderModule({ label: 'ProjectPass.module', code });
    const pipeline = device.createComputePipeline({
      label: 'ProjectPass.pipeline',
      layout: device.createPipelineLayout({ label: 'ProjectPass.pipelineLayout', bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main', constants: { WORKGROUP_SIZE } },
    });
    p = { layout, pipeline };
    byKind.set(key, p);
  }
  return p;
}

export interface ProjectBuffers {
  frame: GPUBuffer;
  /** The scene (its pages and layout). */
  scene: GpuScene;
  /** The depth keys and splat ids, paged alike (paging.ts sortPagingFor). */
  keys: PagedBuffer;
  values: PagedBuffer;
  /** Indirect draw arguments; word 1 (instanceCount) is the append counter. */
  drawArgs: GPUBuffer;
}

/**
 * The project/cull pass: one thread per splat computes its view depth, culls it,
 * and appends (depth key, id) of the visible ones (shaders/project/project.wgsl).
 */
export class ProjectPass {
  private readonly pipeline: GPUComputePipeline;
  private readonly bindGroup: GPUBindGroup;
  private readonly groups: [number, number];

  constructor(device: GPUDevice, buffers: ProjectBuffers, readonly splatCount: number) {
    const { layout, pipeline } = pipelineFor(device, buffers.scene, buffers.keys.paging);
    this.pipeline = pipeline;
    const entry = (binding: number, buffer: GPUBuffer): GPUBindGroupEntry => ({ binding, resource: { buffer } });
    this.bindGroup = device.createBindGroup({
      label: 'ProjectPass.bindGroup',
      layout,
      entries: [entry(0, buffers.frame), ...buffers.keys.entries(KEYS_AT), ...buffers.values.entries(VALUES_AT), entry(5, buffers.drawArgs), ...buffers.scene.bindEntries(SCENE_AT)],
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
