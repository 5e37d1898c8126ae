import { shCoeffCount, type SanitizeReport, type SplatCloud } from '../../scenes/splat-cloud';
import { CompactRanges, packCompact, PackTally, type CompactDecode, type CompactScratch } from './compact-pack';
import { packCovariance } from './covariance';
import { bindingLimit, shSplitAt } from './gpu-budget';
import { toHalf } from './half';
import { DEFAULT_PRECISION, sceneLayout, type SceneLayout, type ScenePrecision } from './scene-precision';
import { runInSlices, type SliceOptions } from '../gpu/sliced-upload';

/** Splats packed and uploaded at a time. */
export const UPLOAD_CHUNK = 1 << 16;

/**
 * A SplatCloud on the GPU, in the layout of its precision (scene-precision.ts):
 * 'full': centers (xyz, opacity), 3D covariances (two vec4 a splat, plus the largest
 * axis for culling) and SH coefficients as f16 pairs (shaders/scene_full.wgsl);
 * 'compact' (the default): 72 B a splat at SH3 (compact-pack.ts, shaders/scene_compact.wgsl),
 * whose per-scene ranges (`decode`) go to the Frame block. Built once per scene.
 * Packing runs where the GpuScene is made (the page's thread for the viewer), a slice
 * at a time (create): the packed copy never exists whole; the float SplatCloud stays
 * (the CPU sort, picking and device-loss recovery read it).
 *
 * The SH is held in two buffers, split by whole splats where one binding would
 * not hold it (gpu-budget.ts shSplitAt): splats [0, shSplit) in `sh0`,
 * [shSplit, count) in `sh1`. Unsplit (the usual case), shSplit = count and `sh1`
 * is a tiny buffer nothing reads: the shaders always bind both.
 */

/** Arrays GpuScene.pack may pack into (reused across slices). */
export interface PackScratch {
  centers: Float32Array;
  covs: Float32Array;
  sh: Uint32Array;
}

export interface GpuSceneOptions {
  /** Default DEFAULT_PRECISION ('compact'). */
  precision?: ScenePrecision;
  /** Compact: the scene's ranges, when already taken (GpuScene.create); default one pass over the cloud. */
  decode?: CompactDecode;
  /** Pack and upload now (default); GpuScene.create uploads itself. */
  upload?: boolean;
}

export class GpuScene {
  readonly count: number;
  readonly precision: ScenePrecision;
  /** Bytes a splat in each buffer. */
  readonly layout: SceneLayout;
  /** The compact scene's ranges (null when full). */
  readonly decode: CompactDecode | null;
  /** What packing the compact scene replaced or clamped (non-finite or out-of-range values), counted. */
  private readonly tally = new PackTally();
  readonly shDegree: number;
  /** u32 words per splat in `sh`. */
  readonly shStride: number;
  readonly centers: GPUBuffer;
  readonly covs: GPUBuffer;
  /** SH of splats [0, shSplit). */
  readonly sh0: GPUBuffer;
  /** SH of splats [shSplit, count). */
  readonly sh1: GPUBuffer;
  /** The first splat whose SH is in `sh1` (`count` when unsplit). */
  readonly shSplit: number;

  /**
   * @param shBindingBytes - the most bytes one SH binding may hold: the device's
   *   per-binding limit by default; lower to split small scenes (tests)
   * @throws RangeError when two bindings cannot hold the SH (gpu-budget.ts refuses such scenes first)
   */
  constructor(
    private readonly device: GPUDevice,
    readonly cloud: SplatCloud,
    shBindingBytes: number = bindingLimit(device.limits).bytes,
    { precision = DEFAULT_PRECISION, decode, upload = true }: GpuSceneOptions = {},
  ) {
    const n = cloud.count;
    this.count = n;
    this.shDegree = cloud.shDegree;
    this.precision = precision;
    this.layout = sceneLayout(cloud.shDegree, precision);
    this.decode = precision === 'compact' ? (decode ?? rangesOf(cloud, 0, n)) : null;
    this.shStride = this.layout.shStride;
    const splatShBytes = this.shStride * 4;
    this.shSplit = shSplitAt(n, this.shStride, shBindingBytes);
    // COPY_SRC: tests read the upload back.
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    // Zero-sized buffers cannot be bound: keep at least one element.
    const make = (label: string, bytes: number) => device.createBuffer({ label: `GpuScene.${label}`, size: Math.max(16, bytes), usage });
    this.centers = make('centers', n * this.layout.centerBytes);
    this.covs = make('covs', n * this.layout.covBytes);
    this.sh0 = make('sh0', this.shSplit * splatShBytes);
    this.sh1 = make('sh1', (n - this.shSplit) * splatShBytes);
    // Packed and uploaded UPLOAD_CHUNK splats at a time: the packed copy of a
    // multi-GB scene never exists whole in JS memory (writeBuffer copies each slice).
    if (upload) for (let first = 0; first < n; first += UPLOAD_CHUNK) this.uploadRange(first, Math.min(n, first + UPLOAD_CHUNK));
  }

  /**
   * The same scene, packed and uploaded in slices (renderer/gpu/sliced-upload.ts:
   * `chunk` splats a slice, `pause()` awaited whenever `budgetMs` of work has passed,
   * the queue awaited every `settleBytes`): the page's thread is never held for the
   * whole upload (a 1M-splat SH3 scene takes seconds on a slow CPU). The buffers hold
   * the scene once the promise resolves. Aborting `signal` stops the upload at the
   * next slice: the buffers made so far are destroyed and the promise rejects with
   * `signal.reason`.
   */
  static async create(
    device: GPUDevice,
    cloud: SplatCloud,
    shBindingBytes: number,
    pause: () => Promise<void>,
    {
      chunk = 2048,
      precision = DEFAULT_PRECISION,
      ...slicing
    }: Omit<SliceOptions, 'bytesPerItem' | 'now'> & { precision?: ScenePrecision } = {},
  ): Promise<GpuScene> {
    let decode: CompactDecode | undefined;
    if (precision === 'compact') {
      // The ranges first (a pass over the cloud), paced as the upload and stopped by the same signal.
      const ranges = new CompactRanges();
      const { progress: _progress, ...pacing } = slicing;
      await runInSlices(cloud.count, (first, end) => ranges.add(cloud, first, end), pause, pause, { ...pacing, chunk: chunk * 8 });
      decode = ranges.finish();
    }
    const scene = new GpuScene(device, cloud, shBindingBytes, { precision, upload: false, ...(decode ? { decode } : {}) });
    // One set of packing arrays for every slice (writeBuffer copies them): no garbage per slice.
    const scratch: PackScratch = { centers: new Float32Array(chunk * 4), covs: new Float32Array(chunk * 8), sh: new Uint32Array(chunk * scene.shStride) };
    try {
      await runInSlices(scene.count, (first, end) => scene.uploadRange(first, end, scratch), pause, () => device.queue.onSubmittedWorkDone(), {
        ...slicing,
        chunk,
        bytesPerItem: scene.bytesPerSplat,
      });
    } catch (e) {
      scene.destroy(); // aborted (or failed) part-way: nothing of it stays on the GPU
      throw e;
    }
    return scene;
  }

  /** Bytes a splat of the scene's buffers (scene-precision.ts sceneBytesPerSplat). */
  get bytesPerSplat(): number {
    return this.layout.centerBytes + this.layout.covBytes + this.shStride * 4;
  }

  /** The scene's buffers' bytes in all. */
  get bytes(): number {
    return this.count * this.bytesPerSplat;
  }

  /** What packing the compact scene replaced or clamped so far (nothing for a full scene: the loaders' report covers it). */
  get packReport(): SanitizeReport {
    return this.tally.report();
  }

  /** Packs splats `first` .. `end` - 1 and writes them into the buffers. */
  private uploadRange(first: number, end: number, scratch?: PackScratch): void {
    const device = this.device;
    const splatShBytes = this.shStride * 4;
    const write = (buf: GPUBuffer, data: Float32Array | Uint32Array, at: number) => {
      if (data.byteLength > 0) device.queue.writeBuffer(buf, at, data.buffer, data.byteOffset, data.byteLength);
    };
    const { centers, covs, sh } = this.decode
      ? packCompact(this.cloud, this.decode, this.shStride, first, end, scratch && compactScratch(scratch), this.tally)
      : GpuScene.pack(this.cloud, this.shStride, first, end, scratch);
    write(this.centers, centers, first * this.layout.centerBytes);
    write(this.covs, covs, first * this.layout.covBytes);
    // The chunk's SH may straddle the split: the part before it goes to sh0, the rest to sh1.
    const cut = Math.max(0, Math.min(end, this.shSplit) - first);
    write(this.sh0, sh.subarray(0, cut * this.shStride), first * splatShBytes);
    write(this.sh1, sh.subarray(cut * this.shStride), (Math.max(first, this.shSplit) - this.shSplit) * splatShBytes);
  }

  /**
   * CPU-side packing of splats `first` .. `end` - 1 (default: all) in the full layout, exposed for tests.
   * The arrays hold those splats only, from index 0.
   */
  static pack(
    cloud: SplatCloud,
    shStride: number,
    first = 0,
    end = cloud.count,
    scratch?: PackScratch,
  ): { centers: Float32Array; covs: Float32Array; sh: Uint32Array } {
    const n = end - first;
    const { positions: p, scales: s, rotations: q, opacities: o } = cloud;
    // Into the scratch arrays when they are large enough (views of their start), else new ones.
    const view = <T extends Float32Array | Uint32Array>(a: T | undefined, len: number, make: (len: number) => T): T =>
      a && a.length >= len ? (a.subarray(0, len) as T) : make(len);
    const centers = view(scratch?.centers, n * 4, (l) => new Float32Array(l));
    const covs = view(scratch?.covs, n * 8, (l) => new Float32Array(l));
    for (let j = 0; j < n; j++) {
      const i = first + j;
      centers[4 * j] = p[3 * i];
      centers[4 * j + 1] = p[3 * i + 1];
      centers[4 * j + 2] = p[3 * i + 2];
      centers[4 * j + 3] = o[i];
      const sx = s[3 * i], sy = s[3 * i + 1], sz = s[3 * i + 2];
      const c = 8 * j;
      packCovariance(covs, c, sx, sy, sz, q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]);
      covs[c + 6] = Math.max(sx, sy, sz);
      covs[c + 7] = 0;
    }
    const floats = shCoeffCount(cloud.shDegree) * 3;
    const sh = view(scratch?.sh, n * shStride, (l) => new Uint32Array(l));
    const src = cloud.sh;
    for (let j = 0; j < n; j++) {
      const from = (first + j) * floats;
      const to = j * shStride;
      for (let h = 0; h < floats; h += 2) {
        const lo = toHalf(src[from + h]);
        const hi = h + 1 < floats ? toHalf(src[from + h + 1]) : 0;
        sh[to + (h >> 1)] = lo | (hi << 16);
      }
    }
    return { centers, covs, sh };
  }

  destroy(): void {
    this.centers.destroy();
    this.covs.destroy();
    this.sh0.destroy();
    this.sh1.destroy();
  }
}

function rangesOf(cloud: SplatCloud, first: number, end: number): CompactDecode {
  const r = new CompactRanges();
  r.add(cloud, first, end);
  return r.finish();
}

/** The same scratch memory as the compact packer's u32 arrays (it needs less of each). */
function compactScratch(s: PackScratch): CompactScratch {
  return { centers: new Uint32Array(s.centers.buffer, s.centers.byteOffset, s.centers.length), covs: new Uint32Array(s.covs.buffer, s.covs.byteOffset, s.covs.length), sh: s.sh };
}
