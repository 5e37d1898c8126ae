/**
 * How many (tile, depth) pairs the tile rasteriser's buffers hold, and when they
 * grow. Pure: it is told what a frame needed (read back from the GPU, a few frames
 * late, never waited for in a frame) and answers with the capacity to allocate
 * before the next frame.
 *
 * A frame that needs more pairs than the buffers hold keeps the first `capacity`
 * of them (the GPU never writes past the end) and is reported as overflowed; the
 * buffers then grow to 1.25x the need for the next frame. At the device's limit
 * they cannot grow: the frame is `capped` and stays so (a visible warning) until
 * the view needs fewer pairs.
 */

/** What the GPU counted in one frame (tiles/keys.wgsl counters). */
export interface PairCount {
  /** Pairs the frame's visible splats needed. */
  needed: number;
  /** Pairs written and sorted: min(needed, capacity). */
  kept: number;
  /** The needed count wrapped past 2^32 (only a lower bound is known). */
  wrapped: boolean;
  /** Splats touching at least one tile. */
  visible: number;
}

export interface PairStatus {
  /** Pairs the buffers hold now. */
  capacity: number;
  /** The largest capacity this device allows. */
  maxCapacity: number;
  /** The latest read-back frame's count (null before the first). */
  last: PairCount | null;
  /** That frame lost pairs (its image lacks some splats in some tiles). */
  overflowed: boolean;
  /** It needed more than the device allows: the image lacks splats until the view needs fewer. */
  capped: boolean;
  /** How many times the buffers grew. */
  grows: number;
}

const GRANULE = 1024;
const roundUp = (n: number) => Math.ceil(n / GRANULE) * GRANULE;

export class PairBudget {
  private current: number;
  private lastCount: PairCount | null = null;
  private growCount = 0;

  constructor(initial: number, private maxCapacity: number) {
    if (!(maxCapacity >= 1)) throw new RangeError(`PairBudget: maxCapacity must be >= 1, got ${maxCapacity}`);
    this.current = Math.max(1, Math.min(Math.floor(initial), maxCapacity));
  }

  /** The largest capacity allowed. */
  get max(): number {
    return this.maxCapacity;
  }

  /** Lowers the largest capacity (e.g. what a sorter can hold), and the capacity with it. */
  limit(max: number): void {
    this.maxCapacity = Math.max(1, Math.min(this.maxCapacity, Math.floor(max)));
    this.current = Math.min(this.current, this.maxCapacity);
  }

  get capacity(): number {
    return this.current;
  }

  /**
   * Takes a frame's count; returns the capacity to allocate before the next frame,
   * or null to keep the buffers. A count from before the last growth (smaller
   * capacity) can only ask for more, never shrink.
   */
  observe(count: PairCount): number | null {
    this.lastCount = count;
    const want = count.wrapped ? this.maxCapacity : Math.min(this.maxCapacity, roundUp(count.needed * 1.25));
    if (count.needed > this.current || count.wrapped) {
      if (want > this.current) {
        this.current = want;
        this.growCount++;
        return want;
      }
    }
    return null;
  }

  get status(): PairStatus {
    const last = this.lastCount;
    const overflowed = !!last && (last.wrapped || last.needed > last.kept);
    return {
      capacity: this.current,
      maxCapacity: this.maxCapacity,
      last,
      overflowed,
      capped: !!last && (last.wrapped || last.needed > this.maxCapacity),
      grows: this.growCount,
    };
  }
}
