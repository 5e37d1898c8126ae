/**
 * PLY header parsing and element layout, shared by the splat PLY fast path,
 * the compressed PLY reader and the dispatcher in load.ts.
 */
import { SceneLoadError } from './errors';

/** Scalar types of the PLY specification, by their canonical names. */
export type PlyScalarType = 'char' | 'uchar' | 'short' | 'ushort' | 'int' | 'uint' | 'float' | 'double';

/** Body encodings a PLY header can declare. */
export type PlyFormat = 'binary_little_endian' | 'binary_big_endian' | 'ascii';

/** One property of an element. */
export interface PlyProperty {
  name: string;
  /** Value type; for a list, the type of its items. */
  type: PlyScalarType;
  /** For a list property: the type of its leading count. */
  listCountType?: PlyScalarType;
  /**
   * Byte offset inside a row. Only meaningful when the element has no list
   * property (then every row has the same layout); -1 otherwise.
   */
  offset: number;
}

/** One element (a table of rows) declared by the header. */
export interface PlyElement {
  name: string;
  /** Number of rows the header declares. */
  count: number;
  properties: PlyProperty[];
  /** Bytes per row in a binary body, or null when a list makes rows vary. */
  stride: number | null;
}

/** A parsed PLY header. */
export interface PlyHeader {
  format: PlyFormat;
  version: string;
  elements: PlyElement[];
  comments: string[];
  /** Byte offset of the first body byte (just after `end_header` and its newline). */
  dataOffset: number;
}

/** Byte size of each scalar type. */
export const PLY_TYPE_SIZE: Readonly<Record<PlyScalarType, number>> = {
  char: 1, uchar: 1, short: 2, ushort: 2, int: 4, uint: 4, float: 4, double: 8,
};

// The sized aliases (float32, uint8...) are common in files written by
// numpy-based tools (plyfile), so both spellings are accepted.
const TYPE_ALIASES: Readonly<Record<string, PlyScalarType>> = {
  char: 'char', int8: 'char',
  uchar: 'uchar', uint8: 'uchar',
  short: 'short', int16: 'short',
  ushort: 'ushort', uint16: 'ushort',
  int: 'int', int32: 'int',
  uint: 'uint', uint32: 'uint',
  float: 'float', float32: 'float',
  double: 'double', float64: 'double',
};

/**
 * How far to look for `end_header`. Real headers are a few KB (a 3DGS header
 * with SH3 is about 1.5 KB); a limit keeps a non-PLY file that happens to
 * start with "ply" from making us scan gigabytes.
 */
export const MAX_HEADER_BYTES = 1 << 20;

const END_HEADER = 'end_header';

/** A view of any accepted input as bytes, without copying. */
export function asBytes(data: ArrayBuffer | Uint8Array): Uint8Array {
  return data instanceof Uint8Array ? data : new Uint8Array(data);
}

/**
 * A fresh copy of bytes [start, end) in its own ArrayBuffer (offset 0, so
 * 4-aligned). Not `bytes.slice`: on a Node Buffer that is a shared view.
 */
export function copyBytes(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(bytes.subarray(start, end));
  return out;
}

/** Whether `bytes` starts with the PLY magic line (`ply` then LF or CRLF). */
export function hasPlyMagic(bytes: Uint8Array): boolean {
  if (bytes.length < 4 || bytes[0] !== 0x70 || bytes[1] !== 0x6c || bytes[2] !== 0x79) return false;
  return bytes[3] === 0x0a || (bytes[3] === 0x0d && bytes[4] === 0x0a);
}

/**
 * Parses the header of a PLY file.
 *
 * @param bytes - the whole file (or at least its header)
 * @param file - file name, for error messages
 * @throws SceneLoadError `not-ply` without the magic line, `bad-header` for a
 *   malformed header or one without `end_header` in the first
 *   {@link MAX_HEADER_BYTES} bytes
 */
export function parsePlyHeader(bytes: Uint8Array, file: string): PlyHeader {
  if (!hasPlyMagic(bytes)) {
    throw new SceneLoadError(file, 'not-ply', 'the file does not start with the "ply" magic line', { byteOffset: 0 });
  }
  const scanned = Math.min(bytes.length, MAX_HEADER_BYTES);
  // latin1 maps bytes 1:1 to UTF-16 code units, so string indices are byte offsets.
  const text = new TextDecoder('latin1').decode(bytes.subarray(0, scanned));

  const header: PlyHeader = { format: 'ascii', version: '', elements: [], comments: [], dataOffset: -1 };
  let sawFormat = false;
  let current: PlyElement | null = null;
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf('\n', pos);
    if (end < 0) break; // a last line without newline cannot be end_header
    const lineStart = pos;
    const line = text.slice(pos, end).replace(/\r$/, '');
    pos = end + 1;
    if (lineStart === 0) continue; // the magic line, checked above
    const words = line.trim().split(/\s+/);
    const keyword = words[0];
    const bad = (what: string): never => {
      throw new SceneLoadError(file, 'bad-header', `${what} in header line "${line.trim()}" at byte ${lineStart}`, { byteOffset: lineStart });
    };
    if (keyword === '' || keyword === undefined) continue;
    if (keyword === END_HEADER) {
      if (!sawFormat) bad('no "format" line before end_header');
      header.dataOffset = pos;
      return finishHeader(header);
    }
    switch (keyword) {
      case 'format': {
        const f = words[1];
        if (f !== 'binary_little_endian' && f !== 'binary_big_endian' && f !== 'ascii') bad(`unknown format "${f ?? ''}"`);
        if (sawFormat) bad('second "format" line');
        header.format = f as PlyFormat;
        header.version = words[2] ?? '';
        sawFormat = true;
        break;
      }
      case 'comment':
      case 'obj_info':
        header.comments.push(line.trim().slice(keyword.length).trim());
        break;
      case 'element': {
        const count = Number(words[2]);
        if (words.length !== 3 || !Number.isSafeInteger(count) || count < 0 || !/^\d+$/.test(words[2] ?? '')) {
          bad('malformed element declaration (expected "element NAME COUNT")');
        }
        if (header.elements.some((e) => e.name === words[1])) bad(`duplicate element "${words[1]}"`);
        current = { name: words[1] as string, count, properties: [], stride: 0 };
        header.elements.push(current);
        break;
      }
      case 'property': {
        if (current === null) bad('property before any element');
        const el = current as PlyElement;
        let prop: PlyProperty;
        if (words[1] === 'list') {
          const countType = TYPE_ALIASES[words[2] ?? ''];
          const itemType = TYPE_ALIASES[words[3] ?? ''];
          if (words.length !== 5 || countType === undefined || itemType === undefined) {
            bad('malformed list property (expected "property list COUNT_TYPE ITEM_TYPE NAME")');
          }
          prop = { name: words[4] as string, type: itemType as PlyScalarType, listCountType: countType as PlyScalarType, offset: -1 };
        } else {
          const type = TYPE_ALIASES[words[1] ?? ''];
          if (words.length !== 3) bad('malformed property (expected "property TYPE NAME")');
          if (type === undefined) bad(`unknown property type "${words[1] ?? ''}"`);
          prop = { name: words[2] as string, type: type as PlyScalarType, offset: -1 };
        }
        if (el.properties.some((p) => p.name === prop.name)) bad(`duplicate property "${prop.name}" in element "${el.name}"`);
        el.properties.push(prop);
        break;
      }
      default:
        bad(`unknown keyword "${keyword}"`);
    }
  }
  const where = scanned < bytes.length ? `in the first ${scanned} bytes` : `in the whole file (${bytes.length} bytes)`;
  throw new SceneLoadError(file, 'bad-header', `no end_header line ${where}`, { byteOffset: scanned });
}

function finishHeader(header: PlyHeader): PlyHeader {
  for (const el of header.elements) {
    let offset = 0;
    let fixed = true;
    for (const p of el.properties) {
      if (p.listCountType !== undefined) fixed = false;
      if (fixed) {
        p.offset = offset;
        offset += PLY_TYPE_SIZE[p.type];
      }
    }
    el.stride = fixed ? offset : null;
  }
  return header;
}

/** Where one element's rows lie in a binary body. */
export interface ElementSpan {
  element: PlyElement;
  /** Byte offset of the first row in the file. */
  start: number;
  /** Total bytes of all rows. */
  byteLength: number;
}

/** A plural noun for an element's rows, for messages ("vertices", "'chunk' rows"). */
export function rowsNoun(el: PlyElement): string {
  return el.name === 'vertex' ? 'vertices' : el.name === 'face' ? 'faces' : `'${el.name}' rows`;
}

/**
 * Locates every element of a binary body, in declaration order, checking
 * that each fits in the file. Elements whose rows hold list properties are
 * walked row by row to find their size. Bytes after the last element are
 * ignored (some writers pad files).
 *
 * @throws SceneLoadError `truncated` naming the element, its declared size and
 *   the byte where it starts, when the file is too short
 */
export function locateElements(bytes: Uint8Array, header: PlyHeader, file: string): ElementSpan[] {
  if (header.format === 'ascii') throw new Error('locateElements: ASCII bodies have no byte layout');
  const littleEndian = header.format === 'binary_little_endian';
  const spans: ElementSpan[] = [];
  let cursor = header.dataOffset;
  let previous = 'the header';
  for (const el of header.elements) {
    const available = bytes.length - cursor;
    let byteLength: number;
    if (el.stride !== null) {
      byteLength = el.count * el.stride;
      if (byteLength > available) {
        throw new SceneLoadError(
          file,
          'truncated',
          `header declares ${el.count} ${rowsNoun(el)} of ${el.stride} bytes (${byteLength} bytes) but only ${Math.max(0, available)} bytes follow ${previous} at byte ${cursor}`,
          { byteOffset: cursor },
        );
      }
    } else {
      byteLength = walkListElement(bytes, cursor, el, littleEndian, file);
    }
    spans.push({ element: el, start: cursor, byteLength });
    cursor += byteLength;
    previous = `the '${el.name}' element`;
  }
  return spans;
}

function readScalar(view: DataView, at: number, type: PlyScalarType, le: boolean): number {
  switch (type) {
    case 'char': return view.getInt8(at);
    case 'uchar': return view.getUint8(at);
    case 'short': return view.getInt16(at, le);
    case 'ushort': return view.getUint16(at, le);
    case 'int': return view.getInt32(at, le);
    case 'uint': return view.getUint32(at, le);
    case 'float': return view.getFloat32(at, le);
    case 'double': return view.getFloat64(at, le);
  }
}

// Rows with lists have no fixed size: the only way past them is to read each
// row's counts. Used for elements like `face` that precede or follow `vertex`.
function walkListElement(bytes: Uint8Array, start: number, el: PlyElement, le: boolean, file: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length;
  let at = start;
  for (let row = 0; row < el.count; row++) {
    for (const p of el.properties) {
      if (p.listCountType !== undefined) {
        const countSize = PLY_TYPE_SIZE[p.listCountType];
        if (at + countSize > end) throw listTruncated(file, el, row, p, end);
        const n = readScalar(view, at, p.listCountType, le);
        if (!(n >= 0)) {
          throw new SceneLoadError(file, 'bad-data', `negative list length ${n} in property '${p.name}' of ${rowsNoun(el)} row ${row} at byte ${at}`, { property: p.name, byteOffset: at });
        }
        at += countSize + n * PLY_TYPE_SIZE[p.type];
      } else {
        at += PLY_TYPE_SIZE[p.type];
      }
      if (at > end) throw listTruncated(file, el, row, p, end);
    }
  }
  return at - start;
}

function listTruncated(file: string, el: PlyElement, row: number, p: PlyProperty, at: number): SceneLoadError {
  return new SceneLoadError(
    file,
    'truncated',
    `header declares ${el.count} ${rowsNoun(el)} but the file ends at byte ${at} inside row ${row} (property '${p.name}')`,
    { property: p.name, byteOffset: at },
  );
}
