import { describe, expect, it } from 'vitest';
import { BUDGET_SHARE, DEFAULT_FRAME_MS, FIRST_TRIAL_KEYS, firstTrialCount, nextTrialCount, scaledMs, trialBudgetMs } from './trial-pacing';

/**
 * The sizes a strategy is timed at, as strategy-trial.ts walks them, for a sort
 * costing `perKeyMs` a key plus `fixedMs`, under `budgetMs` (null: no budget).
 */
function walk(target: number, perKeyMs: number, fixedMs: number, budgetMs: number | null): { sizes: number[]; times: number[] } {
  const cost = (m: number) => fixedMs + perKeyMs * m;
  let m = firstTrialCount(target, budgetMs !== null);
  const sizes = [m];
  const times = [cost(m)];
  for (let next = nextTrialCount(target, m, cost(m), budgetMs); next !== null; next = nextTrialCount(target, m, cost(m), budgetMs)) {
    m = next;
    sizes.push(m);
    times.push(cost(m));
  }
  return { sizes, times };
}

describe('trial pacing (auto sort trials within a frame)', () => {
  it('without a budget: the whole count at once, as before', () => {
    expect(walk(60_000, 0.025, 1, null).sizes).toEqual([60_000]);
  });

  it('a fast adapter: up to the whole count in few steps, no time scaled', () => {
    // 1M keys at 2 ms; the page's frame 8 ms.
    const { sizes, times } = walk(1_000_000, 2e-6, 0.05, 8);
    // The fixed cost makes the first prediction low: one more step.
    expect(BUDGET_SHARE).toBe(0.5);
    expect(sizes).toEqual([4096, 281_550, 1_000_000]);
    expect(Math.max(...times)).toBeLessThanOrEqual(8);
  });

  it('a middling one: one step to the largest size that fits', () => {
    // 4,096 keys in 10 ms, the frame 100 ms: 20,480 keys (half the budget).
    const { sizes, times } = walk(1_000_000, 10 / 4096, 0, 100);
    expect(sizes).toEqual([4096, 20_480]);
    expect(times[1]).toBeLessThanOrEqual(100);
  });

  it('SwiftShader (radix4 1.5 s at 60,000 keys, frames of 200 ms): no sort over the frame, timed at the largest size that fits', () => {
    const perKey = 1500 / 60_000;
    const { sizes, times } = walk(60_000, perKey, 0, 200);
    expect(sizes).toEqual([4096]); // 16,384 keys would take 410 ms
    expect(Math.max(...times)).toBeLessThanOrEqual(200);
    // Scaled to the scene's count: the real time back (linear cost).
    expect(scaledMs(times.at(-1)!, sizes.at(-1)!, 60_000)).toBeCloseTo(1500, 6);
  });

  it('never times a sort predicted over the budget, for any cost and budget', () => {
    for (const perKey of [1e-7, 1e-5, 1e-3]) {
      for (const budget of [5, 16.7, 100, 1000]) {
        for (const target of [1000, 60_000, 6_000_000]) {
          for (const fixed of [0, 0.5, 3]) {
          const { sizes, times } = walk(target, perKey, fixed, budget);
          expect(sizes.at(-1)!).toBeLessThanOrEqual(target);
          // The first size may exceed it (nothing smaller is timed); every later one fits.
          for (let i = 1; i < times.length; i++) expect(times[i]!).toBeLessThanOrEqual(budget + 1e-9);
          // Stopped only because the whole count was reached or twice as many would not fit.
          const last = sizes.at(-1)!;
          if (last < target) expect(times.at(-1)! * (Math.min(target, last * 2) / last)).toBeGreaterThan(BUDGET_SHARE * budget);
          }
        }
      }
    }
  });

  it('small scenes start at their own count', () => {
    expect(firstTrialCount(1000, true)).toBe(1000);
    expect(firstTrialCount(1_000_000, true)).toBe(FIRST_TRIAL_KEYS);
    expect(firstTrialCount(0, true)).toBe(1);
  });

  it('a bad reading stays where it is; scaledMs never scales down', () => {
    expect(nextTrialCount(1e6, 4096, NaN, 100)).toBeNull();
    expect(nextTrialCount(1e6, 4096, Infinity, 100)).toBeNull();
    expect(scaledMs(5, 1e6, 1e6)).toBe(5);
    expect(scaledMs(5, 2e6, 1e6)).toBe(5);
  });

  it("the budget is the page's frame time, a 60 Hz frame at least or while unknown", () => {
    expect(trialBudgetMs(200)).toBe(200);
    expect(trialBudgetMs(2)).toBe(DEFAULT_FRAME_MS);
    expect(trialBudgetMs(null)).toBe(DEFAULT_FRAME_MS);
    expect(trialBudgetMs(NaN)).toBe(DEFAULT_FRAME_MS);
  });
});
