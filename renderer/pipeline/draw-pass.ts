import commonWgsl from '../../shaders/splat_common.wgsl?raw';
import prepareWgsl from '../../shaders/splat_prepare.wgsl?raw';
import splatWgsl from '../../shaders/splat.wgsl?raw';
import { SH_WGSL } from './sh-wgsl';

/**
 * 'splat': the real draw; 'floor': the same geometry with a trivial fragment shader;
 * 'count': the floor's fragments counted into a buffer (covered and contributing
 * pixels; a measurement, slow: atomics per fragment).
 */
export type DrawVariant = 'splat' | 'floor' | 'count';

/**
 * The polygon each splat is drawn with (shaders/splat.wgsl explains each):
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
}

/** Instanced strips or a triangle list: measured on the H200 (docs/PERFORMANCE.md). */
export const DEFAULT_LIST = false;

/**
 * A draw shape as text, e.g. `oct`, `auto+cut`, `auto:128` (auto's area), `rect@list`:
 * the form of bench:frame's `--geometry` list and of its rows' `draw` column.
 */
export function parseDrawShape(text: string, sigmaCut = false): DrawShape {
  const m = /^([a-z]+)(?::(\d+(?:\.\d+)?))?()(\+cut)?(@list|@strip)?$/.exec(text.trim());
  const geometry = m?.[1] as DrawGeometry | undefined;
  if (!m || !geometry || !DRAW_GEOMETRIES.includes(geometry)) {
    throw new Error(`draw shape "${text}": expected GEOMETRY[:AUTO_AREA][+cut][@list|@strip] with GEOMETRY one of ${DRAW_GEOMETRIES.join(', ')}`);
  }
  const shape: DrawShape = { geometry, sigmaCut: sigmaCut || m[4] !== undefined };
  if (m[5] !== undefined) shape.list = m[5] === '@list';
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
  return `${shape.geometry}${areas}${shape.sigmaCut ? '+cut' : ''}${mode}`;
}

/** Coverage slots in shaders/splat.wgsl's `coverage` (2 counters each). */
const COVERAGE_SLOTS = 256;
export const COVERAGE_BYTES = COVERAGE_SLOTS * 2 * 4;
/** Bytes of one record of shaders/splat_prepare.wgsl (3 vec4f). */
export const RECORD_BYTES = 48;
const WORKGROUP_SIZE = 256;
const MAX_GROUPS_X = 65535;

/** Vertices of one splat's triangle list: 3 per triangle of its strip. */
export function triangleVertices(geometry: DrawGeometry): number {
  return 3 * (VERTICES_PER_SPLAT[geometry] - 2);
}

interface DrawPipelines {
  prepareLayout: GPUBindGroupLayout;
  drawLayout: GPUBindGroupLayout;
  countLayout: GPUBindGroupLayout;
  prepareModule: GPUShaderModule;
  drawModule: GPUShaderModule;
  prepare: Map<string, GPUComputePipeline>;
  draw: Map<string, GPURenderPipeline>;
}
const cache = new WeakMap<GPUDevice, DrawPipelines>();

function pipelinesFor(device: GPUDevice): DrawPipelines {
  let p = cache.get(device);
  if (!p) {
    const C = GPUShaderStage.COMPUTE;
    const buffer = (binding: number, visibility: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility, buffer: { type } });
    const prepareLayout = device.createBindGroupLayout({
      label: 'DrawPass.prepareLayout',
      entries: [
        buffer(0, C, 'uniform'),
        ...[1, 2, 3, 4, 5].map((b) => buffer(b, C, 'read-only-storage')),
        buffer(6, C, 'storage'),
        buffer(7, C, 'storage'),
      ],
    });
    const drawEntries = [
      buffer(0, GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, 'uniform'),
      buffer(1, GPUShaderStage.VERTEX, 'read-only-storage'),
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
      prepareModule: device.createShaderModule({ label: 'DrawPass.prepareModule', code: `${SH_WGSL}\n${commonWgsl}\n${prepareWgsl}` }),
      drawModule: device.createShaderModule({ label: 'DrawPass.drawModule', code: `${commonWgsl}\n${splatWgsl}` }),
      prepare: new Map(),
      draw: new Map(),
    };
    cache.set(device, p);
  }
  return p;
}

const FRAGMENT_ENTRY: Record<DrawVariant, string> = { splat: 'fs', floor: 'fs_floor', count: 'fs_count' };

function preparePipeline(device: GPUDevice, shape: DrawShape): GPUComputePipeline {
  const p = pipelinesFor(device);
  const constants = {
    WORKGROUP_SIZE,
    BLIND_TO_OPACITY: shape.geometry === 'quad' ? 1 : 0,
    CUT: shape.sigmaCut ? CUT_SIGMA : MODEL_SIGMA,
    TRIANGLE_VERTS: triangleVertices(shape.geometry),
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

function drawPipeline(device: GPUDevice, format: GPUTextureFormat, variant: DrawVariant, shape: DrawShape): GPURenderPipeline {
  const p = pipelinesFor(device);
  const area = shape.autoArea ?? DEFAULT_AUTO_AREA;
  const list = shape.list ?? DEFAULT_LIST;
  const cut = shape.sigmaCut ? CUT_SIGMA : MODEL_SIGMA;
  const key = `${format}/${variant}/${shape.geometry}/${cut}/${area}/${list ? 'list' : 'strip'}`;
  let pipeline = p.draw.get(key);
  if (!pipeline) {
    pipeline = device.createRenderPipeline({
      label: `DrawPass.pipeline(${key})`,
      layout: device.createPipelineLayout({
        label: 'DrawPass.pipelineLayout',
        bindGroupLayouts: [variant === 'count' ? p.countLayout : p.drawLayout],
      }),
      vertex: {
        module: p.drawModule,
        entryPoint: 'vs',
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
            // Premultiplied colour, back to front: dst = src + (1 - src.a) * dst.
            blend: {
              color: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
              alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
            },
          },
        ],
      },
      primitive: { topology: list ? 'triangle-list' : 'triangle-strip' },
    });
    p.draw.set(key, pipeline);
  }
  return pipeline;
}

export interface DrawBuffers {
  frame: GPUBuffer;
  centers: GPUBuffer;
  covs: GPUBuffer;
  sh: GPUBuffer;
  /** Sorted splat ids, back to front. */
  order: GPUBuffer;
  /** (vertices a splat, count, 0, 0): the count is the project pass's append counter. */
  drawArgs: GPUBuffer;
}

/**
 * The splat draw, two passes:
 *   prepare (compute, shaders/splat_prepare.wgsl): per sorted splat, once, the
 *     projection, contour extent and colour, as a record in draw order;
 *   draw (shaders/splat.wgsl): one polygon per record, back to front, as an instanced
 *     strip (drawArgs, whose vertexCount word must be VERTICES_PER_SPLAT of the shape)
 *     or a triangle list (arguments written by the prepare pass).
 * Owns the records (RECORD_BYTES a splat) and the list's arguments.
 */
export class DrawPass {
  private readonly records: GPUBuffer;
  private readonly listArgs: GPUBuffer;
  private readonly prepareGroup: GPUBindGroup;
  private readonly drawGroup: GPUBindGroup;
  private readonly drawArgs: GPUBuffer;
  private readonly groups: [number, number];
  private countGroup: { coverage: GPUBuffer; group: GPUBindGroup } | null = null;

  constructor(
    private readonly device: GPUDevice,
    readonly format: GPUTextureFormat,
    private readonly buffers: DrawBuffers,
    capacity: number,
  ) {
    const p = pipelinesFor(device);
    this.drawArgs = buffers.drawArgs;
    this.records = device.createBuffer({ label: 'DrawPass.records', size: Math.max(1, capacity) * RECORD_BYTES, usage: GPUBufferUsage.STORAGE });
    this.listArgs = device.createBuffer({ label: 'DrawPass.listArgs', size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT });
    const entries = (list: GPUBuffer[]) => list.map((buffer, binding) => ({ binding, resource: { buffer } }));
    this.prepareGroup = device.createBindGroup({
      label: 'DrawPass.prepareGroup',
      layout: p.prepareLayout,
      entries: entries([buffers.frame, buffers.centers, buffers.covs, buffers.sh, buffers.order, buffers.drawArgs, this.records, this.listArgs]),
    });
    this.drawGroup = device.createBindGroup({ label: 'DrawPass.drawGroup', layout: p.drawLayout, entries: entries([buffers.frame, this.records]) });
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
    background: readonly [number, number, number],
    shape: DrawShape,
    variant: DrawVariant = 'splat',
    timestamps?: { querySet: GPUQuerySet; beginIndex: number; endIndex: number },
    coverage?: GPUBuffer,
  ): void {
    const prep = encoder.beginComputePass({
      label: 'DrawPass.prepare',
      timestampWrites: timestamps && { querySet: timestamps.querySet, beginningOfPassWriteIndex: timestamps.beginIndex },
    });
    prep.setPipeline(preparePipeline(this.device, shape));
    prep.setBindGroup(0, this.prepareGroup);
    prep.dispatchWorkgroups(this.groups[0], this.groups[1]);
    prep.end();

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
    pass.setPipeline(drawPipeline(this.device, this.format, variant, shape));
    pass.setBindGroup(0, variant === 'count' ? this.countGroupFor(coverage) : this.drawGroup);
    if (shape.list ?? DEFAULT_LIST) pass.drawIndirect(this.listArgs, 0);
    else pass.drawIndirect(this.drawArgs, 0);
    pass.end();
  }

  private countGroupFor(coverage: GPUBuffer | undefined): GPUBindGroup {
    if (!coverage) throw new Error("DrawPass: the 'count' variant needs a coverage buffer");
    if (this.countGroup?.coverage !== coverage) {
      this.countGroup = {
        coverage,
        group: this.device.createBindGroup({
          label: 'DrawPass.countGroup',
          layout: pipelinesFor(this.device).countLayout,
          entries: [this.buffers.frame, this.records, coverage].map((buffer, binding) => ({ binding, resource: { buffer } })),
        }),
      };
    }
    return this.countGroup.group;
  }

  destroy(): void {
    this.records.destroy();
    this.listArgs.destroy();
  }
}
