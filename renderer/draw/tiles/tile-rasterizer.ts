import { COUNTER_BYTES, CounterReadback } from './counter-readback';
import { PairBudget, type PairStatus } from './pair-budget';
import { TileParams, tileLayout, type TileLayout } from './tile-params';
import { blendPipeline, canBlendInto, FALLBACK_FORMAT, fallbackPipelines, PAIRS_AT, presentPipeline, PROJECT_SCENE_AT, RECORDS_AT, tilePipelines, tileProjectPipeline } from './tile-pipelines';
import { TilePairs, tileSizing, type TileRasterizerOptions, type TileSceneBuffers } from './tile-pairs';
import type { SorterFactory } from '../../../sort/types';
import { stageIndices, type StageWrites } from '../../stage/frame-stages';
import type { DrawKind } from '../../gpu-scene/scene-wgsl';
import { PagedBuffer } from '../../gpu-scene/paging';
import type { HostDepth, OutputDepth } from '../draw';
import { depthParams } from './host-depth';

export { compileTilesAhead, TILE_RECORD_BYTES, type TileRasterizerOptions, type TileSceneBuffers } from './tile-pairs';

/** The tile path's stages, in order (rows of stage/frame-stages.ts). */
export const TILE_STAGES = ['project', 'sort', 'blend'] as const;
export type TileStage = (typeof TILE_STAGES)[number];

/**
 * The timestamp writes of the pass that ends `stage` (frame-stages.ts stageWrites:
 * its end, and the frame's start on the first), or undefined: the stage is not timed.
 * Called once per stage, in order.
 */
export type TileTiming = (stage: TileStage) => StageWrites | undefined;

export interface TileFrame {
  /** Output size in pixels (the target's size). */
  width: number;
  height: number;
  /** Bits of quantised depth in the (tile, depth) key: the frame's key-bits setting (clamped to what 32 bits leave). */
  depthBits: number;
  background: readonly [number, number, number];
  /**
   * The target texture has STORAGE_BINDING usage and canBlendInto its format: the
   * blend writes it directly (no image, no full-screen copy). Default false.
   */
  targetStorage?: boolean;
  /**
   * Stop each pixel's blend at this host depth (EncodeOptions.hostDepth; a fallback
   * frame's quads ignore it) and/or write a depth for the host (outputDepth); `near` and
   * `far` are the frame camera's, the range of the records' 16-bit depths.
   */
  depth?: { host?: HostDepth; output?: OutputDepth; near: number; far: number };
}

/** Byte offsets of the indirect arguments in the control buffer (tiles_common.wgsl `control`). */
const CONTROL = { fallbackDraw: 32, fallbackFill: 48, bytes: 64 } as const;


const WG = 256;
const MAX_GROUPS = 65535;

function grid(total: number): [number, number] {
  const n = Math.max(1, total);
  const x = Math.min(n, MAX_GROUPS);
  return [x, Math.ceil(n / x)];
}

interface BindGroups {
  project: GPUBindGroup;
  settle: GPUBindGroup;
  ranges: GPUBindGroup;
  fallback: GPUBindGroup;
  /** By the blend's output: 'image' or the target's view. */
  blend: Map<GPUTextureView | 'image', GPUBindGroup>;
  /** The image onto the target (null when the blend writes the target itself). */
  present: GPUBindGroup | null;
}

/**
 * The compute tile rasteriser: the draw as compute work.
 *
 *   project     per splat: cull, EWA conic, SH colour, quantised depth, the screen
 *               tiles its 1/255 footprint touches; then, in the same kernel, one
 *               (tile << depthBits | depth, splat id) pair per touched tile,
 *               appended with a GPU-side count (shaders/draw/tiles/project.wgsl)
 *   tile keys   settle: when the pairs exceed the capacity the GPU makes this a
 *               fallback frame: one depth key per visible splat instead
 *               (shaders/draw/tiles/settle.wgsl)
 *   sort        the pairs (or the fallback's keys) with any GpuSorter of sort/,
 *               the count read on the GPU
 *   ranges      each tile's run of pairs, and the count of tiles that have one
 *               (shaders/draw/tiles/ranges.wgsl)
 *   blend       a fallback frame's quads drawn into a half-float image
 *               (shaders/draw/tiles/fallback.wgsl; no instances in a normal frame), then
 *               one workgroup per tile writing each of its pixels once: per pixel
 *               front to back in workgroup memory, early stop at T < 1e-4
 *               (shaders/draw/tiles/blend*.wgsl), the background where the tile has no
 *               pairs, or the fallback's picture in a fallback frame; into the
 *               target itself where it can be a storage texture (canBlendInto),
 *               else into an rgba8unorm image drawn onto it (shaders/draw/fullscreen.wgsl)
 *
 * What each pass after the pair pass does is decided on the GPU (settle writes the
 * counts the later passes read), so an overflowing frame is still drawn whole, in
 * that frame, with no CPU wait; the dispatches are direct (an indirect one costs Dawn
 * a validation dispatch), sized for the capacity, their surplus leaving at once. The
 * frame uniforms (shaders/stage/splat_common.wgsl `Frame`) are the caller's, written
 * before encode(). Nothing is read back inside a frame: the
 * pair count comes back a few frames late (CounterReadback) and the buffers grow or
 * shrink for later frames (PairBudget); `status` says whether a frame was a fallback.
 */
export class TileRasterizer {
  private readonly params: TileParams;
  /** Per splat, what the blend needs (TILE_RECORD_BYTES, paged). */
  private readonly records: PagedBuffer;
  /** What the pipelines are built for (the scene's and the records' paging). */
  private kind: DrawKind;
  /** [needed, sorted, wrapped, visible, fallback, active tiles, -, -] (tiles_common.wgsl). */
  private readonly counters: GPUBuffer;
  /** What settle.wgsl writes for the later passes: the ranges' count, the fallback's indirect draws (CONTROL). */
  private readonly control: GPUBuffer;
  private readonly readback: CounterReadback;
  private readonly budget: PairBudget;
  /** The pairs' keys and splat ids and their sorter (tile-pairs.ts). */
  private readonly pairs: TilePairs;
  private ranges: GPUBuffer | null = null;
  private image: GPUTexture | null = null;
  /** A fallback frame's picture (fallback.wgsl), FALLBACK_FORMAT, the frame's size. */
  private fallbackImage: GPUTexture | null = null;
  private fallbackView: GPUTextureView | null = null;
  private imageView: GPUTextureView | null = null;
  private layoutKey = '';
  private bindGroups: BindGroups | null = null;
  private pendingCapacity: number | null = null;

  constructor(
    readonly device: GPUDevice,
    private readonly frameUniforms: GPUBuffer,
    private readonly scene: TileSceneBuffers,
    factory: SorterFactory,
    options: TileRasterizerOptions = {},
  ) {
    const sizing = tileSizing(device, scene, options);
    this.pairs = new TilePairs(device, factory, sizing.pairPageBytes);
    this.params = new TileParams(device);
    const storage = GPUBufferUsage.STORAGE;
    this.records = new PagedBuffer(device, 'TileRasterizer.records', sizing.records, storage);
    this.budget = new PairBudget(sizing.initialPairs, sizing.maxPairs, options.shrinkAfter);
    // The pairs' paging joins it in allocatePairs (below), before any pipeline is made.
    this.kind = { scene: { precision: scene.precision, paging: scene.paging }, records: this.records.paging };
    this.counters = device.createBuffer({
      label: 'TileRasterizer.counters',
      size: COUNTER_BYTES,
      usage: storage | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    this.control = device.createBuffer({ label: 'TileRasterizer.control', size: CONTROL.bytes, usage: storage | GPUBufferUsage.INDIRECT });
    this.readback = new CounterReadback(device, (w) => this.onCounters(w));
    this.allocatePairs(this.budget.capacity);
  }

  /** Pair-buffer state: capacity, the latest frame's count, overflow and cap warnings. */
  get status(): PairStatus {
    return this.budget.status;
  }

  /** The sorter in use. */
  get sorterName(): string {
    return this.pairs.sorterName;
  }

  /** Switches the sort strategy; the old sorter's memory is freed. */
  setSorter(factory: SorterFactory): void {
    if (!this.pairs.setFactory(factory)) return;
    this.allocatePairs(this.budget.capacity);
  }

  private allocatePairs(wanted: number): void {
    // A fallback frame sorts one key per visible splat in the same buffers.
    const { slots, paging } = this.pairs.allocate(wanted, this.scene.count);
    // The sorter's own limit caps the budget (a view that needs more is flagged `capped`).
    if (slots < wanted) this.budget.limit(slots);
    // Pipelines for the pairs' pages (the same ones while the page count stays).
    this.kind = { ...this.kind, pairs: paging };
    this.bindGroups = null;
  }

  private onCounters(w: Uint32Array): void {
    const change = this.budget.observe({
      needed: w[0],
      kept: w[1],
      wrapped: w[2] !== 0,
      visible: w[3],
      fallback: w[4] !== 0,
      activeTiles: w[5],
      capacity: w[6],
    });
    if (change !== null) this.pendingCapacity = change;
  }

  private ensureTargets(frame: TileFrame): TileLayout {
    const layout = tileLayout(frame.width, frame.height, frame.depthBits);
    const key = `${frame.width}x${frame.height}`;
    if (key !== this.layoutKey) {
      this.image?.destroy();
      this.ranges?.destroy();
      this.fallbackImage?.destroy();
      this.fallbackImage = this.device.createTexture({
        label: 'TileRasterizer.fallbackImage',
        size: { width: frame.width, height: frame.height },
        format: FALLBACK_FORMAT,
        usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.TEXTURE_BINDING,
      });
      this.fallbackView = this.fallbackImage.createView();
      // The image is made when a target cannot be written directly (ensureImage).
      this.image = null;
      this.imageView = null;
      const tileCount = layout.tilesX * layout.tilesY;
      this.ranges = this.device.createBuffer({
        label: 'TileRasterizer.ranges',
        size: tileCount * 8,
        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
      });
      this.layoutKey = key;
      this.bindGroups = null;
    }
    return layout;
  }

  /** The rgba8unorm image the blend writes when the target cannot be a storage texture. */
  private ensureImage(frame: TileFrame): GPUTextureView {
    if (!this.imageView) {
      this.image = this.device.createTexture({
        label: 'TileRasterizer.image',
        size: { width: frame.width, height: frame.height },
        format: 'rgba8unorm',
        usage: GPUTextureUsage.STORAGE_BINDING | GPUTextureUsage.TEXTURE_BINDING,
      });
      this.imageView = this.image.createView();
      this.bindGroups = null;
    }
    return this.imageView;
  }

  private ensureBindGroups(): BindGroups {
    if (this.bindGroups) return this.bindGroups;
    const p = tilePipelines(this.device, this.kind);
    // Buffers at bindings 0, 1, ...; a paged array's pages where it stands.
    const bg = (label: string, layout: GPUBindGroupLayout, buffers: (GPUBuffer | PagedBuffer)[]) =>
      this.device.createBindGroup({
        label,
        layout,
        entries: buffers.flatMap((buffer, binding) => (buffer instanceof PagedBuffer ? buffer.entries(binding) : [{ binding, resource: { buffer } }])),
      });
    const keys = this.pairs.keys!, values = this.pairs.values!, ranges = this.ranges!;
    this.bindGroups = {
      project: this.device.createBindGroup({
        label: 'TileRasterizer.project',
        layout: p.project.layout,
        entries: [
          { binding: 0, resource: { buffer: this.frameUniforms } },
          { binding: 1, resource: { buffer: this.params.buffer } },
          ...this.scene.bindEntries(PROJECT_SCENE_AT),
          ...this.records.entries(RECORDS_AT.project),
          ...keys.entries(PAIRS_AT.project.keys),
          ...values.entries(PAIRS_AT.project.values),
          { binding: 9, resource: { buffer: this.counters } },
        ],
      }),
      settle: bg('TileRasterizer.settle', p.settle.layout, [this.params.buffer, this.records, keys, values, this.counters, this.control]),
      ranges: bg('TileRasterizer.ranges', p.ranges.layout, [this.params.buffer, keys, this.counters, ranges, this.control]),
      fallback: bg('TileRasterizer.fallback', p.fallback.layout, [this.params.buffer, values, this.records, this.counters]),
      blend: new Map(),
      present: this.imageView
        ? this.device.createBindGroup({ label: 'TileRasterizer.present', layout: p.present.layout, entries: [{ binding: 0, resource: this.imageView }] })
        : null,
    };
    return this.bindGroups;
  }

  /** The depth blends' parameters (depthParams), made on their first frame. */
  private depthBuffer: GPUBuffer | null = null;

  /**
   * The blend's bind group writing `output` (a view of a `format` texture); kept while the
   * buffers stay. With a host or output depth, one for this frame (their views may change every frame).
   */
  private blendGroup(groups: BindGroups, key: GPUTextureView | 'image', output: GPUTextureView, format: GPUTextureFormat, depth?: { host?: HostDepth; output?: OutputDepth }): GPUBindGroup {
    if (depth) {
      const { layout } = blendPipeline(this.device, this.kind, format, { hostDepth: depth.host !== undefined, outputDepth: depth.output !== undefined });
      return this.device.createBindGroup({
        label: 'TileRasterizer.blend(host depth)',
        layout,
        entries: [
          { binding: 0, resource: { buffer: this.params.buffer } },
          { binding: 1, resource: { buffer: this.ranges! } },
          ...this.pairs.values!.entries(PAIRS_AT.blend.values),
          ...this.records.entries(RECORDS_AT.blend),
          { binding: 4, resource: this.fallbackView! },
          { binding: 5, resource: { buffer: this.counters } },
          { binding: 6, resource: output },
          ...(depth.host ? [{ binding: 7, resource: depth.host.view }] : []),
          { binding: 8, resource: { buffer: this.depthBuffer! } },
          ...(depth.output ? [{ binding: 9, resource: depth.output.view }] : []),
        ],
      });
    }
    let g = groups.blend.get(key);
    if (!g) {
      const { layout } = blendPipeline(this.device, this.kind, format);
      const buffers = [this.params.buffer, this.ranges!];
      g = this.device.createBindGroup({
        label: 'TileRasterizer.blend',
        layout,
        entries: [
          ...buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
          ...this.pairs.values!.entries(PAIRS_AT.blend.values),
          ...this.records.entries(RECORDS_AT.blend),
          { binding: 4, resource: this.fallbackView! },
          { binding: 5, resource: { buffer: this.counters } },
          { binding: 6, resource: output },
        ],
      });
      // A target view is the canvas's texture of this frame only: keep one at most.
      if (key !== 'image') for (const k of groups.blend.keys()) if (k !== 'image') groups.blend.delete(k);
      groups.blend.set(key, g);
    }
    return g;
  }

  /**
   * Records one frame: the stages above, then the image drawn onto `target` (a view
   * of a `targetFormat` texture of frame.width x frame.height). The frame uniforms
   * must hold this frame's camera.
   */
  encode(encoder: GPUCommandEncoder, target: GPUTextureView, targetFormat: GPUTextureFormat, frame: TileFrame, timing?: TileTiming): void {
    if (this.pendingCapacity !== null) {
      this.allocatePairs(this.pendingCapacity);
      this.pendingCapacity = null;
    }
    const layout = this.ensureTargets(frame);
    // With a host depth the picture goes over the target's colour (the host's): through the image, blended.
    const over = frame.depth?.host !== undefined;
    const direct = !over && frame.targetStorage === true && canBlendInto(this.device, targetFormat);
    if (!direct) this.ensureImage(frame);
    const groups = this.ensureBindGroups();
    const capacity = this.budget.capacity;
    this.params.write(layout, {
      capacity,
      slots: this.pairs.slots,
      splatCount: this.scene.count,
      width: frame.width,
      height: frame.height,
      background: frame.background,
    });
    const p = tilePipelines(this.device, this.kind);
    // Three timed stages, each ending with one timestamp (frame-stages.ts: every
    // timestamp costs a few microseconds, most of a small scene's frame): project
    // with settle, the sort, and ranges with the blend.
    const tsw = (stage: TileStage) => timing?.(stage);

    encoder.clearBuffer(this.counters);
    encoder.clearBuffer(this.ranges!);
    const splatGroups = grid(Math.ceil(this.scene.count / WG));

    // Projection and pairs in one kernel; then settle picks the frame's kind and
    // appends a fallback frame's keys.
    let pass = encoder.beginComputePass({ label: 'tiles.project', timestampWrites: tsw('project') });
    pass.setPipeline(tileProjectPipeline(this.device, this.kind));
    pass.setBindGroup(0, groups.project);
    pass.dispatchWorkgroups(splatGroups[0], splatGroups[1]);
    pass.setBindGroup(0, groups.settle);
    pass.setPipeline(p.settle.pipeline);
    pass.dispatchWorkgroups(splatGroups[0], splatGroups[1]);
    if (this.pairs.slots < this.scene.count) {
      // Only where a sorter could not hold a key per splat (the buffers hold them all otherwise).
      pass.setPipeline(p.settle.clampFallback);
      pass.dispatchWorkgroups(1);
    }
    pass.end();

    const sortTs = tsw('sort');
    this.pairs.sorter!.encode(
      encoder,
      { keys: this.pairs.keys!.buffers, values: this.pairs.values!.buffers, count: this.counters, countOffset: 4, keyBits: layout.keyBits },
      stageIndices(sortTs),
    );

    // A fallback frame's picture (its draws have no visible instance in a normal
    // frame, and 'load' reads nothing back on a desktop GPU).
    const fb = fallbackPipelines(this.device, this.kind);
    const rp = encoder.beginRenderPass({
      label: 'tiles.fallback',
      colorAttachments: [{ view: this.fallbackView!, loadOp: 'load', storeOp: 'store' }],
    });
    rp.setBindGroup(0, groups.fallback);
    // Indirect (instanceCount 0 in a normal frame): Dawn validates them with a hidden
    // dispatch (~7 us on an H100), but direct draws of a quad per splat, dropped in the
    // vertex shader, cost more even at 6,831 splats (0.018 ms; 3.5 ms at 1M).
    rp.setPipeline(fb.fill);
    rp.drawIndirect(this.control, CONTROL.fallbackFill);
    rp.setPipeline(fb.quads);
    rp.drawIndirect(this.control, CONTROL.fallbackDraw);
    rp.end();

    // The tiles' runs of sorted pairs, then every pixel of the output once: the tiles'
    // blend, the background where a tile has no pairs, or the fallback's picture in a
    // fallback frame.
    const blendTs = tsw('blend');
    const outFormat: GPUTextureFormat = direct ? targetFormat : 'rgba8unorm';
    const output = direct ? target : this.imageView!;
    pass = encoder.beginComputePass({ label: 'tiles.blend', timestampWrites: direct ? blendTs : undefined });
    pass.setBindGroup(0, groups.ranges);
    pass.setPipeline(p.ranges.pipeline);
    const rangeGroups = grid(Math.ceil(capacity / WG));
    pass.dispatchWorkgroups(rangeGroups[0], rangeGroups[1]);
    const depth = frame.depth && (frame.depth.host || frame.depth.output) ? frame.depth : undefined;
    if (depth) {
      this.depthBuffer ??= this.device.createBuffer({ label: 'TileRasterizer.depthParams', size: 48, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      this.device.queue.writeBuffer(this.depthBuffer, 0, depthParams(depth.host, depth.output, depth.near, depth.far));
    }
    pass.setPipeline(blendPipeline(this.device, this.kind, outFormat, { hostDepth: depth?.host !== undefined, outputDepth: depth?.output !== undefined }).pipeline);
    pass.setBindGroup(0, this.blendGroup(groups, direct ? target : 'image', output, outFormat, depth));
    pass.dispatchWorkgroups(layout.tilesX, layout.tilesY);
    pass.end();
    if (!direct) {
      const present = presentPipeline(this.device, this.kind, targetFormat, over);
      const pp = encoder.beginRenderPass({
        label: 'tiles.present',
        colorAttachments: [{ view: target, loadOp: over ? 'load' : 'clear', clearValue: { r: 0, g: 0, b: 0, a: 1 }, storeOp: 'store' }],
        timestampWrites: blendTs,
      });
      pp.setPipeline(present.pipeline);
      pp.setBindGroup(0, groups.present!);
      pp.draw(3);
      pp.end();
    }
    // The counters' read-back after the picture (nothing waits for it).
    this.readback.capture(encoder, this.counters);
  }

  /** Call after submitting the frame's commands: starts the read-back of its pair count. */
  submitted(): void {
    this.readback.submitted();
  }

  /**
   * Waits for the pair counts of the submitted frames and applies what they ask
   * (growth or shrinking for the next frame). For one-shot renders and tests; frames
   * never wait. Every frame is complete (an overflowing one is a fallback frame);
   * returns true when the last one was a fallback frame and the buffers have grown
   * since, i.e. drawing it again gives the tiles' own picture.
   */
  async settle(): Promise<boolean> {
    await this.readback.settle();
    const s = this.budget.status;
    return s.overflowed && !s.capped;
  }

  /** Entries the key/value buffers hold (max(pair capacity, splats)). */
  get sortSlots(): number {
    return this.pairs.slots;
  }

  /** GPU buffers for tests: pair keys/values, counters, tile ranges. */
  get debugBuffers(): { keys: readonly GPUBuffer[]; values: readonly GPUBuffer[]; counters: GPUBuffer; ranges: GPUBuffer | null } {
    return { keys: this.pairs.keys!.buffers, values: this.pairs.values!.buffers, counters: this.counters, ranges: this.ranges };
  }

  destroy(): void {
    this.depthBuffer?.destroy();
    this.readback.destroy();
    this.pairs.destroy();
    this.ranges?.destroy();
    this.image?.destroy();
    this.fallbackImage?.destroy();
    this.records.destroy();
    this.counters.destroy();
    this.control.destroy();
    this.params.destroy();
    this.ranges = null;
    this.image = null;
    this.imageView = null;
    this.fallbackImage = null;
    this.fallbackView = null;
  }
}
