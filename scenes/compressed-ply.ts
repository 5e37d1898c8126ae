/**
 * Reader for the PlayCanvas / SuperSplat "compressed PLY" (`*.compressed.ply`).
 *
 * Layout (binary little-endian PLY, facts of the format):
 * - element `chunk`, one row per 256 consecutive splats: float min_x, min_y,
 *   min_z, max_x, max_y, max_z (position range), min_scale_* / max_scale_*
 *   (log-scale range) and, in newer files, min_r.. / max_r.. (colour range).
 * - element `vertex`, one row per splat, four uint32:
 *     packed_position  x:11 | y:10 | z:11 bits (x in the top bits), each a
 *                      fraction of its chunk's [min, max]
 *     packed_rotation  largest:2 | a:10 | b:10 | c:10; `largest` is the index
 *                      (0..3 in rot_0..rot_3 order, rot_0 = w) of the
 *                      component left out; a, b, c are the other three in that
 *                      order, each mapped from [-1/sqrt2, 1/sqrt2] to [0, 1];
 *                      the left-out one is sqrt(1 - a^2 - b^2 - c^2) >= 0
 *     packed_scale     11 | 10 | 11 like the position, in log-scale space
 *     packed_color     r:8 | g:8 | b:8 | opacity:8 (r in the top bits); r, g, b
 *                      are colours (0.5 + C0 * f_dc), a fraction of the chunk's
 *                      colour range when it has one, else of [0, 1]; opacity
 *                      is already the sigmoid value
 * - optional element `sh`, one row per splat: uchar f_rest_0.. (9, 24 or 45),
 *   channel-major like a 3DGS PLY, each a quantisation of [-4, 4].
 * An n-bit field v stands for v / (2^n - 1).
 */
import { BadShError, ChunkRangeError, shownNumber, HeaderSyntaxError, MissingElementError, MissingPropertyError, UnsupportedError } from './errors';
import { asBytes, copyBytes, locateElements, parsePlyHeader, rowsNoun, type ElementSpan, type PlyElement, type PlyHeader } from './ply-header';
import { SH_C0 } from './sh';
import { elementRowsAsFloats } from './ply';
import { clampSh, MAX_ABS_POSITION, MAX_ABS_SH, MAX_SCALE, R_SCALE_OVERFLOW, R_SH_RANGE, SplatSink, Tally } from './sanitize';
import { keptShDegree, type LoadOptions } from './load-options';
import { checkMemory } from './budget';
import { shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';

/** Splats per chunk row. */
export const COMPRESSED_CHUNK_SIZE = 256;

const CHUNK_PROPERTIES = [
  'min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z',
  'min_scale_x', 'min_scale_y', 'min_scale_z', 'max_scale_x', 'max_scale_y', 'max_scale_z',
] as const;
const CHUNK_COLOR_PROPERTIES = ['min_r', 'min_g', 'min_b', 'max_r', 'max_g', 'max_b'] as const;
const PACKED_PROPERTIES = ['packed_position', 'packed_rotation', 'packed_scale', 'packed_color'] as const;

const SH_DEGREE_OF_REST_COUNT: ReadonlyMap<number, ShDegree> = new Map([[9, 1], [24, 2], [45, 3]]);

/** Whether a header is the compressed layout (a `chunk` element and packed vertices). */
export function isCompressedPlyHeader(header: PlyHeader): boolean {
  const vertex = header.elements.find((e) => e.name === 'vertex');
  return header.elements.some((e) => e.name === 'chunk') && vertex !== undefined && vertex.properties.some((p) => p.name === 'packed_position');
}

/**
 * Decodes a compressed PLY into a SplatCloud.
 *
 * @param data - the whole file
 * @param name - file name, for `source` and errors
 * @param header - the already parsed header, when the caller has it
 * @param options - `maxShDegree`: the SH bands kept (the rest are not decoded)
 * @throws SceneLoadError for a truncated file, missing chunk/packed
 *   properties, too few chunk rows, or an `sh` element that does not match
 */
export function parseCompressedPly(data: ArrayBuffer | Uint8Array, name: string, header?: PlyHeader, options?: LoadOptions): SplatCloud {
  const bytes = asBytes(data);
  const h = header ?? parsePlyHeader(bytes, name);
  if (h.format !== 'binary_little_endian') {
    throw new UnsupportedError(name, `compressed PLY must be binary_little_endian, not ${h.format}`);
  }
  const spans = locateElements(bytes, h, name);
  const chunkSpan = findSpan(spans, 'chunk', name);
  const vertexSpan = findSpan(spans, 'vertex', name);
  const shSpan = spans.find((s) => s.element.name === 'sh');
  const count = vertexSpan.element.count;

  // Chunk rows: small, so read whatever their types are as floats.
  const chunkEl = chunkSpan.element;
  const chunkRows = elementRowsAsFloats(bytes, chunkSpan, true);
  const chunkStride = chunkEl.properties.length;
  const hasColorRange = chunkEl.properties.some((p) => p.name === 'min_r');
  const chunkNames = hasColorRange ? [...CHUNK_PROPERTIES, ...CHUNK_COLOR_PROPERTIES] : [...CHUNK_PROPERTIES];
  const ci = chunkNames.map((n) => propertyIndex(chunkEl, n, name));
  const neededChunks = Math.ceil(count / COMPRESSED_CHUNK_SIZE);
  if (chunkEl.count < neededChunks) {
    throw new HeaderSyntaxError(
      name,
      `header declares ${count} vertices, which need ${neededChunks} 'chunk' rows of ${COMPRESSED_CHUNK_SIZE} splats, but only ${chunkEl.count} 'chunk' rows`,
      { element: 'chunk' },
    );
  }
  checkChunkRanges(chunkRows, chunkStride, neededChunks, chunkNames, ci, chunkSpan, name);

  const packed = packedColumns(bytes, vertexSpan, name);
  const sh = shSpan === undefined ? null : shSource(bytes, shSpan, count, name);
  const shDegree: ShDegree = keptShDegree(sh === null ? 0 : sh.degree, options);
  const K = shCoeffCount(shDegree);
  const K3 = K * 3;

  checkMemory(name, count, shDegree, options, 'the header', 0, { element: 'vertex' });
  const sink = new SplatSink(shDegree, count, name, options);
  const tally = new Tally();
  const { positions, scales, rotations, opacities, sh: shOut } = sink;
  const q = [0, 0, 0, 0];
  const { position: pp, rotation: pr, scale: ps, color: pc } = packed;

  for (let c = 0; c < neededChunks; c++) {
    const r = c * chunkStride;
    const minX = chunkRows[r + ci[0]], minY = chunkRows[r + ci[1]], minZ = chunkRows[r + ci[2]];
    const maxX = chunkRows[r + ci[3]], maxY = chunkRows[r + ci[4]], maxZ = chunkRows[r + ci[5]];
    const minSX = chunkRows[r + ci[6]], minSY = chunkRows[r + ci[7]], minSZ = chunkRows[r + ci[8]];
    const maxSX = chunkRows[r + ci[9]], maxSY = chunkRows[r + ci[10]], maxSZ = chunkRows[r + ci[11]];
    // Without a colour range the 8-bit colours span [0, 1].
    const minR = hasColorRange ? chunkRows[r + ci[12]] : 0, minG = hasColorRange ? chunkRows[r + ci[13]] : 0;
    const minB = hasColorRange ? chunkRows[r + ci[14]] : 0, maxR = hasColorRange ? chunkRows[r + ci[15]] : 1;
    const maxG = hasColorRange ? chunkRows[r + ci[16]] : 1, maxB = hasColorRange ? chunkRows[r + ci[17]] : 1;

    const end = Math.min(count, (c + 1) * COMPRESSED_CHUNK_SIZE);
    for (let i = c * COMPRESSED_CHUNK_SIZE; i < end; i++) {
      const p = pp(i);
      positions[i * 3] = lerp(minX, maxX, (p >>> 21) / 2047);
      positions[i * 3 + 1] = lerp(minY, maxY, ((p >>> 11) & 0x3ff) / 1023);
      positions[i * 3 + 2] = lerp(minZ, maxZ, (p & 0x7ff) / 2047);

      const s = ps(i);
      let flags = 0;
      let s0 = Math.exp(lerp(minSX, maxSX, (s >>> 21) / 2047));
      let s1 = Math.exp(lerp(minSY, maxSY, ((s >>> 11) & 0x3ff) / 1023));
      let s2 = Math.exp(lerp(minSZ, maxSZ, (s & 0x7ff) / 2047));
      if (!(s0 <= MAX_SCALE && s1 <= MAX_SCALE && s2 <= MAX_SCALE)) {
        s0 = Math.min(s0, MAX_SCALE);
        s1 = Math.min(s1, MAX_SCALE);
        s2 = Math.min(s2, MAX_SCALE);
        flags |= 1 << R_SCALE_OVERFLOW;
      }
      scales[i * 3] = s0;
      scales[i * 3 + 1] = s1;
      scales[i * 3 + 2] = s2;

      unpackRotation(pr(i), q);
      rotations[i * 4] = q[0];
      rotations[i * 4 + 1] = q[1];
      rotations[i * 4 + 2] = q[2];
      rotations[i * 4 + 3] = q[3];

      const col = pc(i);
      const d = i * K3;
      const r = (lerp(minR, maxR, (col >>> 24) / 255) - 0.5) / SH_C0;
      const g = (lerp(minG, maxG, ((col >>> 16) & 0xff) / 255) - 0.5) / SH_C0;
      const b = (lerp(minB, maxB, ((col >>> 8) & 0xff) / 255) - 0.5) / SH_C0;
      if (!(Math.abs(r) <= MAX_ABS_SH && Math.abs(g) <= MAX_ABS_SH && Math.abs(b) <= MAX_ABS_SH)) flags |= 1 << R_SH_RANGE;
      shOut[d] = clampSh(r);
      shOut[d + 1] = clampSh(g);
      shOut[d + 2] = clampSh(b);
      opacities[i] = (col & 0xff) / 255;
      if (flags !== 0) tally.clamp(flags, i);
    }
  }

  if (sh !== null && K > 1) {
    // f_rest is channel-major in the file; SplatCloud.sh is coefficient-major.
    // Only the kept bands (K) are read; the file's own band count (fileK) places them.
    const { bytes: src, start, stride, offsets } = sh;
    const fileK = shCoeffCount(sh.degree);
    for (let i = 0; i < count; i++) {
      const row = start + i * stride;
      const d = i * K3;
      for (let ch = 0; ch < 3; ch++) {
        for (let k = 1; k < K; k++) {
          shOut[d + k * 3 + ch] = dequantizeSh(src[row + offsets[ch * (fileK - 1) + k - 1]]);
        }
      }
    }
  }

  sink.count = count;
  return sink.finish('compressed-ply', tally, count);
}

/**
 * Every chunk row that splats use must hold finite ranges with min <= max
 * (positions within MAX_ABS_POSITION): a NaN or Inf bound would make every
 * splat of the chunk NaN, and no writer produces an inverted range.
 *
 * @throws ChunkRangeError naming the chunk row, the property and its byte offset
 */
function checkChunkRanges(rows: Float32Array, stride: number, chunks: number, names: readonly string[], ci: number[], span: ElementSpan, file: string): void {
  const pairs = names.length / 2 / 3; // 2 (position, scale) or 3 (with colour) groups of 6
  for (let c = 0; c < chunks; c++) {
    const r = c * stride;
    for (let g = 0; g < pairs; g++) {
      for (let a = 0; a < 3; a++) {
        const iMin = g * 6 + a, iMax = g * 6 + 3 + a;
        const lo = rows[r + ci[iMin]!]!, hi = rows[r + ci[iMax]!]!;
        const limit = g === 0 ? MAX_ABS_POSITION : Number.MAX_VALUE;
        const bad = !(lo >= -limit && lo <= limit) ? iMin : !(hi >= -limit && hi <= limit) ? iMax : lo > hi ? iMax : -1;
        if (bad >= 0) {
          const prop = names[bad]!;
          const el = span.element;
          const offset = span.start + c * (el.stride as number) + el.properties[ci[bad]!]!.offset;
          throw new ChunkRangeError(file, `'chunk' row ${c} has ${prop} = ${shownNumber(rows[r + ci[bad]!]!)} (${names[iMin]} ${shownNumber(lo)}, ${names[iMax]} ${shownNumber(hi)}): not a finite range, at byte ${offset}`, {
            element: 'chunk', property: prop, byteOffset: offset,
          });
        }
      }
    }
  }
}

// Same blend as the writer's decoder, so values match converted files exactly.
function lerp(a: number, b: number, t: number): number {
  return a * (1 - t) + b * t;
}

/** Inverse of the uchar SH quantisation: 0 and 255 are the ends of [-4, 4], others bin centres. */
function dequantizeSh(n: number): number {
  const t = n === 0 ? 0 : n === 255 ? 1 : (n + 0.5) / 256;
  return (t - 0.5) * 8;
}

/** Unpacks the smallest-three quaternion into `out` (w, x, y, z), normalised. */
function unpackRotation(v: number, out: number[]): void {
  const a = (((v >>> 20) & 0x3ff) / 1023 - 0.5) * Math.SQRT2;
  const b = (((v >>> 10) & 0x3ff) / 1023 - 0.5) * Math.SQRT2;
  const c = ((v & 0x3ff) / 1023 - 0.5) * Math.SQRT2;
  const m = Math.sqrt(Math.max(0, 1 - (a * a + b * b + c * c)));
  const largest = v >>> 30;
  let k = 0;
  const rest = [a, b, c];
  for (let j = 0; j < 4; j++) out[j] = j === largest ? m : rest[k++];
  // Quantisation leaves the length a little off 1; consumers expect unit length.
  const inv = 1 / Math.hypot(out[0], out[1], out[2], out[3]);
  for (let j = 0; j < 4; j++) out[j] *= inv;
}

function findSpan(spans: ElementSpan[], element: string, file: string): ElementSpan {
  const s = spans.find((x) => x.element.name === element);
  if (s === undefined) throw new MissingElementError(file, `compressed PLY without a "${element}" element`);
  return s;
}

function propertyIndex(el: PlyElement, property: string, file: string): number {
  const i = el.properties.findIndex((p) => p.name === property);
  if (i < 0) {
    throw new MissingPropertyError(file, `the '${el.name}' element of a compressed PLY has no property '${property}'`, { element: el.name, property });
  }
  return i;
}

interface PackedColumns {
  position: (i: number) => number;
  rotation: (i: number) => number;
  scale: (i: number) => number;
  color: (i: number) => number;
}

function packedColumns(bytes: Uint8Array, span: ElementSpan, file: string): PackedColumns {
  const el = span.element;
  const stride = el.stride;
  if (stride === null) throw new UnsupportedError(file, 'list property on the vertex element of a compressed PLY', { element: 'vertex' });
  const offsets = PACKED_PROPERTIES.map((n) => {
    const p = el.properties[propertyIndex(el, n, file)];
    if (p.type !== 'uint' && p.type !== 'int') {
      throw new UnsupportedError(file, `'${n}' is ${p.type}; a compressed PLY packs it in a 32-bit uint`, { element: 'vertex', property: n });
    }
    return p.offset;
  });
  // The usual file has exactly the four words: read them through an aligned
  // Uint32Array (copying once when the body is not 4-aligned).
  const abs = bytes.byteOffset + span.start;
  if (stride === 16 && offsets.every((o, k) => o === k * 4) && HOST_LE) {
    const words = abs % 4 === 0
      ? new Uint32Array(bytes.buffer, abs, el.count * 4)
      : new Uint32Array(copyBytes(bytes, span.start, span.start + span.byteLength).buffer);
    return {
      position: (i) => words[i * 4],
      rotation: (i) => words[i * 4 + 1],
      scale: (i) => words[i * 4 + 2],
      color: (i) => words[i * 4 + 3],
    };
  }
  const view = new DataView(bytes.buffer, abs, span.byteLength);
  const [o0, o1, o2, o3] = offsets as [number, number, number, number];
  return {
    position: (i) => view.getUint32(i * stride + o0, true),
    rotation: (i) => view.getUint32(i * stride + o1, true),
    scale: (i) => view.getUint32(i * stride + o2, true),
    color: (i) => view.getUint32(i * stride + o3, true),
  };
}

const HOST_LE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

interface ShSource {
  degree: ShDegree;
  bytes: Uint8Array;
  start: number;
  stride: number;
  /** Byte offset in a row of f_rest_j, for j = 0.. */
  offsets: number[];
}

function shSource(bytes: Uint8Array, span: ElementSpan, count: number, file: string): ShSource {
  const el = span.element;
  if (el.count !== count) {
    throw new HeaderSyntaxError(file, `the 'sh' element has ${el.count} rows but there are ${count} vertices`, { element: 'sh', byteOffset: span.start });
  }
  const rest = el.properties.filter((p) => /^f_rest_\d+$/.test(p.name));
  const degree = SH_DEGREE_OF_REST_COUNT.get(rest.length);
  if (degree === undefined) {
    throw new BadShError(file, `the 'sh' element has ${rest.length} f_rest_* properties; expected 9, 24 or 45`, { element: 'sh', property: 'f_rest_*' });
  }
  if (el.stride === null) throw new UnsupportedError(file, `list property in ${rowsNoun(el)}`, { element: 'sh' });
  const offsets = rest.map((_, j) => {
    const p = el.properties[propertyIndex(el, `f_rest_${j}`, file)];
    if (p.type !== 'uchar') {
      throw new UnsupportedError(file, `'sh' property '${p.name}' is ${p.type}; a compressed PLY stores uchar`, { element: 'sh', property: p.name });
    }
    return p.offset;
  });
  return { degree, bytes, start: span.start, stride: el.stride, offsets };
}
