/**
 * A viewer's benchmark: the path (profile/benchmark-path.ts) flown with each
 * strategy (profile/benchmark-run.ts drives it frame by frame; frame.ts asks it
 * for each frame's pose), then the camera and strategy restored and the rows
 * made (profile/benchmark-report.ts).
 */
import { robustBounds, upVector, type CameraPose } from '../camera/camera';
import type { frameCamera } from '../camera/frame-camera';
import { drawByName } from '../draw/draw-strategies';
import { strategyByName } from '../order/strategies';
import { benchmarkPath } from '../profile/benchmark-path';
import type { BenchmarkRow } from '../profile/benchmark-report';
import { BenchmarkRun } from '../profile/benchmark-run';
import type { Viewer } from './viewer';

/** A benchmark in progress and what to restore after it. */
export interface Benchmark {
  run: BenchmarkRun;
  restore: { strategy: string; pose: CameraPose };
  /** The target in device pixels when the run started, "1280x800". */
  resolution: string;
  resolve: (rows: BenchmarkRow[]) => void;
  reject: (e: unknown) => void;
}

export function startBenchmark(v: Viewer, all: string[]): Promise<BenchmarkRow[]> {
  if (v.bench) return Promise.reject(new Error('benchmark: one is running already'));
  // A draw trial stops (back to the draw auto starts with, or its pick) and runs again after the benchmark.
  if (v.drawAuto.trial) v.drawAuto.apply();
  // The tiles draw benchmarks the GPU sorters only (a host sort cannot serve it).
  const strategies = v.renderer.draw === 'tiles' ? all.filter((n) => strategyByName(n).sorter) : all;
  const cloud = v.renderer.cloud;
  if (!cloud) return Promise.reject(new Error('benchmark: no scene is open'));
  if (strategies.length === 0) return Promise.reject(new Error('benchmark: no strategy to fly'));
  const { width, height } = v.target;
  const path = benchmarkPath(robustBounds(cloud.positions), upVector(v.settings.upAxis), v.settings.fovyDeg, width / height, v.settings.benchFrames);
  return new Promise((resolve, reject) => {
    // The raster floor (the draw of the same quads with a trivial fragment shader) is flown first.
    const run = new BenchmarkRun({ strategies, path, warmup: 5, rasterFloor: true, onComplete: (r) => finishBenchmark(v, r) });
    v.bench = { run, restore: { strategy: v.renderer.strategy, pose: v.controller.pose }, resolution: `${width}x${height}`, resolve, reject };
    v.renderer.setStrategy(run.strategy!);
  });
}

export function advanceBenchmark(v: Viewer, run: BenchmarkRun, frameId: number, probed: boolean, camera: ReturnType<typeof frameCamera>): void {
  const cloud = v.renderer.cloud;
  const probe = probed && v.probe && cloud ? v.probe.outOfOrder(cloud.positions, camera) : undefined;
  run.submitted(frameId, v.renderer.hostSortMs, probe);
  const next = run.strategy;
  if (next !== undefined && next !== v.renderer.strategy) v.renderer.setStrategy(next);
}

function finishBenchmark(v: Viewer, run: BenchmarkRun): void {
  const bench = v.bench;
  if (!bench || bench.run !== run) return;
  v.bench = null;
  const cloud = v.renderer.cloud!;
  // Every row says where and how it was measured, so a downloaded file stands alone.
  const meta = { keyBits: v.settings.keyBits, resolution: bench.resolution, adapter: v.adapterLine(), date: new Date().toISOString() };
  const visible = v.renderer.tileStatus?.last?.visible ?? v.figures.visible ?? cloud.count;
  const rows = run.rows({ name: cloud.source.name, splats: cloud.count, visible }, drawByName(v.renderer.draw), meta);
  v.lastBenchmark = rows;
  v.renderer.setStrategy(bench.restore.strategy);
  v.controller.setPose(bench.restore.pose);
  v.dirty = true;
  bench.resolve(rows);
}

/** Ends a benchmark in flight (device lost, new scene): its camera and strategy restored; its promise rejects. */
export function abortBenchmark(v: Viewer): void {
  const bench = v.bench;
  if (!bench) return;
  v.bench = null;
  v.renderer.setStrategy(bench.restore.strategy);
  v.controller.setPose(bench.restore.pose);
  bench.reject(new Error('benchmark: stopped (the device was lost or the scene changed)'));
}
