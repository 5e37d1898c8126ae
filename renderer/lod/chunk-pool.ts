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
 */
import { computeBounds, shCoeffCount, type Bounds, type ShDegree, type SplatCloud } from '../../scenes/splat-cloud';
import { GpuScene, type PackScratch } from '../pipeline/gpu-scene';
import { shWordsPerSplat } from '../pipeline/gpu-budget';

/** A range of one resident file's splats to draw. */
export interface PoolRange {
  file: number;
  offset: number;
  count: number;
}

interface Entry {
  cloud: SplatCloud | null; // kept until uploaded
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
  private stride = 0;
  private scratch: PackScratch | null = null;
  /** GPU bytes held by resident and uploading files. */
  bytes = 0;

  constructor(private readonly device: GPUDevice) {}

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
    return count * (16 + 32 + 4 * (this.degree === null ? shWordsPerSplat(3) : this.stride));
  }

  /** Splats wholly on the GPU. */
  get residentSplats(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.uploaded === e.count) n += e.count;
    return n;
  }

  /** Whether a file is still being uploaded. */
  get uploading(): boolean {
    for (const e of this.entries.values()) if (e.cloud !== null) return true;
    return false;
  }

  /** Takes a loaded file: buffers made now, filled by `step`. */
  add(file: number, cloud: SplatCloud): void {
    if (this.entries.has(file)) return;
    if (this.degree === null) {
      this.degree = cloud.shDegree;
      this.stride = shWordsPerSplat(cloud.shDegree);
    }
    const n = cloud.count;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const make = (what: string, size: number) => this.device.createBuffer({ label: `ChunkPool.${file}.${what}`, size: Math.max(16, size), usage });
    const entry: Entry = {
      cloud: fitDegree(cloud, this.degree),
      positions: cloud.positions,
      opacities: cloud.opacities,
      count: n,
      centers: make('centers', n * 16),
      covs: make('covs', n * 32),
      sh: make('sh', n * this.stride * 4),
      uploaded: 0,
      bytes: this.bytesFor(n),
    };
    this.entries.set(file, entry);
    this.bytes += entry.bytes;
  }

  /**
   * Packs and uploads waiting files for up to `budgetMs` (at least one slice).
   * @returns the files that became resident
   */
  step(budgetMs: number): number[] {
    const done: number[] = [];
    const start = performance.now();
    for (const [file, e] of this.entries) {
      while (e.cloud !== null) {
        this.scratch ??= { centers: new Float32Array(SLICE * 4), covs: new Float32Array(SLICE * 8), sh: new Uint32Array(SLICE * this.stride) };
        const first = e.uploaded, end = Math.min(e.count, first + SLICE);
        const { centers, covs, sh } = GpuScene.pack(e.cloud, this.stride, first, end, this.scratch);
        const q = this.device.queue;
        q.writeBuffer(e.centers, first * 16, centers.buffer, centers.byteOffset, centers.byteLength);
        q.writeBuffer(e.covs, first * 32, covs.buffer, covs.byteOffset, covs.byteLength);
        q.writeBuffer(e.sh, first * this.stride * 4, sh.buffer, sh.byteOffset, sh.byteLength);
        e.uploaded = end;
        if (end === e.count) {
          e.cloud = null;
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
    const scene = new GpuScene(this.device, cloud, bindingBytes, { precision: 'full', upload: false });
    const enc = this.device.createCommandEncoder({ label: 'ChunkPool.assemble' });
    const shBytes = this.stride * 4;
    at = 0;
    for (const r of ranges) {
      if (r.count === 0) continue;
      const e = this.entries.get(r.file)!;
      // A range may straddle a page seam of the scene's arrays: copyFrom splits it there.
      scene.centers.copyFrom(enc, e.centers, r.offset * 16, at, r.count);
      scene.covs.copyFrom(enc, e.covs, r.offset * 32, at, r.count);
      scene.sh.copyFrom(enc, e.sh, r.offset * shBytes, at, r.count);
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
