import commonWgsl from '../../../shaders/stage/splat_common.wgsl?raw';
import tilesCommonWgsl from '../../../shaders/draw/tiles/tiles_common.wgsl?raw';
import shEvalWgsl from '../../../shaders/project/sh_eval.wgsl?raw';
import projectSplatWgsl from '../../../shaders/project/project_splat.wgsl?raw';
import projectWgsl from '../../../shaders/draw/tiles/project.wgsl?raw';
import settleWgsl from '../../../shaders/draw/tiles/settle.wgsl?raw';
import rangesWgsl from '../../../shaders/draw/tiles/ranges.wgsl?raw';
import blendWgsl from '../../../shaders/draw/tiles/blend.wgsl?raw';
import blendPlainWgsl from '../../../shaders/draw/tiles/blend_plain.wgsl?raw';
import blendSubgroupsWgsl from '../../../shaders/draw/tiles/blend_subgroups.wgsl?raw';
import blendDepthCommonWgsl from '../../../shaders/draw/tiles/blend_depth_common.wgsl?raw';
import blendHostDepthWgsl from '../../../shaders/draw/tiles/blend_host_depth.wgsl?raw';
import blendOutputDepthWgsl from '../../../shaders/draw/tiles/blend_output_depth.wgsl?raw';
import fullscreenWgsl from '../../../shaders/draw/fullscreen.wgsl?raw';
import fallbackWgsl from '../../../shaders/draw/tiles/fallback.wgsl?raw';
import { SH_WGSL } from '../../project/sh-wgsl';
import { aheadAwarePipeline, DeviceCache, lazy } from '../../../sort/kernel-kit';
import { pagedLayoutEntries, pagedWgsl, type Paging } from '../../gpu-scene/paging';
import { drawKindKey, sceneLayoutEntries, sceneWgsl, type DrawKind, type SceneBindings } from '../../gpu-scene/scene-wgsl';

/** The scene's bindings in the project pass (shaders/draw/tiles/project.wgsl). */
export const PROJECT_SCENE_AT: SceneBindings = { centers: 2, covs: 3, sh: 4, objects: 5 };
/** Page 0's binding of the records in each pass that binds them. */
export const RECORDS_AT = { project: 6, settle: 1, fallback: 2, blend: 3 } as const;

/** Page 0's binding of the pairs' keys and values in each pass that binds them. */
export const PAIRS_AT = { project: { keys: 7, values: 8 }, settle: { keys: 2, values: 3 }, ranges: { keys: 1 }, fallback: { values: 1 }, blend: { values: 2 } } as const;

/** The pairs' WGSL in `pass`: the pages and accessors (keys_at, values_at; keys_put, values_put where it writes them). */
function pairsWgsl(kind: DrawKind, pass: keyof typeof PAIRS_AT): string {
  const at: { keys?: number; values?: number } = PAIRS_AT[pass];
  const access = pass === 'project' || pass === 'settle' ? 'read_write' : 'read';
  return (['keys', 'values'] as const)
    .filter((name) => at[name] !== undefined)
    .map((name) => pagedWgsl({ name, type: 'u32', perSplat: '1u', paging: kind.pairs!, binding: at[name]!, access }))
    .join('\n');
}

/** The records' WGSL (pages and accessors: records_at(i, k), k = 0, 1; records_put in the project pass). */
function recordsWgsl(kind: DrawKind, pass: keyof typeof RECORDS_AT): string {
  return pagedWgsl({ name: 'records', type: 'vec4u', perSplat: '2u', paging: kind.records, binding: RECORDS_AT[pass], access: pass === 'project' ? 'read_write' : 'read' });
}

/** The tile rasteriser's pipelines and bind group layouts, built once per device and DrawKind. */
export interface TilePipelines {
  /** The project pass (tileProjectPipeline: its pipeline made on first use). */
  project: { layout: GPUBindGroupLayout; pipeline: () => GPUComputePipeline };
  settle: {
    layout: GPUBindGroupLayout;
    pipeline: GPUComputePipeline;
    clampFallback: GPUComputePipeline;
  };
  ranges: { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline };
  /** By output format and variant (the blend writes a storage texture of the target's format). */
  blend: Map<string, { layout: GPUBindGroupLayout; pipeline: () => GPUComputePipeline }>;
  fallback: { layout: GPUBindGroupLayout; pipelines?: { fill: GPURenderPipeline; quads: GPURenderPipeline } };
  present: { layout: GPUBindGroupLayout; byFormat: Map<string, GPURenderPipeline> };
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

/** By device and DrawKind; a set made during a compile-ahead build is not kept, and lazy getters keep no placeholder (kernel-kit.ts). */
const cache = new DeviceCache<TilePipelines>();

type Entry = 'uniform' | 'read-only-storage' | 'storage';

/** A compute layout of buffer bindings 0, 1, ... of `entries`; those in `paged` take the pages of their paging (paging.ts). */
function layoutOf(device: GPUDevice, label: string, entries: Entry[], paged: ReadonlyMap<number, Paging> = new Map()): GPUBindGroupLayout {
  const C = GPUShaderStage.COMPUTE;
  return device.createBindGroupLayout({
    label,
    entries: entries.flatMap((type, binding) => {
      const paging = paged.get(binding);
      return paging ? pagedLayoutEntries(binding, paging, C, type) : [{ binding, visibility: C, buffer: { type } }];
    }),
  });
}

/**
 * A compute pipeline of the tiles draw; compiled on the side during compileTilesAhead
 * (sort/kernel-kit.ts compileAhead: then a placeholder, which no cache here keeps).
 */
function compute(device: GPUDevice, label: string, layout: GPUBindGroupLayout, code: string, entryPoint = 'main'): GPUComputePipeline {
  const module = device.createShaderModule({ label: `${label}.module`, code });
  const full = `${label}.pipeline(${entryPoint})`;
  return aheadAwarePipeline(
    device,
    { label: full, layout: device.createPipelineLayout({ label: `${label}.pipelineLayout`, bindGroupLayouts: [layout] }), compute: { module, entryPoint } },
    `${full}\n${code}`,
  );
}

export function tilePipelines(device: GPUDevice, kind: DrawKind): TilePipelines {
  return cache.get(device, drawKindKey(kind), () => makeTilePipelines(device, kind));
}

function makeTilePipelines(device: GPUDevice, kind: DrawKind): TilePipelines {
  const projectLayout = device.createBindGroupLayout({
    label: 'tiles.project.layout',
    entries: [
      // frame, tiles; the scene's pages; records' pages, keys, values, counters (7 storage buffers unpaged)
      { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
      { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
      ...sceneLayoutEntries(kind.scene.paging, PROJECT_SCENE_AT),
      ...pagedLayoutEntries(RECORDS_AT.project, kind.records, GPUShaderStage.COMPUTE, 'storage'),
      ...pagedLayoutEntries(PAIRS_AT.project.keys, kind.pairs!, GPUShaderStage.COMPUTE, 'storage'),
      ...pagedLayoutEntries(PAIRS_AT.project.values, kind.pairs!, GPUShaderStage.COMPUTE, 'storage'),
      { binding: 9, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
    ],
  });
  const pairs = kind.pairs!;
  const settleLayout = layoutOf(
    device,
    'tiles.settle.layout',
    ['uniform', 'read-only-storage', 'storage', 'storage', 'storage', 'storage'],
    new Map([[RECORDS_AT.settle, kind.records], [PAIRS_AT.settle.keys, pairs], [PAIRS_AT.settle.values, pairs]]),
  );
  const rangesLayout = layoutOf(device, 'tiles.ranges.layout', ['uniform', 'read-only-storage', 'storage', 'storage', 'read-only-storage'], new Map([[PAIRS_AT.ranges.keys, pairs]]));
  const V = GPUShaderStage.VERTEX;
  const fallbackLayout = device.createBindGroupLayout({
    label: 'tiles.fallback.layout',
    entries: [
      { binding: 0, visibility: V | GPUShaderStage.FRAGMENT, buffer: { type: 'uniform' } },
      ...pagedLayoutEntries(PAIRS_AT.fallback.values, pairs, V, 'read-only-storage'),
      ...pagedLayoutEntries(RECORDS_AT.fallback, kind.records, V, 'read-only-storage'),
      { binding: 3, visibility: V, buffer: { type: 'read-only-storage' } },
    ],
  });
  const presentLayout = device.createBindGroupLayout({
    label: 'tiles.present.layout',
    entries: [{ binding: 0, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'float' } }],
  });
  const settleCode = `${tilesCommonWgsl}\n${recordsWgsl(kind, 'settle')}\n${pairsWgsl(kind, 'settle')}\n${settleWgsl}`;
  const projectCode = () =>
    [
      SH_WGSL,
      commonWgsl,
      sceneWgsl(kind.scene.precision, kind.scene.paging, PROJECT_SCENE_AT),
      recordsWgsl(kind, 'project'),
      pairsWgsl(kind, 'project'),
      tilesCommonWgsl,
      shEvalWgsl,
      projectSplatWgsl,
      projectWgsl,
    ].join('\n');
  return {
    project: { layout: projectLayout, pipeline: lazy(() => compute(device, `tiles.project(${drawKindKey(kind)})`, projectLayout, projectCode())) },
    settle: {
      layout: settleLayout,
      pipeline: compute(device, 'tiles.settle', settleLayout, settleCode, 'settle'),
      clampFallback: compute(device, 'tiles.settle', settleLayout, settleCode, 'clampFallback'),
    },
    ranges: { layout: rangesLayout, pipeline: compute(device, 'tiles.ranges', rangesLayout, `${tilesCommonWgsl}\n${pairsWgsl(kind, 'ranges')}\n${rangesWgsl}`) },
    blend: new Map(),
    fallback: { layout: fallbackLayout },
    present: { layout: presentLayout, byFormat: new Map() },
  };
}

/** The project pass's pipeline for a scene's precision and paging (its decode, scene-wgsl.ts). */
export function tileProjectPipeline(device: GPUDevice, kind: DrawKind): GPUComputePipeline {
  return tilePipelines(device, kind).project.pipeline();
}

/** The present pipeline (blend image -> target) for a target format. */
export function presentPipeline(device: GPUDevice, kind: DrawKind, format: GPUTextureFormat, over = false): { layout: GPUBindGroupLayout; pipeline: GPURenderPipeline } {
  const p = tilePipelines(device, kind).present;
  const key = `${format}${over ? '+over' : ''}`;
  let pipeline = p.byFormat.get(key);
  if (!pipeline) {
    const module = device.createShaderModule({ label: 'tiles.present.module', code: fullscreenWgsl });
    // `over`: a premultiplied image (colour, 1 - T) over the target's colour (a host's picture).
    const blend: GPUBlendState | undefined = over
      ? { color: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' }, alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' } }
      : undefined;
    pipeline = device.createRenderPipeline({
      label: `tiles.present.pipeline(${key})`,
      layout: device.createPipelineLayout({ label: 'tiles.present.pipelineLayout', bindGroupLayouts: [p.layout] }),
      vertex: { module, entryPoint: 'vs_full' },
      fragment: { module, entryPoint: 'fs_copy', targets: [{ format, ...(blend ? { blend } : {}) }] },
      primitive: { topology: 'triangle-list' },
    });
    p.byFormat.set(key, pipeline);
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

/** Replaces `from` (which must occur once) in `code`: the host-depth blend's patches of blend.wgsl. */
function patchOnce(code: string, from: string, to: string): string {
  const at = code.indexOf(from);
  if (at < 0 || code.indexOf(from, at + 1) >= 0) throw new Error(`tiles.blend host depth: blend.wgsl no longer has one '${from}'`);
  return code.slice(0, at) + to + code.slice(at + from.length);
}

/** The blend's variants with a host's depth (EncodeOptions.hostDepth) and a depth written for it (outputDepth). */
export interface BlendDepth {
  hostDepth: boolean;
  outputDepth: boolean;
}

const NO_DEPTH: BlendDepth = { hostDepth: false, outputDepth: false };

/**
 * blend.wgsl with a host depth (blend_host_depth.wgsl: each pixel's limit read once, a
 * splat behind it skipped) and/or an output depth (blend_output_depth.wgsl: the depth
 * where the opacity reaches 0.5 written); each splat's depth kept in the batch.
 */
function depthBlendWgsl(blend: string, depth: BlendDepth): string {
  const { hostDepth: host, outputDepth: out } = depth;
  let code = patchOnce(blend, 'batchC[l] = vec2f(rg.y, unpack2x16float(b.w).x);', 'batchC[l] = vec2f(rg.y, unpack2x16float(b.w).x);\n  batchDepth[l] = f32(b.w >> 16u);');
  const head = 'fn blendSplat(k: u32, pixel: vec2f, C: ptr<function, vec3f>, T: ptr<function, f32>) -> bool {';
  if (host) {
    code = patchOnce(code, head, `${head}\n  if (batchDepth[k] >= hostLimit) {\n    return false;\n  }`);
    // Over the host's picture: the image premultiplied (C, 1 - T), no background (presentPipeline `over`).
    code = patchOnce(
      code,
      '  textureStore(output, gid, vec4f(clamp(C + T * tiles.background, vec3f(0.0), vec3f(1.0)), 1.0));',
      '  textureStore(output, gid, vec4f(clamp(C, vec3f(0.0), vec3f(1.0)), 1.0 - T));',
    );
  }
  if (out) code = patchOnce(code, '  *T *= 1.0 - alpha;\n', '  *T *= 1.0 - alpha;\n  if (*T <= 0.5 && crossDepth16 < 0.0) {\n    crossDepth16 = batchDepth[k];\n  }\n');
  code = patchOnce(code, '  beginTile(lid, inside);\n', `  beginTile(lid, inside);\n${host ? '  hostLimit = hostDepthLimit(gid, inside);\n' : ''}${out ? '  crossDepth16 = -1.0;\n' : ''}`);
  if (out) {
    const none = '    crossDepth16 = -1.0;\n    writeOutputDepth(gid);\n';
    code = patchOnce(code, '    writePixel(gid, CT.rgb, CT.a);\n', '    writePixel(gid, CT.rgb, CT.a);\n    writeOutputDepth(gid);\n');
    code = patchOnce(code, '    writePixel(gid, vec3f(0.0), 1.0);\n', `    writePixel(gid, vec3f(0.0), 1.0);\n${none}`);
    code = patchOnce(code, '    textureStore(output, gid, vec4f(clamp(c, vec3f(0.0), vec3f(1.0)), 1.0));\n', `    textureStore(output, gid, vec4f(clamp(c, vec3f(0.0), vec3f(1.0)), 1.0));\n${none}`);
  }
  return [code, blendDepthCommonWgsl, host ? blendHostDepthWgsl : '', out ? blendOutputDepthWgsl : ''].join('\n');
}

/**
 * The blend pipeline writing a storage texture of `format` (canBlendInto); with
 * `depth`, the variants that stop each pixel's blend at a host's depth (binding 7, the
 * depth texture) and/or write a depth for the host (binding 9, an r32float storage
 * texture), both with binding 8 (their parameters): a pipeline and layout each.
 */
export function blendPipeline(device: GPUDevice, kind: DrawKind, format: GPUTextureFormat, depth: BlendDepth = NO_DEPTH): { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline } {
  const p = tilePipelines(device, kind);
  const sg = blendUsesSubgroups(device);
  const anyDepth = depth.hostDepth || depth.outputDepth;
  const variant = `${depth.hostDepth ? '+hostDepth' : ''}${depth.outputDepth ? '+outputDepth' : ''}`;
  const key = `${format}${sg ? '+subgroups' : ''}${variant}`;
  let b = p.blend.get(key);
  if (!b) {
    const C = GPUShaderStage.COMPUTE;
    const layout = device.createBindGroupLayout({
      label: `tiles.blend.layout(${format}${variant})`,
      entries: [
        ...(['uniform', 'read-only-storage'] as const).map((type, binding) => ({
          binding,
          visibility: C,
          buffer: { type },
        })),
        ...pagedLayoutEntries(PAIRS_AT.blend.values, kind.pairs!, C, 'read-only-storage'),
        ...pagedLayoutEntries(RECORDS_AT.blend, kind.records, C, 'read-only-storage'),
        { binding: 4, visibility: C, texture: { sampleType: 'float' } },
        { binding: 5, visibility: C, buffer: { type: 'read-only-storage' } },
        { binding: 6, visibility: C, storageTexture: { access: 'write-only', format } },
        ...(depth.hostDepth ? [{ binding: 7, visibility: C, texture: { sampleType: 'depth' as const } }] : []),
        ...(anyDepth ? [{ binding: 8, visibility: C, buffer: { type: 'uniform' as const } }] : []),
        ...(depth.outputDepth ? [{ binding: 9, visibility: C, storageTexture: { access: 'write-only' as const, format: 'r32float' as const } }] : []),
      ],
    });
    const blend = blendWgsl.replaceAll('OUTPUT_FORMAT', format);
    // `enable` directives come first in a module.
    const code = `${sg ? 'enable subgroups;\n' : ''}${tilesCommonWgsl}\n${recordsWgsl(kind, 'blend')}\n${pairsWgsl(kind, 'blend')}\n${anyDepth ? depthBlendWgsl(blend, depth) : blend}\n${
      sg ? blendSubgroupsWgsl.replace(/^\s*enable\s+subgroups;\s*$/m, '') : blendPlainWgsl
    }`;
    b = { layout, pipeline: lazy(() => compute(device, `tiles.blend(${format}${variant})`, layout, code)) };
    p.blend.set(key, b);
  }
  return { layout: b.layout, pipeline: b.pipeline() };
}

/** The format of a fallback frame's image (fallback.wgsl): blended in half floats, clamped once when copied. */
export const FALLBACK_FORMAT: GPUTextureFormat = 'rgba16float';

/** A fallback frame's background fill and quads (shaders/draw/tiles/fallback.wgsl), into a FALLBACK_FORMAT image. */
export function fallbackPipelines(device: GPUDevice, kind: DrawKind): { fill: GPURenderPipeline; quads: GPURenderPipeline } {
  const p = tilePipelines(device, kind).fallback;
  if (!p.pipelines) {
    const module = device.createShaderModule({ label: 'tiles.fallback.module', code: `${tilesCommonWgsl}\n${recordsWgsl(kind, 'fallback')}\n${pairsWgsl(kind, 'fallback')}\n${fallbackWgsl}` });
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
