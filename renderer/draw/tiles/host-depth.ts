/**
 * The tiles draw's composition with a host (EncodeOptions.hostDepth, outputDepth): the
 * parameters blend_depth_common.wgsl converts depths with, from the host's projection
 * planes and the frame's.
 */
import type { HostDepth, OutputDepth } from '../draw';

/** A projection's planes checked, and near / far (0 for an infinite far plane). */
function planes(what: string, p: { near: number; far: number }): number {
  if (!(p.near > 0) || !(p.far > p.near)) throw new RangeError(`${what}: need 0 < near < far, got near ${p.near}, far ${p.far}`);
  return p.far === Infinity ? 0 : p.near / p.far;
}

/**
 * The depth blends' parameters (blend_depth_common.wgsl depthParams). The host's NDC z to
 * a view depth d = near / (c0 + c1 z): standard z = far (d - near) / (d (far - near)), so
 * c0 = 1, c1 = near / far - 1; reversed z = near (far - d) / (d (far - near)), so
 * c0 = near / far, c1 = 1 - near / far (far may be Infinity). The output's view depth d
 * to z = s0 + s1 / d: standard s0 = far / (far - near), s1 = -near far / (far - near);
 * reversed s0 = -near / (far - near), s1 = near far / (far - near); nothing: 1 (reversed 0).
 */
export function depthParams(host: HostDepth | undefined, output: OutputDepth | undefined, frameNear: number, frameFar: number): Float32Array<ArrayBuffer> {
  const p = new Float32Array(12);
  if (host) {
    const b = planes('hostDepth', host);
    p.set(host.reversed ? [host.near, b, 1 - b] : [host.near, 1, b - 1], 0);
  }
  p.set([frameNear, 65535 / (frameFar - frameNear)], 4);
  if (output) {
    const b = planes('outputDepth', output);
    const n = output.near;
    // far / (far - near) = 1 / (1 - b); near far / (far - near) = near / (1 - b); near / (far - near) = b / (1 - b)
    p.set(output.reversed ? [-b / (1 - b), n / (1 - b), 0] : [1 / (1 - b), -n / (1 - b), 1], 8);
  }
  return p;
}

