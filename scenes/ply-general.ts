/**
 * The general PLY route: everything the binary little-endian splat fast path
 * does not read (ASCII bodies, big-endian bodies, plain point clouds), read
 * from the header our own parser validated and the body offset it found.
 *
 * Why not @loaders.gl/ply (which this route used before): it decodes the
 * whole buffer as UTF-8 text and finds the header with a greedy regex over
 * that text, so the body start it computes is wrong for CRLF headers, a
 * trailing blank after `end_header`, multi-byte UTF-8 comments, and any
 * binary body that happens to hold the bytes "end_header" - whatever header
 * we hand it. Its ASCII reader turns `inf` into NaN and accepts missing
 * rows, and it loops over declared rows without checking they exist. Reading
 * a binary row is the same DataView column reader the fast path already
 * uses; ASCII needs a strict tokenizer to catch those problems, and once
 * every token is validated the values are read.
 */
import { BadValueError, ExtraDataError, MissingElementError, MissingPropertyError, TruncatedError } from './errors';
import { locateElements, rowsNoun, type PlyElement, type PlyHeader, type PlyScalarType } from './ply-header';
import type { LoadOptions } from './load-options';
import { decodeSplatRows, looksLikeSplats, resolveSplatProperties } from './ply-decode';
import { SH_C0 } from './sh';
import { rejectVertexLists, rowsAsFloats } from './ply';
import { MAX_ABS_POSITION, MAX_SCALE, R_COLOUR, R_POS_NONFINITE, R_POS_RANGE, R_SCALE_OVERFLOW, SplatSink, Tally } from './sanitize';
import { computeBounds, type SplatCloud } from './splat-cloud';

/**
 * Side length of the isotropic splat made for each point of a plain point
 * cloud, relative to the bounds diagonal / cbrt(N) (the mean spacing of N
 * points spread through the bounds): a quarter of it leaves gaps that show
 * the points as points rather than a blur.
 */
export const POINT_SPLAT_SPACING_FRACTION = 0.25;

/**
 * Reads a PLY that is not a binary little-endian splat file: 3DGS splat
 * properties when present, else a point cloud turned into small isotropic
 * opaque splats (colour from red/green/blue when present, else mid grey).
 *
 * @param bytes - the whole file
 * @param name - file name, for `source` and errors
 * @param header - its header, already parsed (its dataOffset is where the body starts)
 * @param options - `maxShDegree`: the SH bands kept
 */
export function parseGeneralPly(bytes: Uint8Array, name: string, header: PlyHeader, options?: LoadOptions): SplatCloud {
  const vertex = header.elements.find((e) => e.name === 'vertex');
  if (vertex === undefined) throw new MissingElementError(name, 'the header declares no "vertex" element');
  rejectVertexLists(vertex.properties, name);
  const names = vertex.properties.map((p) => p.name);
  const splats = looksLikeSplats(names);
  // Check the header before the body.
  const splatIndex = splats ? resolveSplatProperties(names, name, options) : null;
  if (!splats) {
    for (const axis of ['x', 'y', 'z']) {
      if (!names.includes(axis)) {
        throw new MissingPropertyError(name, `the vertex element has neither Gaussian splat properties nor point property '${axis}'`, { element: 'vertex', property: axis });
      }
    }
  }

  let rows: Float32Array;
  if (header.format === 'ascii') {
    rows = readAsciiVertexRows(bytes, name, header);
  } else {
    const span = locateElements(bytes, header, name).find((s) => s.element === vertex)!;
    rows = rowsAsFloats(bytes, span.start, vertex, vertex.count, header.format === 'binary_little_endian', null);
  }
  const suffix = header.format === 'ascii' ? '-ascii' : header.format === 'binary_big_endian' ? '-big-endian' : '';
  const tally = new Tally();
  if (splatIndex !== null) {
    const sink = new SplatSink(splatIndex.shDegree, vertex.count, name);
    decodeSplatRows(rows, 0, names.length, vertex.count, splatIndex, sink, tally);
    return sink.finish(`ply${suffix}`, tally, vertex.count);
  }
  return pointsFromRows(rows, vertex, name, `ply-points${suffix}`, tally);
}

/** What 1.0 of colour is in each integer type (floats are already 0..1). */
const COLOUR_FULL: Readonly<Record<PlyScalarType, number>> = {
  char: 127, uchar: 255, short: 32767, ushort: 65535, int: 2147483647, uint: 4294967295, float: 1, double: 1,
};

/**
 * Turns the rows of a plain point cloud into opaque isotropic splats with
 * identity rotation and SH degree 0. Colours are normalised by their type
 * (uchar / 255, ushort / 65535, float as is) and clamped to [0, 1]; a point
 * with a NaN/Inf or out-of-range position is dropped, a NaN/Inf colour
 * becomes mid grey; both are counted.
 */
export function pointsFromRows(rows: Float32Array, vertex: PlyElement, name: string, format: string, tally: Tally): SplatCloud {
  const props = vertex.properties;
  const stride = props.length;
  const at = (n: string): number => props.findIndex((p) => p.name === n);
  const ix = at('x'), iy = at('y'), iz = at('z');
  const colour = ['red', 'green', 'blue'].map(at);
  const hasColour = colour.every((c) => c >= 0);
  const full = hasColour ? colour.map((c) => COLOUR_FULL[props[c]!.type]) : [1, 1, 1];

  const sink = new SplatSink(0, vertex.count, name);
  const { positions, rotations, opacities, sh } = sink;
  let j = 0;
  for (let i = 0; i < vertex.count; i++) {
    const b = i * stride;
    const x = rows[b + ix]!, y = rows[b + iy]!, z = rows[b + iz]!;
    if (!(x <= MAX_ABS_POSITION && x >= -MAX_ABS_POSITION && y <= MAX_ABS_POSITION && y >= -MAX_ABS_POSITION && z <= MAX_ABS_POSITION && z >= -MAX_ABS_POSITION)) {
      tally.drop(x - x + (y - y) + (z - z) === 0 ? R_POS_RANGE : R_POS_NONFINITE);
      continue;
    }
    positions[j * 3] = x;
    positions[j * 3 + 1] = y;
    positions[j * 3 + 2] = z;
    rotations[j * 4] = 1;
    opacities[j] = 1;
    let bad = false;
    for (let c = 0; c < 3; c++) {
      let v = hasColour ? rows[b + colour[c]!]! / full[c]! : 0.5;
      if (v !== v || v - v !== 0) {
        v = 0.5;
        bad = true;
      }
      v = v < 0 ? 0 : v > 1 ? 1 : v;
      sh[j * 3 + c] = (v - 0.5) / SH_C0;
    }
    if (bad) tally.clamp(1 << R_COLOUR);
    j++;
  }
  sink.count = j;
  const cloud = sink.finish(format, tally, vertex.count);
  const { min, max } = computeBounds(cloud.positions);
  const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  // A single point, or all points in one place, has no spacing to go by.
  let size = diagonal > 0 ? (diagonal / Math.cbrt(cloud.count)) * POINT_SPLAT_SPACING_FRACTION : 0.01;
  if (size > MAX_SCALE) {
    // Points spread over more than ~10^5 units: every splat's derived size is clamped.
    size = MAX_SCALE;
    for (let i = 0; i < cloud.count; i++) tally.clamp(1 << R_SCALE_OVERFLOW);
    cloud.sanitized = tally.report();
  }
  cloud.scales.fill(size);
  return cloud;
}

// A PLY ASCII number: decimal with optional fraction and exponent, or
// inf / infinity / nan (any case, optional sign) as C's printf writes them.
// Written so that no two parts can match the same digits: the test stays
// linear on long tokens (which are refused anyway past MAX_TOKEN_LENGTH).
const FLOAT_TOKEN = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;
/** Longest ASCII value accepted: "%.17g" of any double is far shorter. */
const MAX_TOKEN_LENGTH = 64;
const INT_RANGE: Readonly<Record<PlyScalarType, [number, number]>> = {
  char: [-128, 127], uchar: [0, 255], short: [-32768, 32767], ushort: [0, 65535],
  int: [-2147483648, 2147483647], uint: [0, 4294967295], float: [-Infinity, Infinity], double: [-Infinity, Infinity],
};

/**
 * Reads the vertex rows of an ASCII body as floats (one per property),
 * checking every token of every element: numbers only (`inf` is infinity,
 * `nan` NaN), integers in range for integer types, list lengths whole
 * numbers, every declared row present and no values after the last one.
 * Rows are whitespace-separated tokens; line breaks are not significant.
 */
export function readAsciiVertexRows(bytes: Uint8Array, name: string, header: PlyHeader): Float32Array {
  const base = header.dataOffset;
  const text = new TextDecoder('latin1').decode(bytes.subarray(base));
  const len = text.length;
  let pos = 0;
  let tokenAt = 0;
  /** The next token, or null at the end of the body. */
  const next = (): string | null => {
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0x0b && c !== 0x0c) break;
      pos++;
    }
    if (pos >= len) return null;
    tokenAt = pos;
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0b || c === 0x0c) break;
      pos++;
    }
    return text.slice(tokenAt, pos);
  };
  const value = (el: PlyElement, row: number, prop: string, type: PlyScalarType): number => {
    const t = next();
    if (t === null) {
      throw new TruncatedError(name, `header declares ${el.count} ${rowsNoun(el)} but the ASCII body ends in row ${row} (property '${prop}') at byte ${base + len}`, {
        element: el.name, property: prop, byteOffset: base + len,
      });
    }
    const badToken = (why: string): never => {
      const shown = t.length > 24 ? `${t.slice(0, 24)}...` : t;
      throw new BadValueError(name, `${why} "${shown}" for property '${prop}' of ${rowsNoun(el)} row ${row} at byte ${base + tokenAt}`, {
        element: el.name, property: prop, byteOffset: base + tokenAt,
      });
    };
    if (t.length > MAX_TOKEN_LENGTH || !FLOAT_TOKEN.test(t)) badToken('not a number:');
    const lower = t.toLowerCase();
    const v = lower.endsWith('inf') || lower.endsWith('infinity') ? (t[0] === '-' ? -Infinity : Infinity) : lower.endsWith('nan') ? NaN : Number(t);
    if (type !== 'float' && type !== 'double') {
      const [lo, hi] = INT_RANGE[type];
      if (!Number.isInteger(v) || v < lo || v > hi) badToken(`not a ${type}:`);
    }
    return v;
  };

  let out: Float32Array | null = null;
  for (const el of header.elements) {
    const isVertex = el.name === 'vertex';
    const nprops = el.properties.length;
    if (isVertex) {
      // Every value takes at least two bytes (a digit and a separator): bound the rows before allocating.
      const room = Math.floor((len - pos + 1) / 2);
      if (el.count * nprops > room) {
        throw new TruncatedError(name, `header declares ${el.count} vertices of ${nprops} values but only ${len - pos} bytes of ASCII body remain at byte ${base + pos}`, {
          element: el.name, byteOffset: base + pos,
        });
      }
      out = new Float32Array(el.count * nprops);
    }
    // Each row consumes at least one token, so this loop ends with the body.
    for (let row = 0; row < el.count; row++) {
      for (let j = 0; j < nprops; j++) {
        const p = el.properties[j]!;
        if (p.listCountType !== undefined) {
          const n = value(el, row, p.name, p.listCountType);
          if (n < 0) throw new BadValueError(name, `negative list length ${n} in property '${p.name}' of ${rowsNoun(el)} row ${row} at byte ${base + tokenAt}`, { element: el.name, property: p.name, byteOffset: base + tokenAt });
          for (let k = 0; k < n; k++) value(el, row, p.name, p.type);
        } else {
          const v = value(el, row, p.name, p.type);
          if (isVertex) out![row * nprops + j] = v;
        }
      }
    }
  }
  if (next() !== null) {
    throw new ExtraDataError(name, `the ASCII body holds values after the last declared row, from byte ${base + tokenAt}`, { byteOffset: base + tokenAt });
  }
  return out ?? new Float32Array(0);
}
