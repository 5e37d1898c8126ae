/**
 * PLY header parsing and element layout, shared by the splat PLY fast path,
 * the compressed PLY reader and the dispatcher in load.ts.
 */
import { BadValueError, DuplicateNameError, EmptyElementError, HeaderSyntaxError, NotPlyError, TruncatedError, UnknownTypeError } from './errors';

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
// numpy-based tools (plyfile), so both spellings are accepted. A Map, not an
// object: a type named `constructor` or `__proto__` must be unknown.
const TYPE_ALIASES: ReadonlyMap<string, PlyScalarType> = new Map([
  ['char', 'char'], ['int8', 'char'],
  ['uchar', 'uchar'], ['uint8', 'uchar'],
  ['short', 'short'], ['int16', 'short'],
  ['ushort', 'ushort'], ['uint16', 'ushort'],
  ['int', 'int'], ['int32', 'int'],
  ['uint', 'uint'], ['uint32', 'uint'],
  ['float', 'float'], ['float32', 'float'],
  ['double', 'double'], ['float64', 'double'],
]);

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
 * @throws NotPlyError without the magic line, HeaderSyntaxError for a
 *   malformed header or one without `end_header` in the first
 *   {@link MAX_HEADER_BYTES} bytes, UnknownTypeError, DuplicateNameError,
 *   EmptyElementError
 */
export function parsePlyHeader(bytes: Uint8Array, file: string): PlyHeader {
  return tryParsePlyHeader(bytes, file, true) as PlyHeader;
}

/**
 * Parses a PLY header from the first bytes of a file, for streams: returns
 * null when `bytes` ends before `end_header` but more bytes may follow
 * (`complete` false) and the header limit is not reached yet.
 *
 * The body starts right after the first line whose only word is
 * `end_header` (LF or CRLF); a `comment end_header` line is a comment, and
 * `end_header` in the body is body. Lines are read as latin1, so multi-byte
 * UTF-8 in comments keeps string indices equal to byte offsets. All checks
 * are linear in the header size (names are checked against Sets).
 */
export function tryParsePlyHeader(bytes: Uint8Array, file: string, complete: boolean): PlyHeader | null {
  if (!complete && bytes.length < 5 && (isPrefixOf(bytes, 'ply\n') || isPrefixOf(bytes, 'ply\r\n'))) return null;
  if (!hasPlyMagic(bytes)) {
    throw new NotPlyError(file, 'the file starts with "ply" but not with the PLY magic line ("ply" and a line break)', { byteOffset: 0 });
  }
  const scanned = Math.min(bytes.length, MAX_HEADER_BYTES);
  // latin1 maps bytes 1:1 to UTF-16 code units, so string indices are byte offsets.
  const text = new TextDecoder('latin1').decode(bytes.subarray(0, scanned));

  const header: PlyHeader = { format: 'ascii', version: '', elements: [], comments: [], dataOffset: -1 };
  const elementNames = new Set<string>();
  let propertyNames = new Set<string>();
  let sawFormat = false;
  let current: PlyElement | null = null;
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf('\n', pos);
    if (end < 0) break; // a last line without newline cannot be end_header
    const lineStart = pos;
    const line = text.charCodeAt(end - 1) === 0x0d ? text.slice(pos, end - 1) : text.slice(pos, end);
    pos = end + 1;
    if (lineStart === 0) continue; // the magic line, checked above
    const trimmed = line.trim();
    const words = trimmed === '' ? [] : trimmed.split(/\s+/);
    const keyword = words[0];
    const where = `in header line "${trimmed.length > 80 ? trimmed.slice(0, 80) + '...' : trimmed}" at byte ${lineStart}`;
    const bad = (what: string): never => {
      throw new HeaderSyntaxError(file, `${what} ${where}`, { byteOffset: lineStart });
    };
    if (keyword === undefined) continue;
    if (keyword === END_HEADER) {
      if (words.length !== 1) bad('words after end_header');
      if (!sawFormat) bad('no "format" line before end_header');
      header.dataOffset = pos;
      return finishHeader(header, file);
    }
    switch (keyword) {
      case 'format': {
        const f = words[1];
        if (f !== 'binary_little_endian' && f !== 'binary_big_endian' && f !== 'ascii') bad(`unknown format "${f ?? ''}"`);
        if (sawFormat) bad('second "format" line');
        if (words.length !== 3) bad('malformed format line (expected "format FORMAT VERSION")');
        header.format = f as PlyFormat;
        header.version = words[2] ?? '';
        sawFormat = true;
        break;
      }
      case 'comment':
      case 'obj_info':
        header.comments.push(trimmed.slice(keyword.length).trim());
        break;
      case 'element': {
        const countText = words[2] ?? '';
        const count = Number(countText);
        if (words.length !== 3 || !/^\d+$/.test(countText) || !Number.isSafeInteger(count)) {
          bad('malformed element declaration (expected "element NAME COUNT", COUNT a whole number below 2^53)');
        }
        const name = words[1] as string;
        if (elementNames.has(name)) {
          throw new DuplicateNameError(file, `duplicate element "${name}" ${where}`, { element: name, byteOffset: lineStart });
        }
        elementNames.add(name);
        propertyNames = new Set();
        current = { name, count, properties: [], stride: 0 };
        header.elements.push(current);
        (current as PlyElementWithLine).declaredAt = lineStart;
        break;
      }
      case 'property': {
        if (current === null) bad('property before any element');
        const el = current as PlyElement;
        const typeOf = (word: string | undefined): PlyScalarType => {
          const t = TYPE_ALIASES.get(word ?? '');
          if (t === undefined) {
            throw new UnknownTypeError(file, `unknown property type "${word ?? ''}" of element "${el.name}" ${where}`, { element: el.name, byteOffset: lineStart });
          }
          return t;
        };
        let prop: PlyProperty;
        if (words[1] === 'list') {
          if (words.length !== 5) bad('malformed list property (expected "property list COUNT_TYPE ITEM_TYPE NAME")');
          const countType = typeOf(words[2]);
          if (countType === 'float' || countType === 'double') bad(`list count type "${words[2]}" is not an integer type`);
          prop = { name: words[4] as string, type: typeOf(words[3]), listCountType: countType, offset: -1 };
        } else {
          if (words.length !== 3) bad('malformed property (expected "property TYPE NAME")');
          prop = { name: words[2] as string, type: typeOf(words[1]), offset: -1 };
        }
        if (propertyNames.has(prop.name)) {
          throw new DuplicateNameError(file, `duplicate property "${prop.name}" in element "${el.name}" ${where}`, { element: el.name, property: prop.name, byteOffset: lineStart });
        }
        propertyNames.add(prop.name);
        el.properties.push(prop);
        break;
      }
      default:
        bad(`unknown keyword "${keyword.length > 40 ? keyword.slice(0, 40) + '...' : keyword}"`);
    }
  }
  if (!complete && scanned < MAX_HEADER_BYTES) return null;
  const where = scanned < bytes.length || scanned === MAX_HEADER_BYTES ? `in the first ${scanned} bytes (the header limit)` : `in the whole file (${bytes.length} bytes)`;
  throw new HeaderSyntaxError(file, `no end_header line ${where}`, { byteOffset: scanned });
}

function isPrefixOf(bytes: Uint8Array, text: string): boolean {
  for (let i = 0; i < bytes.length; i++) if (i >= text.length || bytes[i] !== text.charCodeAt(i)) return false;
  return true;
}

interface PlyElementWithLine extends PlyElement {
  declaredAt?: number;
}

function finishHeader(header: PlyHeader, file: string): PlyHeader {
  for (const el of header.elements) {
    if (el.count > 0 && el.properties.length === 0) {
      const at = (el as PlyElementWithLine).declaredAt;
      throw new EmptyElementError(file, `element "${el.name}" declares ${el.count} rows but no properties (declared at byte ${at})`, { element: el.name, byteOffset: at });
    }
    delete (el as PlyElementWithLine).declaredAt;
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
    // Every row takes at least this many bytes: the row loop below is bounded by the bytes present.
    const minRow = minRowBytes(el);
    if (el.count * minRow > available) {
      throw new TruncatedError(
        file,
        `header declares ${el.count} ${rowsNoun(el)} of ${el.stride ?? `at least ${minRow}`} bytes (${el.count * minRow} bytes) but only ${Math.max(0, available)} bytes follow ${previous} at byte ${cursor}`,
        { element: el.name, byteOffset: cursor },
      );
    }
    byteLength = el.stride !== null ? el.count * el.stride : walkListElement(bytes, cursor, el, littleEndian, file);
    spans.push({ element: el, start: cursor, byteLength });
    cursor += byteLength;
    previous = `the '${el.name}' element`;
  }
  return spans;
}

/**
 * The rows of `el` the file's bytes can hold at most: its declared count, capped
 * by the bytes after the header over the least bytes a row takes (binary: the
 * row's scalars and list counts; ASCII: two characters a value). What a memory
 * budget is checked against before the body is read, so that a lying count is
 * judged as the truncation it is, not as a huge scene.
 */
export function rowsTheFileHolds(fileBytes: number, header: PlyHeader, el: PlyElement): number {
  const minRow = header.format === 'ascii' ? 2 * el.properties.length : minRowBytes(el);
  if (minRow <= 0) return el.count;
  return Math.min(el.count, Math.floor(Math.max(0, fileBytes - header.dataOffset) / minRow));
}

/** Smallest size of a binary row: the stride, or with lists the scalars plus every list's count. */
export function minRowBytes(el: PlyElement): number {
  let n = 0;
  for (const p of el.properties) n += PLY_TYPE_SIZE[p.listCountType ?? p.type];
  return n;
}

export function readScalar(view: DataView, at: number, type: PlyScalarType, le: boolean): number {
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
          throw new BadValueError(file, `negative list length ${n} in property '${p.name}' of ${rowsNoun(el)} row ${row} at byte ${at}`, { element: el.name, property: p.name, byteOffset: at });
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

function listTruncated(file: string, el: PlyElement, row: number, p: PlyProperty, at: number): TruncatedError {
  return new TruncatedError(
    file,
    `header declares ${el.count} ${rowsNoun(el)} but the file ends at byte ${at} inside row ${row} (property '${p.name}')`,
    { element: el.name, property: p.name, byteOffset: at },
  );
}
