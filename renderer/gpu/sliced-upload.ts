/**
 * Runs a long upload (or any work over `total` items) in slices that hand the
 * page's thread back between them and stop when an AbortSignal fires: the page
 * keeps drawing and its Cancel button keeps working while a large scene goes to
 * the GPU. Generic: it knows nothing of what a slice writes (GpuScene's buffers
 * are one user); pure apart from the callbacks it is given.
 */

export interface SliceOptions {
  /** Items a slice (default 2048). */
  chunk?: number;
  /** Work in ms after which `pause()` is awaited (default 8: half a 60 Hz frame). */
  budgetMs?: number;
  /** Bytes each item writes; with `settleBytes`, when `settle()` is awaited instead of `pause()`. */
  bytesPerItem?: number;
  /**
   * After this many bytes written since the last settle, `settle()` is awaited
   * (default 4 MB): a browser's writeBuffer stages through a bounded ring and
   * blocks the page's thread when it is full; awaiting the queue blocks nothing.
   */
  settleBytes?: number;
  /** Hears the items done so far whenever the thread is handed back. */
  progress?: (done: number) => void;
  /** Aborting it stops the run at the next slice: the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** The clock (tests); performance.now by default. */
  now?: () => number;
}

/**
 * Calls `slice(first, end)` over [0, total) in slices of `chunk` items, awaiting
 * `pause()` whenever `budgetMs` of work has passed since the thread was last handed
 * back, or `settle()` once `settleBytes` were written since the last settle. The
 * signal is checked before every slice and after every await: an abort ends the
 * run at once with `signal.reason` (the caller frees what it made).
 */
export async function runInSlices(
  total: number,
  slice: (first: number, end: number) => void,
  pause: () => Promise<void>,
  settle: () => Promise<void>,
  opts: SliceOptions = {},
): Promise<void> {
  const chunk = Math.max(1, Math.floor(opts.chunk ?? 2048));
  const budgetMs = opts.budgetMs ?? 8;
  const settleBytes = opts.settleBytes ?? 4 << 20;
  const bytesPerItem = opts.bytesPerItem ?? 0;
  const now = opts.now ?? (() => performance.now());
  const signal = opts.signal;
  signal?.throwIfAborted();
  let since = now();
  let unsettled = 0;
  for (let first = 0; first < total; first += chunk) {
    const end = Math.min(total, first + chunk);
    slice(first, end);
    unsettled += (end - first) * bytesPerItem;
    if (bytesPerItem > 0 && unsettled >= settleBytes) {
      opts.progress?.(end);
      await settle();
      unsettled = 0;
      since = now();
    } else if (now() - since >= budgetMs) {
      opts.progress?.(end);
      await pause();
      since = now();
    }
    signal?.throwIfAborted();
  }
}
