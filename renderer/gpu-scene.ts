import { shCoeffCount, type SplatCloud } from '../scenes/splat-cloud';
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
  readonly bytes: number;

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
    this.bytes = centers.byteLength + covs.byteLength + sh.byteLength;
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
      // Sigma = R S S^T R^T = M M^T with M = R diag(s): rows of M are R's rows scaled.
      const w = q[4 * i], x = q[4 * i + 1], y = q[4 * i + 2], z = q[4 * i + 3];
      const sx = s[3 * i], sy = s[3 * i + 1], sz = s[3 * i + 2];
      const m00 = (1 - 2 * (y * y + z * z)) * sx, m01 = 2 * (x * y - w * z) * sy, m02 = 2 * (x * z + w * y) * sz;
      const m10 = 2 * (x * y + w * z) * sx, m11 = (1 - 2 * (x * x + z * z)) * sy, m12 = 2 * (y * z - w * x) * sz;
      const m20 = 2 * (x * z - w * y) * sx, m21 = 2 * (y * z + w * x) * sy, m22 = (1 - 2 * (x * x + y * y)) * sz;
      const c = 8 * i;
      covs[c] = m00 * m00 + m01 * m01 + m02 * m02;
      covs[c + 1] = m00 * m10 + m01 * m11 + m02 * m12;
      covs[c + 2] = m00 * m20 + m01 * m21 + m02 * m22;
      covs[c + 3] = m10 * m10 + m11 * m11 + m12 * m12;
      covs[c + 4] = m10 * m20 + m11 * m21 + m12 * m22;
      covs[c + 5] = m20 * m20 + m21 * m21 + m22 * m22;
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
