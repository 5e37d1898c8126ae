import type { SplatCloud } from '../../../scenes/splat-cloud';
import { packCovariance } from '../../gpu-scene/covariance';
import type { FrameCamera } from '../../stage/frame-uniforms';
import { objectView, type ObjectRun } from '../../gpu-scene/objects';

/**
 * The depth complexity of a view, estimated on the CPU from a strided sample of
 * the splats: the number of splat layers over the mean pixel, i.e. the summed
 * screen area of the splats' 1/255 alpha contours (capped at 3 sigma) divided by
 * the screen's area. Only splats in front of the near plane whose centre is on
 * screen count, and each splat's area is capped at the screen's.
 *
 * It decides the draw order (draw-pass.ts): a front-to-back draw skips pixels that
 * are already opaque, which pays when many layers lie over a pixel and costs a few
 * full-screen passes when few do. The projection is the EWA one of
 * shaders/draw/quads/splat_prepare.wgsl (without its 1.3x frustum clamp of the Jacobian:
 * an estimate). `runs`: the placed objects the splats are runs of (the drawn scene's
 * object table, renderer/gpu-scene/objects.ts): each run seen through the view times its
 * model matrix (positions and covariances in its frame); default one at the identity.
 */
export function estimateLayers(cloud: SplatCloud, camera: FrameCamera, splatScale = 1, sample = 4096, runs?: readonly Pick<ObjectRun, 'first' | 'count' | 'transform'>[]): number {
  const n = cloud.count;
  if (n === 0 || camera.width <= 0 || camera.height <= 0) return 0;
  let v: ArrayLike<number> = camera.view;
  let run = -1;
  let runEnd = runs ? 0 : Infinity;
  const p = camera.proj;
  const focal = camera.height / (2 * Math.tan((camera.fovyDeg * Math.PI) / 360));
  const screen = camera.width * camera.height;
  const { positions: pos, scales: sc, rotations: q, opacities: op } = cloud;
  const step = Math.max(1, Math.floor(n / sample));
  const cov = new Float64Array(6);
  const s2 = splatScale * splatScale;
  let area = 0;
  let seen = 0;
  for (let i = 0; i < n; i += step) {
    seen++;
    while (runs && i >= runEnd && run + 1 < runs.length) {
      const r = runs[++run]!;
      runEnd = r.first + r.count;
      v = objectView(camera.view, r.transform);
    }
    const x = pos[3 * i], y = pos[3 * i + 1], z = pos[3 * i + 2];
    // View space (column-major 4x4).
    const tx = v[0] * x + v[4] * y + v[8] * z + v[12];
    const ty = v[1] * x + v[5] * y + v[9] * z + v[13];
    const tz = v[2] * x + v[6] * y + v[10] * z + v[14];
    const d = -tz;
    if (!(d > camera.near)) continue;
    const cw = p[3] * tx + p[7] * ty + p[11] * tz + p[15];
    const nx = (p[0] * tx + p[4] * ty + p[8] * tz + p[12]) / cw;
    const ny = (p[1] * tx + p[5] * ty + p[9] * tz + p[13]) / cw;
    if (!(Math.abs(nx) <= 1 && Math.abs(ny) <= 1)) continue;
    const o = op[i];
    if (!(o >= 1 / 255)) continue;
    packCovariance(cov, 0, sc[3 * i], sc[3 * i + 1], sc[3 * i + 2], q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]);
    // T = J W: J's rows (f/d, 0, f tx/d^2) and (0, f/d, f ty/d^2) (signs do not change the area).
    const j0x = focal / d, j0z = (focal * tx) / (d * d);
    const j1y = focal / d, j1z = (focal * ty) / (d * d);
    // Rows of T: r = j . W, W the view's rotation (rows of the upper 3x3).
    const r0x = j0x * v[0] + j0z * v[2], r0y = j0x * v[4] + j0z * v[6], r0z = j0x * v[8] + j0z * v[10];
    const r1x = j1y * v[1] + j1z * v[2], r1y = j1y * v[5] + j1z * v[6], r1z = j1y * v[9] + j1z * v[10];
    const [xx, xy, xz, yy, yz, zz] = cov;
    const quad = (ax: number, ay: number, az: number, bx: number, by: number, bz: number) =>
      s2 *
      (ax * (xx * bx + xy * by + xz * bz) + ay * (xy * bx + yy * by + yz * bz) + az * (xz * bx + yz * by + zz * bz));
    const a = quad(r0x, r0y, r0z, r0x, r0y, r0z) + 0.3;
    const b = quad(r0x, r0y, r0z, r1x, r1y, r1z);
    const c = quad(r1x, r1y, r1z, r1x, r1y, r1z) + 0.3;
    const det = a * c - b * b;
    if (!(det > 0)) continue;
    const r = Math.min(3, Math.sqrt(2 * Math.log(255 * o)));
    area += Math.min(screen, Math.PI * r * r * Math.sqrt(det));
  }
  return (area * (n / seen)) / screen;
}
