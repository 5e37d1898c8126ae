import { describe, expect, it } from 'vitest';
import { runInSlices } from './sliced-upload';

/** A fake clock each slice advances by `msPerItem` a item; records the calls in order. */
function harness(msPerItem: number) {
  let t = 0;
  const log: string[] = [];
  return {
    log,
    now: () => t,
    slice: (first: number, end: number) => {
      t += (end - first) * msPerItem;
      log.push(`slice ${first}-${end}`);
    },
    pause: async () => void log.push('pause'),
    settle: async () => void log.push('settle'),
  };
}

describe('runInSlices', () => {
  it('covers [0, total) once, in order, in slices of `chunk` (the last one short)', async () => {
    const h = harness(0);
    await runInSlices(10, h.slice, h.pause, h.settle, { chunk: 4, now: h.now });
    expect(h.log).toEqual(['slice 0-4', 'slice 4-8', 'slice 8-10']);
  });

  it('hands the thread back whenever the budget is spent, with the progress so far', async () => {
    // 1 ms an item, slices of 3, budget 5 ms: a pause after every second slice (6 ms).
    const h = harness(1);
    const progress: number[] = [];
    await runInSlices(12, h.slice, h.pause, h.settle, { chunk: 3, budgetMs: 5, now: h.now, progress: (d) => progress.push(d) });
    expect(h.log).toEqual(['slice 0-3', 'slice 3-6', 'pause', 'slice 6-9', 'slice 9-12', 'pause']);
    expect(progress).toEqual([6, 12]);
  });

  it('settles the queue (instead of pausing) every settleBytes written', async () => {
    const h = harness(0);
    await runInSlices(10, h.slice, h.pause, h.settle, { chunk: 2, budgetMs: 1e9, bytesPerItem: 100, settleBytes: 400, now: h.now });
    expect(h.log).toEqual(['slice 0-2', 'slice 2-4', 'settle', 'slice 4-6', 'slice 6-8', 'settle', 'slice 8-10']);
  });

  it('an abort stops it before the next slice, rejecting with the reason', async () => {
    const h = harness(1);
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const pause = async () => {
      h.log.push('pause');
      controller.abort(reason);
    };
    await expect(runInSlices(100, h.slice, pause, h.settle, { chunk: 10, budgetMs: 15, now: h.now, signal: controller.signal })).rejects.toBe(reason);
    expect(h.log).toEqual(['slice 0-10', 'slice 10-20', 'pause']);
  });

  it('an abort between pauses (from another task) is seen after the slice in flight', async () => {
    const h = harness(0);
    const controller = new AbortController();
    const slice = (first: number, end: number) => {
      h.slice(first, end);
      if (first === 20) controller.abort('stop');
    };
    await expect(runInSlices(100, slice, h.pause, h.settle, { chunk: 10, now: h.now, signal: controller.signal })).rejects.toBe('stop');
    expect(h.log.at(-1)).toBe('slice 20-30');
  });

  it('an already aborted signal runs no slice', async () => {
    const h = harness(0);
    await expect(runInSlices(10, h.slice, h.pause, h.settle, { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
    expect(h.log).toEqual([]);
  });

  it('nothing to do: resolves at once', async () => {
    const h = harness(0);
    await runInSlices(0, h.slice, h.pause, h.settle);
    expect(h.log).toEqual([]);
  });
});
