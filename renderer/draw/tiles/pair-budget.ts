/**
 * How many (tile, depth) pairs the tile rasteriser's buffers hold, and when they
 * grow or shrink. Pure: it is told what a frame needed (read back from the GPU, a few
 * frames late, never waited for in a frame) and answers with the capacity to allocate
 * before the next frame.
 *
 * A frame that needs more pairs than the buffers hold is still drawn whole, in that
 * frame: the GPU sees the overflow and draws it as a fallback frame (tiles/settle.wgsl:
 * depth-sorted quads of the same splats). The buffers then grow to 1.25x the need for
 * the next frames. At the device's limit they cannot grow: the view is `capped`,
 * drawn by the fallback for as long as it needs more, and the panel says so. Once the
 * need has stayed under a quarter of the capacity for SHRINK_AFTER read-backs in a
 * row, the buffers shrink to 1.5x the largest need seen meanwhile (never under the
 * floor: the initial capacity), so that a view that once needed many pairs does not
 * keep that memory for good.
 */

/** What the GPU counted in one frame (tiles/project.wgsl, settle.wgsl and ranges.wgsl counters). */
export interface PairCount {
  /** Pairs the frame's visible splats needed. */
  needed: number;
  /** What the frame sorted: the pairs, or in a fallback frame the visible splats. */
  kept: number;
  /** The needed count wrapped past 2^32 (only a lower bound is known). */
  wrapped: boolean;
  /** Splats touching at least one tile. */
  visible: number;
  /** The pairs did not fit: the frame was drawn by the fallback (whole, as quads). */
  fallback?: boolean;
  /** Tiles with at least one pair (the blend's workgroups); 0 in a fallback frame. */
  activeTiles?: number;
  /** The pair capacity the frame ran with. */
  capacity?: number;
}

export interface PairStatus {
  /** Pairs the buffers hold now. */
  capacity: number;
  /** The largest capacity this device allows. */
  maxCapacity: number;
  /** The latest read-back frame's count (null before the first). */
  last: PairCount | null;
  /** That frame needed more pairs than the buffers held: it was drawn by the fallback (complete). */
  overflowed: boolean;
  /** It needed more than the device allows: drawn by the fallback until the view needs fewer. */
  capped: boolean;
  /** How many times the buffers grew. */
  grows: number;
  /** How many times they shrank. */
  shrinks: number;
}

const GRANULE = 1024;
const roundUp = (n: number) => Math.ceil(n / GRANULE) * GRANULE;

/** Read-backs in a row with the need under a quarter of the capacity before the buffers shrink. */
export const SHRINK_AFTER = 120;

export class PairBudget {
  private current: number;
  private readonly floor: number;
  private lastCount: PairCount | null = null;
  private growCount = 0;
  private shrinkCount = 0;
  private lowRun = 0;
  private lowPeak = 0;

  constructor(initial: number, private maxCapacity: number, private readonly shrinkAfter = SHRINK_AFTER) {
    if (!(maxCapacity >= 1)) throw new RangeError(`PairBudget: maxCapacity must be >= 1, got ${maxCapacity}`);
    this.current = Math.max(1, Math.min(Math.floor(initial), maxCapacity));
    this.floor = this.current;
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
    if (count.needed > this.current || count.wrapped) {
      this.lowRun = 0;
      const want = count.wrapped ? this.maxCapacity : Math.min(this.maxCapacity, roundUp(count.needed * 1.25));
      if (want > this.current) {
        this.current = want;
        this.growCount++;
        return want;
      }
      return null;
    }
    if (count.needed * 4 < this.current && this.current > this.floor) {
      this.lowPeak = this.lowRun === 0 ? count.needed : Math.max(this.lowPeak, count.needed);
      if (++this.lowRun >= this.shrinkAfter) {
        this.lowRun = 0;
        const want = Math.max(this.floor, Math.min(this.current, roundUp(this.lowPeak * 1.5)));
        if (want < this.current) {
          this.current = want;
          this.shrinkCount++;
          return want;
        }
      }
    } else {
      this.lowRun = 0;
    }
    return null;
  }

  get status(): PairStatus {
    const last = this.lastCount;
    const overflowed = !!last && (last.wrapped || (last.fallback ?? last.needed > last.kept));
    return {
      capacity: this.current,
      maxCapacity: this.maxCapacity,
      last,
      overflowed,
      capped: !!last && (last.wrapped || last.needed > this.maxCapacity),
      grows: this.growCount,
      shrinks: this.shrinkCount,
    };
  }
}
