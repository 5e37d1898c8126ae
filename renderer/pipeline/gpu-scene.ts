import { shCoeffCount, type SplatCloud } from '../../scenes/splat-cloud';
import { packCovariance } from './covariance';
import { toHalf } from './half';

/**
 * A SplatCloud on the GPU, in the layout of shaders/splat_common.wgsl:
 * centers (xyz, opacity), 3D covariances (two vec4 a splat, plus the largest
 * axis for culling) and SH coefficients as f16 pairs. Built once per scene.
 */
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
    const k = shCoeffCount(cloud.shDegree);
    this.shStride = Math.ceil((k * 3) / 2);
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const { centers, covs, sh } = GpuScene.pack(cloud, this.shStride);
    // Zero-sized buffers cannot be bound: keep at least one element.
    const make = (label: string, data: ArrayBufferView & { byteLength: number }) => {
      const buf = device.createBuffer({ label: `GpuScene.${label}`, size: Math.max(16, data.byteLength), usage });
      if (data.byteLength > 0) device.queue.writeBuffer(buf, 0, data.buffer, data.byteOffset, data.byteLength);
      return buf;
    };
    this.centers = make('centers', centers);
    this.covs = make('covs', covs);
    this.sh = make('sh', sh);
  }

  /** CPU-side packing, exposed for tests. */
  static pack(cloud: SplatCloud, shStride: number): { centers: Float32Array; covs: Float32Array; sh: Uint32Array } {
    const n = cloud.count;
    const { positions: p, scales: s, rotations: q, opacities: o } = cloud;
    const centers = new Float32Array(n * 4);
    const covs = new Float32Array(n * 8);
    for (let i = 0; i < n; i++) {
      centers[4 * i] = p[3 * i];
      centers[4 * i + 1] = p[3 * i + 1];
      centers[4 * i + 2] = p[3 * i + 2];
      centers[4 * i + 3] = o[i];
      const sx = s[3 * i], sy = s[3 * i + 1], sz = s[3 * i + 2];
      const c = 8 * i;
      packCovariance(covs, c, sx, sy, sz, q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]);
      covs[c + 6] = Math.max(sx, sy, sz);
      covs[c + 7] = 0;
    }
    const floats = shCoeffCount(cloud.shDegree) * 3;
    const sh = new Uint32Array(n * shStride);
    const src = cloud.sh;
    for (let i = 0; i < n; i++) {
      const from = i * floats;
      const to = i * shStride;
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
