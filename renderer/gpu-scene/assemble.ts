/**
 * Several placed objects' GpuScenes assembled into the one GpuScene a frame draws
 * (issue 32), as renderer/lod/chunk-pool.ts assembles a LOD's chunks: their splats back
 * to back, copied on the GPU (copyBufferToBuffer; a restride kernel for the SH of an
 * object of a lower degree than the largest, shaders/gpu-scene/restride.wgsl), and an
 * object table (objects.ts) with one run an object: its transform, SH degree and
 * compact ranges. Nothing is packed or uploaded from the CPU: the objects' own scenes
 * stay as they are (adding, hiding or removing one assembles again from them; moving one
 * writes its table entry only), and each keeps its own compact ranges (the table gives
 * the compact decode an object's ranges per splat), so no object is repacked under
 * ranges widened for another.
 */
import restrideWgsl from '../../shaders/gpu-scene/restride.wgsl?raw';
import { unionBounds, type Bounds, type ShDegree, type SplatCloud } from '../../scenes/splat-cloud';
import { transformBounds, type SplatTransform } from '../../scenes/transform';
import { croppedBounds, type SplatCrop } from '../../scenes/crop';
import { GpuScene } from './gpu-scene';
import { MAX_OBJECTS } from './objects';
import type { PagedBuffer } from './paging';

/** One object of an assembly: its scene on the GPU and where it is placed. */
export interface AssemblyPart {
  scene: GpuScene;
  transform: SplatTransform;
  /** Its crop box in its own frame (the object table's); none: every splat drawn. */
  crop?: SplatCrop | null;
}

/** The parts' SH degree (the largest) and splat count: what the assembly's buffers must hold. */
export function assemblySize(parts: readonly { scene: { count: number; shDegree: number } }[]): { count: number; shDegree: ShDegree } {
  let count = 0;
  let degree = 0;
  for (const p of parts) {
    count += p.scene.count;
    degree = Math.max(degree, p.scene.shDegree);
  }
  return { count, shDegree: degree as ShDegree };
}

/** The union of the parts' bounds (within their crop boxes) as placed. */
export function placedBounds(parts: readonly { scene: { cloud: SplatCloud }; transform: SplatTransform; crop?: SplatCrop | null }[]): Bounds {
  if (parts.length === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  return unionBounds(parts.map((p) => transformBounds(p.transform, croppedBounds(p.scene.cloud.bounds, p.crop ?? null))));
}

/**
 * A GpuScene holding `parts` back to back, in order, made with GPU copies (submitted
 * here), its object table one run a part. Its cloud holds the parts' positions, scales,
 * rotations and opacities back to back, each in its object's frame (what the CPU sort and
 * the depth-complexity estimate read through the table's transforms), no SH, and the
 * bounds of the parts as placed.
 * @throws RangeError for no part, more than MAX_OBJECTS, or parts of different precisions
 */
export function assembleScenes(device: GPUDevice, parts: readonly AssemblyPart[], bindingBytes: number, name = 'objects'): GpuScene {
  if (parts.length < 1 || parts.length > MAX_OBJECTS) throw new RangeError(`assembleScenes: ${parts.length} objects (1 .. ${MAX_OBJECTS})`);
  const precision = parts[0]!.scene.precision;
  if (parts.some((p) => p.scene.precision !== precision)) throw new RangeError('assembleScenes: the objects are kept at different precisions');
  const { count, shDegree } = assemblySize(parts);
  const positions = new Float32Array(count * 3);
  const scales = new Float32Array(count * 3);
  const rotations = new Float32Array(count * 4);
  const opacities = new Float32Array(count);
  let at = 0;
  for (const { scene } of parts) {
    const c = scene.cloud;
    const n = scene.count;
    // A cloud may lack an array (a LOD's assembly keeps positions and opacities only): zeros then.
    if (c.positions.length >= n * 3) positions.set(c.positions.subarray(0, n * 3), at * 3);
    if (c.scales.length >= n * 3) scales.set(c.scales.subarray(0, n * 3), at * 3);
    if (c.rotations.length >= n * 4) rotations.set(c.rotations.subarray(0, n * 4), at * 4);
    if (c.opacities.length >= n) opacities.set(c.opacities.subarray(0, n), at);
    at += n;
  }
  const cloud: SplatCloud = {
    count,
    shDegree,
    positions,
    scales,
    rotations,
    opacities,
    sh: new Float32Array(0),
    bounds: placedBounds(parts),
    source: { name, format: 'objects' },
  };
  const first = parts[0]!.scene;
  const scene = new GpuScene(device, cloud, bindingBytes, { precision, upload: false, ...(first.decode ? { decode: first.decode } : {}) });
  const enc = device.createCommandEncoder({ label: 'assembleScenes' });
  const params: GPUBuffer[] = [];
  at = 0;
  for (const { scene: part } of parts) {
    copyPages(enc, part.centers, scene.centers, at, part.count);
    copyPages(enc, part.covs, scene.covs, at, part.count);
    if (part.shStride === scene.shStride) copyPages(enc, part.sh, scene.sh, at, part.count);
    else restride(device, enc, part.sh, part.shStride, scene.sh, scene.shStride, at, part.count, params);
    at += part.count;
  }
  device.queue.submit([enc.finish()]);
  for (const b of params) b.destroy();
  let first0 = 0;
  scene.objects.setRuns(
    parts.map((p) => {
      const run = { first: first0, count: p.scene.count, transform: p.transform, shDegree: p.scene.shDegree, decode: p.scene.decode, crop: p.crop ?? null };
      first0 += p.scene.count;
      return run;
    }),
  );
  return scene;
}

/** `n` splats of `src` (all its pages, from splat 0) copied to splat `first` on of `dst` (the same per-splat layout). */
function copyPages(enc: GPUCommandEncoder, src: PagedBuffer, dst: PagedBuffer, first: number, n: number): void {
  const { pageSplats } = src.paging;
  for (let p = 0; p * pageSplats < n; p++) {
    const from = p * pageSplats;
    dst.copyFrom(enc, src.buffers[p]!, 0, first + from, Math.min(pageSplats, n - from));
  }
}

const pipelines = new WeakMap<GPUDevice, { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline }>();

function restridePipeline(device: GPUDevice): { layout: GPUBindGroupLayout; pipeline: GPUComputePipeline } {
  let p = pipelines.get(device);
  if (!p) {
    const C = GPUShaderStage.COMPUTE;
    const layout = device.createBindGroupLayout({
      label: 'restride.layout',
      entries: [
        { binding: 0, visibility: C, buffer: { type: 'uniform' } },
        { binding: 1, visibility: C, buffer: { type: 'read-only-storage' } },
        { binding: 2, visibility: C, buffer: { type: 'storage' } },
      ],
    });
    const module = device.createShaderModule({ label: 'restride.module', code: restrideWgsl });
    const pipeline = device.createComputePipeline({
      label: 'restride.pipeline',
      layout: device.createPipelineLayout({ label: 'restride.pipelineLayout', bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main' },
    });
    pipelines.set(device, (p = { layout, pipeline }));
  }
  return p;
}

/**
 * `n` splats' SH of `from` words each (all of `src`'s pages from splat 0) into `dst` at
 * splat `first` on, `to` words each, zero-padded: one dispatch a piece that lies in one
 * source page and one destination page. The pieces' parameter buffers go to `params`
 * (the caller destroys them once the work is submitted).
 */
function restride(device: GPUDevice, enc: GPUCommandEncoder, src: PagedBuffer, from: number, dst: PagedBuffer, to: number, first: number, n: number, params: GPUBuffer[]): void {
  if (to < from) throw new RangeError(`restride: ${from} SH words a splat into ${to}`);
  const { layout, pipeline } = restridePipeline(device);
  const sp = src.paging.pageSplats;
  const dp = dst.paging.pageSplats;
  const pass = enc.beginComputePass({ label: 'restride' });
  pass.setPipeline(pipeline);
  for (let i = 0; i < n; ) {
    const sPage = Math.floor(i / sp), sAt = i - sPage * sp;
    const d = first + i;
    const dPage = Math.floor(d / dp), dAt = d - dPage * dp;
    const count = Math.min(n - i, sp - sAt, dp - dAt);
    const words = count * to;
    const buffer = device.createBuffer({ label: 'restride.params', size: 32, usage: GPUBufferUsage.UNIFORM, mappedAtCreation: true });
    new Uint32Array(buffer.getMappedRange()).set([words, from, to, sAt * from, dAt * to, 0, 0, 0]);
    buffer.unmap();
    params.push(buffer);
    pass.setBindGroup(
      0,
      device.createBindGroup({
        label: 'restride.bindGroup',
        layout,
        entries: [
          { binding: 0, resource: { buffer } },
          { binding: 1, resource: { buffer: src.buffers[sPage]! } },
          { binding: 2, resource: { buffer: dst.buffers[dPage]! } },
        ],
      }),
    );
    const groups = Math.ceil(words / 256);
    const x = Math.min(groups, 65535);
    pass.dispatchWorkgroups(x, Math.ceil(groups / x));
    i += count;
  }
  pass.end();
}
