/**
 * The splat under a pixel, for double-click focus.
 *
 * Picked on the CPU, from data the page already has: the scene's positions,
 * scales and opacities (kept by the SplatCloud) and the camera of the frame on
 * screen. No GPU readback: a pick happens once per double-click, a pass over the
 * splats costs ~10-30 ms for a million of them, and it needs no extra pass, buffer
 * or stall in the frame.
 *
 * Each splat is treated as an isotropic Gaussian of its largest scale (a flat splat
 * seen edge-on looks bigger here than it is drawn); its weight at the pixel is
 * opacity * exp(-d^2 / 2 sigma^2), as in the draw. The splats covering the pixel
 * are composited front to back and the one that contributes most to the pixel's
 * colour (alpha * transmittance) is picked: a faint floater in front does not steal
 * the pick from the surface behind it. Pure, no DOM.
 */
import type { Vec3 } from './camera';

/** The part of a scene a pick reads. */
export interface PickScene {
  count: number;
  positions: Float32Array;
  scales: Float32Array;
  opacities: Float32Array;
}

/** The part of a frame's camera a pick reads (matrices as gl-matrix writes them, column-major). */
export interface PickCamera {
  view: Float32Array;
  proj: Float32Array;
  /** Viewport in device pixels. */
  width: number;
  height: number;
  near: number;
  far: number;
}

export interface PickResult {
  /** Index of the splat. */
  index: number;
  /** Its centre in world space. */
  point: Vec3;
  /** Its view depth. */
  depth: number;
  /** Its share of the pixel's colour (alpha * transmittance), 0..1. */
  weight: number;
}

/** Weights below this are invisible (1/255). */
const MIN_ALPHA = 1 / 255;

/**
 * The splat contributing most to device pixel (px, py) (origin top left), or null
 * when no splat covers it. `splatScale` is the draw's scale factor.
 */
export function pickSplat(scene: PickScene, cam: PickCamera, px: number, py: number, splatScale = 1): PickResult | null {
  const v = cam.view;
  const fx = (cam.proj[0] * cam.width) / 2;
  const fy = (cam.proj[5] * cam.height) / 2;
  const cx = cam.width / 2;
  const cy = cam.height / 2;
  const hits: { i: number; depth: number; alpha: number }[] = [];
  const { positions: p, scales: s, opacities: o } = scene;
  for (let i = 0; i < scene.count; i++) {
    const x = p[3 * i];
    const y = p[3 * i + 1];
    const z = p[3 * i + 2];
    const depth = -(v[2] * x + v[6] * y + v[10] * z + v[14]);
    if (!(depth > cam.near && depth < cam.far)) continue;
    const vx = v[0] * x + v[4] * y + v[8] * z + v[12];
    const vy = v[1] * x + v[5] * y + v[9] * z + v[13];
    const sx = cx + (fx * vx) / depth;
    const sy = cy - (fy * vy) / depth;
    const scale = Math.max(s[3 * i], s[3 * i + 1], s[3 * i + 2]) * splatScale;
    const sigma = Math.max(0.5, (scale * fy) / depth);
    const dx = px - sx;
    const dy = py - sy;
    const d2 = dx * dx + dy * dy;
    if (d2 > 9 * sigma * sigma) continue;
    const alpha = Math.min(0.99, o[i] * Math.exp(-d2 / (2 * sigma * sigma)));
    if (alpha >= MIN_ALPHA) hits.push({ i, depth, alpha });
  }
  if (hits.length === 0) return null;
  hits.sort((a, b) => a.depth - b.depth);
  let t = 1;
  let best = hits[0];
  let bestWeight = -1;
  for (const h of hits) {
    const w = h.alpha * t;
    if (w > bestWeight) {
      bestWeight = w;
      best = h;
    }
    t *= 1 - h.alpha;
    if (t < 1e-3) break;
  }
  const i = best.i;
  return { index: i, point: [p[3 * i], p[3 * i + 1], p[3 * i + 2]], depth: best.depth, weight: bestWeight };
}
