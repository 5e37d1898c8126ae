/**
 * A frame's own GPU time from the wall clock, for auto's trial budget (trial-pacing.ts)
 * where GPU timestamps are missing (SwiftShader, most browsers without the feature).
 *
 * The queue runs its submissions one after another, and the page keeps up to two frames
 * in flight (one while auto measures: api/frame.ts): a frame's time from its submit to its completion includes the frame (or the
 * trial sort) ahead of it in the queue, up to twice its own. Taken as the frame's time,
 * that let trial sorts grow to a whole frame, and the gaps between presented frames to
 * over twice a frame on SwiftShader (issue 19). Its own time starts when the queue could
 * start it: at its submit, or when the work ahead of it completed, whichever is later.
 * Every submission whose completion the page awaits reports here, frames and trial
 * sorts alike, in the order they complete (a serial queue completes in submit order).
 * Pure: times in ms from the caller's clock.
 */

/** Frames whose own times the estimate takes the median of. */
export const FRAME_WINDOW = 7;

export class QueueClock {
  /** When the latest submission seen complete did (-Infinity: none yet). */
  private lastDone = -Infinity;
  private readonly frames: number[] = [];

  /** A submission made at `submitAt` completed at `done`: its own time (ms). */
  completed(submitAt: number, done: number): number {
    const start = Math.max(submitAt, this.lastDone);
    this.lastDone = Math.max(this.lastDone, done);
    return Math.max(0, done - start);
  }

  /** A frame made at `submitAt` completed at `done`: its own time, kept for {@link frameMs}. */
  frameCompleted(submitAt: number, done: number): number {
    const own = this.completed(submitAt, done);
    this.frames.push(own);
    if (this.frames.length > FRAME_WINDOW) this.frames.shift();
    return own;
  }

  /** The median own time of the latest frames; null before any. */
  get frameMs(): number | null {
    if (this.frames.length === 0) return null;
    const s = [...this.frames].sort((a, b) => a - b);
    return s[s.length >> 1]!;
  }

  /**
   * The work changed (a scene, a strategy, a setting): the frames so far are of other
   * work. A new scene's budget taken from the empty target's frames before it (a few ms)
   * kept auto's trial sorts at their first 4,096 keys, scaled 15x to 60,000: radix16's
   * fixed cost scaled with them (1.4-2.1 s against 0.18 s timed at 20-40k keys on
   * SwiftShader), and auto picked the slower sort.
   */
  forgetFrames(): void {
    this.frames.length = 0;
  }

  /** A new device: a new queue, nothing known of it. */
  reset(): void {
    this.lastDone = -Infinity;
    this.frames.length = 0;
  }
}
