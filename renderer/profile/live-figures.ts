/**
 * The live figures of what is on screen now, and only of that: frames are tagged,
 * when submitted, with the "epoch" they belong to (a scene, a sort strategy, a
 * setting that changes the work), and a change starts a new epoch that forgets the
 * previous one's times. A figure no frame of this epoch has produced yet is
 * unknown (shown "-"), never the previous scene's value.
 *
 * Pure: frame ids are the profiler's submission sequence numbers; times are ms.
 */
import { CompletedFrameRate } from './fps';
import { FrameStats, type FrameSample } from './frame-stats';

/** Frame ids whose epoch is kept (for their report, completion and visible count) before the oldest are forgotten. */
const MAX_TRACKED = 1024;

export class LiveFigures {
  /** The current epoch (0 at start). */
  epoch = 0;
  /** The current scene's epoch: a new scene (or device) starts one, and with it the FPS. */
  sceneEpoch = 0;
  /** GPU stage and CPU times of this epoch's reported frames (a short window). */
  readonly stats: FrameStats;
  /**
   * FPS from the completed frames of the scene on screen, whatever the settings they
   * were drawn with: one rule at every frame time, "-" only before the scene's second
   * completed frame. A setting's change does not blank it (the frames on screen
   * complete at the rate they do; the window follows within 2 s or two frames).
   */
  readonly fps: CompletedFrameRate;
  /** Splats that passed the cull in this epoch's latest counted frame, or null. */
  visible: number | null = null;
  private readonly owner = new Map<number, { epoch: number; scene: number }>();

  constructor(window = 60, fpsWindowMs = 2000) {
    this.stats = new FrameStats(window);
    this.fps = new CompletedFrameRate(fpsWindowMs);
  }

  /** Something changed the work (strategy, draw, settings): forget the stage times and the visible count so far. */
  change(): void {
    this.epoch++;
    this.stats.clear();
    this.visible = null;
  }

  /** A new scene (or a new device) is on screen: forget every figure, the FPS too. */
  sceneChanged(): void {
    this.change();
    this.sceneEpoch++;
    this.fps.clear();
  }

  /** Frame `frameId` was submitted in the current epoch. */
  submitted(frameId: number): void {
    this.owner.set(frameId, { epoch: this.epoch, scene: this.sceneEpoch });
    if (this.owner.size > MAX_TRACKED) {
      const oldest = this.owner.keys().next().value;
      if (oldest !== undefined) this.owner.delete(oldest);
    }
  }

  /** Whether frame `frameId` belongs to the current epoch. */
  current(frameId: number): boolean {
    return this.owner.get(frameId)?.epoch === this.epoch;
  }

  /** Frame `frameId`'s GPU work completed at time `t` (counted for FPS if it drew the scene on screen). */
  completed(frameId: number, t: number): void {
    if (this.owner.get(frameId)?.scene === this.sceneEpoch) this.fps.complete(t);
  }

  /** Frame `frameId`'s timings arrived (the profiler reports every submitted frame once). */
  reported(frameId: number, sample: FrameSample): void {
    if (this.current(frameId)) this.stats.push(sample);
    // Kept (the oldest go past MAX_TRACKED): the completion and the visible count may come
    // after the report (Dawn in Node resolves the timestamps' map first; Chromium the other way).
  }

  /** The visible count read back from frame `frameId` (ignored if that frame is of an older epoch). */
  counted(frameId: number, visible: number): void {
    if (this.current(frameId)) this.visible = visible;
  }
}

/**
 * When to refresh what the page shows: at once after a change, and otherwise every
 * `intervalMs` (so a figure is never more than that old). Pure; the caller polls
 * `due(now)` from its animation callback, which runs even while frames are held back.
 */
export class RefreshGate {
  private last = -Infinity;
  private pending = true;

  constructor(readonly intervalMs = 200) {}

  /** A change the page must show: the next due() is true. */
  invalidate(): void {
    this.pending = true;
  }

  /** Whether to refresh now; when true, counts as refreshed at `now`. */
  due(now: number): boolean {
    if (!this.pending && now - this.last < this.intervalMs) return false;
    this.pending = false;
    this.last = now;
    return true;
  }
}
