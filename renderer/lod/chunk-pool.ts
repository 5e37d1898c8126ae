/**
 * The GPU side of a streamed LOD scene: the loaded chunk files resident in GPU
 * buffers (one set a file, in GpuScene's per-splat layout), and the drawn set
 * assembled from them into an ordinary GpuScene with GPU copies
 * (copyBufferToBuffer, one range at a time), so that both draws and every sort
 * strategy work on it unchanged.
 *
 * A file's upload is spread over frames (`step`): packing half a million
 * splats takes tens of milliseconds in JS, which must not land in one frame.
 * The SH stride is the first file's: later files of a higher degree are cut to
 * it, lower ones padded with zeros.
 *
 * Files are kept in the pool's precision (the renderer's: compact by default, 72 B a
 * splat at SH3 rather than 144). Compact needs one set of ranges for everything drawn
 * together: they are fixed at the first file and widened (compact-pack.ts
 * streamedDecode); what later files hold past them is clamped and counted (`tally`).
 * The first file is packed by its loader under its own widened ranges (`packWith`
 * 'own'), which the pool takes; loads started after it pack their file under them (in
 * the page, in the loader's worker), and the pool uploads those arrays as they are: the
 * page never holds a chunk's float SH, and packing leaves the frames' upload slices.
 */
import { computeBounds, shCoeffCount, type Bounds, type ShDegree, type SplatCloud } from '../../scenes/splat-cloud';
import { PackTally, sameDecode, streamedDecode, type CompactDecode, type PackedScene } from '../gpu-scene/compact-pack';
import type { LoadedChunk } from './streamer';
import { GpuScene, packSlice, type PackScratch } from '../gpu-scene/gpu-scene';
import { DEFAULT_PRECISION, sceneLayout, type SceneLayout, type ScenePrecision } from '../gpu-scene/scene-precision';

/** A range of one resident file's splats to draw. */
export interface PoolRange {
  file: number;
  offset: number;
  count: number;
}

interface Entry {
  cloud: SplatCloud | null; // kept until uploaded (packed here, a slice at a time)
  packed: PackedScene | null; // or packed by the loader, kept until uploaded
  positions: Float32Array;
  opacities: Float32Array;
  count: number;
  centers: GPUBuffer;
  covs: GPUBuffer;
  sh: GPUBuffer;
  uploaded: number;
  bytes: number;
}

/** Splats packed per upload slice. */
const SLICE = 8192;

export class ChunkPool {
  private readonly entries = new Map<number, Entry>();
  private degree: ShDegree | null = null;
  /** The pool's per-splat layout (the first file's degree, the pool's precision). */
  private layout: SceneLayout | null = null;
  /** Compact: the ranges every file is packed under (the first file's, widened). */
  private decode: CompactDecode | null = null;
  private scratch: PackScratch | null = null;
  /** GPU bytes held by resident and uploading files. */
  bytes = 0;
  /** What packing clamped or replaced so far (compact: values past the ranges fixed at the first file). */
  readonly tally = new PackTally();
  /** Files taken so far: packed by their loader (under `packWith`) or here. */
  readonly filesPacked = { byLoader: 0, here: 0 };

  constructor(
    private readonly device: GPUDevice,
    readonly precision: ScenePrecision = DEFAULT_PRECISION,
  ) {}

  /** The ranges loaders pack chunks under (compact, once the first file set them); 'own' before it (compact); null for full (ChunkStore). */
  get packWith(): CompactDecode | 'own' | null {
    if (this.precision === 'compact' && this.degree === null) return 'own';
    return this.decode;
  }

  /** The SH degree of the pool (the first file's), or null before any. */
  get shDegree(): ShDegree | null {
    return this.degree;
  }

  /** Whether the file is wholly on the GPU. */
  resident(file: number): boolean {
    const e = this.entries.get(file);
    return e !== undefined && e.uploaded === e.count;
  }

  /** Whether the file is held (resident or uploading). */
  has(file: number): boolean {
    return this.entries.has(file);
  }

  /** GPU bytes a file of `count` splats takes (an estimate before the first file sets the stride). */
  bytesFor(count: number): number {
    const l = this.layout ?? sceneLayout(3, this.precision);
    return count * (l.centerBytes + l.covBytes + 4 * l.shStride);
  }

  /** Splats wholly on the GPU. */
  get residentSplats(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.uploaded === e.count) n += e.count;
    return n;
  }

  /** Whether a file is still being uploaded. */
  get uploading(): boolean {
    for (const e of this.entries.values()) if (e.cloud !== null || e.packed !== null) return true;
    return false;
  }

  /**
   * Takes a loaded file: buffers made now, filled by `step`. A file the loader packed
   * (under `packWith`) is uploaded as packed; the others are packed here.
   * @throws RangeError for a packed file of another layout than the pool's (another SH degree)
   */
  add(file: number, chunk: LoadedChunk): void {
    if (this.entries.has(file)) return;
    const { cloud, packed } = chunk;
    // The first file, packed by its loader under its own widened ranges: they become the pool's.
    const first = this.degree === null;
    const own = first && packed !== null && this.precision === 'compact' && packed.shStride === sceneLayout(cloud.shDegree, 'compact').shStride;
    if (packed && !own && !(this.decode && this.layout && packed.shStride === this.layout.shStride && sameDecode(packed.decode, this.decode))) {
      throw new RangeError(`ChunkPool: file ${file} was packed for another layout or ranges (${packed.shStride} SH words a splat) than the pool's`);
    }
    if (first) {
      this.degree = cloud.shDegree;
      this.layout = sceneLayout(cloud.shDegree, this.precision);
      if (this.precision === 'compact') this.decode = own ? packed!.decode : streamedDecode(cloud);
    }
    const layout = this.layout!;
    const n = cloud.count;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const make = (what: string, size: number) => this.device.createBuffer({ label: `ChunkPool.${file}.${what}`, size: Math.max(16, size), usage });
    const entry: Entry = {
      cloud: packed ? null : fitDegree(cloud, this.degree!),
      packed,
      positions: cloud.positions,
      opacities: cloud.opacities,
      count: n,
      centers: make('centers', n * layout.centerBytes),
      covs: make('covs', n * layout.covBytes),
      sh: make('sh', n * layout.shStride * 4),
      uploaded: 0,
      bytes: this.bytesFor(n),
    };
    this.entries.set(file, entry);
    this.bytes += entry.bytes;
    if (packed) this.tally.merge(packed.report);
    if (packed) this.filesPacked.byLoader++;
    else this.filesPacked.here++;
  }

  /**
   * Packs and uploads waiting files for up to `budgetMs` (at least one slice).
   * @returns the files that became resident
   */
  step(budgetMs: number): number[] {
    const done: number[] = [];
    const start = performance.now();
    for (const [file, e] of this.entries) {
      while (e.cloud !== null || e.packed !== null) {
        const { centerBytes, covBytes, shStride } = this.layout!;
        const first = e.uploaded, end = Math.min(e.count, first + SLICE);
        // Packed by the loader: its slice as is; else packed here (compact under the pool's ranges, or full).
        if (!e.packed) this.scratch ??= { centers: new Float32Array(SLICE * 4), covs: new Float32Array(SLICE * 8), sh: new Uint32Array(SLICE * shStride) };
        const { centers, covs, sh } = packSlice({ cloud: e.cloud, packed: e.packed, decode: this.decode, shStride, tally: this.tally }, first, end, this.scratch ?? undefined);
        const q = this.device.queue;
        q.writeBuffer(e.centers, first * centerBytes, centers.buffer, centers.byteOffset, centers.byteLength);
        q.writeBuffer(e.covs, first * covBytes, covs.buffer, covs.byteOffset, covs.byteLength);
        q.writeBuffer(e.sh, first * shStride * 4, sh.buffer, sh.byteOffset, sh.byteLength);
        e.uploaded = end;
        if (end === e.count) {
          e.cloud = null;
          e.packed = null;
          done.push(file);
        }
        if (performance.now() - start >= budgetMs) return done;
      }
    }
    return done;
  }

  /** Frees a file's buffers (resident or still uploading). */
  remove(file: number): void {
    const e = this.entries.get(file);
    if (!e) return;
    e.centers.destroy();
    e.covs.destroy();
    e.sh.destroy();
    this.bytes -= e.bytes;
    this.entries.delete(file);
  }

  /**
   * A GpuScene holding `ranges` of resident files back to back, in order, made
   * with GPU copies (submitted here). Its cloud holds the positions and
   * opacities (for a CPU sort, picking and framing); its other arrays are empty.
   *
   * @throws Error when a range's file is not resident or the range is past its end
   */
  assemble(ranges: readonly PoolRange[], name: string, bindingBytes: number, bounds?: Bounds): GpuScene {
    let total = 0;
    for (const r of ranges) {
      const e = this.entries.get(r.file);
      if (!e || e.uploaded !== e.count) throw new Error(`ChunkPool.assemble: file ${r.file} is not resident`);
      if (r.offset + r.count > e.count) throw new Error(`ChunkPool.assemble: range ${r.offset}+${r.count} is past file ${r.file}'s ${e.count} splats`);
      total += r.count;
    }
    const positions = new Float32Array(total * 3);
    const opacities = new Float32Array(total);
    let at = 0;
    for (const r of ranges) {
      const e = this.entries.get(r.file)!;
      positions.set(e.positions.subarray(r.offset * 3, (r.offset + r.count) * 3), at * 3);
      opacities.set(e.opacities.subarray(r.offset, r.offset + r.count), at);
      at += r.count;
    }
    const degree = this.degree ?? 0;
    const cloud: SplatCloud = {
      count: total,
      shDegree: degree,
      positions,
      opacities,
      scales: new Float32Array(0),
      rotations: new Float32Array(0),
      sh: new Float32Array(0),
      // The caller's bounds when it knows them (the chosen leaves' union: a pass over
      // millions of positions is ~10 ms of the frame that assembles), else computed.
      bounds: bounds ?? computeBounds(positions),
      source: { name, format: 'lod' },
    };
    const scene = new GpuScene(this.device, cloud, bindingBytes, { precision: this.precision, upload: false, ...(this.decode ? { decode: this.decode } : {}) });
    const enc = this.device.createCommandEncoder({ label: 'ChunkPool.assemble' });
    const { centerBytes, covBytes, shStride } = this.layout ?? sceneLayout(degree, this.precision);
    at = 0;
    for (const r of ranges) {
      if (r.count === 0) continue;
      const e = this.entries.get(r.file)!;
      // A range may straddle a page seam of the scene's arrays: copyFrom splits it there.
      scene.centers.copyFrom(enc, e.centers, r.offset * centerBytes, at, r.count);
      scene.covs.copyFrom(enc, e.covs, r.offset * covBytes, at, r.count);
      scene.sh.copyFrom(enc, e.sh, r.offset * shStride * 4, at, r.count);
      at += r.count;
    }
    this.device.queue.submit([enc.finish()]);
    return scene;
  }

  destroy(): void {
    for (const f of [...this.entries.keys()]) this.remove(f);
  }
}

/** The cloud with its SH cut or padded to `degree` (itself when it has that degree). */
function fitDegree(cloud: SplatCloud, degree: ShDegree): SplatCloud {
  if (cloud.shDegree === degree) return cloud;
  const from = shCoeffCount(cloud.shDegree) * 3, to = shCoeffCount(degree) * 3;
  const sh = new Float32Array(cloud.count * to);
  const keep = Math.min(from, to);
  for (let i = 0; i < cloud.count; i++) sh.set(cloud.sh.subarray(i * from, i * from + keep), i * to);
  return { ...cloud, shDegree: degree, sh };
}
