/**
 * bench:frame — per-stage GPU frame times along the fixed benchmark camera path, in
 * Node (Dawn), offscreen, for each sort strategy.
 *
 *   npm run bench:frame -- --scene FILE|synthetic:N|default[:N] [--size 1920x1080]
 *                          [--frames 200] [--warmup 20] [--strategies all|radix4,cpu]
 *                          [--camera "eye=X,Y,Z target=X,Y,Z up=X,Y,Z fovy=DEG"]
 *                          [--draw quads|tiles|quads,tiles] [--key-bits 32]
 *                          [--geometry tri|quad,tri,auto+cut,auto:128,rect@list,...] [--cut]
 *                          [--min-contribution 0,1,3] [--aa] [--no-coverage] [--no-cull] [--sh N] [--json PATH]
 *                          [--timing stages|total] [--path FILE|orbit[:SECONDS] [--fps 30]]
 *                          [--max-pairs N] [--precision compact|full] [--binding-limit MB]
 *                          [--add FILE [--transform "translate=X,Y,Z rotate=W,X,Y,Z scale=S"]]...
 *   npm run bench:frame -- --scene DIR/lod-meta.json [--budget N] [--memory MB] [--strategies radix4] [--draw quads]
 *                          [--add FILE [--transform ...]]... ...
 *
 * --add FILE (repeatable; a file or a generated scene, as --scene) places another object in
 * the same world (SplatRenderer.addObject, issue 32), placed by the --transform after it
 * (bench/cli.ts placedAddsArg, the syntax of `npm run render`): every timed frame draws
 * all the objects in one sort and one draw, as the page does, so two 1M objects can be
 * timed against one 2M scene. The camera path (orbit, fitted view) and the frames' depth
 * range then cover all the objects as placed; the drawn-order probe is skipped (its
 * indices are the first scene's): `outOfOrderFraction` is 0 in those rows.
 * --binding-limit MB: page the scene's arrays and the draws' records as under a
 * per-binding limit of MB megabytes (renderer/gpu-scene/paging.ts; the page's ?bindlimit),
 * to measure what paging costs where the adapter would need it.
 * --precision: how the scene is kept on the GPU (renderer/gpu-scene/scene-precision.ts;
 * compact, the default, or full); its resident bytes are printed.
 * Without --camera the frames follow the fixed orbit path (benchmarkPath); with it
 * every frame is drawn from that one pose (the camera is named in the table and the
 * JSON rows). --path FILE flies a camera path file instead (docs/PATHS.md; orbit:SECONDS
 * the orbit preset round the fitted view): frame i at path time i / fps (--fps, default
 * 30), floor(duration x fps) + 1 timed frames from 0 to the last keyframe's time (so
 * no --frames). Each row then also carries, in the JSON, `max` (the maximum ms per
 * stage) and `path` (fps, duration, per frame its path time and GPU ms per stage and
 * total, the slowest second); the output names each row's maxima and slowest second
 * ("slowest second: 2.0-3.0 s, 4.1 ms median, stage blend": the whole second of path
 * time with the largest median total, and its stage of largest median).
 * --geometry lists the quads draw's shapes to measure, one row each per
 * strategy (renderer/draw/quads/quads-draw.ts parseDrawShape: a geometry, auto's areas,
 * `+cut`); --cut puts PlayCanvas's 2.83-sigma cut on all of them (an image change).
 * For each shape the raster floor (same geometry, trivial fragment shader) is timed
 * and, unless --no-coverage, one extra frame counts its fragments: the pixels the
 * geometry covers and those that pass the fragment test (can change the image).
 * Each frame is submitted and timed alone (a timestamp query at the frame's start and
 * at the end of each stage of renderer/stage/frame-stages.ts, as the page's profiler
 * writes them), so the stage figures are GPU times without overlap and add up to the
 * total. --timing total puts two timestamps around the whole frame instead and none
 * between its passes (the frame as the page draws it without the profiler: the
 * per-stage timestamps cost a little each); the stage columns are then empty.
 * The raster floor is the same path drawn with a trivial fragment shader
 * (same geometry, same blending). `outOfOrderFraction` is measured on the drawn order
 * every 10th frame against that frame's camera. For a host sort (`cpu`) the sort stage
 * is the CPU time of its depth pass and sort (the GPU does no sort work for it).
 * --warmup N untimed frames (default 20) come before the timed ones of each row: the
 * first frames compile pipelines, and the tiles draw grows its pair buffers from a
 * count read a few frames late. The table prints each stage and the total as
 * "median / p95" (nearest rank, frame-stats.ts); the JSON rows carry both
 * (`stages`: medians, `p95`), per stage and for the total.
 *
 * --draw runs each strategy with each draw strategy (default quads). The tiles rows
 * time project (with the (tile, depth) pairs and the frame's settling), sort (the pairs,
 * with the row's sorter) and blend (the tiles' ranges, the blend and its copy onto the
 * target); they have no raster floor
 * and no drawn-order probe (their order is per tile), and carry the pairs sorted at
 * the first pose. A host sort (`cpu`) cannot serve the tiles draw and is skipped there.
 * --geometry and --cut shape the quads rows only (the tiles draw has no polygons and
 * no cut): a tiles row is measured once per strategy.
 * --min-contribution LIST: the contribution cull's thresholds in pixels (FrameSettings.
 * minContribution; 0 off, the default; an image change), one row each per shape and
 * strategy, labelled `min=T` (tiles: one row each).
 * --key-bits: the key-bits setting (quads: depth key bits; tiles: depth bits under the
 * tile index, at most what 32 bits leave).
 * --sh N: load the scene with SH degree N at most (the higher bands dropped while parsing).
 * --aa: every row in the anti-aliased mode (FrameSettings.antialias; an image change).
 * --max-pairs N: the tiles draw's pair buffers hold at most N pairs (TileRasterizerOptions.
 * maxPairs): a view that needs more is drawn by the draw's fallback (depth-sorted quads)
 * every frame, as at a device's cap; this times that path.
 * A streamed LOD scene (lod-meta.json) runs bench/lod-frame.ts instead: each frame
 * streams and draws within --budget N splats (default: the finest level's count) and
 * --memory MB of resident chunks (default 4096), the first strategy and draw listed; its
 * --add objects are drawn with it (the LOD scene one object among them), their splats
 * taken off the budget.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_PRECISION, parsePrecision } from '../renderer/gpu-scene/scene-precision';
import { fitPose, formatCameraArg, robustBounds, upVector } from '../renderer/camera/camera';
import { pathFrames } from '../renderer/camera/camera-path';
import { formatMax, formatSlowestSecond, profilePath } from '../renderer/profile/path-profile';
import { benchmarkPath, DrawnOrderProbe } from '../renderer/profile/benchmark-path';
import { buildRows, formatTable, toJson, type StrategyRun } from '../renderer/profile/benchmark-report';
import { frameCamera } from '../renderer/camera/frame-camera';
import { summarize, withHostStage, type FrameSample } from '../renderer/profile/frame-stats';
import { stageTimes } from '../renderer/profile/profiler';
import { DrawArgs } from '../renderer/stage/draw-args';
import { FrameTimestamps } from './frame-timestamps';
import { SplatRenderer } from '../renderer/frame/splat-renderer';
import { bindingLimit } from '../renderer/frame/gpu-budget';
import { listStrategies } from '../renderer/order/strategies';
import { drawByName, drawRefusal, ownStages } from '../renderer/draw/draw-strategies';
import { createNodeGpu, readBuffer } from '../renderer/gpu/node-gpu';
import { meterGpuMemory, mib } from './gpu-memory';
import { DEFAULT_GEOMETRY, formatDrawShape, type DrawShape } from '../renderer/draw/quads/quads-draw';
import { isLodMetaFile } from './lod-node';
import { lodFrameBench } from './lod-frame';
import { budgetArg, cameraFromArg, drawShapesFromArg, fpsArg, nonNegativeList, parseSize, pathArg, placedAddsArg, resolvePathArg, runCli, sceneFromArg, shArg, unionBounds } from './cli';
import { transformBounds } from '../scenes/transform';

const median = (v: number[]) => summarize(v)?.median ?? NaN;

runCli(async () => {
  const { values, tokens } = parseArgs({
    tokens: true,
    options: {
      scene: { type: 'string' },
      add: { type: 'string', multiple: true },
      transform: { type: 'string', multiple: true },
      size: { type: 'string', default: '1920x1080' },
      frames: { type: 'string' },
      warmup: { type: 'string', default: '20' },
      strategies: { type: 'string', default: 'all' },
      camera: { type: 'string' },
      draw: { type: 'string', default: 'quads' },
      'key-bits': { type: 'string', default: '32' },
      geometry: { type: 'string', default: DEFAULT_GEOMETRY },
      cut: { type: 'boolean', default: false },
      'min-contribution': { type: 'string', default: '0' },
      aa: { type: 'boolean', default: false },
      timing: { type: 'string', default: 'stages' },
      'max-pairs': { type: 'string' },
      coverage: { type: 'boolean', default: true },
      'no-coverage': { type: 'boolean', default: false },
      'no-cull': { type: 'boolean', default: false },
      sh: { type: 'string' },
      json: { type: 'string' },
      budget: { type: 'string' },
      memory: { type: 'string', default: '4096' },
      precision: { type: 'string', default: DEFAULT_PRECISION },
      'binding-limit': { type: 'string' },
      path: { type: 'string' },
      fps: { type: 'string' },
    },
  });
  if (!values.scene) throw new Error('usage: npm run bench:frame -- --scene FILE|synthetic:N [--size WxH] [--frames N] [--strategies ...] [--json PATH]');
  const { width, height } = parseSize(values.size!);
  // A path file is read and checked before anything else: its errors name keyframe and field.
  const flightArg = values.path === undefined ? null : pathArg(values.path);
  if (flightArg && values.camera !== undefined) throw new Error('--path and --camera: give one (a path flies many poses, --camera holds one)');
  if (flightArg && values.frames !== undefined) throw new Error('--frames: not with --path (the path sets the frames: floor(duration x fps) + 1)');
  if (!flightArg && values.fps !== undefined) throw new Error('--fps: only with --path');
  const fps = fpsArg(values.fps ?? '30');
  let frames = Number(values.frames ?? '200');
  if (values.timing !== 'stages' && values.timing !== 'total') throw new Error(`--timing must be 'stages' or 'total', got '${values.timing}'`);
  // 'total': two timestamps around the whole frame and none between its passes (the
  // frame as the page draws it without the profiler); the stage columns stay empty.
  const totalOnly = values.timing === 'total';
  const warmup = Number(values.warmup);
  if (!(frames >= 1) || !(warmup >= 0)) throw new Error('--frames must be >= 1 and --warmup >= 0');
  const fixedPose = values.camera !== undefined ? cameraFromArg(values.camera) : null;
  const draws = values.draw!.split(',').map((d) => drawByName(d.trim()).name);
  const keyBits = Number(values['key-bits']);
  if (!(Number.isInteger(keyBits) && keyBits >= 1 && keyBits <= 32)) throw new Error(`--key-bits ${values['key-bits']}: expected an integer 1..32`);
  const shapes = drawShapesFromArg(values.geometry!, values.cut!);
  const minContributions = nonNegativeList('--min-contribution', values['min-contribution']!);
  if (values['no-coverage']) values.coverage = false;
  const maxShDegree = shArg(values.sh);
  // The objects placed beside the scene (--add, each placed by the --transform after it).
  const placed = placedAddsArg(tokens ?? []);
  if (isLodMetaFile(values.scene)) {
    // --add beside a streamed LOD scene: objects drawn with it, their splats taken off its budget.
    const lodAdds = await Promise.all(placed.map(async (a) => ({ name: a.scene, cloud: await sceneFromArg(a.scene, maxShDegree === undefined ? {} : { maxShDegree }), transform: a.transform })));
    const memory = Number(values.memory);
    if (!(memory > 0)) throw new Error(`--memory ${values.memory}: expected megabytes > 0`);
    await lodFrameBench({
      file: values.scene,
      budget: values.budget === undefined ? undefined : budgetArg(values.budget),
      memoryBytes: memory * 2 ** 20,
      width,
      height,
      frames,
      warmup,
      strategy: values.strategies === 'all' ? 'radix4' : values.strategies!.split(',')[0]!,
      draw: draws[0]!,
      pose: fixedPose,
      flight: flightArg ? { arg: flightArg, fps } : null,
      json: values.json,
      precision: parsePrecision(values.precision!, '--precision'),
      adds: lodAdds,
    });
    return;
  }
  if (values.budget !== undefined) throw new Error(`--budget: ${values.scene} is not a lod-meta.json (a streamed LOD scene)`);
  const cloud = await sceneFromArg(values.scene, maxShDegree === undefined ? {} : { maxShDegree });
  const adds = await Promise.all(placed.map(async (a) => ({ name: a.scene, cloud: await sceneFromArg(a.scene, maxShDegree === undefined ? {} : { maxShDegree }), transform: a.transform })));
  const totalSplats = cloud.count + adds.reduce((n, a) => n + a.cloud.count, 0);
  // Every object as placed (the scene at the identity): the frames' depth range and the path's framing.
  const sceneBounds = adds.length > 0 ? unionBounds([cloud.bounds, ...adds.map((a) => transformBounds(a.transform, a.cloud.bounds))]) : cloud.bounds;
  const framedBounds = () =>
    adds.length > 0 ? unionBounds([robustBounds(cloud.positions), ...adds.map((a) => transformBounds(a.transform, robustBounds(a.cloud.positions)))]) : robustBounds(cloud.positions);
  const gpu = await createNodeGpu({ timestamps: true });
  const { device } = gpu;
  const memory = meterGpuMemory(device);
  const hasTs = device.features.has('timestamp-query');
  console.log(`adapter: ${gpu.description}${hasTs ? '' : ' (no timestamp-query: CPU wall times per frame)'}`);
  console.log(`scene: ${cloud.source.name}, ${cloud.count} splats, SH ${cloud.shDegree}; ${width}x${height}, ${flightArg ? 'the path\'s frames' : `${frames} frames`} (+${warmup} warm-up)`);
  if (adds.length > 0) {
    console.log(`objects: ${1 + adds.length} in each frame (one sort, one draw), ${totalSplats} splats: ${values.scene} at the identity, ${adds.map((a) => `${a.name} (${a.cloud.count} splats) at ${JSON.stringify(a.transform)}`).join(', ')}`);
  }

  const available = listStrategies(device).map((s) => s.name);
  const names = values.strategies === 'all' ? available : values.strategies!.split(',');
  for (const n of names) if (!available.includes(n)) throw new Error(`--strategies: unknown or unsupported '${n}' (have: ${available.join(', ')})`);

  // As a canvas configured for it: the tiles draw writes the target directly (no image copied onto it).
  const target = device.createTexture({
    label: 'bench.target',
    size: { width, height },
    format: 'rgba8unorm',
    usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.STORAGE_BINDING,
  });
  const view = target.createView();
  const timestamps = FrameTimestamps.create(device);
  const querySet = timestamps?.querySet ?? null;
  const probe = new DrawnOrderProbe(device, totalSplats);

  const maxPairs = values['max-pairs'] === undefined ? undefined : Number(values['max-pairs']);
  if (maxPairs !== undefined && !(Number.isInteger(maxPairs) && maxPairs >= 1)) throw new Error(`--max-pairs ${values['max-pairs']}: expected an integer >= 1`);
  const bindingMb = values['binding-limit'] === undefined ? undefined : Number(values['binding-limit']);
  if (bindingMb !== undefined && !(bindingMb > 0)) throw new Error(`--binding-limit ${values['binding-limit']}: expected megabytes > 0`);
  const limits =
    bindingMb === undefined
      ? device.limits
      : { maxStorageBufferBindingSize: Math.min(device.limits.maxStorageBufferBindingSize, Math.floor(bindingMb * 1e6)), maxBufferSize: device.limits.maxBufferSize };
  const renderer = new SplatRenderer(device, 'rgba8unorm', names[0], 'quads', maxPairs === undefined ? {} : { maxPairs, initialPairs: maxPairs }, limits);
  renderer.precision = parsePrecision(values.precision!, '--precision');
  const beforeScene = memory.live;
  renderer.setScene(cloud);
  for (const a of adds) renderer.addObject(a.cloud, a.transform);
  const paging = renderer.scenePaging!;
  console.log(
    `binding limit ${mib(bindingLimit(limits).bytes)}: scene pages centers ${paging.centers.pages}, covariances ${paging.covs.pages}, SH ${paging.sh.pages}` +
      ` (the draws' records are paged under the same limit)`,
  );
  const sceneBytes = memory.live - beforeScene;
  console.log(`scene on the GPU: ${mib(sceneBytes)} (${(sceneBytes / Math.max(1, totalSplats)).toFixed(1)} B a splat: the scene and the first draw's per-splat buffers, as setScene made them)`);
  console.log(`scene buffers (${renderer.precision}): ${mib(renderer.sceneBytes)} (${renderer.sceneBytes / Math.max(1, totalSplats)} B a splat)`);
  // --path: the flight's frames (the orbit preset goes round the fitted view benchmarkPath starts from).
  const flightPath = flightArg ? resolvePathArg(flightArg, fitPose(framedBounds(), upVector('-y'), 60, width / height)) : null;
  const flight = flightPath ? pathFrames(flightPath, fps) : null;
  if (flight) frames = flight.length;
  const duration = flightPath ? flightPath.keyframes[flightPath.keyframes.length - 1].time : 0;
  const path = flight ? flight.map((f) => f.pose) : fixedPose ? [fixedPose] : benchmarkPath(framedBounds(), upVector('-y'), 60, width / height, frames);
  const cameraName = flightArg ? `path ${flightArg.name}, ${duration} s at ${fps} fps` : fixedPose ? formatCameraArg(fixedPose) : 'orbit';
  if (flight) console.log(`path: ${flightArg!.name}, ${flightPath!.keyframes.length} keyframes, 0-${duration} s at ${fps} fps: ${frames} frames`);
  console.log(`camera: ${cameraName}${values.aa ? '; anti-aliased mode (--aa)' : ''}`);
  const settings = { shDegree: cloud.shDegree, splatScale: 1, cull: !values['no-cull'], keyBits, background: [0, 0, 0] as const, minContribution: 0, antialias: values.aa! };
  const drawSettingsOf = (shape: DrawShape) => ({
    geometry: shape.geometry,
    sigmaCut: shape.sigmaCut,
    ...(shape.autoArea !== undefined ? { autoArea: shape.autoArea } : {}),
    ...(shape.list !== undefined ? { listDraw: shape.list } : {}),
    ...(shape.frontToBack !== undefined ? { drawOrder: shape.frontToBack ? ('front-to-back' as const) : ('back-to-front' as const) } : {}),
  });
  let drawSettings = drawSettingsOf(shapes[0]);

  /**
   * One frame: returns its GPU stage times (ms; the stages of pipeline/frame-stages.ts
   * and the total) and, when probing, the drawn-order error.
   */
  async function frame(i: number, opts: { floor?: boolean; probe?: boolean }): Promise<{ t: FrameSample; ooo?: number }> {
    const cam = frameCamera(path[i % path.length], width, height, sceneBounds);
    const enc = device.createCommandEncoder({ label: 'bench.frame' });
    const t0 = performance.now();
    const frameSettings = { ...settings, ...drawSettings, rasterFloor: opts.floor, targetStorage: true };
    if (totalOnly && querySet) {
      enc.beginComputePass({ label: 'bench.frameBegin', timestampWrites: { querySet, beginningOfPassWriteIndex: 0 } }).end();
      renderer.encodeFrame(enc, view, cam, frameSettings);
      enc.beginComputePass({ label: 'bench.frameEnd', timestampWrites: { querySet, endOfPassWriteIndex: 1 } }).end();
    } else {
      renderer.encodeFrame(enc, view, cam, frameSettings, timestamps?.begin());
    }
    if (opts.probe && renderer.debugBuffers) probe.capture(enc, renderer.debugBuffers);
    timestamps?.resolve(enc);
    device.queue.submit([enc.finish()]);
    renderer.submitted();
    await renderer.settle();
    const t: FrameSample = { cpuMs: NaN, frameMs: NaN };
    if (timestamps) {
      const stamps = await timestamps.read();
      if (totalOnly) {
        if (stamps[1] > stamps[0]) t.total = Number(stamps[1] - stamps[0]) / 1e6;
      } else {
        const reading = stageTimes(stamps);
        if (reading.outcome === 'measured') Object.assign(t, reading.times);
      }
    } else {
      await device.queue.onSubmittedWorkDone();
      t.total = performance.now() - t0;
    }
    if (!opts.probe) return { t };
    const ooo = await probe.outOfOrder(cloud.positions, cam);
    return { t, ooo };
  }

  device.pushErrorScope('validation');
  const runs: StrategyRun[] = [];
  const visibleCounts: number[] = [];
  const coverage = new Map<string, { covered: number; contributing: number }>();
  const floors = new Map<string, number>();
  for (const draw of draws) for (const name of names) {
    const refusal = drawRefusal(draw, name);
    if (refusal) {
      console.log(`  ${name}: skipped for draw ${draw} (${refusal})`);
      continue;
    }
    renderer.setDraw('quads');
    renderer.setStrategy(name);
    renderer.setDraw(draw);
    const tiles = draw === 'tiles';
    // The quads draw is measured once per shape; the tiles draw has no polygons (and no cut).
    for (const shape of tiles ? [null] : shapes) for (const minContribution of minContributions) {
      if (shape) drawSettings = drawSettingsOf(shape);
      settings.minContribution = minContribution;
      const culled = minContribution > 0 ? ` min=${minContribution}` : '';
      for (let i = 0; i < Math.max(1, warmup); i++) await frame(i, {});
      // An 'auto' draw order is named with the order it chose (at the path's last warm-up pose).
      const chosen = renderer.drawOrder;
      const auto = shape !== null && shape.frontToBack === undefined;
      const label = (!shape ? '' : auto ? `${formatDrawShape({ ...shape, frontToBack: chosen.order === 'front-to-back' })}(auto)` : formatDrawShape(shape)) + culled;
      if (auto) console.log(`  draw order auto: ${chosen.order} (${chosen.layers?.toFixed(1)} layers over the mean pixel)`);
      if (shape && !floors.has(label)) {
        // The raster floor and the covered pixels depend on the geometry only: measured once.
        const floor: number[] = [];
        for (let i = 0; i < frames; i++) floor.push((await frame(i, { floor: true })).t.draw ?? NaN);
        floors.set(label, median(floor));
        if (values.coverage) {
          const cam = frameCamera(path[0], width, height, sceneBounds);
          coverage.set(label, await renderer.measureCoverage(view, cam, { ...settings, ...drawSettings }));
        }
      }
      const samples: FrameSample[] = [];
      const ooo: number[] = [];
      for (let i = 0; i < frames; i++) {
        const r = await frame(i, { probe: !tiles && adds.length === 0 && i % 10 === 5 });
        // A host sort (the CPU strategy) stands for the sort stage, which the GPU does not do.
        const host = renderer.hostSortMs;
        const own = ownStages(r.t, drawByName(draw));
        samples.push(host === null ? own : withHostStage(own, 'sort', host));
        if (r.ooo !== undefined) ooo.push(r.ooo);
      }
      if (tiles) {
        // Splats touching a tile and pairs sorted at the path's first pose.
        await frame(0, {});
        const status = renderer.tileStatus!;
        if (status.capped) console.log(`  ${name}/tiles: the pair buffers hold at most ${status.maxCapacity} pairs and the view needs ${status.last?.needed}: every frame drawn by the fallback (depth-sorted quads)`);
        runs.push({
          strategy: name,
          draw,
          samples,
          outOfOrderFraction: NaN,
          rasterFloorMs: null,
          visible: status.last?.visible,
          tilePairs: status.last?.needed,
        });
        console.log(`  ${name}/${draw}: done (${status.last?.needed} pairs, capacity ${status.capacity}, grew ${status.grows}x${status.last?.fallback ? ', fallback frames' : ''}); GPU buffers ${mib(memory.live)} live, peak ${mib(memory.peak)}`);
        memory.resetPeak();
        continue;
      }
      let visible: number | undefined;
      if (renderer.hostSortMs === null && renderer.debugBuffers) {
        // Visible splats at the path's first pose (the GPU count the sort and draw used;
        // a host sort culls nothing); per row, as the contribution cull changes it.
        await frame(0, {});
        visible = DrawArgs.count(await readBuffer(device, renderer.debugBuffers.drawArgs));
        if (visibleCounts.length === 0) visibleCounts.push(visible);
      }
      const cov = coverage.get(label);
      runs.push({
        strategy: name,
        ...(draws.length > 1 || draw !== 'quads' ? { draw } : {}),
        geometry: label,
        samples,
        outOfOrderFraction: ooo.length ? ooo.reduce((a, b) => a + b, 0) / ooo.length : 0,
        rasterFloorMs: floors.get(label) ?? null,
        ...(visible !== undefined ? { visible } : {}),
        ...(cov ? { coveredPixels: cov.covered, contributingPixels: cov.contributing } : {}),
      });
      console.log(`  ${name}/${draw} ${label}: done; GPU buffers ${mib(memory.live)} live, peak ${mib(memory.peak)}`);
      memory.resetPeak();
    }
  }
  const err = await device.popErrorScope();
  if (err) throw new Error(`WebGPU validation error: ${err.message}`);

  const rows = buildRows({
    scene: adds.length > 0 ? [cloud.source.name, ...adds.map((a) => a.cloud.source.name)].join(' + ') : cloud.source.name,
    splats: totalSplats,
    camera: cameraName,
    visible: visibleCounts.length ? visibleCounts[0] : totalSplats,
    runs,
  });
  console.log(formatTable(rows, gpu.description));
  // --path: each row's maxima, per-frame times and slowest second (rows are in the runs' order).
  const profiles = flight ? runs.map((run) => profilePath(run.samples, flight.map((f) => f.time), fps, duration)) : null;
  if (profiles) {
    rows.forEach((r, i) => {
      const name = [r.strategy, r.draw, r.geometry].filter((x) => x !== undefined).join(' ');
      console.log(`  ${name}: ${formatMax(profiles[i].max)}`);
      console.log(`  ${name}: ${formatSlowestSecond(profiles[i].slowestSecond)}`);
    });
  }
  for (const r of rows) {
    if (r.stages.draw !== null && r.rasterFloorMs) {
      console.log(`  ${r.strategy} ${r.geometry}: draw / raster floor = ${(r.stages.draw / r.rasterFloorMs).toFixed(2)}x`);
    }
  }
  if (values.json) {
    const out = profiles
      ? rows.map((r, i) => {
          const { max, ...flown } = profiles[i];
          return { ...r, max, path: { name: flightArg!.name, ...flown } };
        })
      : rows;
    fs.writeFileSync(values.json, toJson(out));
    console.log(`wrote ${values.json}`);
  }
  probe.destroy();
  renderer.destroy();
  target.destroy();
  device.destroy();
});
