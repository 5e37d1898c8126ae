/**
 * A viewer's benchmark: the path (profile/benchmark-path.ts, or a camera path's
 * frames: camera/camera-path.ts) flown with each strategy (profile/benchmark-run.ts
 * drives it frame by frame; frame.ts asks it for each frame's pose), then the camera
 * and strategy restored and the rows made (profile/benchmark-report.ts; a camera
 * path's rows also per stage max, per frame GPU times against path time and the
 * slowest second: profile/path-profile.ts).
 */
import { robustBounds, upVector, type CameraPose } from '../camera/camera';
import { pathFrames, type CameraPath } from '../camera/camera-path';
import type { CameraController } from '../camera/controller';
import type { frameCamera } from '../camera/frame-camera';
import { drawByName, drawServedBy } from '../draw/draw-strategies';
import type { SplatRenderer } from '../frame/splat-renderer';
import { benchmarkPath, type DrawnOrderProbe } from '../profile/benchmark-path';
import type { BenchmarkRow } from '../profile/benchmark-report';
import { BenchmarkRun } from '../profile/benchmark-run';
import { profilePath } from '../profile/path-profile';
import type { RenderSettings } from './settings';
import type { RenderTarget } from './targets';

/** What a benchmark needs of its viewer. */
export interface BenchmarkHooks {
  settings: RenderSettings;
  target: RenderTarget;
  controller: CameraController;
  renderer(): SplatRenderer;
  /** The drawn order's probe of the scene on screen. */
  probe(): DrawnOrderProbe | null;
  /** The visible splats last counted, or null. */
  visible(): number | null;
  adapterLine(): string;
  /** A benchmark starts: a draw trial stops. */
  starting(): void;
  /** The next frame draws (and sorts). */
  redraw(): void;
}

/** A camera path a benchmark flies instead of its orbit: frame i at path time i / fps. */
export interface BenchmarkPathOptions {
  path: CameraPath;
  /** Frames a second of path time (default 30). */
  fps?: number;
  /** What the rows call it (default 'path'). */
  name?: string;
}

/** A benchmark in progress and what to restore after it. */
interface Flight {
  run: BenchmarkRun;
  /** The camera path flown: its name, fps, duration and each frame's path time; null for the orbit. */
  flown: { name: string; fps: number; duration: number; times: number[] } | null;
  restore: { strategy: string; pose: CameraPose };
  /** The target in device pixels when the run started, "1280x800". */
  resolution: string;
  resolve: (rows: BenchmarkRow[]) => void;
  reject: (e: unknown) => void;
}

export class Benchmarks {
  /** The last benchmark's rows. */
  lastRows: BenchmarkRow[] | null = null;
  private flight: Flight | null = null;

  constructor(private readonly hooks: BenchmarkHooks) {}

  /** The benchmark flying, or null. */
  get run(): BenchmarkRun | null {
    return this.flight?.run ?? null;
  }

  /** Of `strategies`, those a benchmark flies with the draw in use (the tiles draw: GPU sorters only). */
  benchmarkable(strategies: string[]): string[] {
    const draw = this.hooks.renderer().draw;
    return strategies.filter((n) => drawServedBy(draw, n));
  }

  /** Flies the path with each of `all` the draw in use can take; resolves with the rows (also kept as lastRows). */
  start(all: string[], along: BenchmarkPathOptions | null = null): Promise<BenchmarkRow[]> {
    const { hooks } = this;
    if (this.flight) return Promise.reject(new Error('benchmark: one is running already'));
    // A draw trial stops (back to the draw auto starts with, or its pick) and runs again after the benchmark.
    hooks.starting();
    const renderer = hooks.renderer();
    let strategies: string[];
    try {
      strategies = this.benchmarkable(all);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    const cloud = renderer.cloud;
    if (!cloud) return Promise.reject(new Error('benchmark: no scene is open'));
    if (strategies.length === 0) return Promise.reject(new Error('benchmark: no strategy to fly'));
    const { width, height } = hooks.target;
    const { settings } = hooks;
    let path: CameraPose[];
    let flown: Flight['flown'] = null;
    if (along) {
      const fps = along.fps ?? 30;
      let frames: ReturnType<typeof pathFrames>;
      try {
        frames = pathFrames(along.path, fps);
      } catch (e) {
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
      path = frames.map((f) => f.pose);
      const ks = along.path.keyframes;
      flown = { name: along.name ?? 'path', fps, duration: ks[ks.length - 1].time, times: frames.map((f) => f.time) };
    } else {
      path = benchmarkPath(robustBounds(cloud.positions), upVector(settings.upAxis), settings.fovyDeg, width / height, settings.benchFrames);
    }
    return new Promise((resolve, reject) => {
      // The raster floor (the draw of the same quads with a trivial fragment shader) is flown first.
      const run = new BenchmarkRun({ strategies, path, warmup: 5, rasterFloor: true, onComplete: (r) => this.finish(r) });
      this.flight = { run, flown, restore: { strategy: renderer.strategy, pose: hooks.controller.pose }, resolution: `${width}x${height}`, resolve, reject };
      renderer.setStrategy(run.strategy!);
    });
  }

  /** Frame `frameId` of the flight was submitted: its drawn order checked when `probed`; the next strategy set when due. */
  advance(run: BenchmarkRun, frameId: number, probed: boolean, camera: ReturnType<typeof frameCamera>): void {
    const renderer = this.hooks.renderer();
    const cloud = renderer.cloud;
    const probe = this.hooks.probe();
    const outOfOrder = probed && probe && cloud ? probe.outOfOrder(cloud.positions, camera) : undefined;
    run.submitted(frameId, renderer.hostSortMs, outOfOrder);
    const next = run.strategy;
    if (next !== undefined && next !== renderer.strategy) renderer.setStrategy(next);
  }

  private finish(run: BenchmarkRun): void {
    const flight = this.flight;
    if (!flight || flight.run !== run) return;
    this.flight = null;
    const { hooks } = this;
    const renderer = hooks.renderer();
    const cloud = renderer.cloud!;
    // Every row says where and how it was measured, so a downloaded file stands alone.
    const meta = { keyBits: hooks.settings.keyBits, resolution: flight.resolution, adapter: hooks.adapterLine(), date: new Date().toISOString() };
    const visible = renderer.tileStatus?.last?.visible ?? hooks.visible() ?? cloud.count;
    const draw = drawByName(renderer.draw);
    let rows = run.rows({ name: cloud.source.name, splats: cloud.count, visible }, draw, meta);
    const along = flight.flown;
    if (along) {
      // Per row: max per stage, each frame's GPU times against its path time, the slowest second.
      const flights = run.flown(draw);
      rows = rows.map((r, i) => {
        const f = flights[i];
        const { max, ...profile } = profilePath(f.samples, f.frames.map((k) => along.times[k]), along.fps, along.duration);
        return { ...r, camera: `path ${along.name}, ${along.duration} s at ${along.fps} fps`, max, path: { name: along.name, ...profile } };
      });
    }
    this.lastRows = rows;
    renderer.setStrategy(flight.restore.strategy);
    hooks.controller.setPose(flight.restore.pose);
    hooks.redraw();
    flight.resolve(rows);
  }

  /** Ends a flight (device lost): its camera and strategy restored; its promise rejects. */
  abort(): void {
    const flight = this.flight;
    if (!flight) return;
    this.flight = null;
    this.hooks.renderer().setStrategy(flight.restore.strategy);
    this.hooks.controller.setPose(flight.restore.pose);
    flight.reject(new Error('benchmark: stopped (the device was lost or the scene changed)'));
  }

  /** Another scene opens: a flight stops where it is; its promise rejects. */
  sceneChanged(): void {
    this.flight?.reject(new Error('benchmark: stopped, another scene opened'));
    this.flight = null;
  }

  destroy(): void {
    this.flight = null;
  }
}
