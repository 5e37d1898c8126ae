/**
 * Times sort strategies on this device with a given key count: what `auto`
 * (auto-strategy.ts) chooses from.
 *
 * Off the visible frame's critical path: the trial sorts its own buffers (random
 * 32-bit keys, `count` of them: the scene's splat count), never the frame's, in
 * submissions of their own between frames, and the frames go on. With GPU
 * timestamps the sort's own passes are timed, whatever else the queue runs. Where
 * timestamps are missing or read 0, the time is the wall clock from submit to
 * onSubmittedWorkDone on a drained queue, and for that sort the caller holds its
 * frames back (`hold(true)`) so that it runs alone.
 *
 * A few sorts per strategy: its pipelines compiled ahead (createComputePipelineAsync:
 * the queue, and the page's frames, go on meanwhile), one untimed warm-up (first
 * dispatches allocate; never held), then timed ones: 5 when a sort takes < 20 ms, 3 below
 * 300 ms, else 1; a strategy whose first timed sort is 3x slower than the best so
 * far stops there (on SwiftShader radix4 takes 1.5 s a sort at 60k splats).
 *
 * With a budget (`budgetMs`: the page's own frame time), no trial sort is predicted
 * to take longer than it: each strategy is timed on 4,096 keys, then on as many as
 * that time predicts to fit, and its times are scaled to `count` (trial-pacing.ts),
 * so that the page keeps presenting between the trial's sorts.
 *
 * Each submission waits for a page frame (`between`), and on a slow adapter a frame
 * is long (1.2 s on SwiftShader), so sorts share submissions where the GPU timestamps
 * time each alone: the warm-up with the first timed sort, and the repeats as many
 * together as their measured time fits the budget (three 150 ms sorts under a 1.2 s
 * frame: one submission, not three). By the wall clock, one sort a submission.
 */
import { getSorterFactory } from '../../sort/registry';
import { sortBufferUsage } from '../../sort/types';
import type { StrategyTiming, StrategyTraits } from './auto-strategy';
import { BUDGET_SHARE, firstTrialCount, nextTrialCount, scaledMs } from './trial-pacing';

export interface TrialOptions {
  /** Timed sorts per strategy after the warm-up (default: 5 when the first takes < 20 ms, 3 below 300 ms, else 1). */
  reps?: number;
  keyBits?: number;
  /** Called with true before a timed sort (hold frames back) and false after it. */
  hold: (held: boolean) => void;
  /** Checked between sorts: true abandons the trial (result null). */
  cancelled?: () => boolean;
  /**
   * Awaited before each sort: e.g. until the page's next frame completes, so that on
   * a slow adapter the visible frames keep coming between the trial's sorts.
   */
  between?: () => Promise<void>;
  /** Progress for the page, e.g. "radix16 2/3". */
  progress?: (text: string) => void;
  /** Each trial submission's submit and completion times (ms, `now`), as it completes. */
  queued?: (submitAt: number, done: number) => void;
  /** Clock in ms (default performance.now). */
  now?: () => number;
  /**
   * The most ms one trial sort may take, read before each step (the page's own frame
   * time; null while unknown): keys are then timed in the sizes that fit and scaled.
   */
  budgetMs?: () => number | null;
}

export interface TrialResult {
  timings: StrategyTiming[];
  /** How the times were taken, for the panel. */
  method: string;
}

/** Sorts one submission holds at most (timestamp pairs in the trial's query set). */
const MAX_BATCH = 8;

/** Deterministic pseudo-random u32 keys (xorshift32). */
function randomKeys(count: number, seed = 0x9e3779b9): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(count);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x;
  }
  return out;
}

/**
 * Times each of `candidates` (in the order given: put the likely winner first, so
 * slow ones stop early) sorting `count` keys. Returns null when cancelled.
 */
export async function timeStrategies(device: GPUDevice, candidates: readonly StrategyTraits[], count: number, opts: TrialOptions): Promise<TrialResult | null> {
  const now = opts.now ?? (() => performance.now());
  const n = Math.max(1, Math.floor(count));
  const keyBits = opts.keyBits ?? 32;
  const usage = sortBufferUsage();
  const keys = device.createBuffer({ label: 'strategyTrial.keys', size: n * 4, usage });
  const values = device.createBuffer({ label: 'strategyTrial.values', size: n * 4, usage });
  const countBuf = device.createBuffer({
    label: 'strategyTrial.count',
    size: 16,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC | GPUBufferUsage.INDIRECT,
  });
  // The keys and ids every sort starts from, copied into the sorted buffers on the GPU
  // before each sort (several sorts can then share one submission).
  const keySrc = device.createBuffer({ label: 'strategyTrial.keySrc', size: n * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  const valueSrc = device.createBuffer({ label: 'strategyTrial.valueSrc', size: n * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  device.queue.writeBuffer(keySrc, 0, randomKeys(n));
  const iota = new Uint32Array(n);
  for (let i = 0; i < n; i++) iota[i] = i;
  device.queue.writeBuffer(valueSrc, 0, iota);
  device.queue.writeBuffer(countBuf, 0, new Uint32Array([n, 0, 0, 0]));
  const stamps = device.features.has('timestamp-query');
  const querySet = stamps ? device.createQuerySet({ label: 'strategyTrial.ts', type: 'timestamp', count: 2 * MAX_BATCH }) : null;
  const resolve = stamps ? device.createBuffer({ label: 'strategyTrial.resolve', size: 16 * MAX_BATCH, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }) : null;
  const readback = stamps ? device.createBuffer({ label: 'strategyTrial.readback', size: 16 * MAX_BATCH, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }) : null;
  let usedStamps = 0;
  let usedWall = 0;
  /** Timestamps read 0 here: time by the wall clock, alone on the queue. */
  let wallClock = !stamps;

  /** The key count in countBuf. */
  let written = n;
  type Sorter = ReturnType<ReturnType<typeof getSorterFactory>['create']>;
  /**
   * After a page frame (`between`), one submission of `k` sorts of `m` fresh keys
   * (k > 1 only with GPU timestamps: each sort has its own pair); their times in ms,
   * the first one NaN when it is a warm-up. By the wall clock (no timestamps, or they
   * read 0), one sort alone, frames held back.
   */
  const sortBatch = async (sorter: Sorter, m: number, k: number, warmUpFirst = false): Promise<number[]> => {
    await opts.between?.();
    if (wallClock && k > 1) throw new Error('strategyTrial: a batch of sorts needs GPU timestamps');
    // By the wall clock a timed sort runs alone; the warm-up (untimed) is never held.
    const alone = wallClock && !warmUpFirst;
    if (alone) opts.hold(true);
    try {
      if (written !== m) device.queue.writeBuffer(countBuf, 0, new Uint32Array([m, 0, 0, 0]));
      written = m;
      // Alone: the frames in flight finish first.
      if (alone) await device.queue.onSubmittedWorkDone();
      const encoder = device.createCommandEncoder({ label: 'strategyTrial.sort' });
      for (let i = 0; i < k; i++) {
        encoder.copyBufferToBuffer(keySrc, 0, keys, 0, m * 4);
        encoder.copyBufferToBuffer(valueSrc, 0, values, 0, m * 4);
        sorter.encode(encoder, { keys, values, count: countBuf, countOffset: 0, keyBits }, querySet && !wallClock ? { querySet, beginIndex: 2 * i, endIndex: 2 * i + 1 } : undefined);
      }
      if (querySet && resolve && readback && !wallClock) {
        encoder.resolveQuerySet(querySet, 0, 2 * k, resolve, 0);
        encoder.copyBufferToBuffer(resolve, 0, readback, 0, 16 * k);
      }
      const t0 = now();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      const t1 = now();
      opts.queued?.(t0, t1);
      const wall = t1 - t0;
      if (wallClock) {
        if (warmUpFirst) return [NaN];
        usedWall++;
        return [wall];
      }
      await readback!.mapAsync(GPUMapMode.READ, 0, 16 * k);
      const t = new BigUint64Array(readback!.getMappedRange(0, 16 * k).slice(0));
      readback!.unmap();
      const out: number[] = [];
      for (let i = 0; i < k; i++) {
        const [b, e] = [t[2 * i]!, t[2 * i + 1]!];
        if (warmUpFirst && i === 0) {
          out.push(NaN);
          continue;
        }
        if (!(b > 0n && e > b)) {
          // Timestamps read 0: from now on by the wall clock, alone; one sort again.
          wallClock = true;
          return sortBatch(sorter, m, 1);
        }
        usedStamps++;
        out.push(Number(e - b) / 1e6);
      }
      return out;
    } finally {
      if (alone) opts.hold(false);
    }
  };
  /** How many sorts of `ms` each one submission may hold: as many as fit the budget, at least 1. */
  const fitting = (ms: number, wanted: number): number => {
    if (wallClock) return 1;
    const budget = opts.budgetMs?.() ?? null;
    const fit = budget === null ? wanted : Math.floor((BUDGET_SHARE * budget) / Math.max(ms, 1e-6));
    return Math.max(1, Math.min(wanted, fit, MAX_BATCH));
  };

  const timings: StrategyTiming[] = [];
  let best = Infinity;
  try {
    for (const c of candidates) {
      if (opts.cancelled?.()) return null;
      const ms: number[] = [];
      /** Keys its times were measured at (scaled to n when fewer). */
      let timedAt = n;
      let sorter: Sorter | null = null;
      device.pushErrorScope('validation');
      try {
        // Its pipelines compiled on the side first: created on the spot, a compile holds up
        // the queue, the page's frames with it (seconds a kernel on SwiftShader).
        opts.progress?.(`${c.name} compiling`);
        const factory = getSorterFactory(c.name);
        await factory.compileAhead(device, n);
        if (opts.cancelled?.()) return null;
        sorter = factory.create(device, n);
        let m = firstTrialCount(n, opts.budgetMs !== undefined);
        let atM: number;
        if (wallClock) {
          // Wall clock: the warm-up (not held) and the first timed sort (alone) apart.
          opts.progress?.(`${c.name} warm-up`);
          await sortBatch(sorter, m, 1, true);
          if (opts.cancelled?.()) return null;
          opts.progress?.(`${c.name} 1`);
          atM = (await sortBatch(sorter, m, 1))[0]!;
        } else {
          // The warm-up and the first timed sort in one submission (the first size is small under a budget).
          opts.progress?.(`${c.name} warm-up and 1`);
          const got = await sortBatch(sorter, m, 2, true);
          atM = got[got.length - 1]!;
        }
        // Up in sizes while the next one fits the budget (trial-pacing.ts).
        for (let next = nextTrialCount(n, m, atM, opts.budgetMs?.() ?? null); next !== null; next = nextTrialCount(n, m, atM, opts.budgetMs?.() ?? null)) {
          if (opts.cancelled?.()) return null;
          m = next;
          opts.progress?.(`${c.name} 1 (${m.toLocaleString('en-US')} keys)`);
          atM = (await sortBatch(sorter, m, 1))[0]!;
        }
        timedAt = m;
        const first = scaledMs(atM, m, n);
        ms.push(first);
        // Clearly slower than the best so far: one sort is figure enough.
        if (!(first > 3 * best)) {
          const reps = opts.reps ?? (first < 20 ? 5 : first < 300 ? 3 : 1);
          // The repeats in as few submissions as the budget allows (each after a page frame).
          while (ms.length < reps) {
            if (opts.cancelled?.()) return null;
            const k = fitting(atM, reps - ms.length);
            opts.progress?.(`${c.name} ${ms.length + 1}${k > 1 ? `-${ms.length + k}` : ''}/${reps}`);
            for (const t of await sortBatch(sorter, m, k)) ms.push(scaledMs(t, m, n));
          }
        }
      } catch (e) {
        console.warn(`auto: ${c.name} could not be timed: ${e instanceof Error ? e.message : String(e)}`);
        ms.length = 0;
      } finally {
        sorter?.destroy();
        const err = await device.popErrorScope();
        if (err) {
          console.warn(`auto: ${c.name} could not be timed: ${err.message}`);
          ms.length = 0;
        }
      }
      const sorted = [...ms].sort((a, b) => a - b);
      if (sorted.length) best = Math.min(best, sorted[sorted.length >> 1]);
      timings.push({ ...c, ms, ...(timedAt < n ? { timedAt } : {}) });
    }
  } finally {
    keys.destroy();
    values.destroy();
    keySrc.destroy();
    valueSrc.destroy();
    countBuf.destroy();
    querySet?.destroy();
    resolve?.destroy();
    readback?.destroy();
  }
  // Which times were scaled from fewer keys is each timing's own (timedAt; chooseStrategy words it).
  const method = usedStamps > 0 && usedWall === 0 ? 'GPU timestamps' : 'wall clock of lone sorts';
  return { timings, method };
}
