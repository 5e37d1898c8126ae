/**
 * The strict check of an ASCII PLY body (every token of every element), and
 * the reading of its vertex rows where @loaders.gl/ply would misread them.
 *
 * The scan validates what loaders.gl does not: numbers only (C's `inf`,
 * `infinity`, `nan` in any case are numbers), integers in range for integer
 * types, list lengths whole numbers, every declared row present and no
 * values after the last one; line breaks are not significant. It also says
 * whether loaders.gl, given the vertex rows' text after a canonical header
 * (ply-loadersgl.ts), would read the same values: it splits its body into
 * lines, one row to a line, and reads tokens with parseFloat / parseInt, so
 * `inf` becomes NaN (measured on 4.4.5), `1e3` as an int becomes 1, and a
 * row spread over two lines is read as two short rows. Only then are the
 * values read here instead.
 */
import { BadValueError, ExtraDataError, TruncatedError } from './errors';
import { rowsNoun, type PlyElement, type PlyHeader, type PlyScalarType } from './ply-header';

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

/** What a scan of an ASCII body found. */
export interface AsciiScan {
  /** File offset of the first vertex value (the body's end when there are none). */
  vertexStart: number;
  /** File offset just past the last vertex value. */
  vertexEnd: number;
  /**
   * Whether @loaders.gl/ply reads bytes [vertexStart, vertexEnd) to the same
   * values: each vertex row on a line of its own and every value spelled as
   * parseFloat (float types) or parseInt (integer types) reads it. When not,
   * `misread` says where first.
   */
  loadersGlReadsSame: boolean;
  misread?: string;
  /** The vertex rows, one float per property, when the scan was asked to keep them. */
  rows: Float32Array | null;
}

/**
 * Checks every token of an ASCII body (see the module comment).
 *
 * @param keepRows - also return the vertex rows as floats
 * @throws TruncatedError (rows missing), BadValueError (a token that is not a
 *   number of its type, a negative list length), ExtraDataError (values after
 *   the last row), each naming the element, property and byte offset
 */
export function scanAsciiBody(bytes: Uint8Array, name: string, header: PlyHeader, keepRows: boolean): AsciiScan {
  const base = header.dataOffset;
  const text = new TextDecoder('latin1').decode(bytes.subarray(base));
  const len = text.length;
  let pos = 0;
  let tokenAt = 0;
  let newlineBefore = false;
  /** The next token, or null at the end of the body; `newlineBefore` says whether an LF preceded it. */
  const next = (): string | null => {
    newlineBefore = false;
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (c === 0x0a) newlineBefore = true;
      else if (c !== 0x20 && c !== 0x0d && c !== 0x09 && c !== 0x0b && c !== 0x0c) break;
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
  let token = '';
  const value = (el: PlyElement, row: number, prop: string, type: PlyScalarType): number => {
    const t = next();
    if (t === null) {
      throw new TruncatedError(name, `header declares ${el.count} ${rowsNoun(el)} but the ASCII body ends in row ${row} (property '${prop}') at byte ${base + len}`, {
        element: el.name, property: prop, byteOffset: base + len,
      });
    }
    token = t;
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

  let rows: Float32Array | null = null;
  let vertexStart = base + len;
  let vertexEnd = base + len;
  let same = true;
  let misread: string | undefined;
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
      if (keepRows) rows = new Float32Array(el.count * nprops);
    }
    // Each row consumes at least one token, so this loop ends with the body.
    for (let row = 0; row < el.count; row++) {
      for (let j = 0; j < nprops; j++) {
        const p = el.properties[j]!;
        if (p.listCountType !== undefined) {
          const n = value(el, row, p.name, p.listCountType);
          if (n < 0) throw new BadValueError(name, `negative list length ${n} in property '${p.name}' of ${rowsNoun(el)} row ${row} at byte ${base + tokenAt}`, { element: el.name, property: p.name, byteOffset: base + tokenAt });
          for (let k = 0; k < n; k++) value(el, row, p.name, p.type);
          continue;
        }
        const v = value(el, row, p.name, p.type);
        if (!isVertex) continue;
        if (rows !== null) rows[row * nprops + j] = v;
        if (row === 0 && j === 0) vertexStart = base + tokenAt;
        if (same) {
          // Their reading: one row a line, parseInt for integer types, parseFloat otherwise.
          const theirs = p.type === 'float' || p.type === 'double' ? parseFloat(token) : parseInt(token, 10);
          if ((row > 0 || j > 0) && newlineBefore !== (j === 0)) {
            same = false;
            misread = `vertex row ${row} ${j === 0 ? 'does not start a line' : 'spans lines'} at byte ${base + tokenAt}`;
          } else if (!Object.is(theirs, v)) {
            same = false;
            misread = `"${token.slice(0, 24)}" (property '${p.name}' of vertex row ${row}, at byte ${base + tokenAt}) reads as ${theirs} by ${p.type === 'float' || p.type === 'double' ? 'parseFloat' : 'parseInt'}, not ${v}`;
          }
        }
      }
      if (isVertex && row === el.count - 1) vertexEnd = base + pos;
    }
  }
  if (next() !== null) {
    throw new ExtraDataError(name, `the ASCII body holds values after the last declared row, from byte ${base + tokenAt}`, { byteOffset: base + tokenAt });
  }
  return { vertexStart, vertexEnd, loadersGlReadsSame: same, ...(misread === undefined ? {} : { misread }), rows };
}
