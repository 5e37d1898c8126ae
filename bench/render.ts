/**
 * npm run render -- --scene FILE|default|synthetic:N --out IMAGE.png [--size WxH]
 *                   [--camera "eye=X,Y,Z target=X,Y,Z up=X,Y,Z fovy=DEG"]
 *                   [--background R,G,B] [--sh N] [--splat-scale S] [--strategy NAME] [--up -y|+y|+z|-z]
 *                   [--draw quads|tiles] [--key-bits N] [--geometry tri|quad|rect|hex|oct|auto] [--cut]
 *                   [--min-contribution PX] [--aa] [--pair-capacity N] [--budget N]
 *                   [--precision compact|full] [--psnr-against IMAGE.png]
 * npm run render -- --scene FILE --path PATH.json|orbit[:SECONDS] [--fps 30] --frames-out DIR [...]
 * npm run render -- --scene A.ply --add B.ply [--transform "translate=X,Y,Z rotate=W,X,Y,Z scale=S"] [--add ...] --out x.png [...]
 *
 * --sh N loads the scene with SH degree N at most (the higher bands are dropped while
 * parsing: less memory on the CPU and the GPU) and renders at that degree. A scene
 * whose buffers exceed the adapter's binding limits is refused with one line naming
 * the numbers and the SH degree that fits (renderer/frame/gpu-budget.ts).
 *
 * Renders one frame through the same renderer as the page, in Node (Dawn), into an
 * offscreen texture and writes a PNG. Without --camera the view is the page's first
 * view (camera/framing.ts: the dense body and what its splats show, from a side that
 * shows it), with the COLMAP y-down frame turned upright (--up -y). --cut stops splats at 2.83 sigma
 * (PlayCanvas's extent, an image change; docs/PERFORMANCE.md gives its PSNR cost);
 * --geometry picks the polygon splats are drawn with (the same image). Both shape
 * the quads draw only: the tiles draw (--draw tiles) has no polygons and no cut.
 * --min-contribution PX drops splats whose alpha integrated over the screen is under PX
 * pixels before the sort (FrameSettings.minContribution; PlayCanvas's default is about 0.75 px): an
 * image change, both draws.
 * --aa renders the anti-aliased mode (FrameSettings.antialias: Mip-Splatting's 2D
 * filter, each splat's opacity scaled by sqrt(det(cov2D) / det(cov2D + 0.3 I))): an
 * image change, both draws.
 * --pair-capacity N starts the tiles draw's pair buffers at N pairs; the first frame
 * drawn is written (a frame that needs more is drawn whole by the draw's fallback,
 * tiles/keys.wgsl), and what it needed is printed.
 * A streamed LOD scene (--scene DIR/lod-meta.json, splat-transform's LOD output) is
 * drawn within --budget N splats (default: its finest level's count): the levels
 * chosen for the view are loaded from beside it, and `drawn X of budget N` printed.
 * --precision picks how the scene is kept on the GPU (renderer/gpu-scene/scene-precision.ts):
 * compact (the default, 72 B a splat at SH3) or full (f32 covariances, f16 SH: 144 B).
 * --psnr-against IMAGE.png prints the PSNR of the image written against another of the
 * same size (e.g. the same view rendered with --precision full).
 * --add FILE (repeatable; a file or a generated scene, as --scene) places another object in the
 * same world, drawn in the same frame and sort (SplatRenderer.addObject, issue 32); the
 * --transform after it places it: x' = R (s x) + t, "translate=X,Y,Z rotate=W,X,Y,Z scale=S"
 * (any of the three; rotate a quaternion, normalised) or "matrix=" 16 numbers (a column-major
 * similarity); without one it stays at the identity, as --scene does. Without --camera the
 * view then frames every object as placed. Not with a streamed LOD scene.
 * --path PATH.json flies a camera path file (docs/PATHS.md; `orbit:SECONDS` the orbit
 * preset round the first view) and writes one PNG a frame into --frames-out DIR
 * (made if missing): frame-00000.png at path time 0, frame i at i / fps (--fps, default
 * 30), up to the last keyframe's time: floor(duration x fps) + 1 frames. Not with --out
 * or --camera, nor a streamed LOD scene.
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import { parseArgs } from 'node:util';
import { PNG } from 'pngjs';
import { defaultForward, fitPose, parseCameraArg, upVector, type UpAxis } from '../renderer/camera/camera';
import { firstViewPose } from '../renderer/camera/framing';
import { pathFrames } from '../renderer/camera/camera-path';
import { frameCamera } from '../renderer/camera/frame-camera';
import { renderOffscreen } from '../renderer/frame/offscreen';
import { SplatRenderer } from '../renderer/frame/splat-renderer';
import { createNodeGpu } from '../renderer/gpu/node-gpu';
import { DEFAULT_GEOMETRY, formatDrawShape } from '../renderer/draw/quads/quads-draw';
import { bindingLimit, formatBytes } from '../renderer/frame/gpu-budget';
import { isLodMetaFile, openLodMeta, settledLodScene } from './lod-node';
import { DEFAULT_PRECISION, parsePrecision } from '../renderer/gpu-scene/scene-precision';
import { describeSanitized } from '../scenes/sanitize';
import { transformBounds } from '../scenes/transform';
import { budgetArg, placedAddsArg, unionBounds, drawShapesFromArg, fpsArg, nonNegativeList, parseRgb, parseSize, pathArg, resolvePathArg, runCli, sceneFromArg, shArg } from './cli';

runCli(async () => {
  const { values, tokens } = parseArgs({
    tokens: true,
    options: {
      scene: { type: 'string' },
      out: { type: 'string' },
      size: { type: 'string', default: '1280x720' },
      camera: { type: 'string' },
      background: { type: 'string', default: '0,0,0' },
      sh: { type: 'string' },
      'splat-scale': { type: 'string', default: '1' },
      strategy: { type: 'string', default: 'radix4' },
      draw: { type: 'string', default: 'quads' },
      'key-bits': { type: 'string', default: '32' },
      up: { type: 'string', default: '-y' },
      cut: { type: 'boolean', default: false },
      'min-contribution': { type: 'string', default: '0' },
      aa: { type: 'boolean', default: false },
      geometry: { type: 'string', default: DEFAULT_GEOMETRY },
      'pair-capacity': { type: 'string' },
      budget: { type: 'string' },
      precision: { type: 'string', default: DEFAULT_PRECISION },
      'psnr-against': { type: 'string' },
      path: { type: 'string' },
      fps: { type: 'string' },
      'frames-out': { type: 'string' },
      add: { type: 'string', multiple: true },
      transform: { type: 'string', multiple: true },
    },
  });
  if (!values.scene || (!values.out && values.path === undefined)) {
    throw new Error('usage: npm run render -- --scene FILE --out IMAGE.png [--size WxH] [--camera ...] | --path PATH.json [--fps N] --frames-out DIR');
  }
  // A path file is read and checked before the scene: its errors name keyframe and field.
  const flightArg = values.path === undefined ? null : pathArg(values.path);
  if (flightArg) {
    if (values['frames-out'] === undefined) throw new Error('--path: needs --frames-out DIR (one PNG a frame)');
    if (values.out !== undefined || values.camera !== undefined) throw new Error('--path: not with --out or --camera (the path gives the poses, --frames-out the files)');
    if (values['psnr-against'] !== undefined) throw new Error('--psnr-against: not with --path');
    if (isLodMetaFile(values.scene)) throw new Error(`--path: not for a streamed LOD scene (${values.scene})`);
  } else if (values['frames-out'] !== undefined || values.fps !== undefined) {
    throw new Error('--frames-out and --fps: only with --path');
  }
  const fps = fpsArg(values.fps ?? '30');
  const { width, height } = parseSize(values.size!);
  const background = parseRgb(values.background!);
  const [shape] = drawShapesFromArg(values.geometry!, values.cut!);
  const maxShDegree = shArg(values.sh);
  const lodFile = isLodMetaFile(values.scene) ? values.scene : null;
  if (values.budget !== undefined && lodFile === null) throw new Error(`--budget: ${values.scene} is not a lod-meta.json (a streamed LOD scene)`);
  const lodMeta = lodFile === null ? null : openLodMeta(lodFile).meta;
  const budget = values.budget === undefined ? lodMeta?.counts[0] ?? 0 : budgetArg(values.budget);
  const cloud = lodMeta === null ? await sceneFromArg(values.scene, maxShDegree === undefined ? {} : { maxShDegree }) : null;
  // The objects placed beside the scene (--add, each placed by the --transform after it).
  const placed = placedAddsArg(tokens ?? []);
  const adds = await Promise.all(placed.map(async (a) => ({ cloud: await sceneFromArg(a.scene, maxShDegree === undefined ? {} : { maxShDegree }), transform: a.transform })));
  // Beside a streamed LOD scene the objects' splats come off its budget (the viewer's rule).
  const others = adds.reduce((n, a) => n + a.cloud.count, 0);
  if (lodMeta !== null && adds.length > 0 && others >= budget) throw new Error(`--add: the objects' ${others} splats leave nothing of the budget ${budget} to the LOD scene`);
  const gpu = await createNodeGpu();
  console.log(`adapter: ${gpu.description}`);
  const keyBits = Number(values['key-bits']);
  if (!(Number.isInteger(keyBits) && keyBits >= 1 && keyBits <= 32)) throw new Error(`--key-bits ${values['key-bits']}: expected an integer 1..32`);
  const contributions = nonNegativeList('--min-contribution', values['min-contribution']!);
  if (contributions.length !== 1) throw new Error(`--min-contribution ${values['min-contribution']}: expected one number`);
  const [minContribution] = contributions as [number];
  const pairCapacity = values['pair-capacity'] === undefined ? undefined : Number(values['pair-capacity']);
  if (pairCapacity !== undefined && !(Number.isInteger(pairCapacity) && pairCapacity >= 1)) {
    throw new Error(`--pair-capacity ${values['pair-capacity']}: expected an integer >= 1`);
  }
  const precision = parsePrecision(values.precision!, '--precision');
  const renderer = new SplatRenderer(gpu.device, 'rgba8unorm', values.strategy!, values.draw!, pairCapacity === undefined ? {} : { initialPairs: pairCapacity });
  renderer.precision = precision;
  if (renderer.draw === 'tiles' && (values.cut || values.geometry !== DEFAULT_GEOMETRY)) {
    console.warn('WARNING: --cut and --geometry shape the quads draw only: the tiles draw ignores them');
  }
  // Every object as placed (the scene at the identity).
  const sceneBounds = adds.length > 0 ? unionBounds([cloud?.bounds ?? lodMeta!.bound, ...adds.map((a) => transformBounds(a.transform, a.cloud.bounds))]) : (cloud?.bounds ?? lodMeta!.bound);
  const pose = values.camera
    ? parseCameraArg(values.camera)
    : cloud && adds.length === 0
      ? firstViewPose(cloud, upVector(values.up as UpAxis), defaultForward(values.up as UpAxis), 60, width / height)
      : fitPose(sceneBounds, upVector(values.up as UpAxis), 60, width / height, adds.length > 0 ? defaultForward(values.up as UpAxis) : undefined); // placed objects: all of them; a LOD file: its tree's bound (no points here yet)
  const cam = frameCamera(pose, width, height, sceneBounds);
  let drawnLine = '';
  if (cloud) {
    renderer.setScene(cloud);
    for (const a of adds) renderer.addObject(a.cloud, a.transform);
  }
  else {
    const { lod, scene, errors } = await settledLodScene(gpu.device, lodFile!, cam, { budget: budget - others, bindingBytes: bindingLimit(gpu.device.limits).bytes, ...(maxShDegree === undefined ? {} : { load: { maxShDegree } }) });
    for (const e of errors) console.warn(`WARNING: ${e}`);
    if (!scene) throw new Error(`${lodFile}: nothing to draw within budget ${budget} for this view`);
    renderer.setGpuScene(scene);
    for (const a of adds) renderer.addObject(a.cloud, a.transform);
    const n = (x: number) => x.toLocaleString('en-US');
    drawnLine = `drawn ${n(scene.count)}${others ? ` + ${n(others)} of the objects` : ''} of budget ${n(budget)} (${n(lod.stats.resident)} resident in ${n(lod.pool.bytes)} GPU bytes, ${lod.meta.leaves.length} leaves, ${lod.meta.levels} levels)`;
    lod.destroy();
  }
  const drawnCloud = renderer.cloud!;
  const frameSettings = {
    shDegree: drawnCloud.shDegree,
    splatScale: Number(values['splat-scale']),
    cull: true,
    keyBits,
    background,
    geometry: shape.geometry,
    sigmaCut: shape.sigmaCut,
    minContribution,
    antialias: values.aa!,
    ...(shape.frontToBack !== undefined ? { drawOrder: shape.frontToBack ? ('front-to-back' as const) : ('back-to-front' as const) } : {}),
  };
  if (flightArg) {
    // The flight: one PNG a frame, frame-00000.png at path time 0 (the orbit preset goes round the first view).
    const flight = pathFrames(resolvePathArg(flightArg, pose), fps);
    const dir = values['frames-out']!;
    fs.mkdirSync(dir, { recursive: true });
    gpu.device.pushErrorScope('validation');
    const t0 = performance.now();
    for (const f of flight) {
      const image = await renderOffscreen(renderer, frameCamera(f.pose, width, height, sceneBounds), frameSettings, { firstFrame: pairCapacity !== undefined });
      const png = new PNG({ width, height });
      png.data = Buffer.from(image.rgba.buffer, image.rgba.byteOffset, image.rgba.byteLength);
      fs.writeFileSync(nodePath.join(dir, `frame-${String(f.index).padStart(5, '0')}.png`), PNG.sync.write(png));
    }
    const err = await gpu.device.popErrorScope();
    if (err) throw new Error(`WebGPU validation error: ${err.message}`);
    const last = flight[flight.length - 1];
    console.log(
      `${drawnCloud.source.name}: path ${flightArg.name}, ${flight.length} frames at ${fps} fps (0-${last.time.toFixed(3)} s), ${width}x${height}, draw ${renderer.draw} in ${(performance.now() - t0).toFixed(0)} ms -> ${nodePath.join(dir, 'frame-00000.png')} .. frame-${String(last.index).padStart(5, '0')}.png`,
    );
    renderer.destroy();
    gpu.device.destroy();
    return;
  }
  gpu.device.pushErrorScope('validation');
  const t0 = performance.now();
  const image = await renderOffscreen(renderer, cam, frameSettings, { firstFrame: pairCapacity !== undefined });
  const ms = performance.now() - t0;
  const err = await gpu.device.popErrorScope();
  if (err) throw new Error(`WebGPU validation error: ${err.message}`);
  const png = new PNG({ width, height });
  png.data = Buffer.from(image.rgba.buffer, image.rgba.byteOffset, image.rgba.byteLength);
  fs.writeFileSync(values.out!, PNG.sync.write(png));
  if (values['psnr-against']) console.log(`PSNR against ${values['psnr-against']}: ${pngPsnr(png, PNG.sync.read(fs.readFileSync(values['psnr-against']))).toFixed(2)} dB`);
  const tiles = renderer.tileStatus;
  if (tiles?.last) {
    const n = (x: number) => x.toLocaleString('en-US');
    const how = tiles.last.fallback
      ? `more than the ${n(tiles.last.capacity ?? 0)} the buffers held: drawn whole by the fallback (${n(tiles.last.visible)} splats as depth-sorted quads)${tiles.capped ? '; the device cannot hold that many pairs (capped)' : ''}`
      : `${n(tiles.last.activeTiles ?? 0)} tiles with pairs, capacity ${n(tiles.last.capacity ?? 0)}`;
    console.log(`tiles: ${n(tiles.last.needed)} (tile, depth) pairs needed, ${how}`);
  }
  if (drawnLine) console.log(drawnLine);
  if (adds.length > 0) {
    console.log(`${renderer.objects.length} objects in one frame and one sort: ${values.scene} at the identity, ${placed.map((a) => `${a.scene} at ${JSON.stringify(a.transform)}`).join(', ')} (the bytes a splat below count each object's own buffers and their assembly)`);
  }
  const packed = renderer.packReport;
  if (packed && (packed.dropped || packed.clamped)) console.log(`packing (${precision}): ${describeSanitized(packed)}`);
  const paging = renderer.scenePaging;
  const paged = paging ? Object.entries(paging).filter(([, p]) => p.pages > 1) : [];
  if (paged.length) console.log(`paged over ${formatBytes(renderer.bindingBytes)} bindings: ${paged.map(([name, p]) => `${name} ${p.pages} pages of ${p.pageSplats.toLocaleString('en-US')} splats`).join(', ')}`);
  console.log(`${drawnCloud.source.name}: ${drawnCloud.count} splats, SH ${drawnCloud.shDegree}, ${precision} (${renderer.sceneBytes / Math.max(1, drawnCloud.count)} B a splat), draw ${renderer.draw === 'quads' ? `quads (${formatDrawShape(shape)})` : renderer.draw}, ${values.aa ? 'anti-aliased, ' : ''}${width}x${height} in ${ms.toFixed(0)} ms (first frame, incl. pipeline creation) -> ${values.out}`);
  renderer.destroy();
  gpu.device.destroy();
});

/** PSNR in dB of two RGBA images of the same size over their RGB (peak 255). */
function pngPsnr(a: PNG, b: PNG): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`--psnr-against: ${b.width}x${b.height}, not ${a.width}x${a.height}`);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) {
    if ((i & 3) === 3) continue;
    const d = a.data[i]! - b.data[i]!;
    sum += d * d;
  }
  const mse = sum / (a.width * a.height * 3);
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}
