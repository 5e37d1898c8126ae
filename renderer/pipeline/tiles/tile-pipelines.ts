import commonWgsl from '../../../shaders/splat_common.wgsl?raw';
import tilesCommonWgsl from '../../../shaders/tiles/tiles_common.wgsl?raw';
import shEvalWgsl from '../../../shaders/sh_eval.wgsl?raw';
import projectSplatWgsl from '../../../shaders/project_splat.wgsl?raw';
import projectWgsl from '../../../shaders/tiles/project.wgsl?raw';
import keysWgsl from '../../../shaders/tiles/keys.wgsl?raw';
import rangesWgsl from '../../../shaders/tiles/ranges.wgsl?raw';
import blendWgsl from '../../../shaders/tiles/blend.wgsl?raw';
import fullscreenWgsl from '../../../shaders/fullscreen.wgsl?raw';
import { SH_WGSL } from '../sh-wgsl';

/** The tile rasteriser's pipelines and bind group layouts, built once per device. */
export interface TilePipelines {
  project: { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline };
  keys: { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline; finalize: GPUComputePipeline };
  ranges: { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline };
  blend: { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline };
  present: { layout: GPUBindGroupLayout; byFormat: Map<GPUTextureFormat, GPURenderPipeline> };
}

const cache = new WeakMap<GPUDevice, TilePipelines>();

type Entry = 'uniform' | 'read-only-storage' | 'storage';

function layoutOf(device: GPUDevice, label: string, entries: Entry[], extra: GPUBindGroupLayoutEntry[] = []): GPUBindGroupLayout {
  return device.createBindGroupLayout({
    label,
    entries: [
      ...entries.map((type, binding) => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } })),
      ...extra,
    ],
  });
}

function compute(device: GPUDevice, label: string, layout: GPUBindGroupLayout, code: string, entryPoint = 'main'): GPUComputePipeline {
  const module = device.createShaderModule({ label: `${label}.module`, code });
  return device.createComputePipeline({
    label: `${label}.pipeline(${entryPoint})`,
    layout: device.createPipelineLayout({ label: `${label}.pipelineLayout`, bindGroupLayouts: [layout] }),
    compute: { module, entryPoint },
  });
}

export function tilePipelines(device: GPUDevice): TilePipelines {
  let p = cache.get(device);
  if (p) return p;
  const projectLayout = layoutOf(device, 'tiles.project.layout', [
    // frame, tiles, centers, covs, sh0, sh1, records, footprints (6 storage buffers of the 8 a stage may bind by default)
    'uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage',
  ]);
  const keysLayout = layoutOf(device, 'tiles.keys.layout', ['uniform', 'read-only-storage', 'storage', 'storage', 'storage', 'storage', 'read-only-storage']);
  const rangesLayout = layoutOf(device, 'tiles.ranges.layout', ['uniform', 'read-only-storage', 'read-only-storage', 'storage']);
  const blendLayout = layoutOf(device, 'tiles.blend.layout', ['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage'], [
    { binding: 4, visibility: GPUShaderStage.COMPUTE, storageTexture: { access: 'write-only', format: 'rgba8unorm' } },
  ]);
  const presentLayout = device.createBindGroupLayout({
    label: 'tiles.present.layout',
    entries: [{ binding: 0, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'float' } }],
  });
  const keysCode = `${tilesCommonWgsl}\n${keysWgsl}`;
  p = {
    project: {
      layout: projectLayout,
      pipeline: compute(device, 'tiles.project', projectLayout, `${SH_WGSL}\n${commonWgsl}\n${tilesCommonWgsl}\n${shEvalWgsl}\n${projectSplatWgsl}\n${projectWgsl}`),
    },
    keys: {
      layout: keysLayout,
      pipeline: compute(device, 'tiles.keys', keysLayout, keysCode),
      finalize: compute(device, 'tiles.keys', keysLayout, keysCode, 'finalize'),
    },
    ranges: { layout: rangesLayout, pipeline: compute(device, 'tiles.ranges', rangesLayout, `${tilesCommonWgsl}\n${rangesWgsl}`) },
    blend: { layout: blendLayout, pipeline: compute(device, 'tiles.blend', blendLayout, `${tilesCommonWgsl}\n${blendWgsl}`) },
    present: { layout: presentLayout, byFormat: new Map() },
  };
  cache.set(device, p);
  return p;
}

/** The present pipeline (blend image -> target) for a target format. */
export function presentPipeline(device: GPUDevice, format: GPUTextureFormat): { layout: GPUBindGroupLayout; pipeline: GPURenderPipeline } {
  const p = tilePipelines(device).present;
  let pipeline = p.byFormat.get(format);
  if (!pipeline) {
    const module = device.createShaderModule({ label: 'tiles.present.module', code: fullscreenWgsl });
    pipeline = device.createRenderPipeline({
      label: `tiles.present.pipeline(${format})`,
      layout: device.createPipelineLayout({ label: 'tiles.present.pipelineLayout', bindGroupLayouts: [p.layout] }),
      vertex: { module, entryPoint: 'vs_full' },
      fragment: { module, entryPoint: 'fs_copy', targets: [{ format }] },
      primitive: { topology: 'triangle-list' },
    });
    p.byFormat.set(format, pipeline);
  }
  return { layout: p.layout, pipeline };
}
