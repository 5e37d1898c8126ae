/**
 * The `auto` strategy in a running viewer: when to measure (once a new scene is on
 * screen), the measurement itself (strategy-trial.ts, each trial sort within the
 * page's own frame time: trial-pacing.ts), its pick per scene size (auto-picks.ts:
 * a size measured on this adapter before, in this visit or an earlier one, is not
 * measured again), and the line the panel shows. The viewer draws; this decides. No DOM.
 */
import { chooseStrategy, trialCandidates, type AutoChoice, type StrategyTraits } from './auto-strategy';
import { timeStrategies } from './strategy-trial';
import type { AutoPicks } from './auto-picks';
import { trialBudgetMs } from './trial-pacing';

export interface AutoRunHooks {
  /** The page's next frame completed (so a slow adapter keeps presenting between trial sorts). */
  frameDone(): Promise<void>;
  /** The panel's line changed. */
  noted(text: string): void;
  /** Draw with auto's pick. */
  apply(name: string): void;
  /** Whether auto is still wanted (the strategy setting is auto, no benchmark runs). */
  active(): boolean;
  /** The page's own frame time (ms) now, or null while unknown: no trial sort takes longer. */
  frameMs?(): number | null;
  /** Whether the adapter is a software one (auto-strategy.ts trialCandidates). */
  software?(): boolean;
  /** A trial sort submitted at `submitAt` completed at `done` (ms, performance.now): the queue's clock (queue-clock.ts). */
  queued?(submitAt: number, done: number): void;
}

export class AutoRun {
  /** What the panel says: auto's pick and why, or what it is doing. */
  note = '';
  /** A trial sort runs alone on the queue: the viewer holds its frames back. */
  holding = false;
  /** Measure at the next chance (a frame of the new scene has completed). */
  wanted = false;
  /** A measurement is in flight (the draw's auto waits for it: it times frames with the sort auto picks). */
  busy = false;
  private token = 0;
  private pick: { scene: string; choice: AutoChoice } | null = null;

  constructor(
    private device: GPUDevice,
    private readonly strategies: readonly StrategyTraits[],
    private readonly hooks: AutoRunHooks,
    /** Picks by adapter and scene size (auto-picks.ts); none: every scene is measured. */
    private readonly picks: AutoPicks<AutoChoice> | null = null,
  ) {}

  say(text: string): void {
    this.note = text;
    this.hooks.noted(text);
  }

  /** Stops a measurement in flight (a new scene, the user's choice). */
  cancel(): void {
    this.token++;
    this.busy = false;
  }

  /** Measure again on the new device (a measurement was wanted or in flight when the device was lost). */
  private again = false;

  /**
   * The device was lost: a measurement in flight stops (its timings would be of a
   * dead device) and its hold on the page's frames ends.
   */
  deviceLost(): void {
    this.again ||= this.busy || this.wanted;
    this.cancel();
    this.wanted = false;
    this.holding = false;
  }

  /** The viewer draws on a new device: a measurement stopped by the loss runs again; the pick made so far stays (same adapter, same scene). */
  deviceChanged(device: GPUDevice): void {
    this.cancel();
    this.device = device;
    this.holding = false;
    this.wanted = this.again && this.hooks.active();
    this.again = false;
  }

  /**
   * A new scene: measure once it is on screen. `current`: the strategy drawing it
   * meanwhile, for the note (the last scene's pick no longer speaks for this one).
   */
  sceneChanged(current?: string): void {
    this.cancel();
    this.wanted = this.hooks.active();
    if (this.wanted && current) this.say(`auto: drawing with ${current}; measuring once the scene is on screen`);
  }

  /** The user picked auto again: reuse this scene's pick, else measure. */
  chosen(scene: string | null): void {
    this.cancel();
    if (this.pick && this.pick.scene === scene) {
      this.hooks.apply(this.pick.choice.name);
      this.say(this.pick.choice.reason);
    } else {
      this.wanted = true;
    }
  }

  /**
   * Times the exact strategies with `count` keys and applies the fastest. The
   * strategy drawing now goes first, so the others stop early when clearly slower.
   */
  async measure(scene: string | null, count: number, keyBits: number, current: string): Promise<AutoChoice | null> {
    this.wanted = false;
    if (!this.hooks.active()) return null;
    const token = ++this.token;
    this.busy = true;
    try {
      return await this.measureNow(token, scene, count, keyBits, current);
    } finally {
      if (token === this.token) this.busy = false;
    }
  }

  private async measureNow(token: number, scene: string | null, count: number, keyBits: number, current: string): Promise<AutoChoice | null> {
    const stale = () => token !== this.token || !this.hooks.active();
    // A scene of about this size was measured on this adapter: its pick, no new trial.
    const known = this.picks?.get(count);
    if (known && this.strategies.some((s) => s.name === known.name)) {
      if (scene !== null) this.pick = { scene, choice: known };
      this.hooks.apply(known.name);
      this.say(`${known.reason} (measured before on this adapter)`);
      return known;
    }
    const candidates = trialCandidates(this.strategies, current, this.hooks.software?.() ?? false);
    this.say(`auto: drawing with ${current}; measuring ${candidates.map((c) => c.name).join(', ')} with ${count.toLocaleString('en-US')} keys…`);
    const result = await timeStrategies(this.device, candidates, count, {
      keyBits,
      hold: (h) => {
        this.holding = h;
      },
      cancelled: stale,
      between: () => this.hooks.frameDone(),
      ...(this.hooks.queued ? { queued: (a: number, b: number) => this.hooks.queued?.(a, b) } : {}),
      // A trial cancelled meanwhile (the user's choice) says nothing more: its line is the user's now.
      progress: (t) => {
        if (!stale()) this.say(`auto: drawing with ${current}; measuring ${t}…`);
      },
      ...(this.hooks.frameMs ? { budgetMs: () => trialBudgetMs(this.hooks.frameMs?.()) } : {}),
    });
    if (!result || stale()) return null;
    const choice = chooseStrategy(result.timings, count, result.method);
    if (!choice) {
      this.say(`auto: could not time the sorts here; drawing with ${current}`);
      return null;
    }
    if (scene !== null) this.pick = { scene, choice };
    this.picks?.set(count, choice);
    this.hooks.apply(choice.name);
    this.say(choice.reason);
    return choice;
  }
}
