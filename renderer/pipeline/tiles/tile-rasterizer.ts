import type { GpuSorter, SorterFactory } from '../../../sort/types';
import { sortBufferUsage } from '../../../sort/types';
import { CounterReadback } from './counter-readback';
import { PairBudget, type PairStatus } from './pair-budget';
import { TileParams, tileLayout, type TileLayout } from './tile-params';
import { presentPipeline, tilePipelines } from './tile-pipelines';

/** The tile path's stages, in order; each writes a begin and an end timestamp. */
export const TILE_STAGES = ['project', 'tileKeys', 'sort', 'ranges', 'blend'] as const;
export type TileStage = (typeof TILE_STAGES)[number];

/** Where a stage writes its begin and end timestamps (undefined: the stage is not timed). */
export type TileTiming = (stage: TileStage) => { querySet: GPUQuerySet; beginningOfPassWriteIndex: number; endOfPassWriteIndex: number } | undefined;

/** Timing into consecutive queries: stage k of TILE_STAGES at base + 2k (begin) and base + 2k + 1 (end). */
export function consecutiveTiming(querySet: GPUQuerySet, base: number): TileTiming {
  return (stage) => {
    const k = TILE_STAGES.indexOf(stage);
    return { querySet, beginningOfPassWriteIndex: base + 2 * k, endOfPassWriteIndex: base + 2 * k + 1 };
  };
}

/** The scene as the GPU holds it (renderer/pipeline/gpu-scene.ts). */
export interface TileSceneBuffers {
  count: number;
  centers: GPUBuffer;
  covs: GPUBuffer;
  /** SH of splats [0, shSplit) and of the others (GpuScene). */
  sh0: GPUBuffer;
  sh1: GPUBuffer;
}

export interface TileRasterizerOptions {
  /** Pairs the buffers hold at first; default max(4,096, 2 x splats) (sorters cost by capacity on slow adapters; the buffers grow after a frame that needs more). */
  initialPairs?: number;
  /** Most pairs the buffers may ever hold; default what the device binds (and the sorter accepts). */
  maxPairs?: number;
}

export interface TileFrame {
  /** Output size in pixels (the target's size). */
  width: number;
  height: number;
  /** Bits of quantised depth in the (tile, depth) key: the frame's key-bits setting (clamped to what 32 bits leave). */
  depthBits: number;
  background: readonly [number, number, number];
}

const WG = 256;
const MAX_GROUPS = 65535;

function grid(total: number): [number, number] {
  const n = Math.max(1, total);
  const x = Math.min(n, MAX_GROUPS);
  return [x, Math.ceil(n / x)];
}

/**
 * The compute tile rasteriser: the draw as compute work.
 *
 *   project     per splat: cull, EWA conic, SH colour, quantised depth, the screen
 *               tiles its 1/255 footprint touches (shaders/tiles/project.wgsl)
 *   tile keys   one (tile << depthBits | depth, splat id) pair per touched tile,
 *               appended with a GPU-side count, clamped to the buffers' capacity
 *               (shaders/tiles/keys.wgsl)
 *   sort        the pairs by key with any GpuSorter of sort/ (count read on the GPU)
 *   ranges      each tile's run of pairs (shaders/tiles/ranges.wgsl)
 *   blend       per pixel, front to back in workgroup memory, early stop at
 *               T < 1e-4, into an rgba8unorm storage texture
 *               (shaders/tiles/blend.wgsl), then drawn onto the target of any
 *               format (shaders/fullscreen.wgsl)
 *
 * The frame uniforms (shaders/splat_common.wgsl `Frame`) are the caller's, written
 * before encode(). Nothing is read back inside a frame: the pair count comes back a
 * few frames late (CounterReadback) and the buffers grow for the next frame
 * (PairBudget); `status` says whether a frame lost pairs.
 */
export class TileRasterizer {
  private readonly params: TileParams;
  private readonly records: GPUBuffer;
  private readonly footprints: GPUBuffer;
  /** [needed, kept, wrapped, visible] (tiles_common.wgsl). */
  private readonly counters: GPUBuffer;
  private readonly dispatchArgs: GPUBuffer;
  private readonly readback: CounterReadback;
  private readonly budget: PairBudget;
  private keys: GPUBuffer | null = null;
  private values: GPUBuffer | null = null;
  private sorter: GpuSorter | null = null;
  private ranges: GPUBuffer | null = null;
  private image: GPUTexture | null = null;
  private imageView: GPUTextureView | null = null;
  private layoutKey = '';
  private bindGroups: { project: GPUBindGroup; keys: GPUBindGroup; ranges: GPUBindGroup; blend: GPUBindGroup; present: GPUBindGroup } | null = null;
  private pendingCapacity: number | null = null;
  private readonly projectBindGroup: GPUBindGroup;

  constructor(
    readonly device: GPUDevice,
    frameUniforms: GPUBuffer,
    private readonly scene: TileSceneBuffers,
    private factory: SorterFactory,
    options: TileRasterizerOptions = {},
  ) {
    const n = Math.max(1, scene.count);
    const maxBytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    const deviceMax = Math.floor(maxBytes / 4);
    const maxPairs = Math.max(1, Math.min(options.maxPairs ?? deviceMax, deviceMax));
    this.budget = new PairBudget(options.initialPairs ?? Math.max(4096, 2 * scene.count), maxPairs);
    this.params = new TileParams(device);
    const storage = GPUBufferUsage.STORAGE;
    this.records = device.createBuffer({ label: 'TileRasterizer.records', size: n * 32, usage: storage });
    this.footprints = device.createBuffer({ label: 'TileRasterizer.footprints', size: n * 16, usage: storage });
    this.counters = device.createBuffer({
      label: 'TileRasterizer.counters',
      size: 16,
      usage: storage | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    this.dispatchArgs = device.createBuffer({ label: 'TileRasterizer.dispatchArgs', size: 12, usage: storage | GPUBufferUsage.INDIRECT });
    this.readback = new CounterReadback(device, (w) => this.onCounters(w));
    const p = tilePipelines(device);
    this.projectBindGroup = device.createBindGroup({
      label: 'TileRasterizer.project',
      layout: p.project.layout,
      entries: [frameUniforms, this.params.buffer, scene.centers, scene.covs, scene.sh0, scene.sh1, this.records, this.footprints].map(
        (buffer, binding) => ({ binding, resource: { buffer } }),
      ),
    });
    this.allocatePairs(this.budget.capacity);
  }

  /** Pair-buffer state: capacity, the latest frame's count, overflow and cap warnings. */
  get status(): PairStatus {
    return this.budget.status;
  }

  /** The sorter in use. */
  get sorterName(): string {
    return this.factory.name;
  }

  /** Switches the sort strategy; the old sorter's memory is freed. */
  setSorter(factory: SorterFactory): void {
    if (factory === this.factory) return;
    this.factory = factory;
    this.allocatePairs(this.budget.capacity);
  }

  /**
   * A sorter for `capacity` pairs, or for fewer where this sorter cannot hold that
   * many on this device (bitonic pads to a power of two): halved until it fits.
   */
  private createSorter(capacity: number): { sorter: GpuSorter; capacity: number } {
    let c = Math.max(1, capacity);
    for (;;) {
      try {
        return { sorter: this.factory.create(this.device, c), capacity: c };
      } catch (err) {
        if (!(err instanceof RangeError) || c <= 1) throw err;
        c = Math.floor(c / 2);
      }
    }
  }

  private allocatePairs(wanted: number): void {
    const { sorter, capacity } = this.createSorter(wanted);
    // The sorter's own limit caps the budget (a view that needs more is flagged `capped`).
    if (capacity < wanted) this.budget.limit(capacity);
    const usage = sortBufferUsage();
    this.sorter?.destroy();
    this.keys?.destroy();
    this.values?.destroy();
    this.sorter = sorter;
    this.keys = this.device.createBuffer({ label: 'TileRasterizer.keys', size: capacity * 4, usage });
    this.values = this.device.createBuffer({ label: 'TileRasterizer.values', size: capacity * 4, usage });
    this.bindGroups = null;
  }

  private onCounters(w: Uint32Array): void {
    const grow = this.budget.observe({ needed: w[0], kept: w[1], wrapped: w[2] !== 0, visible: w[3] });
    if (grow !== null) this.pendingCapacity = grow;
  }

  private ensureTargets(frame: TileFrame): TileLayout {
    const layout = tileLayout(frame.width, frame.height, frame.depthBits);
    const key = `${frame.width}x${frame.height}`;
    if (key !== this.layoutKey) {
      this.image?.destroy();
      this.ranges?.destroy();
      this.image = this.device.createTexture({
        label: 'TileRasterizer.image',
        size: { width: frame.width, height: frame.height },
        format: 'rgba8unorm',
        usage: GPUTextureUsage.STORAGE_BINDING | GPUTextureUsage.TEXTURE_BINDING,
      });
      this.imageView = this.image.createView();
      this.ranges = this.device.createBuffer({
        label: 'TileRasterizer.ranges',
        size: layout.tilesX * layout.tilesY * 8,
        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
      });
      this.layoutKey = key;
      this.bindGroups = null;
    }
    return layout;
  }

  private ensureBindGroups() {
    if (this.bindGroups) return this.bindGroups;
    const p = tilePipelines(this.device);
    const bg = (label: string, layout: GPUBindGroupLayout, buffers: GPUBuffer[]) =>
      this.device.createBindGroup({ label, layout, entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })) });
    const keys = this.keys!, values = this.values!, ranges = this.ranges!;
    this.bindGroups = {
      project: this.projectBindGroup,
      keys: bg('TileRasterizer.keys', p.keys.layout, [this.params.buffer, this.footprints, keys, values, this.counters, this.dispatchArgs, this.records]),
      ranges: bg('TileRasterizer.ranges', p.ranges.layout, [this.params.buffer, keys, this.counters, ranges]),
      blend: this.device.createBindGroup({
        label: 'TileRasterizer.blend',
        layout: p.blend.layout,
        entries: [
          ...[this.params.buffer, ranges, values, this.records].map((buffer, binding) => ({ binding, resource: { buffer } })),
          { binding: 4, resource: this.imageView! },
        ],
      }),
      present: this.device.createBindGroup({
        label: 'TileRasterizer.present',
        layout: p.present.layout,
        entries: [{ binding: 0, resource: this.imageView! }],
      }),
    };
    return this.bindGroups;
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
    const groups = this.ensureBindGroups();
    const capacity = this.budget.capacity;
    this.params.write(layout, { capacity, splatCount: this.scene.count, width: frame.width, height: frame.height, background: frame.background });
    const p = tilePipelines(this.device);
    const tsw = (stage: TileStage) => timing?.(stage);
    const only = (w: GPUComputePassTimestampWrites | undefined, which: 'begin' | 'end') =>
      w && (which === 'begin' ? { querySet: w.querySet, beginningOfPassWriteIndex: w.beginningOfPassWriteIndex } : { querySet: w.querySet, endOfPassWriteIndex: w.endOfPassWriteIndex });

    encoder.clearBuffer(this.counters);
    encoder.clearBuffer(this.ranges!);
    const splatGroups = grid(Math.ceil(this.scene.count / WG));

    let pass = encoder.beginComputePass({ label: 'tiles.project', timestampWrites: tsw('project') });
    pass.setPipeline(p.project.pipeline);
    pass.setBindGroup(0, groups.project);
    pass.dispatchWorkgroups(splatGroups[0], splatGroups[1]);
    pass.end();

    const keysTs = tsw('tileKeys');
    pass = encoder.beginComputePass({ label: 'tiles.keys', timestampWrites: only(keysTs, 'begin') });
    pass.setPipeline(p.keys.pipeline);
    pass.setBindGroup(0, groups.keys);
    pass.dispatchWorkgroups(splatGroups[0], splatGroups[1]);
    pass.end();
    pass = encoder.beginComputePass({ label: 'tiles.finalize', timestampWrites: only(keysTs, 'end') });
    pass.setPipeline(p.keys.finalize);
    pass.setBindGroup(0, groups.keys);
    pass.dispatchWorkgroups(1);
    pass.end();
    this.readback.capture(encoder, this.counters);

    const sortTs = tsw('sort');
    this.sorter!.encode(
      encoder,
      { keys: this.keys!, values: this.values!, count: this.counters, countOffset: 4, keyBits: layout.keyBits },
      sortTs && { querySet: sortTs.querySet, beginIndex: sortTs.beginningOfPassWriteIndex, endIndex: sortTs.endOfPassWriteIndex },
    );

    pass = encoder.beginComputePass({ label: 'tiles.ranges', timestampWrites: tsw('ranges') });
    pass.setPipeline(p.ranges.pipeline);
    pass.setBindGroup(0, groups.ranges);
    pass.dispatchWorkgroupsIndirect(this.dispatchArgs, 0);
    pass.end();

    const blendTs = tsw('blend');
    pass = encoder.beginComputePass({ label: 'tiles.blend', timestampWrites: only(blendTs, 'begin') });
    pass.setPipeline(p.blend.pipeline);
    pass.setBindGroup(0, groups.blend);
    pass.dispatchWorkgroups(layout.tilesX, layout.tilesY);
    pass.end();

    const present = presentPipeline(this.device, targetFormat);
    const rp = encoder.beginRenderPass({
      label: 'tiles.present',
      colorAttachments: [{ view: target, loadOp: 'clear', clearValue: { r: 0, g: 0, b: 0, a: 1 }, storeOp: 'store' }],
      timestampWrites: blendTs && { querySet: blendTs.querySet, endOfPassWriteIndex: blendTs.endOfPassWriteIndex },
    });
    rp.setPipeline(present.pipeline);
    rp.setBindGroup(0, groups.present);
    rp.draw(3);
    rp.end();
  }

  /** Call after submitting the frame's commands: starts the read-back of its pair count. */
  submitted(): void {
    this.readback.submitted();
  }

  /**
   * Waits for the pair counts of the submitted frames and applies what they ask
   * (growth for the next frame). For one-shot renders and tests; frames never wait.
   * Returns true when the last read-back frame lost pairs and the buffers have
   * grown, i.e. drawing the frame again gives the full image.
   */
  async settle(): Promise<boolean> {
    await this.readback.settle();
    const s = this.budget.status;
    return s.overflowed && !s.capped;
  }

  /** GPU buffers for tests: pair keys/values, counters, tile ranges. */
  get debugBuffers(): { keys: GPUBuffer; values: GPUBuffer; counters: GPUBuffer; ranges: GPUBuffer | null } {
    return { keys: this.keys!, values: this.values!, counters: this.counters, ranges: this.ranges };
  }

  destroy(): void {
    this.readback.destroy();
    this.sorter?.destroy();
    this.keys?.destroy();
    this.values?.destroy();
    this.ranges?.destroy();
    this.image?.destroy();
    this.records.destroy();
    this.footprints.destroy();
    this.counters.destroy();
    this.dispatchArgs.destroy();
    this.params.destroy();
    this.sorter = null;
    this.keys = this.values = this.ranges = null;
    this.image = null;
  }
}
