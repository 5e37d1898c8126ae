import type { Bounds } from '../../scenes/splat-cloud';
import { boundsCenter, boundsRadius, fitDistance, orthogonalForward, cross, normalize, type CameraPose, type Vec3 } from '../camera/camera';
import { outOfOrderFraction } from './benchmark-report';
import type { FrameCamera } from '../stage/frame-uniforms';
import { DrawArgs } from '../stage/draw-args';

/**
 * The fixed, repeatable benchmark camera path: one full orbit around the scene's
 * (robust) centre while dollying from the fitted distance in to 0.25x of it (inside
 * most scenes' bounds) and back out, with a gentle bob in elevation. The same poses
 * in the browser's benchmark mode and in bench:frame.
 */
export function benchmarkPath(bounds: Bounds, up: readonly number[], fovyDeg: number, aspect: number, frames: number): CameraPose[] {
  const target = boundsCenter(bounds);
  const u = normalize(up);
  const f0 = orthogonalForward(u);
  const r0 = cross(f0, u);
  const dist = fitDistance(boundsRadius(bounds), fovyDeg, aspect);
  const poses: CameraPose[] = [];
  for (let i = 0; i < frames; i++) {
    const t = frames > 1 ? i / frames : 0;
    const angle = 2 * Math.PI * t;
    const d = dist * (1 - 0.75 * Math.sin(Math.PI * t) ** 2);
    const elev = 0.25 * Math.sin(2 * Math.PI * t);
    // Direction from the target to the eye: behind (-forward) rotated about up, lifted by elev.
    const dir = normalize([
      (-f0[0] * Math.cos(angle) + r0[0] * Math.sin(angle)) * Math.cos(elev) + u[0] * Math.sin(elev),
      (-f0[1] * Math.cos(angle) + r0[1] * Math.sin(angle)) * Math.cos(elev) + u[1] * Math.sin(elev),
      (-f0[2] * Math.cos(angle) + r0[2] * Math.sin(angle)) * Math.cos(elev) + u[2] * Math.sin(elev),
    ]);
    const eye: Vec3 = [target[0] + dir[0] * d, target[1] + dir[1] * d, target[2] + dir[2] * d];
    poses.push({ eye, target: [...target] as Vec3, up: [...u] as Vec3, fovyDeg });
  }
  return poses;
}

/** Relative depth difference below which two neighbours count as equal (see outOfOrderFraction). */
const DEPTH_TOLERANCE = 1e-5;

/** Buffers that capture a frame's drawn order: encode `capture` after the frame's draw. */
export class DrawnOrderProbe {
  private readonly ids: GPUBuffer;
  private readonly args: GPUBuffer;

  constructor(device: GPUDevice, readonly capacity: number) {
    this.ids = device.createBuffer({ label: 'DrawnOrderProbe.ids', size: Math.max(4, capacity * 4), usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    this.args = device.createBuffer({ label: 'DrawnOrderProbe.args', size: DrawArgs.size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  }

  /** Copies the ids the draw used (their pages, in order) and its instance count (after the draw, same encoder). */
  capture(encoder: GPUCommandEncoder, buffers: { values: readonly GPUBuffer[]; drawArgs: GPUBuffer }): void {
    let at = 0;
    for (const page of buffers.values) {
      const bytes = Math.min(page.size, this.capacity * 4 - at);
      if (bytes <= 0) break;
      encoder.copyBufferToBuffer(page, 0, this.ids, at, bytes);
      at += bytes;
    }
    encoder.copyBufferToBuffer(buffers.drawArgs, 0, this.args, 0, DrawArgs.size);
  }

  /**
   * After the submit: the fraction of adjacent drawn pairs out of back-to-front order
   * for `camera` (the camera the frame was drawn with). 0 for an exact sort.
   */
  async outOfOrder(positions: Float32Array, camera: FrameCamera): Promise<number> {
    await Promise.all([this.ids.mapAsync(GPUMapMode.READ), this.args.mapAsync(GPUMapMode.READ)]);
    const count = Math.min(DrawArgs.count(this.args.getMappedRange()), this.capacity);
    const ids = new Uint32Array(this.ids.getMappedRange(), 0, count);
    const v = camera.view;
    const depths = new Float32Array(count);
    for (let j = 0; j < count; j++) {
      const i = ids[j];
      depths[j] = -(v[2] * positions[3 * i] + v[6] * positions[3 * i + 1] + v[10] * positions[3 * i + 2] + v[14]);
    }
    this.ids.unmap();
    this.args.unmap();
    return outOfOrderFraction(depths, count, DEPTH_TOLERANCE);
  }

  destroy(): void {
    this.ids.destroy();
    this.args.destroy();
  }
}
