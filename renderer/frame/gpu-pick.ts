/**
 * The splat under a pixel, from the GPU frame (issue 32's pick; `npm run pick`): the
 * frame is drawn (the quads draw, whose sort leaves the visible splats' ids in depth
 * order and their count in DrawArgs), then two small compute passes over that order
 * (shaders/frame/pick.wgsl): each sorted splat's alpha at the pixel centre as the
 * draw's fragment makes it, then one thread blending them front to back until the
 * pixel's opacity reaches 0.5: that splat is the pick, with its object (its run in the
 * object table), its depth, and the world point under the pixel at that depth.
 *
 * This is the picture as drawn: every placed object, transform and crop, the same
 * covariances, cull and order. Viewer.pick uses pixel-pick.ts instead (one pixel, any
 * draw, no frame drawn: the same walk over the splats that cover it).
 */
import { mat4 } from 'gl-matrix';
import commonWgsl from '../../shaders/stage/splat_common.wgsl?raw';
import shEvalWgsl from '../../shaders/project/sh_eval.wgsl?raw';
import projectSplatWgsl from '../../shaders/project/project_splat.wgsl?raw';
import pickWgsl from '../../shaders/frame/pick.wgsl?raw';
import { SH_WGSL } from '../project/sh-wgsl';
import { pagedLayoutEntries, pagedWgsl, pageBinding, type Paging } from '../gpu-scene/paging';
import { sceneLayoutEntries, sceneWgsl, type SceneBindings } from '../gpu-scene/scene-wgsl';
import { FrameUniforms } from '../stage/frame-uniforms';
import { transformPoint } from '../../scenes/transform';
import { renderOffscreen, type OffscreenImage } from './offscreen';
import type { EncodeOptions, FrameCamera, FrameSettings, SplatRenderer } from './splat-renderer';

const SCENE_AT: SceneBindings = { centers: 1, covs: 2, sh: 3, objects: 4 };
const ORDER_AT = 5;
const WG = 256;
const RESULT_BYTES = 32;

/** What pickOnGpu finds under a pixel. */
export interface GpuPick {
  /** The object's index in SplatRenderer.objects (0: setScene's scene, then the objects in the order added). */
  object: number;
  /** The splat's index in its object's cloud. */
  splat: number;
  /** The world point under the pixel at the splat's depth. */
  point: [number, number, number];
  /** The splat's view depth (-z in view space, world units). */
  depth: number;
  /** The splat's centre, in the world. */
  centre: [number, number, number];
  /** Its alpha at the pixel, and the pixel's opacity once it is blended (>= the threshold). */
  alpha: number;
  accumulated: number;
  /** Its index in the drawn scene (the objects' runs back to back). */
  drawnIndex: number;
}

/**
 * Draws a frame of `renderer` for `camera` and picks the splat at pixel (x, y) (from
 * the top left; its centre at (x + 0.5, y + 0.5) is sampled) where the pixel's opacity,
 * blended front to back, first reaches `threshold` (0.5). Null when it never does.
 * Also returns the image drawn.
 * @throws Error for the tiles draw (its order is per tile: draw quads), or a scene past one binding of alphas
 */
export async function pickOnGpu(
  renderer: SplatRenderer,
  camera: FrameCamera,
  settings: FrameSettings & EncodeOptions,
  x: number,
  y: number,
  threshold = 0.5,
): Promise<{ pick: GpuPick | null; image: OffscreenImage }> {
  const { picks, image } = await pickPixelsOnGpu(renderer, camera, settings, [[x, y]], threshold);
  return { pick: picks[0] ?? null, image };
}

/** pickOnGpu for several pixels of one frame (one draw, one pipeline; the passes again for each pixel). */
export async function pickPixelsOnGpu(
  renderer: SplatRenderer,
  camera: FrameCamera,
  settings: FrameSettings & EncodeOptions,
  pixels: readonly (readonly [number, number])[],
  threshold = 0.5,
): Promise<{ picks: (GpuPick | null)[]; image: OffscreenImage }> {
  if (renderer.draw !== 'quads') throw new Error(`pick: the ${renderer.draw} draw keeps no one order of the splats; pick with the quads draw`);
  const device = renderer.device;
  const image = await renderOffscreen(renderer, camera, settings);
  const debug = renderer.debugBuffers;
  if (!debug) return { picks: pixels.map(() => null), image };
  const scene = debug.scene;
  const count = Math.max(1, scene.count);
  if (count * 4 > device.limits.maxStorageBufferBindingSize) throw new Error(`pick: ${scene.count} splats: more alphas than one binding holds`);
  const pages = debug.values.length;
  const order: Paging = { count, splatBytes: 4, pageSplats: pages === 1 ? count : debug.values[0]!.size / 4, pages };

  const C = GPUShaderStage.COMPUTE;
  const layout = device.createBindGroupLayout({
    label: 'pick.layout',
    entries: [
      { binding: 0, visibility: C, buffer: { type: 'uniform' } },
      ...sceneLayoutEntries(scene.paging, SCENE_AT),
      ...pagedLayoutEntries(ORDER_AT, order, C, 'read-only-storage'),
      { binding: 6, visibility: C, buffer: { type: 'storage' } },
      { binding: 7, visibility: C, buffer: { type: 'storage' } },
      { binding: 8, visibility: C, buffer: { type: 'uniform' } },
      { binding: 9, visibility: C, buffer: { type: 'storage' } },
    ],
  });
  const module = device.createShaderModule({
    label: 'pick.module',
    code: [
      SH_WGSL,
      commonWgsl,
      sceneWgsl(scene.precision, scene.paging, SCENE_AT),
      pagedWgsl({ name: 'order', type: 'u32', perSplat: '1u', paging: order, binding: ORDER_AT, access: 'read' }),
      shEvalWgsl,
      projectSplatWgsl,
      pickWgsl,
    ].join('\n'),
  });
  const pipelineLayout = device.createPipelineLayout({ label: 'pick.pipelineLayout', bindGroupLayouts: [layout] });
  const [alphas, walk] = await Promise.all(
    ['alphas', 'walk'].map((entryPoint) => device.createComputePipelineAsync({ label: `pick.${entryPoint}`, layout: pipelineLayout, compute: { module, entryPoint } })),
  );

  // The frame's uniforms again, as the frame wrote them (its camera, settings and scene).
  const uniforms = new FrameUniforms(device);
  uniforms.write(camera, settings, scene);
  const made: GPUBuffer[] = [];
  const buffer = (label: string, size: number, usage: number) => {
    const b = device.createBuffer({ label, size, usage });
    made.push(b);
    return b;
  };
  const alphaBuffer = buffer('pick.alphas', count * 4, GPUBufferUsage.STORAGE);
  const params = buffer('pick.params', 16, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
  const result = buffer('pick.result', RESULT_BYTES, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
  const readback = buffer('pick.readback', RESULT_BYTES * Math.max(1, pixels.length), GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ);
  try {
    const group = device.createBindGroup({
      label: 'pick.group',
      layout,
      entries: [
        { binding: 0, resource: { buffer: uniforms.buffer } },
        ...scene.bindEntries(SCENE_AT),
        ...debug.values.map((b, p) => ({ binding: pageBinding(ORDER_AT, p), resource: { buffer: b } })),
        { binding: 6, resource: { buffer: debug.drawArgs } },
        { binding: 7, resource: { buffer: alphaBuffer } },
        { binding: 8, resource: { buffer: params } },
        { binding: 9, resource: { buffer: result } },
      ],
    });
    // A submit a pixel: its point written through the queue before its passes run.
    const groups = Math.ceil(count / WG);
    const gx = Math.min(groups, 65535);
    for (const [k, [x, y]] of pixels.entries()) {
      device.queue.writeBuffer(params, 0, Float32Array.of(x + 0.5, y + 0.5, threshold, 0));
      const encoder = device.createCommandEncoder({ label: 'pick.encoder' });
      const pass = encoder.beginComputePass({ label: 'pick.pass' });
      pass.setBindGroup(0, group);
      pass.setPipeline(alphas!);
      pass.dispatchWorkgroups(gx, Math.ceil(groups / gx));
      pass.setPipeline(walk!);
      pass.dispatchWorkgroups(1);
      pass.end();
      encoder.copyBufferToBuffer(result, 0, readback, k * RESULT_BYTES, RESULT_BYTES);
      device.queue.submit([encoder.finish()]);
    }
    await readback.mapAsync(GPUMapMode.READ);
    const raw = readback.getMappedRange().slice(0);
    readback.unmap();
    // The object of a run: the drawn ones are the shown objects holding splats, in order.
    const objects = renderer.objects;
    const drawn = objects.filter((o) => o.visible && o.cloud.count > 0);
    const picks = pixels.map(([x, y], k): GpuPick | null => {
      const u = new Uint32Array(raw, k * RESULT_BYTES, RESULT_BYTES / 4);
      const f = new Float32Array(raw, k * RESULT_BYTES, RESULT_BYTES / 4);
      if (u[0] !== 1) return null;
      const id = u[2]!;
      const run = u[3]!;
      const depth = f[4]!;
      const info = drawn[run] ?? objects[0]!;
      const splat = id - (scene.objects.runs[run]?.first ?? 0);
      const p = info.cloud.positions;
      const centre = transformPoint(info.transform, [p[3 * splat]!, p[3 * splat + 1]!, p[3 * splat + 2]!]);
      return { object: objects.indexOf(info), splat, point: unproject(camera, x + 0.5, y + 0.5, depth), depth, centre, alpha: f[6]!, accumulated: f[5]!, drawnIndex: id };
    });
    return { picks, image };
  } finally {
    for (const b of made) b.destroy();
    uniforms.destroy();
  }
}

/** The world point seen at pixel (px, py) (from the top left) at view depth `depth`. */
export function unproject(camera: FrameCamera, px: number, py: number, depth: number): [number, number, number] {
  const ndcX = (2 * px) / camera.width - 1;
  const ndcY = 1 - (2 * py) / camera.height;
  const v = [(ndcX * depth) / camera.proj[0]!, (ndcY * depth) / camera.proj[5]!, -depth];
  const inv = mat4.invert(mat4.create(), camera.view as mat4);
  if (!inv) throw new Error('pick: the view matrix has no inverse');
  return [0, 1, 2].map((r) => inv[r]! * v[0]! + inv[4 + r]! * v[1]! + inv[8 + r]! * v[2]! + inv[12 + r]!) as [number, number, number];
}

/** Where world point `p` is drawn: its pixel (from the top left, continuous: a pixel's centre at +0.5). */
export function projectToPixel(camera: FrameCamera, p: ArrayLike<number>): [number, number] {
  const v = camera.view;
  const m = camera.proj;
  const t = [0, 1, 2, 3].map((r) => v[r]! * p[0]! + v[4 + r]! * p[1]! + v[8 + r]! * p[2]! + v[12 + r]!);
  const c = [0, 1, 3].map((r) => m[r]! * t[0]! + m[4 + r]! * t[1]! + m[8 + r]! * t[2]! + m[12 + r]! * t[3]!);
  return [((c[0]! / c[2]! + 1) / 2) * camera.width, ((1 - c[1]! / c[2]!) / 2) * camera.height];
}
