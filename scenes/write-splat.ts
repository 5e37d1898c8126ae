/**
 * Writes a SplatCloud as a .splat file (32 bytes a splat; see
 * splat-format.ts for the layout). SH beyond DC is lost; colour and opacity
 * become bytes, rotation components bytes of (q * 128 + 128). Used by tests
 * and the fuzz program.
 */
import { SH_C0 } from './sh';
import { shCoeffCount, type SplatCloud } from './splat-cloud';

const byte = (v: number): number => Math.max(0, Math.min(255, Math.round(v)));

export function writeSplatFile(cloud: SplatCloud): Uint8Array {
  const n = cloud.count;
  const K3 = shCoeffCount(cloud.shDegree) * 3;
  const out = new Uint8Array(n * 32);
  const view = new DataView(out.buffer);
  for (let i = 0; i < n; i++) {
    const b = i * 32;
    for (let a = 0; a < 3; a++) {
      view.setFloat32(b + a * 4, cloud.positions[i * 3 + a]!, true);
      view.setFloat32(b + 12 + a * 4, cloud.scales[i * 3 + a]!, true);
      out[b + 24 + a] = byte((0.5 + SH_C0 * cloud.sh[i * K3 + a]!) * 255);
    }
    out[b + 27] = byte(cloud.opacities[i]! * 255);
    for (let a = 0; a < 4; a++) out[b + 28 + a] = byte(cloud.rotations[i * 4 + a]! * 128 + 128);
  }
  return out;
}
