/**
 * How `auto`'s trial sorts keep the page's frames coming (strategy-trial.ts): a
 * trial sort is one submission the GPU runs between the page's frames, so while it
 * runs no frame is presented. On a slow adapter a sort of the scene's whole count
 * takes seconds (radix4: 1.5 s at 60,000 keys on SwiftShader) where the page's own
 * frame takes a fraction of that; a trial sort is therefore kept under a budget (the
 * page's own frame time: the gap between two frames stays under twice a frame).
 * Each strategy is first run on a few keys (its pipelines compile, untimed), timed
 * there, then timed at the largest size its time predicts to fit the budget (linear
 * in the keys, which overestimates a sort with a fixed cost: safe), up to the scene's
 * count: one step, as each step waits for a page frame (seconds on a software GPU).
 * Its times there are scaled to the scene's count. Pure.
 */

/** Keys of a strategy's first (warm-up and first timed) trial sort under a budget. */
export const FIRST_TRIAL_KEYS = 4096;

/** The key count of a strategy's first trial sort: the whole count without a budget. */
export function firstTrialCount(target: number, budgeted: boolean): number {
  return budgeted ? Math.max(1, Math.min(target, FIRST_TRIAL_KEYS)) : target;
}

/**
 * Share of the budget (the page's frame time) one trial submission may fill. The gap
 * between two animation frames is about a frame plus the submission between them: at
 * 0.9 those gaps were 1.8-1.9 s against 833 ms frames on SwiftShader (2.2-2.3x a frame);
 * at 0.5 the longest was 1.35 s against 650 ms (issue 19: at most twice a frame). On a
 * slow adapter the trial then times smaller sizes and scales them (scaledMs).
 */
export const BUDGET_SHARE = 0.5;

/**
 * The key count to time next after a sort of `current` keys took `ms`: the most keys
 * (at most `target`) predicted to take at most BUDGET_SHARE of `budgetMs`, when that
 * is at least twice `current`; null to stay at `current` (the whole count reached, or
 * no much larger size fits). Without a budget (null), the whole count at once.
 */
export function nextTrialCount(target: number, current: number, ms: number, budgetMs: number | null): number | null {
  if (current >= target) return null;
  if (budgetMs === null) return target;
  if (!(ms >= 0) || !Number.isFinite(ms) || !(budgetMs > 0)) return null;
  const fits = ms > 0 ? Math.floor((current * BUDGET_SHARE * budgetMs) / ms) : target;
  const next = Math.min(target, fits);
  return next >= 2 * current || next === target ? (next > current ? next : null) : null;
}

/** A sort time of `measuredAt` keys scaled to `target` keys (linear: radix sorts are, past a few thousand keys). */
export function scaledMs(ms: number, measuredAt: number, target: number): number {
  return measuredAt >= target ? ms : (ms * target) / Math.max(1, measuredAt);
}

/** A 60 Hz frame: the budget while the page's own frame time is not known. */
export const DEFAULT_FRAME_MS = 1000 / 60;

/** The budget of one trial sort for a page whose frames take `frameMs` (a 60 Hz frame while not known). */
export function trialBudgetMs(frameMs: number | null | undefined): number {
  return frameMs !== null && frameMs !== undefined && frameMs > 0 && Number.isFinite(frameMs) ? Math.max(frameMs, DEFAULT_FRAME_MS) : DEFAULT_FRAME_MS;
}
