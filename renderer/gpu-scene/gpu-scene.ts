import { shCoeffCount, type SanitizeReport, type SplatCloud } from '../../scenes/splat-cloud';
import { CompactRanges, packCompact, packedSlice, PackTally, type CompactDecode, type CompactScratch, type PackedScene } from './compact-pack';
import { packCovariance } from './covariance';
import { bindingLimit, PagedBuffer, pagingFor } from './paging';
import type { SceneBindings, ScenePaging } from './scene-wgsl';
import { toHalf } from './half';
import { DEFAULT_PRECISION, sceneBytesPerSplat, sceneLayout, type SceneLayout, type ScenePrecision } from './scene-precision';
import { allocateOrThrow } from './gpu-memory';
import { runInSlices, type SliceOptions } from '../gpu/sliced-upload';
import { IDENTITY_TRANSFORM } from '../../scenes/transform';
import { ObjectTable } from './objects';

/** Splats packed and uploaded at a time. */
export const UPLOAD_CHUNK = 1 << 16;

/**
 * A SplatCloud on the GPU, in the layout of its precision (scene-precision.ts):
 * 'full': centers (xyz, opacity), 3D covariances (two vec4 a splat, plus the largest
 * axis for culling) and SH coefficients as f16 pairs (shaders/gpu-scene/scene_full.wgsl);
 * 'compact' (the default): 72 B a splat at SH3 (compact-pack.ts, shaders/gpu-scene/scene_compact.wgsl),
 * whose per-scene ranges (`decode`) go to the Frame block. Built once per scene.
 * A compact scene is packed either where the GpuScene is made, a slice at a time
 * (create: the packed copy never exists whole, the float SplatCloud stays), or ahead
 * (the viewer's loader worker: compact-pack.ts packScene): then it is uploaded as
 * packed and kept (`packed`: a lost device's recovery uploads it again), and the
 * cloud beside it may lack its SH (the CPU sort, picking, framing and the depth
 * estimate read its positions, scales, rotations and opacities).
 *
 * Each of the three arrays (centers, covs, sh) is paged (paging.ts): one buffer
 * where one binding holds it (the usual case), else split by whole splats over as
 * many buffers as the per-binding limit needs; the shaders read them through the
 * accessors scene-wgsl.ts declares for this paging.
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
  /**
   * Compact: the scene packed already (the loader's worker did it: the cloud may
   * then lack its SH); uploaded as is, and kept to upload again after a lost device.
   */
  packed?: PackedScene;
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
  /** The packed scene it was made from (GpuSceneOptions.packed), or null: packed here from the cloud. */
  readonly packed: PackedScene | null;
  readonly shDegree: number;
  /** u32 words per splat in `sh`. */
  readonly shStride: number;
  readonly centers: PagedBuffer;
  readonly covs: PagedBuffer;
  /** The SH words (the compact scene's opacity is there too). */
  readonly sh: PagedBuffer;
  /** The object table, made on first use (a scene never drawn, an object's own, makes none). */
  private objectTable: ObjectTable | null = null;

  /**
   * @param bindingBytes - the most bytes one binding may hold: the device's
   *   per-binding limit by default; lower to page small scenes (tests, `?bindlimit`)
   */
  constructor(
    private readonly device: GPUDevice,
    readonly cloud: SplatCloud,
    bindingBytes: number = bindingLimit(device.limits).bytes,
    { precision = DEFAULT_PRECISION, decode, upload = true, packed }: GpuSceneOptions = {},
  ) {
    if (packed && precision !== 'compact') throw new Error(`GpuScene: a packed scene is compact, not ${precision}`);
    this.packed = packed ?? null;
    const n = cloud.count;
    this.count = n;
    this.shDegree = cloud.shDegree;
    this.precision = precision;
    this.layout = sceneLayout(cloud.shDegree, precision);
    this.decode = precision === 'compact' ? (packed?.decode ?? decode ?? rangesOf(cloud, 0, n)) : null;
    this.shStride = this.layout.shStride;
    // COPY_SRC: tests read the upload back.
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const make = (label: string, splatBytes: number) => new PagedBuffer(device, `GpuScene.${label}`, pagingFor(n, splatBytes, bindingBytes), usage);
    this.centers = make('centers', this.layout.centerBytes);
    this.covs = make('covs', this.layout.covBytes);
    this.sh = make('sh', this.shStride * 4);
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
   * @throws GpuMemoryError (gpu-budget.ts) when the device runs out of memory making the buffers
   */
  static async create(
    device: GPUDevice,
    cloud: SplatCloud,
    bindingBytes: number,
    pause: () => Promise<void>,
    {
      chunk = 2048,
      precision = DEFAULT_PRECISION,
      packed,
      ...slicing
    }: Omit<SliceOptions, 'bytesPerItem' | 'now'> & { precision?: ScenePrecision; packed?: PackedScene } = {},
  ): Promise<GpuScene> {
    let decode: CompactDecode | undefined;
    if (precision === 'compact' && !packed) {
      // The ranges first (a pass over the cloud), paced as the upload and stopped by the same signal.
      const ranges = new CompactRanges();
      const { progress: _progress, ...pacing } = slicing;
      await runInSlices(cloud.count, (first, end) => ranges.add(cloud, first, end), pause, pause, { ...pacing, chunk: chunk * 8 });
      decode = ranges.finish();
    }
    const scene = await allocateOrThrow(
      device,
      () => new GpuScene(device, cloud, bindingBytes, { precision, upload: false, ...(decode ? { decode } : {}), ...(packed ? { packed } : {}) }),
      (made) => made.destroy(),
      { scene: cloud.source.name, count: cloud.count, what: "the scene's buffers", bytes: cloud.count * sceneBytesPerSplat(cloud.shDegree, precision) },
    );
    // One set of packing arrays for every slice (writeBuffer copies them): no garbage per slice.
    // None when packed already: the slices are views of the packed arrays.
    const scratch: PackScratch | undefined = packed ? undefined : { centers: new Float32Array(chunk * 4), covs: new Float32Array(chunk * 8), sh: new Uint32Array(chunk * scene.shStride) };
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

  /** How the three arrays are split over bindings (the pipelines that read them are built for it). */
  get paging(): ScenePaging {
    return { centers: this.centers.paging, covs: this.covs.paging, sh: this.sh.paging };
  }

  /** Bind group entries of the three arrays' pages and the object table at `at` (scene-wgsl.ts sceneLayoutEntries). */
  bindEntries(at: SceneBindings): GPUBindGroupEntry[] {
    return [...this.centers.entries(at.centers), ...this.covs.entries(at.covs), ...this.sh.entries(at.sh), { binding: at.objects, resource: { buffer: this.objects.buffer } }];
  }

  /**
   * The objects the passes draw these buffers as (objects.ts): one at the identity with
   * the scene's own degree and ranges, unless set otherwise (placed objects: the
   * renderer's world, an assembly of several). Written each frame by FrameUniforms.write.
   */
  get objects(): ObjectTable {
    return (this.objectTable ??= new ObjectTable(this.device, [{ first: 0, count: this.count, transform: IDENTITY_TRANSFORM, shDegree: this.shDegree, decode: this.decode }]));
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
    return this.packed ? this.packed.report : this.tally.report();
  }

  /** Packs splats `first` .. `end` - 1 and writes them into the buffers. */
  private uploadRange(first: number, end: number, scratch?: PackScratch): void {
    const queue = this.device.queue;
    const { centers, covs, sh } = packSlice({ cloud: this.cloud, packed: this.packed, decode: this.decode, shStride: this.shStride, tally: this.tally }, first, end, scratch);
    // A slice may straddle a page seam: each array splits it there.
    this.centers.write(queue, first, centers);
    this.covs.write(queue, first, covs);
    this.sh.write(queue, first, sh);
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
    this.sh.destroy();
    this.objectTable?.destroy();
  }
}

function rangesOf(cloud: SplatCloud, first: number, end: number): CompactDecode {
  const r = new CompactRanges();
  r.add(cloud, first, end);
  return r.finish();
}

/** What {@link packSlice} packs: a scene packed whole already, or a cloud packed compact under `decode`, or full without one. */
export interface SliceSource {
  /** The splats (null where `packed` holds them). */
  cloud: SplatCloud | null;
  packed: PackedScene | null;
  decode: CompactDecode | null;
  shStride: number;
  /** Where compact packing notes what it replaced or clamped. */
  tally: PackTally;
}

/**
 * Splats `first` .. `end` - 1 as the scene's buffers hold them, from index 0: views of
 * the packed arrays, or packed now (into `scratch` when given): a GpuScene's upload and
 * a streamed LOD chunk's (ChunkPool) a slice at a time.
 */
export function packSlice(src: SliceSource, first: number, end: number, scratch?: PackScratch): { centers: ArrayBufferView; covs: ArrayBufferView; sh: ArrayBufferView } {
  if (src.packed) return packedSlice(src.packed, first, end);
  if (!src.cloud) throw new Error('packSlice: no splats (neither a cloud nor a packed scene)');
  if (src.decode) return packCompact(src.cloud, src.decode, src.shStride, first, end, scratch && compactScratch(scratch), src.tally);
  return GpuScene.pack(src.cloud, src.shStride, first, end, scratch);
}

/** The same scratch memory as the compact packer's u32 arrays (it needs less of each). */
function compactScratch(s: PackScratch): CompactScratch {
  return { centers: new Uint32Array(s.centers.buffer, s.centers.byteOffset, s.centers.length), covs: new Uint32Array(s.covs.buffer, s.covs.byteOffset, s.covs.length), sh: s.sh };
}
