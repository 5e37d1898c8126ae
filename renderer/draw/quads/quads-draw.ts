import type { GpuScene } from '../../gpu-scene/gpu-scene';
import { PagedBuffer, pagingFor } from '../../gpu-scene/paging';
import type { DrawKind } from '../../gpu-scene/scene-wgsl';
import { hasStencil } from '../host-z';
import { chunksOf, DEFAULT_LIST, drawsFrontToBack, type DrawShape, type DrawVariant } from './draw-shape';
import {
  ACCUM_FORMAT,
  CHUNK_STRIDE,
  compositePipeline,
  CONTROL_BYTES,
  CONTROL_CHUNK_ARGS,
  CONTROL_CHUNK_INFO,
  CONTROL_COUNT,
  DRAW_RECORDS_AT,
  drawPipeline,
  MASK_FORMAT,
  maskPipeline,
  MAX_GROUPS_X,
  pipelinesFor,
  PREPARE_ORDER_AT,
  PREPARE_RECORDS_AT,
  PREPARE_SCENE_AT,
  preparePipeline,
  RECORD_BYTES,
  WORKGROUP_SIZE,
  type HostDepthTest,
} from './quads-pipelines';

// The shape vocabulary and the layout constants, where their users import them from.
export * from './draw-shape';
export { COVERAGE_BYTES, RECORD_BYTES } from './quads-pipelines';

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

/** A host's depth the polygons are tested against (quads.ts from EncodeOptions.hostDepth). */
export interface HostDepthPass extends HostDepthTest {
  /** A view of the host's depth texture with all its aspects: the pass's read-only depth attachment. */
  attachment: GPUTextureView;
  /** The host's NDC z of a view depth d: z = s0 + s1 / d (host-z.ts hostNdcZ). */
  z: readonly [number, number];
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
  /** Over a host's depth: hostZ's uniform and its group (made on first use). */
  private hostZ: { buffer: GPUBuffer; group: GPUBindGroup } | null = null;
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
   * `host`: drawn over the target's colour (loaded, not cleared) with the host's depth as a
   * read-only attachment that drops the fragments behind its surface; back to front only.
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
    host?: HostDepthPass,
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
    if (!host && drawsFrontToBack(shape, variant)) {
      this.encodeFrontToBack(encoder, target, size, background, shape, timestamps);
      return;
    }

    const pass = encoder.beginRenderPass({
      label: 'DrawPass.pass',
      colorAttachments: [
        {
          view: target,
          clearValue: { r: background[0], g: background[1], b: background[2], a: 1 },
          loadOp: host ? 'load' : 'clear',
          storeOp: 'store',
        },
      ],
      ...(host ? { depthStencilAttachment: { view: host.attachment, depthReadOnly: true, ...(hasStencil(host.format) ? { stencilReadOnly: true } : {}) } } : {}),
      timestampWrites: timestamps && { querySet: timestamps.querySet, endOfPassWriteIndex: timestamps.endIndex },
    });
    pass.setPipeline(drawPipeline(this.device, this.kind, this.format, variant, shape, host && { format: host.format, reversed: host.reversed }));
    pass.setBindGroup(0, variant === 'count' ? this.countGroupFor(coverage) : this.drawGroup);
    if (host) pass.setBindGroup(1, this.hostGroupFor(host.z));
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

  private hostGroupFor(z: readonly [number, number]): GPUBindGroup {
    if (!this.hostZ) {
      const buffer = this.device.createBuffer({ label: 'DrawPass.hostZ', size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      const group = this.device.createBindGroup({ label: 'DrawPass.hostGroup', layout: pipelinesFor(this.device, this.kind).hostLayout, entries: [{ binding: 1, resource: { buffer } }] });
      this.hostZ = { buffer, group };
    }
    this.device.queue.writeBuffer(this.hostZ.buffer, 0, new Float32Array([z[0], z[1], 0, 0]));
    return this.hostZ.group;
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
    this.hostZ?.buffer.destroy();
    this.hostZ = null;
    this.f2bTargets?.accum.destroy();
    this.f2bTargets?.depth.destroy();
    this.f2bTargets = null;
  }
}
