/**
 * bench:playcanvas — GPU frame times of PlayCanvas's own Gaussian-splat renderer
 * (the npm package `playcanvas`, pinned in devDependencies), headless in Node
 * through Dawn, from one fixed camera: the reference our renderer is compared
 * with (bench:frame) on the same machine, scene and camera.
 *
 *   npm run bench:playcanvas -- --scene FILE.ply --camera "eye=X,Y,Z target=X,Y,Z up=X,Y,Z fovy=DEG"
 *                               [--size 1920x1080] [--frames 200] [--warmup 10]
 *                               [--min-contribution 3,0] [--min-pixel-size 2] [--antialias]
 *                               [--decompress] [--png LAST.png] [--passes] [--json PATH]
 *
 * One row per --min-contribution value (PlayCanvas's projector drops a splat whose
 * opacity times its 2D Gaussian's screen integral is under T pixels; its default
 * is 3; 0 keeps them all). --min-pixel-size is its other size cull (default 2 px).
 * The app is a plain `gsplat` component (unified rendering, the default: on WebGPU
 * the GPU-sorted raster path) and a camera entity looking from eye to target with
 * the given up vector and vertical fov; near/far as our renderer's
 * (renderer/camera/camera.ts nearFar, over PlayCanvas's own AABB of the scene);
 * black clear; the back buffer is rgba8unorm, no MSAA (PlayCanvas's default is
 * MSAA 4x: --antialias turns it on), depth buffer as PlayCanvas's default.
 * The PLY is loaded by PlayCanvas's own PLY parser (its asset system, fed the
 * file's bytes as the asset's contents). A compressed PLY stays compressed in
 * memory as PlayCanvas does by default (--decompress: decompress on load).
 *
 * Timing does not rely on PlayCanvas: every render and compute pass it encodes
 * gets timestamp writes into our own query set (bench/playcanvas/pass-timer.ts),
 * each frame is submitted and read back alone. Per frame: draw = sum of render
 * passes, cull+project+sort = sum of compute passes, frame = first pass begin to
 * last pass end. Medians and p95 over the frames. `drawn` is the splat count
 * PlayCanvas's projector keeps (its numSplats buffer, read after the last frame).
 * --passes prints every pass's median. --png writes the last frame.
 */
import * as pc from 'playcanvas';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PNG } from 'pngjs';
import { formatCameraArg, nearFar, type CameraPose } from '../renderer/camera/camera';
import { summarize } from '../renderer/profile/frame-stats';
import { cameraFromArg, nonNegativeList, parseSize, runCli } from './cli';
import { FakeCanvas, installHeadlessWindow } from './playcanvas/headless';
import { PassTimer, type FramePasses } from './playcanvas/pass-timer';
import { readTextureRgba } from '../renderer/frame/offscreen';

const CANVAS_FORMAT: GPUTextureFormat = 'rgba8unorm';

interface Row {
  renderer: string;
  scene: string;
  splats: number;
  drawn: number | null;
  width: number;
  height: number;
  camera: string;
  minContribution: number;
  minPixelSize: number;
  antialias: boolean;
  frames: number;
  drawMs: { median: number; p95: number };
  computeMs: { median: number; p95: number };
  frameMs: { median: number; p95: number };
  passesPerFrame: number;
  passes?: { kind: string; label: string; medianMs: number }[];
}

/** The gsplat manager of our one camera and layer (PlayCanvas internals: only used for the drawn count). */
function splatManager(app: pc.AppBase): { renderer?: { constructor: { name: string }; intervalCompaction?: { numSplatsBuffer?: { impl?: { buffer?: GPUBuffer } } } } } | null {
  const director = (app.renderer as unknown as { gsplatDirector?: { camerasMap: Map<unknown, { layersMap: Map<unknown, { gsplatManager?: unknown }> }> } }).gsplatDirector;
  for (const cam of director?.camerasMap.values() ?? []) {
    for (const layer of cam.layersMap.values()) if (layer.gsplatManager) return layer.gsplatManager as ReturnType<typeof splatManager>;
  }
  return null;
}

async function readU32(device: GPUDevice, src: GPUBuffer): Promise<number> {
  const staging = device.createBuffer({ size: 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(src, 0, staging, 0, 4);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const v = new Uint32Array(staging.getMappedRange())[0];
  staging.unmap();
  staging.destroy();
  return v;
}

async function writePng(device: GPUDevice, texture: GPUTexture, file: string): Promise<void> {
  const png = new PNG({ width: texture.width, height: texture.height });
  png.data = Buffer.from(await readTextureRgba(device, texture, true));
  fs.writeFileSync(file, PNG.sync.write(png));
}

/** Loads FILE through PlayCanvas's gsplat asset handler (its PLY parser), handing it the bytes. */
function loadSplatAsset(app: pc.AppBase, file: string, decompress: boolean): Promise<pc.Asset> {
  const bytes = fs.readFileSync(file);
  const name = path.basename(file);
  const contents = new Response(bytes, { headers: { 'content-length': String(bytes.byteLength) } });
  const asset = new pc.Asset(name, 'gsplat', { url: name, filename: name, contents } as unknown as { url: string; filename: string }, decompress ? { decompress: true } : {});
  return new Promise((resolve, reject) => {
    asset.once('load', () => resolve(asset));
    asset.once('error', (err: unknown) => reject(new Error(`PlayCanvas could not load ${file}: ${String(err)}`)));
    app.assets.add(asset);
    app.assets.load(asset);
  });
}

function placeCamera(entity: pc.Entity, pose: CameraPose): void {
  entity.setPosition(pose.eye[0], pose.eye[1], pose.eye[2]);
  entity.lookAt(new pc.Vec3(...pose.target), new pc.Vec3(...pose.up));
}

const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : '-');

runCli(async () => {
  const { values } = parseArgs({
    options: {
      scene: { type: 'string' },
      camera: { type: 'string' },
      size: { type: 'string', default: '1920x1080' },
      frames: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '10' },
      'min-contribution': { type: 'string', default: '3,0' },
      'min-pixel-size': { type: 'string', default: '2' },
      antialias: { type: 'boolean', default: false },
      decompress: { type: 'boolean', default: false },
      passes: { type: 'boolean', default: false },
      png: { type: 'string' },
      json: { type: 'string' },
    },
  });
  if (!values.scene || !values.camera) {
    throw new Error('usage: npm run bench:playcanvas -- --scene FILE.ply --camera "eye=.. target=.. up=.. fovy=.." [--size WxH] [--frames N] [--warmup N] [--min-contribution 3,0] [--json PATH]');
  }
  if (!fs.existsSync(values.scene)) throw new Error(`--scene ${values.scene}: no such file`);
  const { width, height } = parseSize(values.size!);
  const frames = Number(values.frames);
  const warmup = Number(values.warmup);
  if (!(Number.isInteger(frames) && frames >= 1) || !(Number.isInteger(warmup) && warmup >= 0)) throw new Error('--frames must be an integer >= 1 and --warmup >= 0');
  const pose = cameraFromArg(values.camera);
  const minContributions = nonNegativeList('--min-contribution', values['min-contribution']!);
  const [minPixelSize] = nonNegativeList('--min-pixel-size', values['min-pixel-size']!);

  // PlayCanvas is imported (and has decided it is not in a browser) before window exists.
  installHeadlessWindow(CANVAS_FORMAT);
  const canvas = new FakeCanvas(width, height);
  const htmlCanvas = canvas as unknown as HTMLCanvasElement;
  const gd = (await pc.createGraphicsDevice(htmlCanvas, {
    deviceTypes: [pc.DEVICETYPE_WEBGPU],
    antialias: values.antialias,
    powerPreference: 'high-performance',
  })) as pc.WebgpuGraphicsDevice;
  const wgpu = (gd as unknown as { wgpu: GPUDevice }).wgpu;
  const adapter = (gd as unknown as { gpuAdapter: GPUAdapter }).gpuAdapter;
  wgpu.addEventListener('uncapturederror', (ev) => console.error(`WebGPU error: ${(ev as GPUUncapturedErrorEvent).error.message}`));
  const info = adapter.info;
  console.log(`adapter: ${info.vendor || '?'} / ${info.architecture || '?'} (${info.description || info.device || 'unknown'})`);
  console.log(`PlayCanvas ${pc.version} (${pc.revision}), device features: timestamp-query ${wgpu.features.has('timestamp-query')}, subgroups ${wgpu.features.has('subgroups')}; maxStorageBufferBindingSize ${wgpu.limits.maxStorageBufferBindingSize}`);
  const timer = new PassTimer(wgpu);
  // Names for compute passes (PlayCanvas labels its render passes itself).
  const startCompute = gd.startComputePass.bind(gd);
  (gd as unknown as { startComputePass: (name: string) => void }).startComputePass = (name: string) => {
    timer.nextComputeLabel = name;
    startCompute(name);
  };

  const opts = new pc.AppOptions();
  opts.graphicsDevice = gd;
  opts.componentSystems = [pc.CameraComponentSystem, pc.GSplatComponentSystem];
  opts.resourceHandlers = [pc.GSplatHandler];
  const app = new pc.AppBase(htmlCanvas);
  app.init(opts);
  app.setCanvasFillMode(pc.FILLMODE_NONE, width, height);
  app.setCanvasResolution(pc.RESOLUTION_FIXED, width, height);

  const t0 = performance.now();
  const asset = await loadSplatAsset(app, values.scene, values.decompress!);
  const resource = asset.resource as { numSplats: number; aabb: pc.BoundingBox };
  const splats = resource.numSplats;
  console.log(`scene: ${values.scene}, ${splats} splats, loaded by PlayCanvas in ${((performance.now() - t0) / 1000).toFixed(1)} s (${resource.constructor.name})`);

  const splatEntity = new pc.Entity('splats');
  splatEntity.addComponent('gsplat', { asset });
  app.root.addChild(splatEntity);

  const min = resource.aabb.getMin();
  const max = resource.aabb.getMax();
  const { near, far } = nearFar(pose, { min: [min.x, min.y, min.z], max: [max.x, max.y, max.z] });
  const cameraEntity = new pc.Entity('camera');
  cameraEntity.addComponent('camera', { clearColor: new pc.Color(0, 0, 0, 1), fov: pose.fovyDeg, horizontalFov: false, nearClip: near, farClip: far });
  app.root.addChild(cameraEntity);
  placeCamera(cameraEntity, pose);
  const cameraName = formatCameraArg(pose);
  console.log(`camera: ${cameraName}; near ${near.toPrecision(4)} far ${far.toPrecision(4)}; ${width}x${height} ${CANVAS_FORMAT}${values.antialias ? ' MSAA 4x' : ''}; ${frames} frames (+${warmup} warm-up)`);
  const params = app.scene.gsplat;
  params.minPixelSize = minPixelSize;
  const rendererNames = new Map<number, string>([
    [pc.GSPLAT_RENDERER_RASTER_CPU_SORT, 'RASTER_CPU_SORT'],
    [pc.GSPLAT_RENDERER_RASTER_GPU_SORT, 'RASTER_GPU_SORT'],
    [pc.GSPLAT_RENDERER_COMPUTE, 'COMPUTE'],
  ]);
  const rendererName = rendererNames.get(params.currentRenderer) ?? `#${params.currentRenderer}`;
  console.log(`PlayCanvas gsplat params: renderer ${rendererName}, minPixelSize ${params.minPixelSize}, alphaClip ${params.alphaClip}, alphaClipForward ${params.alphaClipForward.toPrecision(3)}`);

  app.start();
  let clock = 0;
  async function frame(timed: boolean): Promise<FramePasses> {
    timer.active = timed;
    clock += 1000 / 60;
    (app.tick as (timestamp: number) => void)(clock);
    timer.active = false;
    const passes = await timer.collect();
    // PlayCanvas submits in frameEnd; wait for the GPU before the next frame so frames do not overlap.
    await wgpu.queue.onSubmittedWorkDone();
    return passes;
  }

  await frame(false);
  const manager = splatManager(app);
  console.log(`PlayCanvas splat renderer class: ${manager?.renderer?.constructor.name ?? '? (no gsplat manager found)'}`);

  const rows: Row[] = [];
  for (const minContribution of minContributions) {
    params.minContribution = minContribution;
    for (let i = 0; i < warmup; i++) await frame(false);
    const samples: FramePasses[] = [];
    for (let i = 0; i < frames; i++) samples.push(await frame(true));
    const numSplats = manager?.renderer?.intervalCompaction?.numSplatsBuffer?.impl?.buffer;
    const drawn = numSplats ? await readU32(wgpu, numSplats) : null;
    const stat = (v: number[]) => {
      const s = summarize(v);
      return { median: s?.median ?? NaN, p95: s?.p95 ?? NaN };
    };
    const row: Row = {
      renderer: `playcanvas ${pc.version}`,
      scene: path.basename(values.scene),
      splats,
      drawn,
      width,
      height,
      camera: cameraName,
      minContribution,
      minPixelSize,
      antialias: values.antialias!,
      frames,
      drawMs: stat(samples.map((s) => s.renderMs)),
      computeMs: stat(samples.map((s) => s.computeMs)),
      frameMs: stat(samples.map((s) => s.spanMs)),
      passesPerFrame: samples[samples.length - 1].passes.length,
    };
    const byPass = new Map<string, { kind: string; label: string; ms: number[] }>();
    for (const s of samples) {
      s.passes.forEach((p, i) => {
        const key = `${i}:${p.kind}:${p.label}`;
        const e = byPass.get(key) ?? { kind: p.kind, label: p.label, ms: [] };
        e.ms.push(p.ms);
        byPass.set(key, e);
      });
    }
    row.passes = [...byPass.values()].map((e) => ({ kind: e.kind, label: e.label, medianMs: summarize(e.ms)?.median ?? NaN }));
    rows.push(row);
    console.log(
      `min=${minContribution}: frame ${fmt(row.frameMs.median)} ms (p95 ${fmt(row.frameMs.p95)}), draw ${fmt(row.drawMs.median)} (p95 ${fmt(row.drawMs.p95)}), ` +
        `cull+project+sort ${fmt(row.computeMs.median)} (p95 ${fmt(row.computeMs.p95)}); ${row.passesPerFrame} passes/frame; drawn ${drawn ?? '?'} of ${splats} splats` +
        (drawn !== null ? ` (${((100 * drawn) / splats).toFixed(1)}%)` : ''),
    );
    if (values.passes) for (const p of row.passes) console.log(`    ${p.kind.padEnd(7)} ${fmt(p.medianMs).padStart(9)} ms  ${p.label}`);
  }

  console.log('');
  console.log('| renderer | min contribution | drawn | frame ms (p95) | draw ms (p95) | cull+project+sort ms (p95) |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.renderer} | ${r.minContribution} | ${r.drawn ?? '?'} / ${r.splats} | ${fmt(r.frameMs.median)} (${fmt(r.frameMs.p95)}) | ${fmt(r.drawMs.median)} (${fmt(r.drawMs.p95)}) | ${fmt(r.computeMs.median)} (${fmt(r.computeMs.p95)}) |`);
  }
  if (values.png) {
    await writePng(wgpu, canvas.context.getCurrentTexture(), values.png);
    console.log(`wrote ${values.png} (last frame, min contribution ${minContributions[minContributions.length - 1]})`);
  }
  if (values.json) {
    fs.writeFileSync(values.json, JSON.stringify({ adapter: info, date: new Date().toISOString(), rows }, null, 2));
    console.log(`wrote ${values.json}`);
  }
  app.destroy();
});
