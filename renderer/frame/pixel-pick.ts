/**
 * The splat under one pixel, on the GPU, without drawing a frame (Viewer.pick; the
 * page's double-click focus and ruler): one compute pass over the drawn scene
 * (shaders/frame/pick_pixel.wgsl) projects every splat as both draws do
 * (projectSplat: every placed object, its transform and crop, the same covariances,
 * opacity and cull) and appends the few whose alpha at the sample point passes the
 * fragment test, with their depth key; the CPU sorts that short list front to back
 * (the quads draw's order: the depth key, largest first) and walks it until the
 * pixel's opacity reaches 0.5. The pick is that splat; its depth is the pixel's
 * opacity-0.5 depth (what EncodeOptions.outputDepth writes for a host), and its point
 * the world point under the sample point at that depth. Where the pixel's opacity stays
 * under 0.5 (thin or sparse content: a generated scene's ground at a grazing angle) but
 * reaches PICK_MIN_OPACITY, the pick is where it reaches half of its total, so that a
 * translucent surface can still be clicked; below that, nothing is there.
 *
 * Any draw (quads or tiles: the same picture within rounding), any sort strategy: it
 * reads the drawn scene and the object table only, with uniforms of its own, so the
 * live frame is untouched. Its cost is one projection per splat (as a frame's project
 * pass) and a read-back of the pixel's splats (16 bytes each): no image, no sort of the
 * scene. `npm run pick` (bench/pick.ts) prints it for a pixel of a headless frame.
 */
import commonWgsl from '../../shaders/stage/splat_common.wgsl?raw';
import shEvalWgsl from '../../shaders/project/sh_eval.wgsl?raw';
import projectSplatWgsl from '../../shaders/project/project_splat.wgsl?raw';
import pickPixelWgsl from '../../shaders/frame/pick_pixel.wgsl?raw';
import { SH_WGSL } from '../project/sh-wgsl';
import { sceneLayoutEntries, sceneWgsl, type SceneBindings } from '../gpu-scene/scene-wgsl';
import type { ObjectHandle } from './world';
import { FrameUniforms } from '../stage/frame-uniforms';
import { unproject } from '../camera/frame-camera';
import type { EncodeOptions, FrameCamera, FrameSettings, SplatRenderer } from './splat-renderer';

const SCENE_AT: SceneBindings = { centers: 1, covs: 2, sh: 3, objects: 4 };
const WG = 256;
const HIT_BYTES = 16;
const HEADER_BYTES = 16;
/** Hits the first try holds (a pixel under a few thousand splats); a pixel under more is asked again with room for all. */
const FIRST_CAPACITY = 4096;
/** A pixel whose opacity never reaches 0.5 is picked where it reaches half its total, if the total reaches this. */
export const PICK_MIN_OPACITY = 0.1;

/** What pickPixel finds under a pixel. */
export interface PixelPick {
  /** The placed object the splat belongs to (SplatRenderer.objects' handle), or null (a streamed LOD scene's drawn set). */
  object: ObjectHandle | null;
  /** The splat's index in its object's cloud (in the drawn scene when `object` is null). */
  splat: number;
  /** The world point under the sample point at `depth`. */
  point: [number, number, number];
  /** The pick's view depth (-z in view space, world units): the pixel's opacity-0.5 depth. */
  depth: number;
  /** The splats covering the sample point (alpha >= 1/255 there), and the pixel's opacity once the pick is blended. */
  covering: number;
  accumulated: number;
  /** The pixel's opacity over all of them (>= 0.5: the pick is the opacity-0.5 surface; less: the pick is where half of it is reached). */
  opacity: number;
}

interface Kernel {
  layout: GPUBindGroupLayout;
  pipeline: GPUComputePipeline;
}
const kernels = new WeakMap<GPUDevice, Map<string, Promise<Kernel>>>();

/** The gather kernel for a scene's precision and paging, compiled once a device. */
function kernelFor(device: GPUDevice, scene: NonNullable<SplatRenderer['debugBuffers']>['scene']): Promise<Kernel> {
  const code = [SH_WGSL, commonWgsl, sceneWgsl(scene.precision, scene.paging, SCENE_AT), shEvalWgsl, projectSplatWgsl, pickPixelWgsl].join('\n');
  let cache = kernels.get(device);
  if (!cache) kernels.set(device, (cache = new Map()));
  let k = cache.get(code);
  if (!k) {
    const C = GPUShaderStage.COMPUTE;
    const layout = device.createBindGroupLayout({
      label: 'pixelPick.layout',
      entries: [
        { binding: 0, visibility: C, buffer: { type: 'uniform' } },
        ...sceneLayoutEntries(scene.paging, SCENE_AT),
        { binding: 5, visibility: C, buffer: { type: 'storage' } },
        { binding: 6, visibility: C, buffer: { type: 'uniform' } },
      ],
    });
    const module = device.createShaderModule({ label: 'pixelPick.module', code });
    k = device
      .createComputePipelineAsync({ label: 'pixelPick.gather', layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }), compute: { module, entryPoint: 'gather' } })
      .then((pipeline) => ({ layout, pipeline }));
    k.catch(() => cache.delete(code));
    cache.set(code, k);
  }
  return k;
}

/**
 * The splat of `renderer`'s drawn scene under the point (x, y) of the frame `camera`
 * sees (device pixels from the top left, continuous: a pixel's centre is at +0.5), with
 * the frame's `settings`: where the pixel's opacity, blended front to back, first
 * reaches `threshold` (or half of its total, when that stays under `threshold` but
 * reaches `minOpacity`). Null without a scene, or where nothing is there.
 */
export async function pickPixel(
  renderer: SplatRenderer,
  camera: FrameCamera,
  settings: FrameSettings & EncodeOptions,
  x: number,
  y: number,
  threshold = 0.5,
  minOpacity = PICK_MIN_OPACITY,
  attempts = 3,
): Promise<PixelPick | null> {
  const debug = renderer.debugBuffers;
  if (!debug || debug.scene.count === 0) return null;
  const device = renderer.device;
  const scene = debug.scene;
  const { layout, pipeline } = await kernelFor(device, scene);
  // The scene may have changed while the kernel compiled (a streamed LOD scene's drawn set, a load): pick in the one drawn now.
  const current = () => renderer.debugBuffers?.scene === scene;
  const again = () => (attempts > 1 ? pickPixel(renderer, camera, settings, x, y, threshold, minOpacity, attempts - 1) : Promise.resolve(null));
  if (!current()) return again();
  const uniforms = new FrameUniforms(device);
  uniforms.write(camera, settings, scene);
  const params = device.createBuffer({ label: 'pixelPick.params', size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const cut = settings.sigmaCut ? 2 * Math.SQRT2 : 3;
  try {
    for (let capacity = FIRST_CAPACITY; ; ) {
      if (!current()) return await again();
      const bytes = HEADER_BYTES + capacity * HIT_BYTES;
      const hits = device.createBuffer({ label: 'pixelPick.hits', size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
      const readback = device.createBuffer({ label: 'pixelPick.readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
      try {
        const p = new ArrayBuffer(16);
        new Float32Array(p, 0, 3).set([x, y, cut * cut]);
        new Uint32Array(p, 12, 1)[0] = capacity;
        device.queue.writeBuffer(params, 0, p);
        const group = device.createBindGroup({
          label: 'pixelPick.group',
          layout,
          entries: [
            { binding: 0, resource: { buffer: uniforms.buffer } },
            ...scene.bindEntries(SCENE_AT),
            { binding: 5, resource: { buffer: hits } },
            { binding: 6, resource: { buffer: params } },
          ],
        });
        const encoder = device.createCommandEncoder({ label: 'pixelPick.encoder' });
        encoder.clearBuffer(hits, 0, HEADER_BYTES);
        const pass = encoder.beginComputePass({ label: 'pixelPick.pass' });
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        const groups = Math.ceil(scene.count / WG);
        const gx = Math.min(groups, 65535);
        pass.dispatchWorkgroups(gx, Math.ceil(groups / gx));
        pass.end();
        encoder.copyBufferToBuffer(hits, 0, readback, 0, bytes);
        device.queue.submit([encoder.finish()]);
        await readback.mapAsync(GPUMapMode.READ);
        const raw = readback.getMappedRange().slice(0);
        readback.unmap();
        const count = new Uint32Array(raw, 0, 1)[0]!;
        if (count > capacity) {
          capacity = count;
          continue;
        }
        return walk(renderer, scene, camera, x, y, threshold, minOpacity, new Uint32Array(raw, HEADER_BYTES, count * 4), new Float32Array(raw, HEADER_BYTES, count * 4));
      } finally {
        hits.destroy();
        readback.destroy();
      }
    }
  } finally {
    params.destroy();
    uniforms.destroy();
  }
}

/** The gathered hits front to back (the depth key, largest first; then depth, then id) until the opacity reaches the threshold. */
function walk(
  renderer: SplatRenderer,
  scene: NonNullable<SplatRenderer['debugBuffers']>['scene'],
  camera: FrameCamera,
  x: number,
  y: number,
  threshold: number,
  minOpacity: number,
  u: Uint32Array,
  f: Float32Array,
): PixelPick | null {
  const n = u.length / 4;
  const order = Array.from({ length: n }, (_, k) => k);
  order.sort((a, b) => u[4 * b + 1]! - u[4 * a + 1]! || f[4 * a + 2]! - f[4 * b + 2]! || u[4 * a]! - u[4 * b]!);
  let left = 1;
  for (const k of order) left *= 1 - f[4 * k + 3]!;
  const opacity = 1 - left;
  const reach = opacity >= threshold ? threshold : opacity >= minOpacity ? opacity / 2 : null;
  if (reach === null) return null;
  let t = 1;
  for (const k of order) {
    t *= 1 - f[4 * k + 3]!;
    if (1 - t < reach) continue;
    const id = u[4 * k]!;
    const depth = f[4 * k + 2]!;
    // Its run in the object table: the drawn objects (shown, holding splats) in order.
    const runs = scene.objects.runs;
    let run = runs.length - 1;
    while (run > 0 && runs[run]!.first > id) run--;
    const drawn = renderer.objects.filter((o) => o.visible && o.cloud.count > 0);
    const info = drawn.length === runs.length ? drawn[run] : undefined;
    return {
      object: info?.handle ?? null,
      splat: info ? id - runs[run]!.first : id,
      point: unproject(camera, x, y, depth),
      depth,
      covering: n,
      accumulated: 1 - t,
      opacity,
    };
  }
  return null;
}
