/**
 * The general PLY route: everything the binary little-endian splat fast path
 * does not read (ASCII bodies, big-endian bodies, plain point clouds).
 *
 * Our header parser (ply-header.ts) validates the header and decides where
 * the body starts; our layout code bounds every element by the bytes present
 * (binary) or our strict scan checks every token (ASCII, ply-ascii.ts). Only
 * then are the vertex rows decoded, by @loaders.gl/ply given a canonical
 * header and exactly those rows (ply-loadersgl.ts), except where it is
 * measured to misread them even so - then by our own reader, for that case
 * only:
 * - a binary vertex body holding the bytes "end_header" (its greedy header
 *   regex ends the header there), or a body too large for it (over
 *   LOADERSGL_MAX_BODY_BYTES or LOADERSGL_MAX_ROWS: it is 55-120x slower);
 * - ASCII values it reads differently (`inf` as NaN, `1e3` as the int 1),
 *   rows that are not one to a line, or a body too large for it.
 * Either way the rows then go through the same sanitizing kernels
 * (decodeSplatRows, pointsFromRows): NaN/Inf/overflow dropped or clamped and
 * counted.
 */
import { MissingElementError, MissingPropertyError } from './errors';
import { scanAsciiBody } from './ply-ascii';
import { locateElements, rowsTheFileHolds, type PlyElement, type PlyHeader, type PlyScalarType } from './ply-header';
import { decodeVertexWithLoadersGl, loadersGlCanReadBinary, loadersGlTakes } from './ply-loadersgl';
import type { LoadOptions } from './load-options';
import { decodeSplatRows, looksLikeSplats, resolveSplatProperties } from './ply-decode';
import { SH_C0 } from './sh';
import { rejectVertexLists, rowsAsFloats } from './ply';
import { MAX_ABS_POSITION, MAX_SCALE, R_COLOUR, R_POS_NONFINITE, R_POS_RANGE, R_SCALE_OVERFLOW, SplatSink, Tally } from './sanitize';
import { computeBounds, type SplatCloud } from './splat-cloud';
import { checkMemory } from './budget';

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

  // The count capped by the rows the file can hold (a lying count is refused as truncated by the reader), within the budget.
  const present = rowsTheFileHolds(bytes.length, header, vertex);
  checkMemory(name, present, splatIndex?.shDegree ?? 0, options, 'the header', present * names.length * 4, { element: 'vertex' });
  const { rows } = readGeneralVertexRows(bytes, name, header, vertex, 'auto');
  const suffix = header.format === 'ascii' ? '-ascii' : header.format === 'binary_big_endian' ? '-big-endian' : '';
  const tally = new Tally();
  if (splatIndex !== null) {
    const sink = new SplatSink(splatIndex.shDegree, vertex.count, name, options);
    decodeSplatRows(rows, 0, names.length, vertex.count, splatIndex, sink, tally);
    return sink.finish(`ply${suffix}`, tally, vertex.count);
  }
  return pointsFromRows(rows, vertex, name, `ply-points${suffix}`, tally, options);
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
export function pointsFromRows(rows: Float32Array, vertex: PlyElement, name: string, format: string, tally: Tally, options?: LoadOptions): SplatCloud {
  const props = vertex.properties;
  const stride = props.length;
  const at = (n: string): number => props.findIndex((p) => p.name === n);
  const ix = at('x'), iy = at('y'), iz = at('z');
  const colour = ['red', 'green', 'blue'].map(at);
  const hasColour = colour.every((c) => c >= 0);
  const full = hasColour ? colour.map((c) => COLOUR_FULL[props[c]!.type]) : [1, 1, 1];

  const sink = new SplatSink(0, vertex.count, name, options);
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
    if (bad) tally.clamp(1 << R_COLOUR, j);
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
    for (let i = 0; i < cloud.count; i++) tally.clamp(1 << R_SCALE_OVERFLOW, i);
    cloud.sanitized = tally.report();
  }
  cloud.scales.fill(size);
  return cloud;
}

/** Which reader decodes the vertex rows of the general route. */
export type GeneralDecoder = 'loaders.gl' | 'own';

/**
 * The vertex rows of a general-route PLY, one float per property in
 * declaration order, after every check of the body (binary: each element
 * fits in the bytes present; ASCII: every token of every element).
 *
 * @param decoder - 'auto' (loaders.gl where it reads this body right, see
 *   the module comment), or one reader forced (tests compare the two)
 * @returns the rows and which reader decoded them
 */
export function readGeneralVertexRows(
  bytes: Uint8Array, name: string, header: PlyHeader, vertex: PlyElement, decoder: GeneralDecoder | 'auto',
): { rows: Float32Array; decoder: GeneralDecoder } {
  if (header.format === 'ascii') {
    const scan = scanAsciiBody(bytes, name, header, decoder === 'own');
    if (scan.rows !== null) return { rows: scan.rows, decoder: 'own' };
    if (vertex.count === 0) return { rows: new Float32Array(0), decoder: 'own' };
    if (decoder === 'loaders.gl' || (scan.loadersGlReadsSame && loadersGlTakes(scan.vertexEnd - scan.vertexStart, vertex.count))) {
      return { rows: decodeVertexWithLoadersGl('ascii', vertex, bytes.subarray(scan.vertexStart, scan.vertexEnd)), decoder: 'loaders.gl' };
    }
    return { rows: scanAsciiBody(bytes, name, header, true).rows!, decoder: 'own' };
  }
  const span = locateElements(bytes, header, name).find((s) => s.element === vertex)!;
  const body = bytes.subarray(span.start, span.start + span.byteLength);
  if (vertex.count > 0 && (decoder === 'loaders.gl' || (decoder === 'auto' && loadersGlCanReadBinary(body, vertex.count)))) {
    return { rows: decodeVertexWithLoadersGl(header.format, vertex, body), decoder: 'loaders.gl' };
  }
  return { rows: rowsAsFloats(bytes, span.start, vertex, vertex.count, header.format === 'binary_little_endian', null), decoder: 'own' };
}
