/**
 * npm run bench:image-cost -- --scene FILE|default[:N] [--camera "eye=.. target=.. up=.. fovy=.."]
 *                             [--size 1920x1080] [--min-contribution 0,0.1,0.3,1,3] [--cut] [--aa] [--json PATH]
 *                             [--draw quads,tiles] [--pair-capacity N]
 *
 * What a setting that changes the image costs, at the size it is drawn at: the
 * scene is rendered once by the CPU forward model (test/reference/raster.ts, the
 * oracle) and then by the renderer (Node, Dawn, back to front) with each
 * contribution-cull threshold (FrameSettings.minContribution; 0 = off), and the
 * PSNR of each image against the reference is printed with the splats that reach
 * the draw. `--cut` draws every row with the 2.83-sigma cut as well (the reference
 * stays the model's). The cull's threshold is in screen pixels, so its cost depends
 * on the size: measure at the size the frame figures are taken at. `--aa` renders the
 * reference and every row in the anti-aliased mode (FrameSettings.antialias): the
 * rows then measure the settings' cost within that mode.
 *
 * A program that prints figures (docs/PERFORMANCE.md), not a test.
 * `--draw` lists the draws to measure (default quads), a row each per threshold;
 * `--pair-capacity N` starts the tiles draw's pair buffers at N pairs and keeps its
 * first frame: with N under the view's need that frame is the draw's fallback
 * (depth-sorted quads), whose picture this measures.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { fitPose, robustBounds, upVector } from '../renderer/camera/camera';
import { frameCamera } from '../renderer/camera/frame-camera';
import { createNodeGpu, readBuffer } from '../renderer/gpu/node-gpu';
import { DrawArgs } from '../renderer/stage/draw-args';
import { renderOffscreen } from '../renderer/frame/offscreen';
import { SplatRenderer } from '../renderer/frame/splat-renderer';
import { psnr, rasterizeReference } from '../test/reference/raster';
import { cameraFromArg, nonNegativeList, parseSize, runCli, sceneFromArg } from './cli';

runCli(async () => {
  const { values } = parseArgs({
    options: {
      scene: { type: 'string' },
      camera: { type: 'string' },
      size: { type: 'string', default: '1920x1080' },
      'min-contribution': { type: 'string', default: '0,0.1,0.3,1,3' },
      cut: { type: 'boolean', default: false },
      aa: { type: 'boolean', default: false },
      draw: { type: 'string', default: 'quads' },
      'pair-capacity': { type: 'string' },
      json: { type: 'string' },
    },
  });
  if (!values.scene) throw new Error('usage: npm run bench:image-cost -- --scene FILE [--camera ...] [--size WxH] [--min-contribution LIST] [--cut] [--aa]');
  const { width, height } = parseSize(values.size!);
  const thresholds = nonNegativeList('--min-contribution', values['min-contribution']!);
  const cloud = await sceneFromArg(values.scene);
  const pose = values.camera !== undefined ? cameraFromArg(values.camera) : fitPose(robustBounds(cloud.positions), upVector('-y'), 60, width / height);
  const cam = frameCamera(pose, width, height, cloud.bounds);

  const t0 = performance.now();
  const ref = rasterizeReference(cloud, { ...pose, near: cam.near, far: cam.far }, { width, height, shDegree: cloud.shDegree, background: [0, 0, 0], antialias: values.aa! });
  const refRgb = ref.rgb.map((x) => Math.min(1, Math.max(0, x)));
  console.log(`reference (CPU forward model): ${ref.drawn} splats drawn, ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const gpu = await createNodeGpu();
  console.log(`adapter: ${gpu.description}`);
  console.log(`scene: ${cloud.source.name}, ${cloud.count} splats, SH ${cloud.shDegree}; ${width}x${height}${values.cut ? ', 2.83-sigma cut' : ''}${values.aa ? ', anti-aliased' : ''}`);
  const pairCapacity = values['pair-capacity'] === undefined ? undefined : Number(values['pair-capacity']);
  if (pairCapacity !== undefined && !(Number.isInteger(pairCapacity) && pairCapacity >= 1)) throw new Error(`--pair-capacity ${values['pair-capacity']}: expected an integer >= 1`);
  const rows: { draw: string; minContribution: number; visible: number; psnr: number; costDb: number; fallback?: boolean }[] = [];
  for (const draw of values.draw!.split(',')) {
    const renderer = new SplatRenderer(gpu.device, 'rgba8unorm', 'radix4', draw, pairCapacity === undefined ? {} : { initialPairs: pairCapacity });
    renderer.setScene(cloud);
    const first = rows.length;
    for (const minContribution of thresholds) {
      const image = await renderOffscreen(
        renderer,
        cam,
        {
          shDegree: cloud.shDegree,
          splatScale: 1,
          cull: true,
          keyBits: 32,
          background: [0, 0, 0],
          drawOrder: 'back-to-front',
          sigmaCut: values.cut!,
          minContribution,
          antialias: values.aa!,
        },
        { firstFrame: pairCapacity !== undefined },
      );
      const tiles = renderer.tileStatus;
      const visible = tiles ? tiles.last?.visible ?? 0 : DrawArgs.count(await readBuffer(gpu.device, renderer.debugBuffers!.drawArgs));
      const rgb = new Float32Array(width * height * 3);
      for (let i = 0; i < width * height; i++) for (let c = 0; c < 3; c++) rgb[3 * i + c] = image.rgba[4 * i + c] / 255;
      const p = psnr(rgb, refRgb);
      const fallback = tiles?.last?.fallback ?? undefined;
      rows.push({ draw, minContribution, visible, psnr: p, costDb: rows.length > first ? rows[first].psnr - p : 0, ...(fallback !== undefined ? { fallback } : {}) });
      const r = rows.at(-1)!;
      console.log(
        `  ${draw}${fallback ? ' (fallback frame)' : ''}, min contribution ${minContribution} px: ${visible} splats drawn (${((100 * visible) / cloud.count).toFixed(1)}%), PSNR ${p.toFixed(2)} dB against the reference, cost ${r.costDb.toFixed(2)} dB against the first row`,
      );
    }
    renderer.destroy();
  }
  if (values.json) fs.writeFileSync(values.json, JSON.stringify({ scene: cloud.source.name, splats: cloud.count, width, height, cut: values.cut, antialias: values.aa, adapter: gpu.description, date: new Date().toISOString(), rows }, null, 2) + '\n');
});
