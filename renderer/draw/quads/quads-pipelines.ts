/**
 * The quads draw's pipelines and layouts, one set per DrawKind (the scene's precision
 * and paging, the records' and the order's paging), cached per device; the layout of
 * its control buffer and records.
 */
import commonWgsl from '../../../shaders/stage/splat_common.wgsl?raw';
import prepareWgsl from '../../../shaders/draw/quads/splat_prepare.wgsl?raw';
import shEvalWgsl from '../../../shaders/project/sh_eval.wgsl?raw';
import projectSplatWgsl from '../../../shaders/project/project_splat.wgsl?raw';
import splatWgsl from '../../../shaders/draw/quads/splat.wgsl?raw';
import f2bWgsl from '../../../shaders/draw/quads/splat_f2b.wgsl?raw';
import fullscreenWgsl from '../../../shaders/draw/fullscreen.wgsl?raw';
import { SH_WGSL } from '../../project/sh-wgsl';
import { pagedLayoutEntries, pagedWgsl } from '../../gpu-scene/paging';
import { drawKindKey, sceneLayoutEntries, sceneWgsl, type DrawKind, type SceneBindings } from '../../gpu-scene/scene-wgsl';
import { chunksOf, CUT_SIGMA, DEFAULT_AUTO_AREA, DEFAULT_LIST, DRAW_GEOMETRIES, drawsFrontToBack, F2B_MAX_CHUNKS, MODEL_SIGMA, triangleVertices, VERTICES_PER_SPLAT, type DrawShape, type DrawVariant } from './draw-shape';

/** Depth format of the front-to-back mask. */
export const MASK_FORMAT: GPUTextureFormat = 'depth16unorm';
/**
 * The front-to-back accumulation texture's format. Not rgba8unorm: there the factor
 * (1 - dst.a) of every later splat is an 8-bit step, so transmittances under ~0.05
 * are off by tens of percent; measured 1-6 dB worse against the CPU reference than
 * back to front, while half floats are 0.3-10 dB better (test/gpu/draw-geometry.test.ts).
 * Its alpha reaches exactly 1 once the transmittance is under 2^-12.
 */
export const ACCUM_FORMAT: GPUTextureFormat = 'rgba16float';
/** Byte stride of the chunk records (the minimum storage dynamic-offset alignment). */
export const CHUNK_STRIDE = 256;
/**
 * The control buffer of the prepare pass (shaders/draw/quads/splat_prepare.wgsl `control`): the
 * list draw's indirect arguments at byte 0, chunk c's at CONTROL_CHUNK_ARGS + 16c,
 * the count of sorted splats (copied there from the draw arguments) at CONTROL_COUNT,
 * chunk c's record at CONTROL_CHUNK_INFO + CHUNK_STRIDE c. One buffer, so that the
 * prepare pass binds 7 storage buffers unpaged (WebGPU's default per stage is 8), and
 * a paged scene has as many bindings to spare as can be (paging.ts).
 */
export const CONTROL_CHUNK_ARGS = 16;
/** Byte offset of the count (splat_prepare.wgsl COUNT_WORD). */
export const CONTROL_COUNT = 127 * 4;
export const CONTROL_CHUNK_INFO = 512;
export const CONTROL_BYTES = CONTROL_CHUNK_INFO + F2B_MAX_CHUNKS * CHUNK_STRIDE;

/** Coverage slots in shaders/draw/quads/splat.wgsl's `coverage` (2 counters each). */
const COVERAGE_SLOTS = 256;
export const COVERAGE_BYTES = COVERAGE_SLOTS * 2 * 4;
/** Bytes of one record of shaders/draw/quads/splat_prepare.wgsl (3 vec4f). */
export const RECORD_BYTES = 48;
export const WORKGROUP_SIZE = 256;
export const MAX_GROUPS_X = 65535;

/** The scene's bindings in the prepare pass (shaders/draw/quads/splat_prepare.wgsl), the sorted ids' and the records'. */
export const PREPARE_SCENE_AT: SceneBindings = { centers: 1, covs: 2, sh: 3, objects: 4 };
export const PREPARE_ORDER_AT = 5;
export const PREPARE_RECORDS_AT = 7;
/** The records' binding in the draw (shaders/draw/quads/splat.wgsl). */
export const DRAW_RECORDS_AT = 1;

/** The pipelines and layouts of one DrawKind. */
interface DrawPipelines {
  prepareLayout: GPUBindGroupLayout;
  drawLayout: GPUBindGroupLayout;
  countLayout: GPUBindGroupLayout;
  chunkLayout: GPUBindGroupLayout;
  accumLayout: GPUBindGroupLayout;
  /** Over a host's depth: the host's NDC z of a view depth (splat.wgsl hostZ), group 1. */
  hostLayout: GPUBindGroupLayout;
  prepareModule: GPUShaderModule;
  drawModule: GPUShaderModule;
  f2bModule: GPUShaderModule;
  mask: GPURenderPipeline | null;
  composite: Map<string, GPURenderPipeline>;
  prepare: Map<string, GPUComputePipeline>;
  draw: Map<string, GPURenderPipeline>;
}
const cache = new WeakMap<GPUDevice, Map<string, DrawPipelines>>();

export function pipelinesFor(device: GPUDevice, kind: DrawKind): DrawPipelines {
  let byKind = cache.get(device);
  if (!byKind) cache.set(device, (byKind = new Map()));
  const key = drawKindKey(kind);
  let p = byKind.get(key);
  if (!p) {
    const C = GPUShaderStage.COMPUTE;
    const buffer = (binding: number, visibility: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility, buffer: { type } });
    const prepareLayout = device.createBindGroupLayout({
      label: 'DrawPass.prepareLayout',
      entries: [
        // frame; the scene's pages, order; the records' pages, control: 6 storage buffers unpaged
        buffer(0, C, 'uniform'),
        ...sceneLayoutEntries(kind.scene.paging, PREPARE_SCENE_AT),
        ...pagedLayoutEntries(PREPARE_ORDER_AT, kind.order!, C, 'read-only-storage'),
        ...pagedLayoutEntries(PREPARE_RECORDS_AT, kind.records, C, 'storage'),
        buffer(8, C, 'storage'),
      ],
    });
    const chunkLayout = device.createBindGroupLayout({
      label: 'DrawPass.chunkLayout',
      entries: [{ binding: 0, visibility: GPUShaderStage.VERTEX, buffer: { type: 'read-only-storage', hasDynamicOffset: true, minBindingSize: 16 } }],
    });
    const accumLayout = device.createBindGroupLayout({
      label: 'DrawPass.accumLayout',
      entries: [{ binding: 0, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'float' } }],
    });
    const hostLayout = device.createBindGroupLayout({
      label: 'DrawPass.hostLayout',
      entries: [{ binding: 1, visibility: GPUShaderStage.VERTEX, buffer: { type: 'uniform' } }],
    });
    const drawEntries = [
      buffer(0, GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, 'uniform'),
      ...pagedLayoutEntries(DRAW_RECORDS_AT, kind.records, GPUShaderStage.VERTEX, 'read-only-storage'),
    ];
    const drawLayout = device.createBindGroupLayout({ label: 'DrawPass.drawLayout', entries: drawEntries });
    const countLayout = device.createBindGroupLayout({
      label: 'DrawPass.countLayout',
      entries: [...drawEntries, buffer(2, GPUShaderStage.FRAGMENT, 'storage')],
    });
    p = {
      prepareLayout,
      drawLayout,
      countLayout,
      chunkLayout,
      accumLayout,
      hostLayout,
      f2bModule: device.createShaderModule({ label: 'DrawPass.f2bModule', code: `${fullscreenWgsl}\n${f2bWgsl}` }),
      mask: null,
      composite: new Map(),
      prepareModule: device.createShaderModule({
        label: `DrawPass.prepareModule(${key})`,
        code: [
          SH_WGSL,
          commonWgsl,
          sceneWgsl(kind.scene.precision, kind.scene.paging, PREPARE_SCENE_AT),
          pagedWgsl({ name: 'records', type: 'vec4f', perSplat: '3u', paging: kind.records, binding: PREPARE_RECORDS_AT, access: 'read_write' }),
          pagedWgsl({ name: 'order', type: 'u32', perSplat: '1u', paging: kind.order!, binding: PREPARE_ORDER_AT, access: 'read' }),
          shEvalWgsl,
          projectSplatWgsl,
          prepareWgsl,
        ].join('\n'),
      }),
      drawModule: device.createShaderModule({
        label: `DrawPass.drawModule(${key})`,
        code: [commonWgsl, pagedWgsl({ name: 'records', type: 'vec4f', perSplat: '3u', paging: kind.records, binding: DRAW_RECORDS_AT, access: 'read' }), splatWgsl].join('\n'),
      }),
      prepare: new Map(),
      draw: new Map(),
    };
    byKind.set(key, p);
  }
  return p;
}

const FRAGMENT_ENTRY: Record<DrawVariant, string> = { splat: 'fs', floor: 'fs_floor', count: 'fs_count' };

export function preparePipeline(device: GPUDevice, kind: DrawKind, shape: DrawShape): GPUComputePipeline {
  const p = pipelinesFor(device, kind);
  const constants = {
    WORKGROUP_SIZE,
    BLIND_TO_OPACITY: shape.geometry === 'quad' ? 1 : 0,
    CUT: shape.sigmaCut ? CUT_SIGMA : MODEL_SIGMA,
    TRIANGLE_VERTS: triangleVertices(shape.geometry),
    STRIP_VERTS: VERTICES_PER_SPLAT[shape.geometry],
    CHUNKS: chunksOf(shape),
  };
  const key = JSON.stringify(constants);
  let pipeline = p.prepare.get(key);
  if (!pipeline) {
    pipeline = device.createComputePipeline({
      label: `DrawPass.prepare(${key})`,
      layout: device.createPipelineLayout({ label: 'DrawPass.prepareLayout', bindGroupLayouts: [p.prepareLayout] }),
      compute: { module: p.prepareModule, entryPoint: 'main', constants },
    });
    p.prepare.set(key, pipeline);
  }
  return pipeline;
}
/** A host's depth attachment the quads are tested against (EncodeOptions.hostDepth): its format and convention. */
export interface HostDepthTest {
  format: GPUTextureFormat;
  reversed: boolean;
}

/**
 * The polygon draw of a format, variant and shape; with `host`, its variant over a host's
 * depth (back to front only: splat.wgsl vs_host, the host's depth format, read-only,
 * 'less' or reversed-Z 'greater'), one a depth format and convention.
 */
export function drawPipeline(device: GPUDevice, kind: DrawKind, format: GPUTextureFormat, variant: DrawVariant, shape: DrawShape, host?: HostDepthTest): GPURenderPipeline {
  const p = pipelinesFor(device, kind);
  const area = shape.autoArea ?? DEFAULT_AUTO_AREA;
  const f2b = drawsFrontToBack(shape, variant);
  if (host && f2b) throw new Error('DrawPass: a host depth is drawn back to front only');
  const list = !f2b && (shape.list ?? DEFAULT_LIST);
  const cut = shape.sigmaCut ? CUT_SIGMA : MODEL_SIGMA;
  if (f2b) format = ACCUM_FORMAT;
  const key = `${format}/${variant}/${shape.geometry}/${cut}/${area}/${list ? 'list' : 'strip'}/${f2b ? 'f2b' : 'b2f'}${host ? `/host:${host.format}${host.reversed ? ':reversed' : ''}` : ''}`;
  let pipeline = p.draw.get(key);
  if (!pipeline) {
    pipeline = device.createRenderPipeline({
      label: `DrawPass.pipeline(${key})`,
      layout: device.createPipelineLayout({
        label: 'DrawPass.pipelineLayout',
        bindGroupLayouts: f2b ? [p.drawLayout, p.chunkLayout] : host ? [variant === 'count' ? p.countLayout : p.drawLayout, p.hostLayout] : [variant === 'count' ? p.countLayout : p.drawLayout],
      }),
      vertex: {
        module: p.drawModule,
        entryPoint: f2b ? 'vs_f2b' : host ? 'vs_host' : 'vs',
        constants: {
          GEOMETRY: DRAW_GEOMETRIES.indexOf(shape.geometry),
          AUTO_RECT_AREA: area,
          LIST: list ? 1 : 0,
          TRIANGLE_VERTS: triangleVertices(shape.geometry),
        },
      },
      fragment: {
        module: p.drawModule,
        entryPoint: FRAGMENT_ENTRY[variant],
        constants: { CUT: cut },
        targets: [
          {
            format,
            blend: f2b ? UNDER : OVER,
          },
        ],
      },
      primitive: { topology: list ? 'triangle-list' : 'triangle-strip' },
      ...(f2b ? { depthStencil: { format: MASK_FORMAT, depthWriteEnabled: false, depthCompare: 'less' as const } } : {}),
      ...(host ? { depthStencil: { format: host.format, depthWriteEnabled: false, depthCompare: host.reversed ? ('greater' as const) : ('less' as const) } } : {}),
    });
    p.draw.set(key, pipeline);
  }
  return pipeline;
}

/** Premultiplied colour, back to front: dst = src + (1 - src.a) * dst. */
const OVER: GPUBlendState = {
  color: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
  alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
};
/** Premultiplied colour, front to back: dst = dst + (1 - dst.a) * src. */
const UNDER: GPUBlendState = {
  color: { srcFactor: 'one-minus-dst-alpha', dstFactor: 'one', operation: 'add' },
  alpha: { srcFactor: 'one-minus-dst-alpha', dstFactor: 'one', operation: 'add' },
};

/** The mask pass: depth 0 where the accumulated alpha is 1 (shaders/draw/quads/splat_f2b.wgsl fs_mask). */
export function maskPipeline(device: GPUDevice, kind: DrawKind): GPURenderPipeline {
  const p = pipelinesFor(device, kind);
  p.mask ??= device.createRenderPipeline({
    label: 'DrawPass.mask',
    layout: device.createPipelineLayout({ label: 'DrawPass.maskLayout', bindGroupLayouts: [p.accumLayout] }),
    vertex: { module: p.f2bModule, entryPoint: 'vs_full' },
    fragment: { module: p.f2bModule, entryPoint: 'fs_mask', targets: [] },
    depthStencil: { format: MASK_FORMAT, depthWriteEnabled: true, depthCompare: 'always' },
  });
  return p.mask;
}

/** The accumulated colour over the background, onto the target (fullscreen.wgsl fs_copy, blended). */
export function compositePipeline(device: GPUDevice, kind: DrawKind, format: GPUTextureFormat): GPURenderPipeline {
  const p = pipelinesFor(device, kind);
  let pipeline = p.composite.get(format);
  if (!pipeline) {
    pipeline = device.createRenderPipeline({
      label: `DrawPass.composite(${format})`,
      layout: device.createPipelineLayout({ label: 'DrawPass.compositeLayout', bindGroupLayouts: [p.accumLayout] }),
      vertex: { module: p.f2bModule, entryPoint: 'vs_full' },
      fragment: { module: p.f2bModule, entryPoint: 'fs_copy', targets: [{ format, blend: OVER }] },
    });
    p.composite.set(format, pipeline);
  }
  return pipeline;
}
