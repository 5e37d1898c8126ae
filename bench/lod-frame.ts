/**
 * bench:frame on a streamed LOD scene (--scene DIR/lod-meta.json [--budget N]):
 * frames along the benchmark orbit (or one --camera pose), each doing what the
 * page does: the LOD choice for the view within the budget, loads started and
 * cancelled (from disk, decoded on this thread: in the page a worker decodes),
 * a slice of upload, a new assembled scene when the drawable set changed, then
 * the frame itself. Before the timed frames the first pose's choice is
 * streamed in whole (waited for); during them nothing waits.
 *
 * Prints per frame-stat the median / p95 of the GPU frame time (timestamps),
 * of the host time of the LOD work, and the drawn and resident splats and GPU
 * bytes; fails when a frame draws more than the budget.
 *
 * --add objects (`adds`) are placed beside it, as the viewer's add() does: the LOD
 * scene is one object among them (each new drawn set swaps its object's scene,
 * SplatRenderer.setObjectScene), and their splats come off its budget (LodScene.others).
 */
import fs from 'node:fs';
import { fitPose, formatCameraArg, upVector, type CameraPose } from '../renderer/camera/camera';
import { pathFrames } from '../renderer/camera/camera-path';
import { resolvePathArg, type PathArg } from './cli';
import { frameCamera } from '../renderer/camera/frame-camera';
import { createNodeGpu } from '../renderer/gpu/node-gpu';
import { bindingLimit, formatBytes } from '../renderer/frame/gpu-budget';
import { FrameTimestamps } from './frame-timestamps';
import { SplatRenderer } from '../renderer/frame/splat-renderer';
import { benchmarkPath } from '../renderer/profile/benchmark-path';
import { summarize } from '../renderer/profile/frame-stats';
import { stageTimes } from '../renderer/profile/profiler';
import { LodScene } from '../renderer/lod/lod-scene';
import { lodViewOf } from '../renderer/lod/select';
import { sceneBytesPerSplat, type ScenePrecision } from '../renderer/gpu-scene/scene-precision';
import { openLodMeta } from './lod-node';
import { unionBounds } from './cli';
import type { SplatCloud } from '../scenes/splat-cloud';
import { transformBounds, type SplatTransform } from '../scenes/transform';

export interface LodBenchOptions {
  file: string;
  budget: number | undefined;
  memoryBytes: number;
  width: number;
  height: number;
  frames: number;
  warmup: number;
  strategy: string;
  draw: string;
  pose: CameraPose | null;
  /** --path: the frames of a camera path at `fps` instead of the orbit (frames then = the path's). */
  flight?: { arg: PathArg; fps: number } | null;
  json: string | undefined;
  /** How the chunks and the drawn set are kept on the GPU (scene-precision.ts). */
  precision: ScenePrecision;
  /** Objects placed beside it (--add), drawn in the same frames; their splats share the budget. */
  adds?: readonly { name: string; cloud: SplatCloud; transform: SplatTransform }[];
}

export async function lodFrameBench(o: LodBenchOptions): Promise<void> {
  const { meta, load } = openLodMeta(o.file);
  const adds = o.adds ?? [];
  const others = adds.reduce((n, a) => n + a.cloud.count, 0);
  const budget = o.budget ?? meta.counts[0]! + others;
  if (others >= budget) throw new Error(`--add: the objects' ${others} splats leave nothing of the budget ${budget} to the LOD scene`);
  // The frames' depth range and the orbit cover the objects as placed too.
  const bound = adds.length > 0 ? unionBounds([meta.bound, ...adds.map((a) => transformBounds(a.transform, a.cloud.bounds))]) : meta.bound;
  // A path's warm-up frames hold its first pose; its timed frames are its own, in order.
  const flown = o.flight ? pathFrames(resolvePathArg(o.flight.arg, fitPose(bound, upVector('-y'), 60, o.width / o.height)), o.flight.fps).map((f) => f.pose) : null;
  if (flown) o = { ...o, frames: flown.length };
  const gpu = await createNodeGpu({ timestamps: true });
  const { device } = gpu;
  const hasTs = device.features.has('timestamp-query');
  const n = (x: number) => x.toLocaleString('en-US');
  console.log(`adapter: ${gpu.description}${hasTs ? '' : ' (no timestamp-query: CPU wall times per frame)'}`);
  console.log(`scene: ${o.file}: ${meta.levels} levels (${meta.counts.map(n).join(' / ')} splats), ${meta.leaves.length} leaves, ${meta.filenames.length} files; budget ${n(budget)}, ${o.precision} chunks, GPU memory budget ${formatBytes(o.memoryBytes)}; ${o.width}x${o.height}, ${o.frames} frames (+${o.warmup} warm-up)`);

  const target = device.createTexture({ label: 'bench.target', size: { width: o.width, height: o.height }, format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.STORAGE_BINDING });
  const view = target.createView();
  const timestamps = FrameTimestamps.create(device);

  const errors: string[] = [];
  const lod = new LodScene(device, meta, load, {
    budget,
    memoryBytes: o.memoryBytes,
    bindingBytes: bindingLimit(device.limits).bytes,
    precision: o.precision,
    onError: (f, e) => errors.push(`${f}: ${e instanceof Error ? e.message : String(e)}`),
  });
  const renderer = new SplatRenderer(device, 'rgba8unorm', o.strategy, o.draw);
  renderer.precision = o.precision;
  const path = flown ?? (o.pose ? [o.pose] : benchmarkPath(bound, upVector('-y'), 60, o.width / o.height, o.frames));
  const camOf = (i: number) => frameCamera(flown ? flown[Math.max(0, i - o.warmup)]! : path[i % path.length]!, o.width, o.height, bound);
  const settings = { shDegree: 3, splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0] as const };

  device.pushErrorScope('validation');
  const t0 = performance.now();
  lod.others = others;
  const first = await lod.settle(lodViewOf(camOf(0)), () => new Promise((r) => setImmediate(r)));
  if (!first) {
    // Say why: failed loads (named, with their errors) or an empty choice for the view.
    const why = errors.length > 0 ? `; ${errors.length} chunk files failed to load, first: ${errors[0]}` : `; the view chose ${n(lod.stats.chosen)} splats`;
    throw new Error(`${o.file}: nothing to draw at the first pose within budget ${budget}${why}`);
  }
  renderer.setGpuScene(first);
  const lodObject = renderer.objects[0]!.handle;
  for (const a of adds) renderer.addObject(a.cloud, a.transform);
  if (adds.length > 0) console.log(`objects beside it: ${adds.map((a) => `${a.name} (${n(a.cloud.count)} splats)`).join(', ')}: ${n(others)} splats off the budget, ${n(budget - others)} left to the LOD scene`);
  console.log(`first pose streamed in: ${n(first.count)} splats drawn, ${n(lod.stats.resident)} resident (${formatBytes(lod.pool.bytes)}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  interface Row { gpuMs: number; lodMs: number; drawn: number; resident: number; bytes: number; inFlight: number; assembled: boolean }
  const rows: Row[] = [];
  let maxDrawn = 0;
  for (let i = 0; i < o.warmup + o.frames; i++) {
    const cam = camOf(i);
    const h0 = performance.now();
    const next = lod.update(lodViewOf(cam));
    if (next) renderer.setObjectScene(lodObject, next);
    const lodMs = performance.now() - h0;
    const drawn = renderer.cloud?.count ?? 0;
    maxDrawn = Math.max(maxDrawn, drawn);
    if (drawn > budget) throw new Error(`frame ${i}: ${drawn} splats drawn, over the budget ${budget}`);
    const enc = device.createCommandEncoder({ label: 'bench.lod-frame' });
    const f0 = performance.now();
    renderer.encodeFrame(enc, view, cam, { ...settings, shDegree: Math.min(3, renderer.cloud?.shDegree ?? 0), targetStorage: true }, timestamps?.begin());
    timestamps?.resolve(enc);
    device.queue.submit([enc.finish()]);
    renderer.submitted();
    await renderer.settle();
    let gpuMs = NaN;
    if (timestamps) {
      const reading = stageTimes(await timestamps.read());
      if (reading.outcome === 'measured') gpuMs = reading.times.total ?? NaN;
    } else {
      await device.queue.onSubmittedWorkDone();
      gpuMs = performance.now() - f0;
    }
    if (i >= o.warmup) rows.push({ gpuMs, lodMs, drawn, resident: lod.stats.resident, bytes: lod.pool.bytes, inFlight: lod.stats.inFlight, assembled: next !== null });
  }
  const err = await device.popErrorScope();
  if (err) throw new Error(`WebGPU validation error: ${err.message}`);
  for (const e of errors) console.warn(`WARNING: ${e}`);

  const stat = (k: keyof Row) => summarize(rows.map((r) => Number(r[k])))!;
  const fmt = (k: keyof Row, d = 2) => `${stat(k).median.toFixed(d)} / ${stat(k).p95.toFixed(d)}`;
  const cameraName = o.flight ? `path ${o.flight.arg.name} at ${o.flight.fps} fps (${o.frames} frames)` : o.pose ? formatCameraArg(o.pose) : 'orbit';
  console.log(`camera: ${cameraName}; strategy ${o.strategy}, draw ${o.draw}`);
  console.log(`GPU frame ms (median / p95):   ${fmt('gpuMs')}`);
  console.log(`LOD host ms (median / p95):    ${fmt('lodMs')}  (select, stream, upload slice, assemble; ${rows.filter((r) => r.assembled).length} of ${rows.length} frames assembled a new set)`);
  console.log(`drawn splats (median / max):   ${n(stat('drawn').median)} / ${n(maxDrawn)} of budget ${n(budget)}`);
  const drawnBytes = maxDrawn * sceneBytesPerSplat(lod.pool.shDegree ?? 0, o.precision);
  console.log(`resident splats (median / max): ${n(stat('resident').median)} / ${n(Math.max(...rows.map((r) => r.resident)))}; GPU bytes max: ${formatBytes(Math.max(...rows.map((r) => r.bytes)))} resident chunks + ${formatBytes(drawnBytes)} the drawn set (+ the sort's and draw's buffers)`);
  console.log(`chunks in flight (max): ${Math.max(...rows.map((r) => r.inFlight))}; loads cancelled ${lod.streamer.cancelled}; failed ${lod.streamer.failed.size}`);
  const tally = lod.pool.tally.report();
  console.log(`packing (${o.precision}; files packed by the loader ${lod.pool.filesPacked.byLoader}, in the upload slices ${lod.pool.filesPacked.here}): ${n(tally.clamped)} splats clamped, ${n(tally.dropped)} dropped${Object.keys(tally.reasons).length ? ` ${JSON.stringify(tally.reasons)}` : ''}`);
  if (o.json) {
    fs.writeFileSync(o.json, JSON.stringify({ scene: o.file, budget, adapter: gpu.description, width: o.width, height: o.height, strategy: o.strategy, draw: o.draw, maxDrawn, frames: rows }, null, 1));
    console.log(`wrote ${o.json}`);
  }
  lod.destroy();
  renderer.destroy();
  target.destroy();
  device.destroy();
}
