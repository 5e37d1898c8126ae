/**
 * npm run pick -- --scene FILE|default|synthetic:N --at X,Y [--size WxH] [--camera "eye=X,Y,Z target=X,Y,Z up=X,Y,Z fovy=DEG"]
 *                 [--add FILE [--transform "translate=X,Y,Z rotate=W,X,Y,Z scale=S"]]... [--sh N] [--splat-scale S]
 *                 [--strategy NAME] [--precision compact|full] [--up -y|+y|+z|-z] [--threshold 0.5]
 *
 * The splat under pixel (X, Y) (column, row from the top left; its centre sampled) of the
 * frame the renderer draws in Node (Dawn), computed on the GPU as Viewer.pick computes it
 * (renderer/frame/pixel-pick.ts: the splats covering the pixel, projected as the draws
 * project them, blended front to back; the pick is the splat where the pixel's opacity
 * reaches --threshold, 0.5, or, where it stays under that but reaches 0.1, half of it).
 * Prints one line of JSON on stdout:
 *
 *   { "object": 0, "name": "scene.ply", "splat": 1234, "point": [x, y, z], "depth": d,
 *     "covering": n, "accumulated": A, "opacity": O, "pixel": [X, Y] }
 *
 * `object`: 0 for --scene, 1.. for each --add in order (placed by the --transform after
 * it, as `npm run render` places them); `splat`: the splat's index in that object's file;
 * `point`: the world point under the pixel's centre at the pick's depth; `covering`: the
 * splats covering the pixel's centre; `opacity`: the pixel's whole opacity.
 * `{ "pick": null, ... }` when the pixel's opacity never reaches 0.1. The camera defaults
 * to `npm run render`'s first view.
 */
import { parseArgs } from 'node:util';
import { defaultForward, fitPose, parseCameraArg, upVector, type UpAxis } from '../renderer/camera/camera';
import { firstViewPose } from '../renderer/camera/framing';
import { frameCamera } from '../renderer/camera/frame-camera';
import { renderOffscreen } from '../renderer/frame/offscreen';
import { pickPixel } from '../renderer/frame/pixel-pick';
import { SplatRenderer } from '../renderer/frame/splat-renderer';
import { createNodeGpu } from '../renderer/gpu/node-gpu';
import { DEFAULT_PRECISION, parsePrecision } from '../renderer/gpu-scene/scene-precision';
import { transformBounds } from '../scenes/transform';
import { parseSize, placedAddsArg, runCli, sceneFromArg, shArg, unionBounds } from './cli';

runCli(async () => {
  const { values, tokens } = parseArgs({
    tokens: true,
    options: {
      scene: { type: 'string' },
      at: { type: 'string' },
      size: { type: 'string', default: '1280x720' },
      camera: { type: 'string' },
      sh: { type: 'string' },
      'splat-scale': { type: 'string', default: '1' },
      strategy: { type: 'string', default: 'radix4' },
      precision: { type: 'string', default: DEFAULT_PRECISION },
      up: { type: 'string', default: '-y' },
      threshold: { type: 'string', default: '0.5' },
      add: { type: 'string', multiple: true },
      transform: { type: 'string', multiple: true },
    },
  });
  if (!values.scene || !values.at) throw new Error('usage: npm run pick -- --scene FILE --at X,Y [--size WxH] [--camera "eye=X,Y,Z target=X,Y,Z up=X,Y,Z fovy=DEG"] [--add FILE [--transform ...]]');
  const { width, height } = parseSize(values.size!);
  const at = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(values.at);
  if (!at) throw new Error(`--at ${values.at}: expected X,Y (a pixel's column and row from the top left)`);
  const [x, y] = [Number(at[1]), Number(at[2])];
  if (!(x >= 0 && x < width && y >= 0 && y < height)) throw new Error(`--at ${values.at}: outside the ${width}x${height} frame`);
  const threshold = Number(values.threshold);
  if (!(threshold > 0 && threshold < 1)) throw new Error(`--threshold ${values.threshold}: expected a number between 0 and 1`);
  const splatScale = Number(values['splat-scale']);
  if (!(splatScale > 0)) throw new Error(`--splat-scale ${values['splat-scale']}: expected a number > 0`);
  const maxShDegree = shArg(values.sh);
  const options = maxShDegree === undefined ? {} : { maxShDegree };
  const cloud = await sceneFromArg(values.scene, options);
  const placed = placedAddsArg(tokens ?? []);
  const adds = await Promise.all(placed.map(async (a) => ({ cloud: await sceneFromArg(a.scene, options), transform: a.transform })));
  const gpu = await createNodeGpu();
  console.error(`adapter: ${gpu.description}`);
  const renderer = new SplatRenderer(gpu.device, 'rgba8unorm', values.strategy!, 'quads');
  renderer.precision = parsePrecision(values.precision!, '--precision');
  renderer.setScene(cloud);
  for (const a of adds) renderer.addObject(a.cloud, a.transform);
  // The camera of `npm run render`: the first view, or every object as placed.
  const up = values.up as UpAxis;
  const bounds = adds.length > 0 ? unionBounds([cloud.bounds, ...adds.map((a) => transformBounds(a.transform, a.cloud.bounds))]) : cloud.bounds;
  const pose = values.camera
    ? parseCameraArg(values.camera)
    : adds.length === 0
      ? firstViewPose(cloud, upVector(up), defaultForward(up), 60, width / height)
      : fitPose(bounds, upVector(up), 60, width / height, defaultForward(up));
  const camera = frameCamera(pose, width, height, bounds);
  const settings = { shDegree: 3, splatScale, cull: true, keyBits: 32, background: [0, 0, 0] as [number, number, number] };
  gpu.device.pushErrorScope('validation');
  // One frame first: the object table written as every frame writes it.
  await renderOffscreen(renderer, camera, settings);
  const pick = await pickPixel(renderer, camera, settings, x + 0.5, y + 0.5, threshold);
  const err = await gpu.device.popErrorScope();
  if (err) throw new Error(`WebGPU validation error: ${err.message}`);
  const names = [values.scene, ...placed.map((a) => a.scene)];
  const handles = renderer.objects.map((o) => o.handle);
  const objectIndex = (h: (typeof handles)[number] | null) => (h === null ? 0 : handles.indexOf(h));
  const round = (v: number) => Number(v.toPrecision(7));
  const out = pick
    ? {
        object: objectIndex(pick.object),
        name: names[objectIndex(pick.object)],
        splat: pick.splat,
        point: pick.point.map(round),
        depth: round(pick.depth),
        covering: pick.covering,
        accumulated: round(pick.accumulated),
        opacity: round(pick.opacity),
        pixel: [x, y],
      }
    : { pick: null, pixel: [x, y], why: "the pixel's opacity never reaches 0.1" };
  console.log(JSON.stringify(out));
  renderer.destroy();
  gpu.device.destroy();
});
