/**
 * A benchmark run in the viewer: each selected strategy flies the same camera path
 * (after a short warm-up), its profiled frames and drawn-order probes are collected,
 * and once every frame's timings and every probe are in, the run yields its report
 * rows. With `rasterFloor`, the path is first flown once more, with the first
 * strategy drawing the raster-floor variant (same quads, trivial fragment shader):
 * its median draw time is every row's `rasterFloorMs`, as in bench:frame. No DOM and no GPU: the viewer (app/app.ts) draws the frames,
 * switches the renderer's strategy to {@link BenchmarkRun.strategy}, and shows and
 * downloads the rows.
 */
import type { CameraPose } from '../camera/camera';
import { buildRows, type BenchmarkMeta, type BenchmarkRow } from './benchmark-report';
import { ownStages, type DrawInfo } from '../draw/draw-strategies';
import { summarize, withHostStage, type FrameSample } from './frame-stats';

/** The drawn order is probed on every 10th path frame, from the 5th. */
const PROBE_EVERY = 10;
const PROBE_PHASE = 5;

export interface BenchmarkRunOptions {
  strategies: readonly string[];
  path: readonly CameraPose[];
  /** Frames flown before the path of each strategy, not counted (default 5). */
  warmup?: number;
  /** First fly the path drawing the raster floor (default false). */
  rasterFloor?: boolean;
  /** Called once, when every strategy has flown and every result is in. */
  onComplete?: (run: BenchmarkRun) => void;
}

/** A counted frame: whose it is, its index on the path, and the host sort time when the strategy sorts on the host. */
interface Owned {
  index: number;
  frame: number;
  hostSortMs: number | null;
}

export class BenchmarkRun {
  readonly strategies: readonly string[];
  readonly path: readonly CameraPose[];
  readonly warmup: number;
  private readonly onComplete: ((run: BenchmarkRun) => void) | undefined;
  /** Index of the strategy flying now. */
  private current = 0;
  /** Frame within the current strategy's warm-up + path. */
  private step = 0;
  /** Profiler frame id -> the strategy it counts for. */
  private readonly owners = new Map<number, Owned>();
  private readonly samples: FrameSample[][];
  /** The path index of each of `samples` (profiled in submit order, but said so). */
  private readonly sampleFrames: number[][];
  private readonly outOfOrder: number[][];
  private pending = 0;
  private probeBusy = false;
  private completed = false;
  /** Flying the raster-floor pass (before the strategies). */
  private floor: boolean;
  private readonly wantFloor: boolean;
  private readonly floorSamples: FrameSample[] = [];

  constructor(opts: BenchmarkRunOptions) {
    if (opts.strategies.length === 0) throw new RangeError('BenchmarkRun: no strategies');
    if (opts.path.length === 0) throw new RangeError('BenchmarkRun: empty camera path');
    this.strategies = [...opts.strategies];
    this.path = opts.path;
    this.warmup = opts.warmup ?? 5;
    this.onComplete = opts.onComplete;
    this.samples = this.strategies.map(() => []);
    this.sampleFrames = this.strategies.map(() => []);
    this.outOfOrder = this.strategies.map(() => []);
    this.wantFloor = opts.rasterFloor ?? false;
    this.floor = this.wantFloor;
  }

  /** The strategy to draw the next frame with; undefined once every strategy has flown. */
  get strategy(): string | undefined {
    return this.strategies[this.current];
  }

  /** Every strategy has flown and every frame's timings and probe are in. */
  get complete(): boolean {
    return this.completed;
  }

  /** The next frame's camera, and whether to probe its drawn order. */
  /** The next frame's camera, whether to probe its drawn order, and whether it draws the raster floor. */
  nextFrame(): { pose: CameraPose; probe: boolean; rasterFloor: boolean } {
    const k = this.step - this.warmup;
    const pose = this.path[Math.min(this.path.length - 1, Math.max(0, k))];
    const probe = !this.floor && this.current < this.strategies.length && k >= 0 && k % PROBE_EVERY === PROBE_PHASE && !this.probeBusy;
    return { pose, probe, rasterFloor: this.floor };
  }

  /**
   * The frame from {@link nextFrame} was submitted as profiler frame `frameId`.
   * `hostSortMs`: the renderer's host sort time (null for a GPU sort); `probe`: the
   * drawn-order probe's out-of-order fraction when the frame was probed.
   */
  submitted(frameId: number, hostSortMs: number | null, probe?: Promise<number>): void {
    const index = this.current;
    if (index >= this.strategies.length) return;
    if (this.floor) {
      if (this.step >= this.warmup) {
        this.owners.set(frameId, { index: -1, frame: this.step - this.warmup, hostSortMs: null });
        this.pending++;
      }
      if (++this.step >= this.warmup + this.path.length) {
        this.floor = false;
        this.step = 0;
      }
      return;
    }
    if (this.step >= this.warmup) {
      this.owners.set(frameId, { index, frame: this.step - this.warmup, hostSortMs });
      this.pending++;
    }
    if (probe) {
      this.probeBusy = true;
      probe.then(
        (f) => {
          this.outOfOrder[index].push(f);
          this.probeBusy = false;
          this.check();
        },
        () => {
          this.probeBusy = false;
          this.check();
        },
      );
    }
    this.step++;
    if (this.step >= this.warmup + this.path.length) {
      this.current++;
      this.step = 0;
    }
  }

  /** The profiler reported frame `frameId` (frames that do not count are ignored). */
  profiled(frameId: number, sample: FrameSample): void {
    const owner = this.owners.get(frameId);
    if (!owner) return;
    this.owners.delete(frameId);
    if (owner.index < 0) {
      this.floorSamples.push(sample);
      this.check();
      return;
    }
    // A host sort stands for the sort stage, which the GPU does not do.
    this.samples[owner.index].push(owner.hostSortMs === null ? sample : withHostStage(sample, 'sort', owner.hostSortMs));
    this.sampleFrames[owner.index].push(owner.frame);
    this.check();
  }

  /**
   * The report rows (call once complete). `draw`: the draw strategy the run used; its
   * rows keep only that draw's stages (draw-strategies.ts), and the tiles draw, whose
   * order is per tile, has no drawn-order figure (NaN).
   */
  rows(scene: { name: string; splats: number; visible: number }, draw?: DrawInfo, meta?: BenchmarkMeta): BenchmarkRow[] {
    const tiles = draw?.name === 'tiles';
    const floor = summarize(this.floorSamples.map((f) => f.draw ?? NaN));
    return buildRows({
      scene: scene.name,
      splats: scene.splats,
      visible: scene.visible,
      ...(this.wantFloor ? { rasterFloorMs: floor ? floor.median : null } : {}),
      ...(meta ? { meta } : {}),
      runs: this.strategies.map((strategy, i) => ({
        strategy,
        ...(draw ? { draw: draw.name } : {}),
        samples: draw ? this.samples[i].map((s) => ownStages(s, draw)) : this.samples[i],
        outOfOrderFraction: tiles
          ? NaN
          : this.outOfOrder[i].length
            ? this.outOfOrder[i].reduce((a, b) => a + b, 0) / this.outOfOrder[i].length
            : 0,
      })),
    });
  }

  /**
   * Per strategy, its frames in path order with their path indices (`draw`: only that draw's stages): what a flight
   * along a camera path is profiled from (path-profile.ts profilePath, with times[index]).
   */
  flown(draw?: DrawInfo): { samples: FrameSample[]; frames: number[] }[] {
    return this.strategies.map((_, i) => {
      const order = this.sampleFrames[i].map((frame, j) => ({ frame, j })).sort((a, b) => a.frame - b.frame);
      return {
        samples: order.map(({ j }) => (draw ? ownStages(this.samples[i][j], draw) : this.samples[i][j])),
        frames: order.map(({ frame }) => frame),
      };
    });
  }

  private check(): void {
    if (this.completed || this.current < this.strategies.length) return;
    const received = this.samples.reduce((a, s) => a + s.length, 0) + this.floorSamples.length;
    if (received < this.pending || this.probeBusy) return;
    this.completed = true;
    this.onComplete?.(this);
  }
}
