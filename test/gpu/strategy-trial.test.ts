/**
 * The `auto` strategy's trial on a real adapter: every exact strategy the device
 * runs gets finite, positive sort times for the scene's count, frames are held back
 * exactly while a timed sort runs, and the choice is one of them.
 */
import { describe, expect, it } from 'vitest';
import { chooseStrategy, isExact } from '../../renderer/profile/auto-strategy';
import { timeStrategies } from '../../renderer/profile/strategy-trial';
import { BUDGET_SHARE } from '../../renderer/profile/trial-pacing';
import { listStrategies } from '../../renderer/order/strategies';
import { createNodeGpu } from '../../renderer/gpu/node-gpu';
import { useGpu, withValidation } from '../support/gpu';

const ctx = useGpu();

describe('timeStrategies (auto strategy trial)', () => {
  it('times every exact strategy on this adapter and picks one of them', async () => {
    const { device } = ctx.gpu;
    const candidates = listStrategies(device).filter(isExact);
    expect(candidates.map((c) => c.name)).toContain('radix4');
    let held = 0;
    let maxHeld = 0;
    const progress: string[] = [];
    const result = await withValidation(device, () =>
      timeStrategies(device, candidates, 20_000, {
        hold: (h) => {
          held += h ? 1 : -1;
          maxHeld = Math.max(maxHeld, held);
        },
        progress: (t) => progress.push(t),
      }),
    );
    expect(result).not.toBeNull();
    expect(held).toBe(0);
    expect(maxHeld).toBeLessThanOrEqual(1); // held only around wall-clock sorts, never nested
    expect(result!.timings.map((t) => t.name)).toEqual(candidates.map((c) => c.name));
    for (const t of result!.timings) {
      expect(t.ms.length).toBeGreaterThan(0);
      for (const ms of t.ms) expect(ms).toBeGreaterThan(0);
    }
    const choice = chooseStrategy(result!.timings, 20_000, result!.method)!;
    console.log(`${choice.reason}`);
    expect(candidates.map((c) => c.name)).toContain(choice.name);
    expect(progress[0]).toMatch(/compiling/);
    expect(progress[1]).toMatch(/warm-up/);
  });

  it('under a budget no sort runs more keys than fit: each strategy timed at the sizes that fit, its times scaled to the count', async () => {
    const { device } = ctx.gpu;
    const candidates = listStrategies(device).filter(isExact);
    // The key counts the trial writes (its count buffer), in order.
    const counts: number[] = [];
    const writeBuffer = device.queue.writeBuffer.bind(device.queue);
    device.queue.writeBuffer = ((buffer: GPUBuffer, offset: number, data: BufferSource, dataOffset?: number, size?: number) => {
      if (buffer.label === 'strategyTrial.count') counts.push(new Uint32Array((data as Uint32Array).buffer, (data as Uint32Array).byteOffset, 1)[0]!);
      return writeBuffer(buffer, offset, data as ArrayBuffer, dataOffset, size);
    }) as GPUQueue['writeBuffer'];
    try {
      // A budget no sort meets: everything at the first size, 4,096 keys.
      const tiny = await withValidation(device, () => timeStrategies(device, candidates, 200_000, { hold: () => undefined, budgetMs: () => 1e-6 }));
      expect(tiny!.method).not.toMatch(/scaled/);
      for (const t of tiny!.timings) expect(t.timedAt, `${t.name} timed at the first size`).toBe(4096);
      expect(counts.slice(1).every((c) => c === 4096)).toBe(true);
      for (const t of tiny!.timings) for (const ms of t.ms) expect(ms).toBeGreaterThan(0);
      // A generous budget: up to the whole count, nothing scaled.
      counts.length = 0;
      const wide = await withValidation(device, () => timeStrategies(device, candidates.slice(0, 1), 20_000, { hold: () => undefined, budgetMs: () => 1e9 }));
      expect(wide!.timings.every((t) => t.timedAt === undefined)).toBe(true);
      expect(counts).toEqual([20_000, 4096, 20_000]); // set up, the first size, then the whole count
    } finally {
      device.queue.writeBuffer = writeBuffer;
    }
  });

  it('with GPU timestamps, sorts share a submission (one page frame) as far as the budget allows; each is timed alone', async () => {
    // A device of its own with timestamp-query (lavapipe and SwiftShader have it).
    const gpu = await createNodeGpu({ timestamps: true });
    const { device } = gpu;
    try {
      expect(device.features.has('timestamp-query')).toBe(true);
      const candidate = listStrategies(device).filter(isExact).slice(0, 1);
      const sortTimes: number[] = [];
      let frames = 0;
      const between = async (): Promise<void> => {
        frames++;
      };
      // A generous budget: the warm-up with the first size, the whole count, then the
      // four repeats: three submissions, three page frames.
      const wide = await withValidation(device, () => timeStrategies(device, candidate, 20_000, { hold: () => undefined, budgetMs: () => 1e9, reps: 5, between }));
      expect(wide!.method).toBe('GPU timestamps');
      expect(wide!.timings[0]!.ms).toHaveLength(5);
      sortTimes.push(...wide!.timings[0]!.ms);
      expect(frames).toBe(3);
      // A budget no sort meets: everything at 4,096 keys, one sort a submission but for
      // the warm-up's (the first size is small by design): five frames for five timed sorts.
      frames = 0;
      const tiny = await withValidation(device, () => timeStrategies(device, candidate, 20_000, { hold: () => undefined, budgetMs: () => 1e-6, reps: 5, between }));
      expect(tiny!.timings[0]!.ms).toHaveLength(5);
      expect(frames).toBe(5);
      // A budget of a few sorts: the four repeats in fewer submissions than sorts. (Four
      // of the slowest sort so far: on a loaded 2-core machine the same sort varies by
      // 1.5x and more, and a budget of two once fit only one, 7 frames.)
      frames = 0;
      const perSort = Math.max(...sortTimes);
      const two = await withValidation(device, () => timeStrategies(device, candidate, 20_000, { hold: () => undefined, budgetMs: () => (4 * perSort) / BUDGET_SHARE, reps: 5, between }));
      expect(two!.timings[0]!.ms).toHaveLength(5);
      for (const ms of [...two!.timings[0]!.ms, ...sortTimes]) expect(ms).toBeGreaterThan(0);
      console.log(`trial under a budget of ~4 sorts (${perSort.toFixed(2)} ms each): ${frames} frames`);
      expect(frames).toBeGreaterThanOrEqual(3);
      expect(frames).toBeLessThan(7); // not one a sort
    } finally {
      device.destroy();
    }
  });

  it('stops when cancelled', async () => {
    const { device } = ctx.gpu;
    const candidates = listStrategies(device).filter(isExact);
    let calls = 0;
    const result = await timeStrategies(device, candidates, 1000, { hold: () => undefined, cancelled: () => ++calls > 1 });
    expect(result).toBeNull();
  });
});
