import { shCoeffCount, type SplatCloud } from '../../scenes/splat-cloud';
import { packCovariance } from './covariance';
import { shWordsPerSplat } from './gpu-budget';
import { toHalf } from './half';

/**
 * A SplatCloud on the GPU, in the layout of shaders/splat_common.wgsl:
 * centers (xyz, opacity), 3D covariances (two vec4 a splat, plus the largest
 * axis for culling) and SH coefficients as f16 pairs. Built once per scene.
 */
/** Splats packed and uploaded at a time. */
export const UPLOAD_CHUNK = 1 << 16;

export class GpuScene {
  readonly count: number;
  readonly shDegree: number;
  /** u32 words per splat in `sh`. */
  readonly shStride: number;
  readonly centers: GPUBuffer;
  readonly covs: GPUBuffer;
  readonly sh: GPUBuffer;

  constructor(device: GPUDevice, readonly cloud: SplatCloud) {
    const n = cloud.count;
    this.count = n;
    this.shDegree = cloud.shDegree;
    this.shStride = shWordsPerSplat(cloud.shDegree);
    // COPY_SRC: tests read the upload back.
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    // Zero-sized buffers cannot be bound: keep at least one element.
    const make = (label: string, bytes: number) => device.createBuffer({ label: `GpuScene.${label}`, size: Math.max(16, bytes), usage });
    this.centers = make('centers', n * 16);
    this.covs = make('covs', n * 32);
    this.sh = make('sh', n * this.shStride * 4);
    // Packed and uploaded UPLOAD_CHUNK splats at a time: the packed copy of a
    // multi-GB scene never exists whole in JS memory (writeBuffer copies each slice).
    const write = (buf: GPUBuffer, data: Float32Array | Uint32Array, at: number) => {
      if (data.byteLength > 0) device.queue.writeBuffer(buf, at, data.buffer, data.byteOffset, data.byteLength);
    };
    for (let first = 0; first < n; first += UPLOAD_CHUNK) {
      const end = Math.min(n, first + UPLOAD_CHUNK);
      const { centers, covs, sh } = GpuScene.pack(cloud, this.shStride, first, end);
      write(this.centers, centers, first * 16);
      write(this.covs, covs, first * 32);
      write(this.sh, sh, first * this.shStride * 4);
    }
  }

  /**
   * CPU-side packing of splats `first` .. `end` - 1 (default: all), exposed for tests.
   * The arrays hold those splats only, from index 0.
   */
  static pack(cloud: SplatCloud, shStride: number, first = 0, end = cloud.count): { centers: Float32Array; covs: Float32Array; sh: Uint32Array } {
    const n = end - first;
    const { positions: p, scales: s, rotations: q, opacities: o } = cloud;
    const centers = new Float32Array(n * 4);
    const covs = new Float32Array(n * 8);
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
    const sh = new Uint32Array(n * shStride);
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
  }
}
