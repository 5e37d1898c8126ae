import commonWgsl from '../../../shaders/stage/splat_common.wgsl?raw';
import prepareWgsl from '../../../shaders/draw/quads/splat_prepare.wgsl?raw';
import shEvalWgsl from '../../../shaders/project/sh_eval.wgsl?raw';
import projectSplatWgsl from '../../../shaders/project/project_splat.wgsl?raw';
import splatWgsl from '../../../shaders/draw/quads/splat.wgsl?raw';
import f2bWgsl from '../../../shaders/draw/quads/splat_f2b.wgsl?raw';
import fullscreenWgsl from '../../../shaders/draw/fullscreen.wgsl?raw';
import { SH_WGSL } from '../../project/sh-wgsl';
import type { GpuScene } from '../../gpu-scene/gpu-scene';
import { PagedBuffer, pagedLayoutEntries, pagedWgsl, pagingFor } from '../../gpu-scene/paging';
import { drawKindKey, sceneLayoutEntries, sceneWgsl, type DrawKind, type SceneBindings } from '../../gpu-scene/scene-wgsl';

/**
 * 'splat': the real draw; 'floor': the same geometry with a trivial fragment shader;
 * 'count': the floor's fragments counted into a buffer (covered and contributing
 * pixels; a measurement, slow: atomics per fragment).
 */
export type DrawVariant = 'splat' | 'floor' | 'count';

/**
 * The polygon each splat is drawn with (shaders/draw/quads/splat.wgsl explains each):
 * 'quad' the rectangle at the cut's sigma (before issue 9); 'rect', 'hex', 'oct'
 * a rectangle, hexagon or octagon around the splat's 1/255 alpha contour (capped at
 * the cut); 'tri' one triangle around it; 'auto' per splat, the triangle for small
 * contours and the rectangle for large ones. All give the same image: only the
 * pixels the fragment test rejects differ.
 */
export const DRAW_GEOMETRIES = ['quad', 'rect', 'hex', 'oct', 'tri', 'auto'] as const;
export type DrawGeometry = (typeof DRAW_GEOMETRIES)[number];
/** The default: measured fastest on the H200 for the same image (docs/PERFORMANCE.md). */
export const DEFAULT_GEOMETRY: DrawGeometry = 'tri';

/** Triangle-strip vertices of one splat for each geometry (the drawIndirect vertexCount). */
export const VERTICES_PER_SPLAT: Readonly<Record<DrawGeometry, number>> = { quad: 4, rect: 4, hex: 6, oct: 8, tri: 3, auto: 4 };

/** PlayCanvas's extent: quads and fragments stop at 2 sqrt(2) sigma (the `sigmaCut` setting). */
export const CUT_SIGMA = 2 * Math.SQRT2;
/** The forward model's extent. */
export const MODEL_SIGMA = 3;

/** 'auto': the contour-ellipse area (px^2) from which the rectangle is drawn instead of the triangle. */
export const DEFAULT_AUTO_AREA = 256;

/** How the splats are drawn: geometry and extent. */
export interface DrawShape {
  geometry: DrawGeometry;
  /** Stop at 2 sqrt(2) sigma instead of 3 (changes the image). */
  sigmaCut: boolean;
  /** 'auto' only: the rectangle from this contour-ellipse area (px^2) up; default DEFAULT_AUTO_AREA. */
  autoArea?: number;
  /** Draw a plain triangle list (3 vertices a triangle) instead of an instanced strip; default DEFAULT_LIST. */
  list?: boolean;
  /**
   * Front to back in chunks, skipping pixels already opaque (see DrawPass); default
   * DEFAULT_FRONT_TO_BACK. Strips only.
   */
  frontToBack?: boolean;
  /** Front to back: the number of chunks (masks between them); default F2B_CHUNKS. For tests. */
  chunks?: number;
}

/** A frame's draw order setting; 'auto' is resolved per view by SplatRenderer. */
export const DRAW_ORDERS = ['auto', 'back-to-front', 'front-to-back'] as const;
export type DrawOrder = (typeof DRAW_ORDERS)[number];

/** Front to back unless the shape says otherwise (SplatRenderer resolves its 'auto' order into the shape). */
export const DEFAULT_FRONT_TO_BACK = false;
/**
 * Chunks of the front-to-back draw: chunk c < F2B_CHUNKS - 1 ends at count / 2^(F2B_CHUNKS - 1 - c)
 * of the front-to-back order (the nearest 1/64, then 1/32, ...), the last at count;
 * each chunk but the last is followed by a mask pass.
 */
export const F2B_CHUNKS = 7;
/** The most chunks the chunk buffers hold. */
export const F2B_MAX_CHUNKS = 16;
/** Depth format of the front-to-back mask. */
const MASK_FORMAT: GPUTextureFormat = 'depth16unorm';
/**
 * The front-to-back accumulation texture's format. Not rgba8unorm: there the factor
 * (1 - dst.a) of every later splat is an 8-bit step, so transmittances under ~0.05
 * are off by tens of percent; measured 1-6 dB worse against the CPU reference than
 * back to front, while half floats are 0.3-10 dB better (test/gpu/draw-geometry.test.ts).
 * Its alpha reaches exactly 1 once the transmittance is under 2^-12.
 */
const ACCUM_FORMAT: GPUTextureFormat = 'rgba16float';
/** Byte stride of the chunk records (the minimum storage dynamic-offset alignment). */
const CHUNK_STRIDE = 256;
/**
 * The control buffer of the prepare pass (shaders/draw/quads/splat_prepare.wgsl `control`): the
 * list draw's indirect arguments at byte 0, chunk c's at CONTROL_CHUNK_ARGS + 16c,
 * the count of sorted splats (copied there from the draw arguments) at CONTROL_COUNT,
 * chunk c's record at CONTROL_CHUNK_INFO + CHUNK_STRIDE c. One buffer, so that the
 * prepare pass binds 7 storage buffers unpaged (WebGPU's default per stage is 8), and
 * a paged scene has as many bindings to spare as can be (paging.ts).
 */
const CONTROL_CHUNK_ARGS = 16;
/** Byte offset of the count (splat_prepare.wgsl COUNT_WORD). */
const CONTROL_COUNT = 127 * 4;
const CONTROL_CHUNK_INFO = 512;
const CONTROL_BYTES = CONTROL_CHUNK_INFO + F2B_MAX_CHUNKS * CHUNK_STRIDE;

/** Instanced strips or a triangle list: measured on the H200 (docs/PERFORMANCE.md). */
export const DEFAULT_LIST = false;

/**
 * A draw shape as text, e.g. `oct`, `auto+cut`, `auto:128` (auto's area), `rect@list`:
 * the form of bench:frame's `--geometry` list and of its rows' `draw` column.
 */
export function parseDrawShape(text: string, sigmaCut = false): DrawShape {
  const m = /^([a-z]+)(?::(\d+(?:\.\d+)?))?()(\+cut)?(\+f2b|\+b2f)?(@list|@strip)?$/.exec(text.trim());
  const geometry = m?.[1] as DrawGeometry | undefined;
  if (!m || !geometry || !DRAW_GEOMETRIES.includes(geometry)) {
    throw new Error(`draw shape "${text}": expected GEOMETRY[:AUTO_AREA][+cut][+f2b|+b2f][@list|@strip] with GEOMETRY one of ${DRAW_GEOMETRIES.join(', ')}`);
  }
  const shape: DrawShape = { geometry, sigmaCut: sigmaCut || m[4] !== undefined };
  if (m[5] !== undefined) shape.frontToBack = m[5] === '+f2b';
  if (m[6] !== undefined) shape.list = m[6] === '@list';
  if (shape.frontToBack && shape.list) throw new Error(`draw shape "${text}": front to back draws strips only`);
  if (m[2] !== undefined) {
    if (geometry !== 'auto') throw new Error(`draw shape "${text}": an area is for 'auto' only`);
    shape.autoArea = Number(m[2]);
  }
  return shape;
}

/** The inverse of {@link parseDrawShape}. */
export function formatDrawShape(shape: DrawShape): string {
  const areas = shape.geometry === 'auto' && shape.autoArea !== undefined ? `:${shape.autoArea}` : '';
  const mode = shape.list === undefined ? '' : shape.list ? '@list' : '@strip';
  const order = shape.frontToBack === undefined ? '' : shape.frontToBack ? '+f2b' : '+b2f';
  return `${shape.geometry}${areas}${shape.sigmaCut ? '+cut' : ''}${order}${mode}`;
}

/** Coverage slots in shaders/draw/quads/splat.wgsl's `coverage` (2 counters each). */
const COVERAGE_SLOTS = 256;
export const COVERAGE_BYTES = COVERAGE_SLOTS * 2 * 4;
/** Bytes of one record of shaders/draw/quads/splat_prepare.wgsl (3 vec4f). */
export const RECORD_BYTES = 48;
const WORKGROUP_SIZE = 256;
const MAX_GROUPS_X = 65535;

/** Vertices of one splat's triangle list: 3 per triangle of its strip. */
export function triangleVertices(geometry: DrawGeometry): number {
  return 3 * (VERTICES_PER_SPLAT[geometry] - 2);
}

/** The scene's bindings in the prepare pass (shaders/draw/quads/splat_prepare.wgsl), the sorted ids' and the records'. */
const PREPARE_SCENE_AT: SceneBindings = { centers: 1, covs: 2, sh: 3 };
const PREPARE_ORDER_AT = 5;
const PREPARE_RECORDS_AT = 7;
/** The records' binding in the draw (shaders/draw/quads/splat.wgsl). */
const DRAW_RECORDS_AT = 1;

/** The pipelines and layouts of one DrawKind. */
interface DrawPipelines {
  prepareLayout: GPUBindGroupLayout;
  drawLayout: GPUBindGroupLayout;
  countLayout: GPUBindGroupLayout;
  chunkLayout: GPUBindGroupLayout;
  accumLayout: GPUBindGroupLayout;
  prepareModule: GPUShaderModule;
  drawModule: GPUShaderModule;
  f2bModule: GPUShaderModule;
  mask: GPURenderPipeline | null;
  composite: Map<string, GPURenderPipeline>;
  prepare: Map<string, GPUComputePipeline>;
  draw: Map<string, GPURenderPipeline>;
}
const cache = new WeakMap<GPUDevice, Map<string, DrawPipelines>>();

function pipelinesFor(device: GPUDevice, kind: DrawKind): DrawPipelines {
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

function preparePipeline(device: GPUDevice, kind: DrawKind, shape: DrawShape): GPUComputePipeline {
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

function chunksOf(shape: DrawShape): number {
  const k = shape.chunks ?? F2B_CHUNKS;
  if (!(Number.isInteger(k) && k >= 1 && k <= F2B_MAX_CHUNKS)) throw new Error(`draw shape: chunks ${k} out of 1..${F2B_MAX_CHUNKS}`);
  return k;
}

/** Whether a frame with this shape and variant is drawn front to back (the real draw only). */
export function drawsFrontToBack(shape: DrawShape, variant: DrawVariant): boolean {
  return variant === 'splat' && (shape.frontToBack ?? DEFAULT_FRONT_TO_BACK) && !(shape.list ?? DEFAULT_LIST);
}

function drawPipeline(device: GPUDevice, kind: DrawKind, format: GPUTextureFormat, variant: DrawVariant, shape: DrawShape): GPURenderPipeline {
  const p = pipelinesFor(device, kind);
  const area = shape.autoArea ?? DEFAULT_AUTO_AREA;
  const f2b = drawsFrontToBack(shape, variant);
  const list = !f2b && (shape.list ?? DEFAULT_LIST);
  const cut = shape.sigmaCut ? CUT_SIGMA : MODEL_SIGMA;
  if (f2b) format = ACCUM_FORMAT;
  const key = `${format}/${variant}/${shape.geometry}/${cut}/${area}/${list ? 'list' : 'strip'}/${f2b ? 'f2b' : 'b2f'}`;
  let pipeline = p.draw.get(key);
  if (!pipeline) {
    pipeline = device.createRenderPipeline({
      label: `DrawPass.pipeline(${key})`,
      layout: device.createPipelineLayout({
        label: 'DrawPass.pipelineLayout',
        bindGroupLayouts: f2b ? [p.drawLayout, p.chunkLayout] : [variant === 'count' ? p.countLayout : p.drawLayout],
      }),
      vertex: {
        module: p.drawModule,
        entryPoint: f2b ? 'vs_f2b' : 'vs',
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
function maskPipeline(device: GPUDevice, kind: DrawKind): GPURenderPipeline {
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
function compositePipeline(device: GPUDevice, kind: DrawKind, format: GPUTextureFormat): GPURenderPipeline {
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

export interface DrawBuffers {
  frame: GPUBuffer;
  /** The scene (its pages and layout). */
  scene: GpuScene;
  /** The most bytes one binding holds (the records are paged under it: paging.ts). */
  bindingBytes: number;
  /** Sorted splat ids, back to front (paged: paging.ts sortPagingFor). */
  order: PagedBuffer;
  /** (vertices a splat, count, 0, 0): the count is the project pass's append counter. */
  drawArgs: GPUBuffer;
}

/**
 * The splat draw, two passes:
 *   prepare (compute, shaders/draw/quads/splat_prepare.wgsl): per sorted splat, once, the
 *     projection, contour extent and colour, as a record in draw order;
 *   draw (shaders/draw/quads/splat.wgsl): one polygon per record, back to front, as an instanced
 *     strip (drawArgs, whose vertexCount word must be VERTICES_PER_SPLAT of the shape)
 *     or a triangle list (arguments written by the prepare pass).
 * Owns the records (RECORD_BYTES a splat, paged: paging.ts) and the control buffer
 * (the list's and the front-to-back chunks' arguments).
 */
export class DrawPass {
  private readonly records: PagedBuffer;
  private readonly kind: DrawKind;
  /** Indirect arguments and chunk records (CONTROL_*). */
  private readonly control: GPUBuffer;
  private readonly prepareGroup: GPUBindGroup;
  private readonly drawGroup: GPUBindGroup;
  private readonly drawArgs: GPUBuffer;
  private readonly groups: [number, number];
  private countGroup: { coverage: GPUBuffer; group: GPUBindGroup } | null = null;
  private readonly chunkGroup: GPUBindGroup;
  /** Front to back: the accumulation texture and the mask, at the target's size. */
  private f2bTargets: { width: number; height: number; accum: GPUTexture; depth: GPUTexture; accumView: GPUTextureView; depthView: GPUTextureView; group: GPUBindGroup } | null = null;

  constructor(
    private readonly device: GPUDevice,
    readonly format: GPUTextureFormat,
    private readonly buffers: DrawBuffers,
    capacity: number,
  ) {
    this.records = new PagedBuffer(device, 'DrawPass.records', pagingFor(capacity, RECORD_BYTES, buffers.bindingBytes), GPUBufferUsage.STORAGE);
    this.kind = { scene: buffers.scene, records: this.records.paging, order: buffers.order.paging };
    const p = pipelinesFor(device, this.kind);
    this.drawArgs = buffers.drawArgs;
    this.control = device.createBuffer({ label: 'DrawPass.control', size: CONTROL_BYTES, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
    this.chunkGroup = device.createBindGroup({
      label: 'DrawPass.chunkGroup',
      layout: p.chunkLayout,
      entries: [{ binding: 0, resource: { buffer: this.control, offset: CONTROL_CHUNK_INFO, size: 16 } }],
    });
    const entry = (binding: number, buffer: GPUBuffer): GPUBindGroupEntry => ({ binding, resource: { buffer } });
    this.prepareGroup = device.createBindGroup({
      label: 'DrawPass.prepareGroup',
      layout: p.prepareLayout,
      entries: [
        entry(0, buffers.frame),
        ...buffers.scene.bindEntries(PREPARE_SCENE_AT),
        ...buffers.order.entries(PREPARE_ORDER_AT),
        ...this.records.entries(PREPARE_RECORDS_AT),
        entry(8, this.control),
      ],
    });
    this.drawGroup = device.createBindGroup({ label: 'DrawPass.drawGroup', layout: p.drawLayout, entries: [entry(0, buffers.frame), ...this.records.entries(DRAW_RECORDS_AT)] });
    const total = Math.max(1, Math.ceil(capacity / WORKGROUP_SIZE));
    // More than 65,535 workgroups spill into y; the shader linearises (x, y).
    const x = Math.min(total, MAX_GROUPS_X);
    this.groups = [x, Math.ceil(total / x)];
  }

  /**
   * Records prepare + draw. `timestamps`: begin of the prepare pass, end of the draw
   * (the draw stage includes its preparation). 'count' needs `coverage` (COVERAGE_BYTES, STORAGE).
   */
  encode(
    encoder: GPUCommandEncoder,
    target: GPUTextureView,
    size: { width: number; height: number },
    background: readonly [number, number, number],
    shape: DrawShape,
    variant: DrawVariant = 'splat',
    timestamps?: { querySet: GPUQuerySet; beginIndex?: number; endIndex: number },
    coverage?: GPUBuffer,
  ): void {
    // The count the prepare pass reads, into the control buffer (one storage binding fewer).
    encoder.copyBufferToBuffer(this.drawArgs, 4, this.control, CONTROL_COUNT, 4);
    const prep = encoder.beginComputePass({
      label: 'DrawPass.prepare',
      timestampWrites: timestamps?.beginIndex !== undefined ? { querySet: timestamps.querySet, beginningOfPassWriteIndex: timestamps.beginIndex } : undefined,
    });
    prep.setPipeline(preparePipeline(this.device, this.kind, shape));
    prep.setBindGroup(0, this.prepareGroup);
    prep.dispatchWorkgroups(this.groups[0], this.groups[1]);
    prep.end();
    if (drawsFrontToBack(shape, variant)) {
      this.encodeFrontToBack(encoder, target, size, background, shape, timestamps);
      return;
    }

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
      timestampWrites: timestamps && { querySet: timestamps.querySet, endOfPassWriteIndex: timestamps.endIndex },
    });
    pass.setPipeline(drawPipeline(this.device, this.kind, this.format, variant, shape));
    pass.setBindGroup(0, variant === 'count' ? this.countGroupFor(coverage) : this.drawGroup);
    if (shape.list ?? DEFAULT_LIST) pass.drawIndirect(this.control, 0);
    else pass.drawIndirect(this.drawArgs, 0);
    pass.end();
  }

  /**
   * Front to back with early termination. The splats are drawn nearest first into
   * a half-float accumulation texture (ACCUM_FORMAT) with the `under` blend, in
   * chunks of the draw order (chunk c of K ends at count / 2^(K-1-c): the nearest
   * 1/64, 1/32, ... for K = 7); after each chunk but the last, a mask pass writes
   * depth 0 where the accumulated alpha is exactly 1. There a pixel takes nothing
   * more ((1 - dst.a) = 0 in the blend), so the later chunks' fragments, at depth
   * 0.5, are dropped by the depth test before the fragment shader and the blend,
   * without changing the pixel. Last, the accumulated colour is blended over the
   * background onto the target (one rounding to the target's format, where back to
   * front rounds at every splat). The forward model stops at transmittance 1e-4;
   * here the alpha reaches 1 under 2^-12 (2.4e-4).
   */
  private encodeFrontToBack(
    encoder: GPUCommandEncoder,
    target: GPUTextureView,
    size: { width: number; height: number },
    background: readonly [number, number, number],
    shape: DrawShape,
    timestamps?: { querySet: GPUQuerySet; beginIndex?: number; endIndex: number },
  ): void {
    const t = this.f2bTargetsFor(size.width, size.height);
    const splats = drawPipeline(this.device, this.kind, ACCUM_FORMAT, 'splat', shape);
    const mask = maskPipeline(this.device, this.kind);
    const chunks = chunksOf(shape);
    for (let c = 0; c < chunks; c++) {
      const first = c === 0;
      const pass = encoder.beginRenderPass({
        label: `DrawPass.f2b[${c}]`,
        colorAttachments: [{ view: t.accumView, clearValue: { r: 0, g: 0, b: 0, a: 0 }, loadOp: first ? 'clear' : 'load', storeOp: 'store' }],
        depthStencilAttachment: { view: t.depthView, depthClearValue: 1, depthLoadOp: first ? 'clear' : 'load', depthStoreOp: 'store' },
      });
      pass.setPipeline(splats);
      pass.setBindGroup(0, this.drawGroup);
      pass.setBindGroup(1, this.chunkGroup, [c * CHUNK_STRIDE]);
      pass.drawIndirect(this.control, CONTROL_CHUNK_ARGS + c * 16);
      pass.end();
      if (c === chunks - 1) break;
      const m = encoder.beginRenderPass({
        label: `DrawPass.mask[${c}]`,
        colorAttachments: [],
        depthStencilAttachment: { view: t.depthView, depthLoadOp: 'load', depthStoreOp: 'store' },
      });
      m.setPipeline(mask);
      m.setBindGroup(0, t.group);
      m.draw(3);
      m.end();
    }
    const out = encoder.beginRenderPass({
      label: 'DrawPass.composite',
      colorAttachments: [{ view: target, clearValue: { r: background[0], g: background[1], b: background[2], a: 1 }, loadOp: 'clear', storeOp: 'store' }],
      timestampWrites: timestamps && { querySet: timestamps.querySet, endOfPassWriteIndex: timestamps.endIndex },
    });
    out.setPipeline(compositePipeline(this.device, this.kind, this.format));
    out.setBindGroup(0, t.group);
    out.draw(3);
    out.end();
  }

  private f2bTargetsFor(width: number, height: number) {
    const t = this.f2bTargets;
    if (t && t.width === width && t.height === height) return t;
    t?.accum.destroy();
    t?.depth.destroy();
    const size = { width: Math.max(1, width), height: Math.max(1, height) };
    const accum = this.device.createTexture({ label: 'DrawPass.accum', size, format: ACCUM_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.TEXTURE_BINDING });
    const depth = this.device.createTexture({ label: 'DrawPass.mask', size, format: MASK_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT });
    const accumView = accum.createView();
    const group = this.device.createBindGroup({ label: 'DrawPass.accumGroup', layout: pipelinesFor(this.device, this.kind).accumLayout, entries: [{ binding: 0, resource: accumView }] });
    this.f2bTargets = { width, height, accum, depth, accumView, depthView: depth.createView(), group };
    return this.f2bTargets;
  }

  private countGroupFor(coverage: GPUBuffer | undefined): GPUBindGroup {
    if (!coverage) throw new Error("DrawPass: the 'count' variant needs a coverage buffer");
    if (this.countGroup?.coverage !== coverage) {
      this.countGroup = {
        coverage,
        group: this.device.createBindGroup({
          label: 'DrawPass.countGroup',
          layout: pipelinesFor(this.device, this.kind).countLayout,
          entries: [{ binding: 0, resource: { buffer: this.buffers.frame } }, ...this.records.entries(DRAW_RECORDS_AT), { binding: 2, resource: { buffer: coverage } }],
        }),
      };
    }
    return this.countGroup.group;
  }

  destroy(): void {
    this.records.destroy();
    this.control.destroy();
    this.f2bTargets?.accum.destroy();
    this.f2bTargets?.depth.destroy();
    this.f2bTargets = null;
  }
}
