/**
 * Fast reader for binary little-endian 3D Gaussian Splatting PLY files
 * (the INRIA layout and its reorderings).
 *
 * Why not @loaders.gl/ply (which decodes the general route's vertex rows,
 * given a canonical header: see ply-loadersgl.ts): loaders.gl decodes the whole
 * file into one string (so it cannot read files over ~512 MB, V8's maximum
 * string length), then reads every property of every row through a switch
 * on the type name into a fresh object and pushes the values into growing
 * JS arrays. Measured with `npm run bench:parse -- --loadersgl N` on the
 * project's 2-core dev machine (Node 20): 100k SH3 splats (24.8 MB) in 2.3 s,
 * 200k (49.6 MB) in 6.4 s with the process's peak RSS up 358 MiB; it grows
 * faster than linearly, so 1M SH3 splats (248 MB) would take 30 s or more
 * (others report ~35 s and 2.4 GB). This reader looks the properties up
 * once by name and reads a Float32Array view of the body in place: 1M SH3
 * splats in about 0.5 s (400-500 MB/s) on the same machine. The same row
 * decoding serves loadSceneStream (stream.ts), a chunk at a time.
 */
import { MissingElementError, UnsupportedError } from './errors';
import { asBytes, copyBytes, locateElements, parsePlyHeader, type ElementSpan, type PlyElement, type PlyHeader, type PlyScalarType } from './ply-header';
import { decodeSplatRows, resolveSplatProperties } from './ply-decode';
import { SplatSink, Tally } from './sanitize';
import { checkMemory } from './budget';
import type { LoadOptions } from './load-options';
import type { SplatCloud } from './splat-cloud';

// A Float32Array view reads in the host's byte order; on a (hypothetical)
// big-endian host every file goes through the DataView path instead.
const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Parses a binary little-endian Gaussian-splat PLY.
 *
 * Properties are looked up by name (writers order them differently; normals
 * and unknown properties are ignored). Elements before and after `vertex`
 * are skipped; bytes after the last declared element are ignored.
 *
 * @param data - the whole file
 * @param name - file name, for `source` and error messages
 * @param header - the already parsed header, when the caller has it
 * @param options - `maxShDegree`: the SH bands kept (the rest are never stored)
 * @returns the splats with activations applied (see SplatCloud)
 * @throws SceneLoadError for a bad or truncated file, a vertex element
 *   without the splat properties, a list property on it, or a format other
 *   than binary_little_endian (use loadScene for those)
 */
export function parseSplatPly(data: ArrayBuffer | Uint8Array, name: string, header?: PlyHeader, options?: LoadOptions): SplatCloud {
  const bytes = asBytes(data);
  const h = header ?? parsePlyHeader(bytes, name);
  if (h.format !== 'binary_little_endian') {
    throw new UnsupportedError(name, `format ${h.format} is not read by the binary splat fast path (loadScene routes it elsewhere)`);
  }
  const span = locateElements(bytes, h, name).find((s) => s.element.name === 'vertex');
  if (span === undefined) {
    throw new MissingElementError(name, 'the header declares no "vertex" element');
  }
  const el = span.element;
  rejectVertexLists(el.properties, name);
  const ix = resolveSplatProperties(el.properties.map((p) => p.name), name, options);

  const stride = el.properties.length;
  // The rows are in the file (locateElements): the count is bounded by its size, the memory by the budget.
  checkMemory(name, el.count, ix.shDegree, options, 'the header', el.count * stride * 4, { element: 'vertex' });
  const rows = elementRowsAsFloats(bytes, span, true);
  const sink = new SplatSink(ix.shDegree, el.count, name, options);
  const tally = new Tally();
  decodeSplatRows(rows, 0, stride, el.count, ix, sink, tally);
  return sink.finish('ply', tally, el.count);
}

/**
 * Rejects list properties on the vertex element: a splat is a fixed set of
 * scalars, and a list would make every row a different size.
 *
 * @throws SceneLoadError `unsupported` naming the property
 */
export function rejectVertexLists(properties: readonly { name: string; listCountType?: PlyScalarType }[], file: string): void {
  const list = properties.find((p) => p.listCountType !== undefined);
  if (list !== undefined) {
    throw new UnsupportedError(file, `list property '${list.name}' on the vertex element (splat and point rows must be fixed-size scalars)`, {
      element: 'vertex',
      property: list.name,
    });
  }
}

/**
 * An element's rows as floats, one per property in declaration order.
 *
 * When every property is float32 (the norm) this is a view of the file's own
 * bytes: no copy at all when the body starts 4-byte aligned, one memcpy when
 * it does not (a header's length is arbitrary). Otherwise each property is
 * converted through a DataView.
 */
export function elementRowsAsFloats(bytes: Uint8Array, span: ElementSpan, littleEndian: boolean): Float32Array {
  return rowsAsFloats(bytes, span.start, span.element, span.element.count, littleEndian, null);
}

/**
 * `rows` rows of a fixed-stride element starting at byte `start` of `bytes`,
 * as floats (one per property). A view of `bytes` when every property is a
 * little-endian float32 and `start` is 4-aligned; otherwise written into
 * `scratch` when it is large enough (streams reuse one), else a new array.
 */
export function rowsAsFloats(bytes: Uint8Array, start: number, el: PlyElement, rows: number, littleEndian: boolean, scratch: Float32Array | null): Float32Array {
  const nprops = el.properties.length;
  const n = rows * nprops;
  const stride = el.stride as number;
  if (HOST_IS_LITTLE_ENDIAN && littleEndian && el.properties.every((p) => p.type === 'float')) {
    const abs = bytes.byteOffset + start;
    if (abs % 4 === 0) return new Float32Array(bytes.buffer, abs, n);
    if (scratch !== null && scratch.length >= n) {
      new Uint8Array(scratch.buffer, scratch.byteOffset, n * 4).set(bytes.subarray(start, start + rows * stride));
      return scratch;
    }
    return new Float32Array(copyBytes(bytes, start, start + rows * stride).buffer);
  }
  const out = scratch !== null && scratch.length >= n ? scratch : new Float32Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset + start, rows * stride);
  el.properties.forEach((p, j) => readColumn(view, p.offset, stride, rows, p.type, littleEndian, out, j, nprops));
  return out;
}

// One tight loop per type (the switch is outside the loop) so each stays
// monomorphic for the JIT.
function readColumn(
  view: DataView, offset: number, stride: number, count: number, type: PlyScalarType, le: boolean,
  out: Float32Array, column: number, outStride: number,
): void {
  let at = offset;
  let o = column;
  switch (type) {
    case 'float':
      for (let i = 0; i < count; i++, at += stride, o += outStride) out[o] = view.getFloat32(at, le);
      break;
    case 'double':
      for (let i = 0; i < count; i++, at += stride, o += outStride) out[o] = view.getFloat64(at, le);
      break;
    case 'char':
      for (let i = 0; i < count; i++, at += stride, o += outStride) out[o] = view.getInt8(at);
      break;
    case 'uchar':
      for (let i = 0; i < count; i++, at += stride, o += outStride) out[o] = view.getUint8(at);
      break;
    case 'short':
      for (let i = 0; i < count; i++, at += stride, o += outStride) out[o] = view.getInt16(at, le);
      break;
    case 'ushort':
      for (let i = 0; i < count; i++, at += stride, o += outStride) out[o] = view.getUint16(at, le);
      break;
    case 'int':
      for (let i = 0; i < count; i++, at += stride, o += outStride) out[o] = view.getInt32(at, le);
      break;
    case 'uint':
      for (let i = 0; i < count; i++, at += stride, o += outStride) out[o] = view.getUint32(at, le);
      break;
  }
}
