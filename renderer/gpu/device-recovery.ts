/**
 * When a lost WebGPU device is replaced (the viewer, app/app.ts): a new
 * one is requested a few times with growing pauses, and losses that come too often
 * stop the page from trying at all, so a device that cannot be made, or that is
 * lost again at once, never turns into a loop. No DOM, no GPU calls of its own.
 */

/** Pauses before each attempt to make a new device: the first at once. */
export const RETRY_DELAYS_MS: readonly number[] = [0, 500, 2000];

/** At most this many recoveries within LOSS_WINDOW_MS; one more loss and the page gives up. */
export const MAX_RECOVERIES = 3;
export const LOSS_WINDOW_MS = 60_000;

/** Every attempt failed: the last error, and how many attempts were made. */
export class DeviceRecoveryError extends Error {
  override name = 'DeviceRecoveryError';
  constructor(
    readonly attempts: number,
    readonly last: unknown,
  ) {
    super(`no new GPU device after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${last instanceof Error ? last.message : String(last)}`);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls `attempt` after each pause of `delays` until one resolves; rejects with
 * DeviceRecoveryError once all have failed. `stopped` (checked before each attempt)
 * ends the retries early with the last error.
 */
export async function retryWithBackoff<T>(
  attempt: () => Promise<T>,
  opts: { delays?: readonly number[]; wait?: (ms: number) => Promise<void>; stopped?: () => boolean } = {},
): Promise<T> {
  const delays = opts.delays ?? RETRY_DELAYS_MS;
  const wait = opts.wait ?? sleep;
  let last: unknown = new Error('no attempt made');
  let made = 0;
  for (const ms of delays) {
    if (ms > 0) await wait(ms);
    if (opts.stopped?.()) break;
    made++;
    try {
      return await attempt();
    } catch (err) {
      last = err;
    }
  }
  throw new DeviceRecoveryError(made, last);
}

/** Counts recent losses: `allow(now)` is false once MAX_RECOVERIES happened within the window. */
export class LossWindow {
  private readonly times: number[] = [];

  constructor(
    private readonly max = MAX_RECOVERIES,
    private readonly windowMs = LOSS_WINDOW_MS,
  ) {}

  /** A device was lost at `now` (ms): true when the page should recover, false when it should give up. */
  allow(now: number): boolean {
    while (this.times.length > 0 && now - this.times[0] > this.windowMs) this.times.shift();
    if (this.times.length >= this.max) return false;
    this.times.push(now);
    return true;
  }
}
