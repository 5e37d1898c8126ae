/**
 * Reader for the `.splat` format (antimatter15's web viewer and many tools
 * since): no header, no magic, 32 bytes a splat, little-endian:
 *   bytes  0..11  position x, y, z   float32
 *   bytes 12..23  scale x, y, z      float32, linear (not log)
 *   bytes 24..27  colour r, g, b, a  uint8 (a is the opacity, 0..255)
 *   bytes 28..31  rotation w, x, y, z uint8, component = (q - 128) / 128
 *
 * Detection rule (see detect.ts): a file that is not PLY (starts with
 * "ply"), not gzip (1f 8b) and not NGSP, whose size is a positive multiple
 * of 32, is read as .splat.
 */
import { TruncatedError } from './errors';
import { canonicalRowIndex, decodeSplatRows } from './ply-decode';
import { SH_C0 } from './sh';
import { SplatSink, Tally } from './sanitize';
import type { LoadOptions } from './load-options';
import type { SplatCloud } from './splat-cloud';

/** Bytes per splat. */
export const SPLAT_ROW_BYTES = 32;

/**
 * Decodes a .splat file. A scale <= 0 or NaN, a NaN/Inf position are dropped
 * and counted like every other loader's undrawable values.
 *
 * .splat holds SH degree 0 only, so `LoadOptions.maxShDegree` changes nothing here.
 *
 * @throws TruncatedError when the size is not a multiple of 32, EmptySceneError when it is 0
 */
export function parseSplatFile(bytes: Uint8Array, name: string, _options?: LoadOptions): SplatCloud {
  if (bytes.length % SPLAT_ROW_BYTES !== 0) {
    throw new TruncatedError(name, `a .splat file is 32 bytes a splat, but this one has ${bytes.length} bytes (${bytes.length % SPLAT_ROW_BYTES} after the last whole splat at byte ${bytes.length - (bytes.length % SPLAT_ROW_BYTES)})`, {
      byteOffset: bytes.length - (bytes.length % SPLAT_ROW_BYTES),
    });
  }
  const n = bytes.length / SPLAT_ROW_BYTES;
  const { index, stride } = canonicalRowIndex(0);
  const rows = new Float32Array(n * stride);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) {
    const b = i * SPLAT_ROW_BYTES;
    const r = i * stride;
    for (let a = 0; a < 3; a++) {
      rows[r + a] = view.getFloat32(b + a * 4, true);
      // log of a linear scale: 0 -> -Inf (scale 0), negative -> NaN (dropped).
      rows[r + 3 + a] = Math.log(view.getFloat32(b + 12 + a * 4, true));
    }
    for (let a = 0; a < 4; a++) rows[r + 6 + a] = (bytes[b + 28 + a]! - 128) / 128;
    const alpha = bytes[b + 27]! / 255;
    rows[r + 10] = Math.log(alpha / (1 - alpha)); // 0 -> -Inf, 1 -> +Inf: sigmoid gives them back exactly
    for (let c = 0; c < 3; c++) rows[r + 11 + c] = (bytes[b + 24 + c]! / 255 - 0.5) / SH_C0;
  }
  const sink = new SplatSink(0, n, name);
  const tally = new Tally();
  decodeSplatRows(rows, 0, stride, n, index, sink, tally);
  return sink.finish('splat', tally, n);
}
