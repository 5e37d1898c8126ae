/**
 * @loaders.gl/ply as the decoder of the general PLY route (ASCII, big-endian,
 * point clouds), handed only what our own header parser has validated.
 *
 * loaders.gl finds the header with a greedy regex (`/ply([\s\S]*)end_header\s/`)
 * over the UTF-8 decoding of the whole buffer, reads the header lines it
 * finds there (printing `console.log('unhandled', ...)` for any keyword it
 * does not know), and then loops over every row the header declares. So it
 * is never given the file: it is given
 * - a canonical header we write ourselves: `ply`, the format, one element
 *   `vertex` with the validated row count, its properties with their
 *   validated types in their order, `end_header`; LF line ends, no comments,
 *   no `obj_info`, ASCII only (so its regex's body offset is exactly this
 *   header's byte length and it has nothing to print);
 * - followed by the vertex rows only (the byte span our layout code
 *   located, or the text of the validated ASCII rows), so the rows it loops
 *   over are exactly the rows present.
 *
 * The properties are named `p0`, `p1`, ... in the canonical header and mapped
 * back by index. Measured with the original names: it folds red/green/blue
 * into a Uint8Array (float colour 0.5 read as 0, ushort colours wrapped), x/y/z
 * and nx/ny/nz into vec3 attributes, and keeps every other property in a
 * plain object next to its own accumulators (`vertices`, `indices`,
 * `colors`...), so a property named `vertices` or `__proto__` corrupts its
 * output. Named `pJ`, every property comes back as its own Float32Array.
 *
 * What it still gets wrong with a clean header, measured on 4.4.5 (the
 * callers keep our own reader for exactly these cases):
 * - a binary body holding the bytes "end_header" followed by whitespace: the
 *   greedy regex takes that as the end of the header (every value read from
 *   the wrong offset, or a RangeError, after `console.log` lines);
 *   {@link loadersGlCanReadBinary} refuses any body holding "end_header";
 * - ASCII spelled otherwise than parseFloat/parseInt read it (`inf`, `nan`
 *   is fine, `1e3` for an int) or rows not one to a line: see ply-ascii.ts;
 * - bodies larger than {@link LOADERSGL_MAX_BODY_BYTES} or with more than
 *   {@link LOADERSGL_MAX_ROWS} rows (slow, and a string of the whole buffer).
 */
import { PLYLoader } from '@loaders.gl/ply';
import type { PlyElement, PlyFormat } from './ply-header';

/**
 * Largest vertex body (binary bytes or ASCII text) handed to loaders.gl;
 * larger ones are read by our own reader. It turns the whole buffer into one
 * string (V8 strings stop at ~512 MiB) and builds one object per row:
 * `npm run bench:parse-general` (2-core dev machine, Node 20, 2026-11-24)
 * measured it at 6-8 MB/s on binary bodies, 55-120x slower than our reader
 * (a 15 MB 1M-point cloud: 1.8 s against 15 ms; 100k big-endian SH3
 * splats, 24.8 MB: 4.1 s against 74 ms), and 2.5x slower on ASCII (59 MB:
 * 5.1 s against 2.1 s, both with the strict scan). 16 MiB keeps its share
 * of a load to a few seconds.
 */
export const LOADERSGL_MAX_BODY_BYTES = 16 * 1024 * 1024;
/**
 * Most rows handed to loaders.gl (its cost is mostly per row: one object, a
 * key walk and a switch for each): 2^20 rows of a 1M-point cloud took 1.8 s
 * above; a 16 MiB body of 1-byte rows would be 16 times as many.
 */
export const LOADERSGL_MAX_ROWS = 1 << 20;

/** Whether a vertex body of this size and row count is small enough for loaders.gl. */
export function loadersGlTakes(bodyBytes: number, rows: number): boolean {
  return bodyBytes <= LOADERSGL_MAX_BODY_BYTES && rows <= LOADERSGL_MAX_ROWS;
}

const END_HEADER = [0x65, 0x6e, 0x64, 0x5f, 0x68, 0x65, 0x61, 0x64, 0x65, 0x72]; // "end_header"

/**
 * Whether loaders.gl reads this binary vertex body correctly after a
 * canonical header: not too large ({@link loadersGlTakes}), and no "end_header" bytes anywhere in it
 * (the greedy header regex would end the header there). Linear in the body.
 */
export function loadersGlCanReadBinary(body: Uint8Array, rows: number): boolean {
  return loadersGlTakes(body.length, rows) && indexOfEndHeader(body) < 0;
}

/** Offset of the first "end_header" bytes in `bytes`, or -1. */
export function indexOfEndHeader(bytes: Uint8Array): number {
  const last = bytes.length - END_HEADER.length;
  for (let i = bytes.indexOf(0x65); i >= 0 && i <= last; i = bytes.indexOf(0x65, i + 1)) {
    let k = 1;
    while (k < END_HEADER.length && bytes[i + k] === END_HEADER[k]) k++;
    if (k === END_HEADER.length) return i;
  }
  return -1;
}

/**
 * The header loaders.gl is given for a vertex element: LF only, no
 * comments, the element's validated count and property types, properties
 * renamed p0..pN-1 (see the module comment). The vertex element must have
 * no list properties (the callers reject them first).
 */
export function canonicalHeader(format: PlyFormat, vertex: PlyElement): string {
  let text = `ply\nformat ${format} 1.0\nelement vertex ${vertex.count}\n`;
  vertex.properties.forEach((p, j) => {
    text += `property ${p.type} p${j}\n`;
  });
  return text + 'end_header\n';
}

/**
 * Decodes the vertex rows with @loaders.gl/ply: `body` is exactly the
 * vertex rows (binary: `count * stride` bytes, checked by the caller; ASCII:
 * the validated rows, one to a line).
 *
 * @returns one float per property per row, in declaration order (as our own
 *   readers return them)
 */
export function decodeVertexWithLoadersGl(format: PlyFormat, vertex: PlyElement, body: Uint8Array): Float32Array {
  const head = new TextEncoder().encode(canonicalHeader(format, vertex));
  const buffer = new Uint8Array(head.length + body.length);
  buffer.set(head);
  buffer.set(body, head.length);
  const mesh = PLYLoader.parseSync(buffer.buffer, {});
  const attributes = mesh.attributes as unknown as Record<string, { value: ArrayLike<number> } | undefined>;
  const count = vertex.count;
  const stride = vertex.properties.length;
  const rows = new Float32Array(count * stride);
  for (let j = 0; j < stride; j++) {
    const column = attributes[`p${j}`]?.value;
    // Our checks hand it exactly `count` rows; anything else is a bug here, not a bad file.
    if (column === undefined || column.length !== count) {
      throw new Error(`@loaders.gl/ply returned ${column?.length ?? 'no'} values for property ${j} of ${count} vertices`);
    }
    for (let i = 0, o = j; i < count; i++, o += stride) rows[o] = column[i]!;
  }
  return rows;
}
