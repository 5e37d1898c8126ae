/**
 * Frames per second that are true on a slow GPU: counted from the moments frames'
 * GPU work completed (queue.onSubmittedWorkDone), not from animation callbacks or
 * submissions. A page on a software adapter gets an animation callback 60 times a
 * second but finishes a frame every few seconds; only completions say that.
 *
 * Pure: the caller reports completion times (ms, any monotonic clock) and asks for
 * the rate at a given time.
 */
export class CompletedFrameRate {
  private readonly times: number[] = [];

  /**
   * @param windowMs the rate is taken over the completions of the last `windowMs`
   *   (at least the last two completions, however far apart)
   * @param maxSamples completions kept
   */
  constructor(
    readonly windowMs = 2000,
    readonly maxSamples = 240,
  ) {}

  /** A frame's GPU work completed at time `t` (ms). Out-of-order times are ignored. */
  complete(t: number): void {
    if (!Number.isFinite(t)) return;
    const last = this.times[this.times.length - 1];
    if (last !== undefined && t < last) return;
    this.times.push(t);
    if (this.times.length > this.maxSamples) this.times.splice(0, this.times.length - this.maxSamples);
  }

  /** Forgets every completion (a new scene or strategy: the old rate is not this one's). */
  clear(): void {
    this.times.length = 0;
  }

  /** Completions recorded (at most maxSamples). */
  get count(): number {
    return this.times.length;
  }

  /**
   * Frames per second at time `now`, or null before two frames completed.
   *
   * The rate over the window's completions; when the GPU has since gone quiet for
   * longer than one of those frame intervals (a frame in flight for seconds), the
   * rate is capped at 1 / (time since the last completion): it falls while nothing
   * completes instead of repeating the last good figure.
   */
  rate(now: number): number | null {
    const t = this.times;
    const n = t.length;
    if (n < 2) return null;
    const last = t[n - 1];
    let first = n - 2;
    while (first > 0 && last - t[first - 1] <= this.windowMs) first--;
    const frames = n - 1 - first;
    const span = last - t[first];
    if (!(span > 0)) return null;
    let fps = (frames * 1000) / span;
    const since = now - last;
    if (since > span / frames) fps = Math.min(fps, 1000 / since);
    return fps;
  }
}

/** FPS for display: "-" when unknown, 2 decimals below 1, 1 decimal below 100, whole above. */
export function formatFps(fps: number | null | undefined): string {
  if (fps === null || fps === undefined || !Number.isFinite(fps)) return '-';
  if (fps < 1) return fps.toFixed(2);
  if (fps < 100) return fps.toFixed(1);
  return fps.toFixed(0);
}
