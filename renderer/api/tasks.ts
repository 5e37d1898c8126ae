/**
 * Long work in slices: the page (input, animation frames) runs between them.
 */

/**
 * The rest continues in a new task (a message to ourselves: unlike nested
 * zero-delay timers it is not clamped to 4 ms). Made on first use: a module
 * that only imports this makes no channel.
 */
let yieldChannel: MessageChannel | null = null;
const yieldWaiters: (() => void)[] = [];

export function yieldToPage(): Promise<void> {
  if (!yieldChannel) {
    yieldChannel = new MessageChannel();
    yieldChannel.port1.onmessage = () => yieldWaiters.shift()?.();
    // Node: the channel must not keep the process alive.
    (yieldChannel.port1 as { unref?: () => void }).unref?.();
  }
  const channel = yieldChannel;
  return new Promise((resolve) => {
    yieldWaiters.push(resolve);
    channel.port2.postMessage(null);
  });
}

/** Runs a generator of steps (framing.ts), a step a task: the page runs between them. */
export async function stepsInTasks<T>(steps: Generator<void, T, void>): Promise<T> {
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await yieldToPage();
  }
}

/** Resolves after the next animation frame has had a chance to paint (at most ~100 ms: a slow GPU delays frames). */
export function nextPaint(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    if (typeof requestAnimationFrame !== 'function') return;
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}
