import commonWgsl from '../../../shaders/splat_common.wgsl?raw';
import tilesCommonWgsl from '../../../shaders/tiles/tiles_common.wgsl?raw';
import shEvalWgsl from '../../../shaders/sh_eval.wgsl?raw';
import projectSplatWgsl from '../../../shaders/project_splat.wgsl?raw';
import projectWgsl from '../../../shaders/tiles/project.wgsl?raw';
import settleWgsl from '../../../shaders/tiles/settle.wgsl?raw';
import rangesWgsl from '../../../shaders/tiles/ranges.wgsl?raw';
import blendWgsl from '../../../shaders/tiles/blend.wgsl?raw';
import blendPlainWgsl from '../../../shaders/tiles/blend_plain.wgsl?raw';
import blendSubgroupsWgsl from '../../../shaders/tiles/blend_subgroups.wgsl?raw';
import fullscreenWgsl from '../../../shaders/fullscreen.wgsl?raw';
import fallbackWgsl from '../../../shaders/tiles/fallback.wgsl?raw';
import { SH_WGSL } from '../sh-wgsl';
import type { ScenePrecision } from '../scene-precision';
import { sceneWgsl } from '../scene-wgsl';

/** The tile rasteriser's pipelines and bind group layouts, built once per device. */
export interface TilePipelines {
  /** The project pass, a pipeline by scene precision (tileProjectPipeline). */
  project: { layout: GPUBindGroupLayout; byPrecision: Map<ScenePrecision, GPUComputePipeline> };
  settle: {
    layout: GPUBindGroupLayout;
    pipeline: GPUComputePipeline;
    clampFallback: GPUComputePipeline;
  };
  ranges: { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline };
  /** By output format and variant (the blend writes a storage texture of the target's format). */
  blend: Map<string, { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline }>;
  fallback: { layout: GPUBindGroupLayout; pipelines?: { fill: GPURenderPipeline; quads: GPURenderPipeline } };
  present: { layout: GPUBindGroupLayout; byFormat: Map<GPUTextureFormat, GPURenderPipeline> };
}

/**
 * Whether the blend can write a texture of `format` directly (as a storage texture):
 * rgba8unorm always, bgra8unorm (most canvases) where the device has
 * 'bgra8unorm-storage'. Then the frame's target needs STORAGE_BINDING usage and no
 * image is copied onto it; otherwise the blend writes an rgba8unorm image, presented.
 */
export function canBlendInto(device: GPUDevice, format: GPUTextureFormat): boolean {
  return format === 'rgba8unorm' || (format === 'bgra8unorm' && device.features.has('bgra8unorm-storage'));
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
    // frame, tiles, centers, covs, sh0, sh1, records, keys, values, counters (8 storage buffers: WebGPU's default limit a stage)
    'uniform', 'uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'read-only-storage', 'storage', 'storage', 'storage', 'storage',
  ]);
  const settleLayout = layoutOf(device, 'tiles.settle.layout', ['uniform', 'read-only-storage', 'storage', 'storage', 'storage', 'storage']);
  const rangesLayout = layoutOf(device, 'tiles.ranges.layout', ['uniform', 'read-only-storage', 'storage', 'storage', 'read-only-storage']);
  const fallbackLayout = device.createBindGroupLayout({
    label: 'tiles.fallback.layout',
    entries: [
      { binding: 0, visibility: GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, buffer: { type: 'uniform' } },
      { binding: 1, visibility: GPUShaderStage.VERTEX, buffer: { type: 'read-only-storage' } },
      { binding: 2, visibility: GPUShaderStage.VERTEX, buffer: { type: 'read-only-storage' } },
      { binding: 3, visibility: GPUShaderStage.VERTEX, buffer: { type: 'read-only-storage' } },
    ],
  });
  const presentLayout = device.createBindGroupLayout({
    label: 'tiles.present.layout',
    entries: [{ binding: 0, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'float' } }],
  });
  const settleCode = `${tilesCommonWgsl}\n${settleWgsl}`;
  p = {
    project: { layout: projectLayout, byPrecision: new Map() },
    settle: {
      layout: settleLayout,
      pipeline: compute(device, 'tiles.settle', settleLayout, settleCode, 'settle'),
      clampFallback: compute(device, 'tiles.settle', settleLayout, settleCode, 'clampFallback'),
    },
    ranges: { layout: rangesLayout, pipeline: compute(device, 'tiles.ranges', rangesLayout, `${tilesCommonWgsl}\n${rangesWgsl}`) },
    blend: new Map(),
    fallback: { layout: fallbackLayout },
    present: { layout: presentLayout, byFormat: new Map() },
  };
  cache.set(device, p);
  return p;
}

/** The project pass's pipeline for a scene of `precision` (its decode, scene-wgsl.ts). */
export function tileProjectPipeline(device: GPUDevice, precision: ScenePrecision): GPUComputePipeline {
  const p = tilePipelines(device).project;
  let pipeline = p.byPrecision.get(precision);
  if (!pipeline) {
    const code = `${SH_WGSL}\n${commonWgsl}\n${sceneWgsl(precision)}\n${tilesCommonWgsl}\n${shEvalWgsl}\n${projectSplatWgsl}\n${projectWgsl}`;
    pipeline = compute(device, `tiles.project(${precision})`, p.layout, code);
    p.byPrecision.set(precision, pipeline);
  }
  return pipeline;
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

/**
 * Whether the blend culls each batch per subgroup (blend_subgroups.wgsl): where the
 * device has 'subgroups' of at least 16 lanes (GPUs). With 4- or 8-lane subgroups
 * (SwiftShader, lavapipe: CPU adapters) a subgroup covers a few pixels and the
 * ballots cost more than they save: 2x the plain blend's time on SwiftShader.
 * SPLAT_BLEND_SUBGROUPS=1 / 0 in Node forces either (tests, measurements).
 */
export function blendUsesSubgroups(device: GPUDevice): boolean {
  if (!device.features.has('subgroups')) return false;
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.SPLAT_BLEND_SUBGROUPS;
  if (env === '1' || env === '0') return env === '1';
  const info = (device as GPUDevice & { adapterInfo?: { subgroupMinSize?: number } }).adapterInfo;
  return (info?.subgroupMinSize ?? 0) >= 16;
}

/** The blend pipeline writing a storage texture of `format` (canBlendInto). */
export function blendPipeline(device: GPUDevice, format: GPUTextureFormat): { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline } {
  const p = tilePipelines(device);
  const sg = blendUsesSubgroups(device);
  const key = `${format}${sg ? '+subgroups' : ''}`;
  let b = p.blend.get(key);
  if (!b) {
    const layout = device.createBindGroupLayout({
      label: `tiles.blend.layout(${format})`,
      entries: [
        ...(['uniform', 'read-only-storage', 'read-only-storage', 'read-only-storage'] as const).map((type, binding) => ({
          binding,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type },
        })),
        { binding: 4, visibility: GPUShaderStage.COMPUTE, texture: { sampleType: 'float' } },
        { binding: 5, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: 6, visibility: GPUShaderStage.COMPUTE, storageTexture: { access: 'write-only', format } },
      ],
    });
    // `enable` directives come first in a module.
    const code = `${sg ? 'enable subgroups;\n' : ''}${tilesCommonWgsl}\n${blendWgsl.replaceAll('OUTPUT_FORMAT', format)}\n${
      sg ? blendSubgroupsWgsl.replace(/^\s*enable\s+subgroups;\s*$/m, '') : blendPlainWgsl
    }`;
    b = { layout, pipeline: compute(device, `tiles.blend(${format})`, layout, code) };
    p.blend.set(key, b);
  }
  return b;
}

/** The format of a fallback frame's image (fallback.wgsl): blended in half floats, clamped once when copied. */
export const FALLBACK_FORMAT: GPUTextureFormat = 'rgba16float';

/** A fallback frame's background fill and quads (shaders/tiles/fallback.wgsl), into a FALLBACK_FORMAT image. */
export function fallbackPipelines(device: GPUDevice): { fill: GPURenderPipeline; quads: GPURenderPipeline } {
  const p = tilePipelines(device).fallback;
  if (!p.pipelines) {
    const module = device.createShaderModule({ label: 'tiles.fallback.module', code: `${tilesCommonWgsl}\n${fallbackWgsl}` });
    const layout = device.createPipelineLayout({ label: 'tiles.fallback.pipelineLayout', bindGroupLayouts: [p.layout] });
    p.pipelines = {
      fill: device.createRenderPipeline({
        label: 'tiles.fallback.fill',
        layout,
        vertex: { module, entryPoint: 'vs_fill' },
        fragment: { module, entryPoint: 'fs_fill', targets: [{ format: FALLBACK_FORMAT }] },
        primitive: { topology: 'triangle-list' },
      }),
      quads: device.createRenderPipeline({
        label: 'tiles.fallback.quads',
        layout,
        vertex: { module, entryPoint: 'vs' },
        fragment: {
          module,
          entryPoint: 'fs',
          targets: [{
            format: FALLBACK_FORMAT,
            blend: {
              color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha', operation: 'add' },
              alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
            },
          }],
        },
        primitive: { topology: 'triangle-strip' },
      }),
    };
  }
  return p.pipelines;
}
