/**
 * Streaming of a LOD scene's chunk files: from each frame's selection
 * (select.ts), which files to load (nearest first, a visible leaf's coarsest
 * level before its finer ones, so there is something to draw soon), which
 * loads in flight to cancel (no leaf wants their file any more), and which
 * resident files to evict (not wanted now, least recently wanted first) to
 * stay under a memory budget. Loads are promises (a worker in the page, the
 * file system in Node); nothing here waits on one.
 */
import type { LodMeta } from '../../scenes/lod-meta';
import type { SplatCloud } from '../../scenes/splat-cloud';
import type { CompactDecode, PackedScene } from '../gpu-scene/compact-pack';
import type { LodSelection } from './select';

/** A loaded chunk file: its cloud, and its packed arrays where the loader packed it (then the cloud has no SH). */
export interface LoadedChunk {
  cloud: SplatCloud;
  packed: PackedScene | null;
}

/** Where loaded files go (ChunkPool on the GPU; a fake in tests). */
export interface ChunkStore {
  has(file: number): boolean;
  add(file: number, chunk: LoadedChunk): void;
  /**
   * The ranges loaders should pack chunks under (compact-pack.ts), or null: not packed
   * by the loader; 'own': no ranges yet, the next file is packed under its own (widened,
   * compact-pack.ts streamedDecode) and fixes them. While it loads, no other load starts
   * (a file packed under other ranges could not be taken).
   */
  readonly packWith: CompactDecode | 'own' | null;
  remove(file: number): void;
  /** Bytes held now. */
  readonly bytes: number;
  /** Bytes a file of `count` splats will hold. */
  bytesFor(count: number): number;
}

/**
 * Loads one chunk file, packed compact under `packWith` where given ('own': under its own
 * widened ranges; in the page: in the loader's worker, so that the page never holds the
 * chunk's float SH); rejects (any error) when `signal` aborts.
 */
export type ChunkLoader = (file: number, signal: AbortSignal, packWith: CompactDecode | 'own' | null) => Promise<LoadedChunk>;

export interface StreamerOptions {
  /** Loads at once (default 4). */
  maxInFlight?: number;
  /** Bytes the store may hold (default: unlimited). */
  memoryBytes?: number;
  /** A file that failed to load (not a cancelled one): it is not tried again. */
  onError?: (file: number, error: unknown) => void;
  /** A file arrived (after store.add). */
  onLoaded?: (file: number) => void;
}

/** Priority tiers: lower loads first; within a tier, nearer first. */
const TIER = 1e15;

export class LodStreamer {
  private readonly inFlight = new Map<number, AbortController>();
  readonly failed = new Map<number, unknown>();
  private readonly lastWanted = new Map<number, number>();
  private tick = 0;
  /** Files the last update wanted but could not start for lack of memory. */
  starved = 0;
  /** Loads cancelled so far. */
  cancelled = 0;
  private readonly maxInFlight: number;
  private readonly memoryBytes: number;

  constructor(
    private readonly meta: LodMeta,
    private readonly store: ChunkStore,
    private readonly load: ChunkLoader,
    private readonly options: StreamerOptions = {},
  ) {
    this.maxInFlight = options.maxInFlight ?? 4;
    this.memoryBytes = options.memoryBytes ?? Infinity;
  }

  /** Loads in flight. */
  get loading(): number {
    return this.inFlight.size;
  }

  /** The files `sel` wants, each with its priority (lower first). */
  wanted(sel: LodSelection): Map<number, number> {
    const want = new Map<number, number>();
    const note = (file: number, key: number) => {
      const k = want.get(file);
      if (k === undefined || key < k) want.set(file, key);
    };
    this.meta.leaves.forEach((leaf, i) => {
      const l = sel.levels[i]!;
      if (l < 0) return;
      const d = sel.distance[i]!;
      let coarse = -1;
      for (let c = leaf.lods.length - 1; c >= 0 && coarse < 0; c--) if (leaf.lods[c]) coarse = c;
      const tier = sel.visible[i] ? 0 : 2;
      note(leaf.lods[coarse]!.file, tier * TIER + d);
      note(leaf.lods[l]!.file, (tier + 1) * TIER + d);
    });
    return want;
  }

  /** Starts, cancels and evicts for this frame's selection. */
  update(sel: LodSelection): void {
    this.tick++;
    const want = this.wanted(sel);
    for (const f of want.keys()) this.lastWanted.set(f, this.tick);
    for (const [f, ctl] of this.inFlight) {
      if (!want.has(f)) {
        ctl.abort();
        this.inFlight.delete(f);
        this.cancelled++;
      }
    }
    const queue = [...want].filter(([f]) => !this.store.has(f) && !this.inFlight.has(f) && !this.failed.has(f)).sort((a, b) => a[1] - b[1]);
    this.starved = 0;
    let pending = 0;
    for (const f of this.inFlight.keys()) pending += this.store.bytesFor(this.meta.files[f]!.splats);
    for (const [f] of queue) {
      if (this.inFlight.size >= this.maxInFlight) break;
      // The first file fixes the store's ranges: the others wait for it (then packed by their loaders too).
      if (this.store.packWith === 'own' && this.inFlight.size > 0) break;
      const need = this.store.bytesFor(this.meta.files[f]!.splats);
      if (this.store.bytes + pending + need > this.memoryBytes) this.evict(want, this.store.bytes + pending + need - this.memoryBytes);
      if (this.store.bytes + pending + need > this.memoryBytes) {
        this.starved = queue.length - [...queue].findIndex(([g]) => g === f);
        break;
      }
      pending += need;
      this.start(f);
    }
    // Over budget without new loads (the budget was lowered): drop what is not wanted.
    if (this.store.bytes > this.memoryBytes) this.evict(want, this.store.bytes - this.memoryBytes);
  }

  /** Frees at least `bytes` of files not wanted now, least recently wanted first (fewer when there are not enough). */
  private evict(want: Map<number, number>, bytes: number): void {
    const held: number[] = [];
    for (let f = 0; f < this.meta.filenames.length; f++) if (this.store.has(f) && !want.has(f)) held.push(f);
    held.sort((a, b) => (this.lastWanted.get(a) ?? 0) - (this.lastWanted.get(b) ?? 0));
    const goal = this.store.bytes - bytes;
    for (const f of held) {
      if (this.store.bytes <= goal) break;
      this.store.remove(f);
    }
  }

  private start(file: number): void {
    const ctl = new AbortController();
    this.inFlight.set(file, ctl);
    this.load(file, ctl.signal, this.store.packWith).then(
      (chunk) => {
        if (this.inFlight.get(file) !== ctl) return;
        this.inFlight.delete(file);
        try {
          this.store.add(file, chunk);
        } catch (e) {
          // A chunk the store cannot take (e.g. packed for another layout) fails like a load.
          this.failed.set(file, e);
          this.options.onError?.(file, e);
          return;
        }
        this.options.onLoaded?.(file);
      },
      (e: unknown) => {
        if (this.inFlight.get(file) !== ctl) return;
        this.inFlight.delete(file);
        this.failed.set(file, e);
        this.options.onError?.(file, e);
      },
    );
  }

  /** Cancels every load in flight. */
  cancelAll(): void {
    for (const ctl of this.inFlight.values()) ctl.abort();
    this.cancelled += this.inFlight.size;
    this.inFlight.clear();
  }
}
