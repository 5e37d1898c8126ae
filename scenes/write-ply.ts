/**
 * Writes a SplatCloud as a 3DGS PLY in the INRIA layout, the layout every
 * splat tool reads. Used by tests (round trips) and by the parse benchmark.
 */
import { shCoeffCount, type SplatCloud } from './splat-cloud';

/**
 * Stored logits are clamped to +-LOGIT_LIMIT so that opacities 0 and 1 write
 * finite numbers (tools choke on infinities); sigmoid(20) is 1 in float32.
 */
const LOGIT_LIMIT = 20;
/** Smallest scale written, so that a zero scale writes a finite log. */
const MIN_SCALE = 1e-30;

/**
 * Serialises a SplatCloud to a binary little-endian PLY with the properties
 * x, y, z, nx, ny, nz (zero), f_dc_0..2, f_rest_* (channel-major, as the
 * INRIA trainer writes them), opacity (logit), scale_0..2 (log), rot_0..3
 * (w, x, y, z).
 *
 * The header is padded with a comment so that the body starts 4-byte
 * aligned: the body is then written (and can be read) through a Float32Array.
 */
export function writeSplatPly(cloud: SplatCloud): Uint8Array {
  const { header, rowBytes } = plyLayout(cloud);
  const buffer = new ArrayBuffer(header.length + cloud.count * rowBytes);
  const out = new Uint8Array(buffer);
  out.set(header);
  encodeRows(cloud, 0, cloud.count, new Float32Array(buffer, header.length, (cloud.count * rowBytes) / 4));
  return out;
}

/**
 * The same file as {@link writeSplatPly}, in pieces: the header, then the body
 * `rowsPerChunk` splats at a time. A large scene (6M splats SH3: 1.5 GB) is
 * written to disk without its whole file in memory next to the cloud. Each
 * piece is a new array (the caller may keep or hand it on).
 */
export function* splatPlyChunks(cloud: SplatCloud, rowsPerChunk = 65536): Generator<Uint8Array> {
  if (!(rowsPerChunk >= 1)) throw new RangeError(`rowsPerChunk must be at least 1, got ${rowsPerChunk}`);
  const { header, rowBytes } = plyLayout(cloud);
  yield header;
  for (let from = 0; from < cloud.count; from += rowsPerChunk) {
    const to = Math.min(cloud.count, from + rowsPerChunk);
    const f = new Float32Array(((to - from) * rowBytes) / 4);
    encodeRows(cloud, from, to, f);
    yield new Uint8Array(f.buffer);
  }
}

/** The header (padded so that the body starts 4-byte aligned) and the bytes of one row. */
function plyLayout(cloud: SplatCloud): { header: Uint8Array; rowBytes: number } {
  const { count, shDegree } = cloud;
  const K = shCoeffCount(shDegree);
  const rest = (K - 1) * 3;
  const names = ['x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2'];
  for (let j = 0; j < rest; j++) names.push(`f_rest_${j}`);
  names.push('opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3');

  const lines = ['ply', 'format binary_little_endian 1.0', `element vertex ${count}`, ...names.map((n) => `property float ${n}`), 'end_header', ''];
  // Whitespace inside the comment line pads the header to a multiple of 4 bytes.
  const unpadded = lines.join('\n').length + 'comment splatview\n'.length;
  const pad = (4 - (unpadded % 4)) % 4;
  lines.splice(2, 0, `comment${' '.repeat(1 + pad)}splatview`);
  return { header: new TextEncoder().encode(lines.join('\n')), rowBytes: names.length * 4 };
}

/** Writes rows [from, to) of `cloud` into `f` (row `from` at index 0). */
function encodeRows(cloud: SplatCloud, from: number, to: number, f: Float32Array): void {
  const K = shCoeffCount(cloud.shDegree);
  const rest = (K - 1) * 3;
  const stride = 9 + rest + 8;
  const { positions, scales, rotations, opacities, sh } = cloud;
  const iOpacity = 9 + rest;
  for (let i = from; i < to; i++) {
    const b = (i - from) * stride;
    f[b] = positions[i * 3];
    f[b + 1] = positions[i * 3 + 1];
    f[b + 2] = positions[i * 3 + 2];
    // nx, ny, nz stay 0.
    const s = i * K * 3;
    for (let c = 0; c < 3; c++) {
      f[b + 6 + c] = sh[s + c];
      for (let k = 1; k < K; k++) f[b + 9 + c * (K - 1) + k - 1] = sh[s + k * 3 + c];
    }
    const o = opacities[i];
    const logit = Math.log(o / (1 - o));
    f[b + iOpacity] = logit > LOGIT_LIMIT ? LOGIT_LIMIT : logit < -LOGIT_LIMIT ? -LOGIT_LIMIT : logit === logit ? logit : -LOGIT_LIMIT;
    for (let a = 0; a < 3; a++) f[b + iOpacity + 1 + a] = Math.log(Math.max(scales[i * 3 + a], MIN_SCALE));
    for (let a = 0; a < 4; a++) f[b + iOpacity + 4 + a] = rotations[i * 4 + a];
  }
}
