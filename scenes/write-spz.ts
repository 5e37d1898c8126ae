/**
 * Writes a SplatCloud as an .spz file, version 2 or 3 (one gzip stream) or
 * version 4 (NGSP header, table of contents, one ZSTD stream an attribute);
 * layout in spz.ts. The scene is turned from SplatCloud's RDF frame to
 * SPZ's RUB (y and z negated, rotation and SH to match) as the format asks.
 *
 * The version-4 streams are valid ZSTD frames made of raw (stored) blocks:
 * there is no ZSTD compressor among the project's libraries, and the reader
 * is what these files test. Used by tests and the fuzz program.
 */
import { gzipSync } from 'fflate';
import { FLIP_YZ_SH_SIGN, SPZ_COLOR_SCALE, SPZ_MAGIC } from './spz';
import { shCoeffCount, type SplatCloud } from './splat-cloud';

export interface SpzWriteOptions {
  /** 2, 3 (gzip) or 4 (NGSP + ZSTD); default 3. */
  version?: 2 | 3 | 4;
  /** Bits after the binary point of the 24-bit positions; default 12. */
  fractionalBits?: number;
}

const byte = (v: number): number => Math.max(0, Math.min(255, Math.round(v)));

/** The six attribute arrays of SPZ for a cloud. */
export function packSpzAttributes(cloud: SplatCloud, version: number, fractionalBits: number): Uint8Array[] {
  const n = cloud.count;
  const K = shCoeffCount(cloud.shDegree);
  const dim = K - 1;
  const pos = new Uint8Array(n * 9);
  const alpha = new Uint8Array(n);
  const colour = new Uint8Array(n * 3);
  const scale = new Uint8Array(n * 3);
  const rot = new Uint8Array(n * (version >= 3 ? 4 : 3));
  const sh = new Uint8Array(n * dim * 3);
  const unit = 2 ** fractionalBits;
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      const v = (a === 0 ? 1 : -1) * cloud.positions[i * 3 + a]!;
      const fixed = Math.max(-(2 ** 23), Math.min(2 ** 23 - 1, Math.round(v * unit)));
      pos[i * 9 + a * 3] = fixed & 0xff;
      pos[i * 9 + a * 3 + 1] = (fixed >> 8) & 0xff;
      pos[i * 9 + a * 3 + 2] = (fixed >> 16) & 0xff;
      scale[i * 3 + a] = byte((Math.log(cloud.scales[i * 3 + a]!) + 10) * 16);
      colour[i * 3 + a] = byte((cloud.sh[i * K * 3 + a]! * SPZ_COLOR_SCALE + 0.5) * 255);
    }
    alpha[i] = byte(cloud.opacities[i]! * 255);
    // SplatCloud is (w, x, y, z); SPZ is (x, y, z, w) in RUB: y and z negated.
    const q = [cloud.rotations[i * 4 + 1]!, -cloud.rotations[i * 4 + 2]!, -cloud.rotations[i * 4 + 3]!, cloud.rotations[i * 4]!];
    const len = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!) || 1;
    for (let a = 0; a < 4; a++) q[a]! /= len;
    if (version >= 3) {
      let largest = 0;
      for (let a = 1; a < 4; a++) if (Math.abs(q[a]!) > Math.abs(q[largest]!)) largest = a;
      const negate = q[largest]! < 0;
      let comp = largest;
      for (let a = 0; a < 4; a++) {
        if (a === largest) continue;
        const neg = (q[a]! < 0) !== negate ? 1 : 0;
        const mag = Math.min(511, Math.round((511 * Math.abs(q[a]!)) / Math.SQRT1_2));
        comp = ((comp << 10) | (neg << 9) | mag) >>> 0;
      }
      for (let k = 0; k < 4; k++) rot[i * 4 + k] = (comp >>> (8 * k)) & 0xff;
    } else {
      const s = q[3]! < 0 ? -1 : 1;
      for (let a = 0; a < 3; a++) rot[i * 3 + a] = byte((s * q[a]! + 1) * 127.5);
    }
    for (let k = 1; k < K; k++) {
      for (let c = 0; c < 3; c++) sh[(i * dim + k - 1) * 3 + c] = byte(FLIP_YZ_SH_SIGN[k]! * cloud.sh[(i * K + k) * 3 + c]! * 128 + 128);
    }
  }
  return [pos, alpha, colour, scale, rot, sh];
}

export function writeSpz(cloud: SplatCloud, options: SpzWriteOptions = {}): Uint8Array {
  const version = options.version ?? 3;
  const fractionalBits = options.fractionalBits ?? 12;
  const attrs = packSpzAttributes(cloud, version, fractionalBits);
  if (version < 4) {
    const total = 16 + attrs.reduce((a, b) => a + b.length, 0);
    const raw = new Uint8Array(total);
    const v = new DataView(raw.buffer);
    v.setUint32(0, SPZ_MAGIC, true);
    v.setUint32(4, version, true);
    v.setUint32(8, cloud.count, true);
    raw[12] = cloud.shDegree;
    raw[13] = fractionalBits;
    let at = 16;
    for (const a of attrs) {
      raw.set(a, at);
      at += a.length;
    }
    return gzipSync(raw);
  }
  const streams = attrs.filter((a) => a.length > 0).map(rawZstdFrame);
  const toc = 32;
  const total = toc + streams.length * 16 + streams.reduce((a, b) => a + b.length, 0);
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  v.setUint32(0, SPZ_MAGIC, true);
  v.setUint32(4, 4, true);
  v.setUint32(8, cloud.count, true);
  out[12] = cloud.shDegree;
  out[13] = fractionalBits;
  out[15] = streams.length;
  v.setUint32(16, toc, true);
  let at = toc + streams.length * 16;
  const nonEmpty = attrs.filter((a) => a.length > 0);
  streams.forEach((s, i) => {
    v.setUint32(toc + i * 16, s.length, true);
    v.setUint32(toc + i * 16 + 8, nonEmpty[i]!.length, true);
    out.set(s, at);
    at += s.length;
  });
  return out;
}

/**
 * A ZSTD frame of raw blocks: magic, a single-segment frame header with an
 * 8-byte content size, then blocks of at most 128 KiB (3-byte header: last
 * flag, type 0 = raw, size).
 */
export function rawZstdFrame(data: Uint8Array): Uint8Array {
  const BLOCK = 1 << 17;
  const blocks = Math.max(1, Math.ceil(data.length / BLOCK));
  const out = new Uint8Array(4 + 1 + 8 + blocks * 3 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0xfd2fb528, true);
  out[4] = 0xe0; // FCS field 8 bytes, single segment, no checksum, no dictionary
  v.setUint32(5, data.length >>> 0, true);
  v.setUint32(9, Math.floor(data.length / 2 ** 32), true);
  let at = 13;
  for (let b = 0; b < blocks; b++) {
    const part = data.subarray(b * BLOCK, Math.min(data.length, (b + 1) * BLOCK));
    const head = (part.length << 3) | (b === blocks - 1 ? 1 : 0);
    out[at] = head & 0xff;
    out[at + 1] = (head >> 8) & 0xff;
    out[at + 2] = (head >> 16) & 0xff;
    out.set(part, at + 3);
    at += 3 + part.length;
  }
  return out;
}
