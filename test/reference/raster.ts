/**
 * A small CPU reference rasteriser of the renderer's forward model
 * (test/reference/forward-model.ts): project every splat, sort by depth key
 * ascending (back to front), and blend every splat over every pixel centre
 * inside its radius box. O(splats x footprint), for small scenes (a few
 * thousand splats) at small sizes (e.g. 128x96); the golden images of the GPU
 * renderer are compared against it.
 */
import { PNG } from 'pngjs';
import { shCoeffCount, type SplatCloud } from '../../scenes/splat-cloud';
import {
  blendOver,
  covariance3D,
  effectiveOpacity,
  fragmentAlpha,
  makeCameraFrame,
  projectSplat,
  shColor,
  SIGMA_EXTENT,
  viewDirection,
  type CameraSpec,
  type ProjectedSplat,
} from './forward-model';

export interface RasterOptions {
  width: number;
  height: number;
  /** SH degree to evaluate (clamped to the cloud's); default: the cloud's. */
  shDegree?: number;
  /** Multiplies every scale; default 1. */
  splatScale?: number;
  /** Straight background colour; default black. */
  background?: [number, number, number];
  /**
   * Extent in sigma where fragments stop; default the model's 3 (SIGMA_EXTENT).
   * 2 sqrt(2) renders PlayCanvas's cut (the renderer's `sigmaCut` setting).
   */
  cutSigma?: number;
  /** The anti-aliased mode (forward-model.ts effectiveOpacity); default false. */
  antialias?: boolean;
  /**
   * A host's depth (a composited renderer's depth buffer, EncodeOptions.hostDepth): the
   * view depth of its surface at pixel (px, py); a splat whose depth d (ProjectedSplat.
   * depth, its centre's) is at or behind it contributes nothing to that pixel. Default none.
   */
  depthLimit?: (px: number, py: number) => number;
  /** Also give `halfDepth` (RasterResult); default false. */
  halfDepth?: boolean;
}

export interface RasterResult {
  width: number;
  height: number;
  /** width * height * 3, row 0 at the top: straight colour over the background (not clamped). */
  rgb: Float32Array;
  /** width * height: accumulated alpha. */
  alpha: Float32Array;
  /** Number of splats that survived culling. */
  drawn: number;
  /**
   * With RasterOptions.halfDepth, width * height: the depth (ProjectedSplat.depth) of the
   * splat at which the pixel's accumulated alpha, front to back, first reaches 0.5
   * (EncodeOptions.outputDepth); Infinity where it never does.
   */
  halfDepth?: Float64Array;
}

/** Render `cloud` seen by `cam` with the forward model, on the CPU. */
export function rasterizeReference(cloud: SplatCloud, cam: CameraSpec, opts: RasterOptions): RasterResult {
  const { width: W, height: H } = opts;
  const degree = Math.min(opts.shDegree ?? cloud.shDegree, cloud.shDegree);
  const splatScale = opts.splatScale ?? 1;
  const bg = opts.background ?? [0, 0, 0];
  const K = shCoeffCount(cloud.shDegree);
  const cut = opts.cutSigma ?? SIGMA_EXTENT;
  const frame = makeCameraFrame(cam, W, H);

  // 1. project
  const visible: { id: number; key: number; p: ProjectedSplat }[] = [];
  for (let i = 0; i < cloud.count; i++) {
    const pos = cloud.positions.subarray(i * 3, i * 3 + 3);
    const cov = covariance3D(cloud.scales.subarray(i * 3, i * 3 + 3), cloud.rotations.subarray(i * 4, i * 4 + 4), splatScale);
    const p = projectSplat(frame, pos, cov);
    if (p) visible.push({ id: i, key: p.key, p });
  }
  // 2. sort ascending by key (back to front); ties by id for determinism
  visible.sort((a, b) => a.key - b.key || a.id - b.id);

  // 3. blend
  const acc = new Float64Array(W * H * 4);
  // With halfDepth: each pixel's fragments (depth, alpha), back to front.
  const fragments: [number, number][][] | null = opts.halfDepth ? Array.from({ length: W * H }, () => []) : null;
  for (const { id, p } of visible) {
    const pos = cloud.positions.subarray(id * 3, id * 3 + 3);
    const rgb = shColor(degree, viewDirection(pos, frame.eye), cloud.sh, id * K * 3);
    const opacity = effectiveOpacity(cloud.opacities[id], p, opts.antialias);
    const [cx, cy] = p.center;
    const r = (p.radius * cut) / SIGMA_EXTENT;
    // pixel centres px + 0.5 within [cx - r, cx + r]
    const x0 = Math.max(0, Math.ceil(cx - r - 0.5)), x1 = Math.min(W - 1, Math.floor(cx + r - 0.5));
    const y0 = Math.max(0, Math.ceil(cy - r - 0.5)), y1 = Math.min(H - 1, Math.floor(cy + r - 0.5));
    for (let py = y0; py <= y1; py++) {
      const dy = py + 0.5 - cy;
      for (let px = x0; px <= x1; px++) {
        if (opts.depthLimit && p.depth >= opts.depthLimit(px, py)) continue;
        const a = fragmentAlpha(opacity, p.conic, px + 0.5 - cx, dy, cut * cut);
        if (a > 0) {
          blendOver(acc, (py * W + px) * 4, rgb, a);
          fragments?.[py * W + px]!.push([p.depth, a]);
        }
      }
    }
  }

  // 4. straight colour over the background
  const rgbOut = new Float32Array(W * H * 3);
  const alphaOut = new Float32Array(W * H);
  for (let j = 0; j < W * H; j++) {
    const a = acc[j * 4 + 3];
    alphaOut[j] = a;
    for (let c = 0; c < 3; c++) rgbOut[j * 3 + c] = acc[j * 4 + c] + (1 - a) * bg[c];
  }
  let halfDepth: Float64Array | undefined;
  if (fragments) {
    halfDepth = new Float64Array(W * H).fill(Infinity);
    fragments.forEach((list, j) => {
      let T = 1;
      for (let k = list.length - 1; k >= 0; k--) {
        T *= 1 - list[k]![1];
        if (T <= 0.5) {
          halfDepth![j] = list[k]![0];
          break;
        }
      }
    });
  }
  return { width: W, height: H, rgb: rgbOut, alpha: alphaOut, drawn: visible.length, ...(halfDepth ? { halfDepth } : {}) };
}

/** Mean squared error of two equally long arrays. */
function mse(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`length mismatch: ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    s += d * d;
  }
  return a.length ? s / a.length : 0;
}

/** PSNR in dB for values in 0..1 (peak 1); Infinity for identical inputs. */
export function psnr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const m = mse(a, b);
  return m === 0 ? Infinity : -10 * Math.log10(m);
}

/** Largest |a[i] - b[i]|. */
export function maxAbsError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`length mismatch: ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Encode a straight rgb float image (w * h * 3, row 0 at the top, clamped to 0..1) as an opaque PNG. */
export function toPng(rgb: ArrayLike<number>, w: number, h: number): Buffer {
  if (rgb.length !== w * h * 3) throw new RangeError(`expected ${w * h * 3} values, got ${rgb.length}`);
  const png = new PNG({ width: w, height: h });
  for (let j = 0; j < w * h; j++) {
    for (let c = 0; c < 3; c++) png.data[j * 4 + c] = Math.round(Math.min(1, Math.max(0, rgb[j * 3 + c])) * 255);
    png.data[j * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}
