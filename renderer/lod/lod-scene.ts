/**
 * A streamed LOD scene (lod-meta.json) for the renderer: each frame the LOD
 * choice for the view within the splat budget (select.ts), the loads it needs
 * (streamer.ts), a slice of upload work (chunk-pool.ts), and, when the set
 * that can be drawn changed, a new GpuScene assembled on the GPU for the
 * renderer to adopt (SplatRenderer.setGpuScene). Drawn splats never exceed
 * the budget: a leaf whose chosen level is not resident yet draws a coarser
 * resident level, or nothing.
 *
 * Its budget is shared (a streamed LOD scene as one object among others, issue 32):
 * `others` splats of the other objects drawn in the same frame come off it, and the
 * selection runs under what is left.
 */
import type { LodMeta } from '../../scenes/lod-meta';
import type { GpuScene } from '../gpu-scene/gpu-scene';
import type { ScenePrecision } from '../gpu-scene/scene-precision';
import { ChunkPool, type PoolRange } from './chunk-pool';
import { drawableLevels, selectLods, type LodLeafCounts, type LodSelection, type LodView } from './select';
import { LodStreamer, type ChunkLoader } from './streamer';

export interface LodSceneOptions {
  /** Splats drawn at most. */
  budget: number;
  /** GPU bytes the resident chunks may take (default 1 GiB). */
  memoryBytes?: number;
  maxInFlight?: number;
  /** Upload work a frame, in ms (default 4). */
  uploadMs?: number;
  /** Least time between two assemblies, in ms (default 0: whenever the drawn set changes). */
  minAssembleMs?: number;
  /** The renderer's SH binding limit (GpuScene's bindingBytes). */
  bindingBytes: number;
  /** How the chunks are kept on the GPU (default: compact, scene-precision.ts). */
  precision?: ScenePrecision;
  onError?: (file: string, error: unknown) => void;
}

export interface LodStats {
  /** Splats the frame may draw: the LOD scene's and the other objects' (`others`) together. */
  budget: number;
  /** Splats of the other objects drawn beside it, taken off the budget (0 without). */
  others: number;
  /** Splats of the levels chosen for the view. */
  chosen: number;
  /** Splats in the scene drawn now. */
  drawn: number;
  /** Splats resident on the GPU. */
  resident: number;
  residentBytes: number;
  /** How the chunks are kept (ChunkPool.precision). */
  precision: ScenePrecision;
  /** Chunk files packed by their loader (in the page: its worker) under the pool's ranges, and on the page. */
  packed: { byLoader: number; here: number };
  /** Splats that packing clamped (values past the chunks' compact ranges, or not finite) or dropped (ChunkPool.tally). */
  clamped: number;
  inFlight: number;
  failed: number;
  /** Leaves drawn at a coarser level than chosen (their level is still loading). */
  waiting: number;
}

export class LodScene {
  readonly pool: ChunkPool;
  readonly streamer: LodStreamer;
  private readonly leafCounts: LodLeafCounts[];
  /** Splats the frame may draw (this scene's and `others`). */
  budget: number;
  /** Splats of the other objects drawn in the same frame: the selection runs under `budget - others`. */
  others = 0;
  private drawnKey = '';
  private lastAssemble = -Infinity;
  private last: LodSelection | null = null;
  readonly stats: LodStats;

  constructor(device: GPUDevice, readonly meta: LodMeta, load: ChunkLoader, private readonly options: LodSceneOptions) {
    this.budget = options.budget;
    this.pool = new ChunkPool(device, options.precision);
    this.streamer = new LodStreamer(meta, this.pool, load, {
      maxInFlight: options.maxInFlight ?? 4,
      memoryBytes: options.memoryBytes ?? 2 ** 30,
      onError: (f, e) => options.onError?.(meta.filenames[f]!, e),
    });
    this.leafCounts = meta.leaves.map((l) => ({ bound: l.bound, counts: l.lods.map((r) => r?.count ?? 0) }));
    this.stats = { budget: this.budget, others: 0, chosen: 0, drawn: 0, resident: 0, residentBytes: 0, precision: this.pool.precision, packed: { byLoader: 0, here: 0 }, clamped: 0, inFlight: 0, failed: 0, waiting: 0 };
  }

  /**
   * One frame's LOD work for `view`. Never waits for a load.
   * @returns a new scene when the drawable set changed (the caller owns it), else null
   */
  update(view: LodView, force = false): GpuScene | null {
    const now = performance.now();
    const drawable = this.advance(view);
    // A lowered budget is kept at once, not after the least interval.
    const due = force || this.stats.drawn > this.share || now - this.lastAssemble >= (this.options.minAssembleMs ?? 0);
    return this.assembleIfChanged(drawable, due, now);
  }

  /** Selection, streaming and a slice of upload for `view`: the levels that can be drawn now. */
  private advance(view: LodView): Int8Array {
    const sel = selectLods(this.leafCounts, view, this.share);
    this.last = sel;
    this.streamer.update(sel);
    this.pool.step(this.options.uploadMs ?? 4);
    const drawable = drawableLevels(this.leafCounts, sel.levels, (i, l) => this.pool.resident(this.meta.leaves[i]!.lods[l]!.file));
    const s = this.stats;
    s.budget = this.budget;
    s.others = this.others;
    s.chosen = sel.splats;
    s.resident = this.pool.residentSplats;
    s.residentBytes = this.pool.bytes;
    s.clamped = this.pool.tally.clamped + this.pool.tally.dropped;
    s.packed = { ...this.pool.filesPacked };
    s.inFlight = this.streamer.loading;
    s.failed = this.streamer.failed.size;
    s.waiting = 0;
    for (let i = 0; i < drawable.length; i++) if (drawable[i] !== sel.levels[i]) s.waiting++;
    return drawable;
  }

  private assembleIfChanged(drawable: Int8Array, due: boolean, now: number): GpuScene | null {
    const key = drawable.join(',');
    if (key === this.drawnKey || !due) return null;
    const ranges: PoolRange[] = [];
    let drawn = 0;
    const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
    drawable.forEach((l, i) => {
      if (l < 0) return;
      const leaf = this.meta.leaves[i]!;
      const r = leaf.lods[l]!;
      ranges.push(r);
      drawn += r.count;
      for (let a = 0; a < 3; a++) {
        min[a] = Math.min(min[a]!, leaf.bound.min[a]!);
        max[a] = Math.max(max[a]!, leaf.bound.max[a]!);
      }
    });
    // Nothing drawable: the set on screen stays while within the budget (its chunks may be
    // loading), else none is drawn (the other objects took the whole budget): an empty scene.
    if (drawn === 0 && (this.drawnKey === '' || this.stats.drawn <= this.share)) return null;
    ranges.sort((a, b) => a.file - b.file || a.offset - b.offset);
    this.drawnKey = key;
    this.lastAssemble = now;
    this.stats.drawn = drawn;
    // The drawn set's bounds: its leaves' (the manifest's; used to frame the camera's depth range).
    const bounds = drawn > 0 ? { min: min as [number, number, number], max: max as [number, number, number] } : this.meta.bound;
    return this.pool.assemble(ranges, this.meta.name, this.options.bindingBytes, bounds);
  }

  /** The splats this scene may draw: what the other objects leave of the budget. */
  get share(): number {
    return Math.max(0, this.budget - this.others);
  }

  /** Whether the last update's choice is wholly drawable and nothing is loading or uploading. */
  get settled(): boolean {
    return this.last !== null && this.stats.waiting === 0 && this.streamer.loading === 0;
  }

  /**
   * Updates for `view` until the choice is wholly drawn or nothing more can
   * arrive (Node programs and tests: they wait; the page never does).
   * @returns the scene of it (the caller owns it), or null when nothing can be drawn or it is the one assembled last
   */
  async settle(view: LodView, pause: () => Promise<void>): Promise<GpuScene | null> {
    for (;;) {
      const drawable = this.advance(view);
      // Nothing loading or uploading: what could arrive for this view has; one scene of it.
      if (this.streamer.loading === 0 && !this.pool.uploading) return this.assembleIfChanged(drawable, true, performance.now());
      await pause();
    }
  }

  destroy(): void {
    this.streamer.cancelAll();
    this.pool.destroy();
  }
}
