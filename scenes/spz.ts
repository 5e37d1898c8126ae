/**
 * Reader for Niantic's `.spz` (facts of the format, from its specification
 * and reference loader; the code is ours).
 *
 * Versions 2 and 3: the whole file is one gzip stream holding a 16-byte
 * header - magic 0x5053474e ("NGSP" in file order), version u32, numPoints
 * u32, shDegree u8, fractionalBits u8, flags u8, reserved u8 - then the
 * attributes one after another, each for all points: positions (3 x 24-bit
 * signed fixed point, value / 2^fractionalBits), alphas (u8, opacity * 255),
 * colours (3 x u8, DC colour: f_dc = (c / 255 - 0.5) / 0.15), scales (3 x u8,
 * log-scale = s / 16 - 10), rotations (v2: x, y, z as u8, q = r / 127.5 - 1,
 * w = sqrt(1 - |xyz|^2); v3: 4 bytes "smallest three": a u32 whose top 2
 * bits index the largest component, then three 10-bit fields, each a sign
 * bit and 9 bits of magnitude * sqrt(1/2) / 511, components in x, y, z, w
 * order with the last one in the lowest bits), SH (per point, coefficient
 * outer and channel inner, (b - 128) / 128; 3, 8, 15 or 24 coefficients for
 * degree 1..4). Flag 0x2 means extension records follow the attributes.
 *
 * Version 4 is not gzipped: a 32-byte header - magic, version, numPoints,
 * shDegree, fractionalBits, flags, numStreams u8, tocByteOffset u32, 12
 * reserved bytes - optional extensions up to tocByteOffset, a table of
 * contents of numStreams (compressedSize u64, uncompressedSize u64) pairs,
 * then the ZSTD streams back to back up to the end of the file, one per
 * non-empty attribute in the order positions, alphas, colours, scales,
 * rotations (smallest three), SH.
 *
 * SPZ's frame is RUB (x right, y up, z back); SplatCloud keeps the PLY
 * convention of 3DGS training (RDF, y down, z forward), so the loader
 * rotates the scene 180 degrees about x (y and z negated, with rotations and
 * SH transformed to match), as Niantic's converter does between the two.
 * Degree-4 SH files are read to degree 3 (the renderer's maximum).
 */
import { Decompress as ZstdDecompress } from 'fzstd';
import { Gunzip } from 'fflate';
import { crc32Update } from './crc32';
import { DecompressError, SceneLoadError, SpzFormatError, TruncatedError, UnsupportedError } from './errors';
import { canonicalRowIndex, decodeSplatRows } from './ply-decode';
import { keptShDegree, type LoadOptions } from './load-options';
import { SplatSink, Tally } from './sanitize';
import { shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';
import { copyBytes } from './bytes';
import { checkInflation, checkMemory } from './budget';

/** "NGSP" as the first four bytes (0x5053474e little-endian). */
export const SPZ_MAGIC = 0x5053474e;
/** DC colour scale of SPZ: colour byte / 255 = 0.5 + 0.15 * f_dc. */
export const SPZ_COLOR_SCALE = 0.15;
/** Largest gzip expansion (deflate's own limit is about 1032:1). */
const GZIP_MAX_RATIO = 1040;
/** Generous largest ZSTD expansion (an RLE block turns 4 bytes into 128 KiB). */
const ZSTD_MAX_RATIO = 1 << 16;
/** Splats decoded at a time (the canonical-row scratch holds this many). */
const DECODE_BATCH_ROWS = 1 << 14;
/** Least input handed to fflate's Gunzip at once (see SpzGzipStream.feed), and the most once the SPZ header is out. */
const GZIP_PUSH_BYTES = 1 << 16;
/**
 * Input handed to the inflater at a time until the SPZ header is out: deflate
 * turns 256 bytes into at most ~264 KB, so the magic and header are checked on the
 * first inflated bytes before a bomb can inflate more.
 */
const GZIP_PROBE_BYTES = 256;
/** Room allowed for extension records of a gzip SPZ (bytes after the attributes). */
const MAX_EXTENSION_BYTES = 1 << 24;
/** Sign of each SH coefficient k (0..15) under (x, y, z) -> (x, -y, -z). */
export const FLIP_YZ_SH_SIGN = [1, -1, -1, 1, -1, 1, 1, -1, 1, -1, 1, -1, -1, 1, -1, 1];

/** Whether the file starts with the NGSP magic (an uncompressed version 4 header). */
export function hasNgspMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x4e && bytes[1] === 0x47 && bytes[2] === 0x53 && bytes[3] === 0x50;
}

/** Whether the file starts with the gzip magic. */
export function hasGzipMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** SH coefficients per channel beyond DC stored for an SPZ degree (0..4). */
function spzShDim(degree: number): number {
  return (degree + 1) * (degree + 1) - 1;
}

/** Attribute sizes in bytes for n points, in file order. */
function attributeSizes(n: number, version: number, shDegree: number): number[] {
  return [n * 9, n, n * 3, n * 3, n * (version >= 3 ? 4 : 3), n * spzShDim(shDegree) * 3];
}

interface SpzHeader {
  version: number;
  n: number;
  shDegree: number;
  fractionalBits: number;
  flags: number;
}

/**
 * Decodes an .spz file (gzip versions 2 and 3, NGSP version 4).
 *
 * @throws SpzFormatError for a bad header or table of contents, DecompressError
 *   for corrupt compressed data, TruncatedError when attributes are missing,
 *   UnsupportedError for other versions
 */
export function parseSpz(bytes: Uint8Array, name: string, options?: LoadOptions): SplatCloud {
  if (hasNgspMagic(bytes)) return parseSpzV4(bytes, name, options);
  return parseSpzGzip(bytes, name, options);
}

function readHeader16(h: Uint8Array, name: string, where: string): SpzHeader {
  const v = new DataView(h.buffer, h.byteOffset, h.byteLength);
  if (v.getUint32(0, true) !== SPZ_MAGIC) {
    throw new SpzFormatError(name, `${where} does not start with the SPZ magic "NGSP" (byte 0)`, { byteOffset: 0 });
  }
  return { version: v.getUint32(4, true), n: v.getUint32(8, true), shDegree: h[12]!, fractionalBits: h[13]!, flags: h[14]! };
}

function checkHeader(h: SpzHeader, name: string, versions: number[]): void {
  if (!versions.includes(h.version)) {
    throw new UnsupportedError(name, `SPZ version ${h.version} (byte 4) is not read here (this container holds versions ${versions.join(', ')})`, { byteOffset: 4 });
  }
  if (h.shDegree > 4) throw new SpzFormatError(name, `SPZ SH degree ${h.shDegree} (byte 12) is above 4`, { byteOffset: 12 });
  if (h.fractionalBits > 24) throw new SpzFormatError(name, `SPZ fractional bits ${h.fractionalBits} (byte 13) exceed the 24-bit positions`, { byteOffset: 13 });
}

function parseSpzGzip(bytes: Uint8Array, name: string, options: LoadOptions | undefined): SplatCloud {
  const stream = new SpzGzipStream(name, bytes.length, options);
  const step = 1 << 16;
  for (let at = 0; at < bytes.length; at += step) stream.feed(bytes.subarray(at, at + step));
  return stream.finish(bytes.length);
}

/**
 * A gzip SPZ (versions 2 and 3) inflated as its bytes arrive (fflate's
 * streaming Gunzip): the compressed file is never held whole, and the
 * inflating is done by the time the last chunk comes. The attributes are
 * stored one after another for all points (every position, then every
 * alpha, ..., SH last), so no splat is complete before the end of the data:
 * `splats` stays 0 until `finish` decodes them all. parseSpz reads a whole
 * file through the same class, so both give the same cloud and errors.
 */
export class SpzGzipStream {
  private readonly chunks: Uint8Array[] = [];
  private total = 0;
  private limit: number;
  private header: SpzHeader | null = null;
  private expected = 0;
  private ended = false;
  private crc = 0xffffffff;
  private readonly gunzip: Gunzip;
  /** The last 8 bytes fed (the gzip trailer once the file is complete). */
  private readonly tail = new Uint8Array(8);
  private fed = 0;
  /** Small chunks not yet handed to the inflater. */
  private readonly pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Compressed bytes handed to the inflater so far (the bomb check's denominator). */
  private pushed = 0;

  /**
   * @param sizeHint - the compressed size when known: until the SPZ header
   *   is out, no more than deflate could expand it to is accepted
   * @param options - `maxShDegree`: the SH bands decoded (the rest are skipped)
   */
  constructor(private readonly name: string, private readonly sizeHint?: number, private readonly options?: LoadOptions) {
    this.limit = sizeHint === undefined ? Infinity : sizeHint * GZIP_MAX_RATIO + 64;
    this.gunzip = new Gunzip((data, final) => this.onData(data, final));
  }

  /** Splats decoded so far: 0 until `finish` (see the class comment). */
  readonly splats = 0;

  private onData(data: Uint8Array, final: boolean): void {
    const name = this.name;
    this.chunks.push(data);
    this.total += data.length;
    this.crc = crc32Update(this.crc, data);
    if (this.header === null && this.total >= 16) {
      const header = readHeader16(concat(this.chunks, 16), name, 'the gunzipped data');
      checkHeader(header, name, [2, 3]);
      this.header = header;
      this.expected = 16 + attributeSizes(header.n, header.version, header.shDegree).reduce((a, b) => a + b, 0);
      this.limit = Math.min(this.limit, this.expected + (header.flags & 2 ? MAX_EXTENSION_BYTES : 0));
      // Declared sizes against the budget and the file before inflating further: the
      // inflated attributes are held twice at the end (chunks, then one array).
      const degree = keptShDegree(Math.min(header.shDegree, 3) as ShDegree, this.options);
      checkMemory(name, header.n, degree, this.options, 'the SPZ header', 2 * this.expected, { byteOffset: 8 });
      if (this.sizeHint !== undefined) checkInflation(name, `the attributes of the SPZ header's ${header.n} points, in a gzip file of ${this.sizeHint} bytes`, this.expected, this.sizeHint, { byteOffset: 8 });
    }
    checkInflation(name, 'the gzip stream', this.total, this.pushed, { byteOffset: this.pushed });
    if (this.total > this.limit) {
      throw new SpzFormatError(name, `the gzip stream holds more than the ${this.limit} bytes its SPZ header allows (${this.header === null ? 'no header' : `${this.header.n} points`})`);
    }
    if (final) this.ended = true;
  }

  /**
   * Inflates the next bytes of the file. Small chunks are gathered into
   * {@link GZIP_PUSH_BYTES} before they go to fflate: its streaming inflate
   * copies the input it holds back on every push, so 1-byte chunks took
   * 25-35 s for a 150 KB file (measured); gathered, they take what one push
   * of the whole file takes.
   */
  feed(chunk: Uint8Array): void {
    if (chunk.length >= GZIP_PUSH_BYTES && this.pendingBytes === 0) {
      // Copied too: fflate's Gunzip keeps the chunk itself while the gzip header is incomplete.
      this.push(copyBytes(chunk), false);
    } else {
      // Copied: the caller may reuse its chunk's memory.
      this.pending.push(copyBytes(chunk));
      this.pendingBytes += chunk.length;
      if (this.pendingBytes >= GZIP_PUSH_BYTES) this.flush(false);
    }
    if (chunk.length >= 8) {
      this.tail.set(chunk.subarray(chunk.length - 8));
    } else {
      this.tail.copyWithin(0, chunk.length);
      this.tail.set(chunk, 8 - chunk.length);
    }
    this.fed += chunk.length;
  }

  private flush(final: boolean): void {
    const data = concat(this.pending, this.pendingBytes);
    this.pending.length = 0;
    this.pendingBytes = 0;
    this.push(data, final);
  }

  private push(chunk: Uint8Array, final: boolean): void {
    try {
      // In slices: tiny ones until the SPZ header is out (its magic is checked on
      // the first inflated bytes), then at most GZIP_PUSH_BYTES, so one push never
      // inflates more than ~66 MB before the checks in onData run.
      let at = 0;
      do {
        // (Probing stops after 64 KiB: fflate holds and copies a gzip header it has not
        // finished on every push, so a huge header field in tiny pushes would be quadratic.)
        const step = this.header === null && this.pushed < GZIP_PUSH_BYTES ? GZIP_PROBE_BYTES : GZIP_PUSH_BYTES;
        const end = Math.min(chunk.length, at + step);
        this.pushed += end - at;
        this.gunzip.push(chunk.subarray(at, end), final && end === chunk.length);
        at = end;
      } while (at < chunk.length);
    } catch (e) {
      if (e instanceof SceneLoadError) throw e;
      // fflate's code 0 is "unexpected EOF": the file was cut short.
      if ((e as { code?: number }).code === 0) {
        throw new TruncatedError(this.name, `the gzip stream ends early (${this.fed} bytes, ${this.total} bytes decompressed)`, { byteOffset: this.fed, cause: e });
      }
      throw new DecompressError(this.name, `corrupt gzip data (${e instanceof Error ? e.message : String(e)})`, { cause: e });
    }
  }

  /**
   * Ends the stream, checks the gzip trailer and the SPZ sizes, and decodes.
   *
   * @param received - the file's size (every byte fed)
   */
  finish(received: number): SplatCloud {
    const name = this.name;
    this.flush(true);
    const total = this.total;
    if (!this.ended) throw new TruncatedError(name, `the gzip stream ends early (${received} bytes, ${total} bytes decompressed)`, { byteOffset: received });
    // fflate's stream does not check the member's trailer: CRC-32 and size of the data, the file's last 8 bytes.
    if (received < 18) throw new TruncatedError(name, `a gzip stream is at least 18 bytes (header and trailer); this file has ${received}`, { byteOffset: received });
    const tv = new DataView(this.tail.buffer);
    if (tv.getUint32(0, true) !== (this.crc ^ 0xffffffff) >>> 0 || tv.getUint32(4, true) !== total % 2 ** 32) {
      throw new DecompressError(name, `the gzip trailer (CRC-32 and size in the last 8 bytes) does not match the ${total} bytes decompressed: the file is cut short or corrupt`, {
        byteOffset: Math.max(0, received - 8),
      });
    }
    if (this.header === null) throw new TruncatedError(name, `the gunzipped data holds ${total} bytes, less than the 16-byte SPZ header`, { byteOffset: received });
    const h: SpzHeader = this.header;
    const expected = this.expected;
    if (total < expected) {
      throw new TruncatedError(name, `the SPZ header declares ${h.n} points (${expected} bytes of attributes) but the gunzipped data holds ${total} bytes`, { byteOffset: total });
    }
    if (total > expected && !(h.flags & 2)) {
      throw new SpzFormatError(name, `${total - expected} bytes follow the attributes of ${h.n} points, and the header's flags (byte 14) declare no extensions`, { byteOffset: expected });
    }
    const data = concat(this.chunks, expected);
    this.chunks.length = 0;
    const sizes = attributeSizes(h.n, h.version, h.shDegree);
    const streams: Uint8Array[] = [];
    let at = 16;
    for (const s of sizes) {
      streams.push(data.subarray(at, at + s));
      at += s;
    }
    return decodeAttributes(streams, h, name, `spz-v${h.version}`, this.options);
  }
}

function parseSpzV4(bytes: Uint8Array, name: string, options: LoadOptions | undefined): SplatCloud {
  if (bytes.length < 32) throw new TruncatedError(name, `an NGSP (SPZ v4) file has a 32-byte header; this one has ${bytes.length} bytes`, { byteOffset: bytes.length });
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = readHeader16(bytes, name, 'the file');
  checkHeader(h, name, [4]);
  const numStreams = bytes[15]!;
  const toc = v.getUint32(16, true);
  const sizes = attributeSizes(h.n, 4, h.shDegree).filter((s) => s > 0);
  if (toc < 32 || toc > bytes.length) throw new SpzFormatError(name, `table of contents offset ${toc} (byte 16) is outside the file (32..${bytes.length})`, { byteOffset: 16 });
  if (numStreams !== sizes.length) {
    throw new SpzFormatError(name, `the header declares ${numStreams} streams (byte 15) but ${h.n} points of SH degree ${h.shDegree} need ${sizes.length}`, { byteOffset: 15 });
  }
  const tocEnd = toc + numStreams * 16;
  if (tocEnd > bytes.length) throw new TruncatedError(name, `the table of contents at byte ${toc} needs ${numStreams * 16} bytes; the file ends at ${bytes.length}`, { byteOffset: bytes.length });
  // What the point count needs, against the budget and the file, before any stream is read or allocated.
  const inflated = sizes.reduce((a, b) => a + b, 0);
  checkMemory(name, h.n, keptShDegree(Math.min(h.shDegree, 3) as ShDegree, options), options, 'the NGSP header', inflated, { byteOffset: 8 });
  checkInflation(name, `the ZSTD streams of the header's ${h.n} points`, inflated, bytes.length, { byteOffset: 8 });
  const streams: Uint8Array[] = [];
  let at = tocEnd;
  for (let i = 0; i < numStreams; i++) {
    const e = toc + i * 16;
    const compressed = u64(v, e, name);
    const uncompressed = u64(v, e + 8, name);
    if (uncompressed !== sizes[i]) {
      throw new SpzFormatError(name, `stream ${i} declares ${uncompressed} bytes (byte ${e + 8}) but ${h.n} points need ${sizes[i]}`, { byteOffset: e + 8 });
    }
    if (compressed > bytes.length - at) {
      throw new TruncatedError(name, `stream ${i} of ${compressed} bytes at byte ${at} runs past the end of the file (${bytes.length} bytes)`, { byteOffset: at });
    }
    if (uncompressed > compressed * ZSTD_MAX_RATIO) {
      throw new SpzFormatError(name, `stream ${i} claims ${uncompressed} bytes from ${compressed} compressed bytes (byte ${e}), more than ZSTD can expand`, { byteOffset: e });
    }
    streams.push(unzstd(bytes.subarray(at, at + compressed), uncompressed, name, i, at));
    at += compressed;
  }
  if (at !== bytes.length) {
    throw new SpzFormatError(name, `${bytes.length - at} bytes follow the last stream at byte ${at}`, { byteOffset: at });
  }
  // Absent (empty) streams: only SH of degree 0.
  if (streams.length === 5) streams.push(new Uint8Array(0));
  return decodeAttributes(streams, h, name, 'spz-v4', options);
}

function u64(v: DataView, at: number, name: string): number {
  const lo = v.getUint32(at, true);
  const hi = v.getUint32(at + 4, true);
  if (hi >= 1 << 21) throw new SpzFormatError(name, `size at byte ${at} is above 2^53`, { byteOffset: at });
  return hi * 2 ** 32 + lo;
}

/** Largest ZSTD window accepted beyond the stream's own size (the decoder allocates the window). */
const MAX_EXTRA_WINDOW = 1 << 23;

/**
 * Checks a ZSTD frame header against the size the table of contents
 * declares, before the decoder allocates anything from it: a declared
 * content size must match, and the window (which the decoder allocates) may
 * not be far larger than the stream.
 */
function checkZstdFrame(src: Uint8Array, size: number, name: string, stream: number, at: number): void {
  const bad = (why: string): never => {
    throw new SpzFormatError(name, `ZSTD stream ${stream} at byte ${at}: ${why}`, { byteOffset: at });
  };
  if (src.length < 6) {
    if (size === 0 && src.length === 0) return;
    bad(`${src.length} bytes cannot hold a frame header`);
  }
  if (src[0] !== 0x28 || src[1] !== 0xb5 || src[2] !== 0x2f || src[3] !== 0xfd) bad('no ZSTD frame magic');
  const fhd = src[4]!;
  const single = (fhd >> 5) & 1;
  const fcsFlag = fhd >> 6;
  const dictBytes = [0, 1, 2, 4][fhd & 3]!;
  if (fhd & 8) bad('reserved frame header bit set');
  const fcsBytes = fcsFlag === 0 ? single : 1 << fcsFlag;
  let p = 5 + (single ? 0 : 1) + dictBytes;
  if (src.length < p + fcsBytes) bad('frame header cut short');
  let window = 0;
  if (!single) {
    const wd = src[5]!;
    const base = 2 ** (10 + (wd >> 3));
    window = base + (base / 8) * (wd & 7);
  }
  if (fcsBytes > 0) {
    let fcs = 0;
    for (let k = fcsBytes - 1; k >= 0; k--) fcs = fcs * 256 + src[p + k]!;
    if (fcsBytes === 2) fcs += 256;
    if (fcs !== size) bad(`the frame declares ${fcs} bytes, the table of contents ${size}`);
    if (single) window = fcs;
  }
  if (window > size + MAX_EXTRA_WINDOW) bad(`a ${window}-byte window for ${size} bytes of data`);
}

/** One ZSTD stream into exactly `size` bytes; more or less is an error. */
function unzstd(src: Uint8Array, size: number, name: string, stream: number, at: number): Uint8Array {
  checkZstdFrame(src, size, name, stream, at);
  const out = new Uint8Array(size);
  let filled = 0;
  let ended = false;
  const d = new ZstdDecompress((chunk, final) => {
    if (filled + chunk.length > size) throw new SpzFormatError(name, `ZSTD stream ${stream} at byte ${at} holds more than its declared ${size} bytes`, { byteOffset: at });
    out.set(chunk, filled);
    filled += chunk.length;
    if (final) ended = true;
  });
  try {
    d.push(src, true);
  } catch (e) {
    if (e instanceof SpzFormatError) throw e;
    throw new DecompressError(name, `corrupt ZSTD stream ${stream} at byte ${at} (${e instanceof Error ? e.message : String(e)})`, { byteOffset: at, cause: e });
  }
  if (filled !== size || (!ended && size > 0)) {
    throw new TruncatedError(name, `ZSTD stream ${stream} at byte ${at} gives ${filled} bytes, its table of contents declares ${size}`, { byteOffset: at });
  }
  return out;
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    if (at >= length) break;
    const take = Math.min(c.length, length - at);
    out.set(c.subarray(0, take), at);
    at += take;
  }
  return out;
}

/** From the six attribute byte arrays to a SplatCloud (through the shared kernel). */
function decodeAttributes(streams: Uint8Array[], h: SpzHeader, name: string, format: string, options: LoadOptions | undefined): SplatCloud {
  const [pos, alpha, colour, scale, rot, shBytes] = streams as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  const n = h.n;
  // Degree 4 is read to 3 (the renderer's maximum), and to maxShDegree when that is lower.
  const degree = keptShDegree(Math.min(h.shDegree, 3) as ShDegree, options);
  const K = shCoeffCount(degree);
  const dim = spzShDim(h.shDegree);
  const { index, stride } = canonicalRowIndex(degree);
  // Canonical rows a batch at a time, so the scratch stays small (a whole
  // file's rows would be about as large as the output again).
  const batch = Math.min(n, DECODE_BATCH_ROWS);
  const rows = new Float32Array(batch * stride);
  const unit = 1 / 2 ** h.fractionalBits;
  const q = [0, 0, 0, 0];
  const sink = new SplatSink(degree, n, name, options);
  const tally = new Tally();
  for (let first = 0; first < n; first += batch) {
    const end = Math.min(n, first + batch);
    for (let i = first; i < end; i++) {
      const r = (i - first) * stride;
      for (let a = 0; a < 3; a++) {
        const b = i * 9 + a * 3;
        const fixed = (pos[b]! | (pos[b + 1]! << 8) | (pos[b + 2]! << 16)) << 8 >> 8; // sign-extend 24 bits
        // RUB -> RDF: y and z negated.
        rows[r + a] = (a === 0 ? 1 : -1) * fixed * unit;
        rows[r + 3 + a] = scale[i * 3 + a]! / 16 - 10;
      }
      if (h.version >= 3) smallestThree(rot, i * 4, q);
      else firstThree(rot, i * 3, q);
      // q is (x, y, z, w); rows want (w, x, y, z), and the frame change negates y and z.
      rows[r + 6] = q[3]!;
      rows[r + 7] = q[0]!;
      rows[r + 8] = -q[1]!;
      rows[r + 9] = -q[2]!;
      const o = alpha[i]! / 255;
      rows[r + 10] = Math.log(o / (1 - o));
      for (let c = 0; c < 3; c++) rows[r + 11 + c] = (colour[i * 3 + c]! / 255 - 0.5) / SPZ_COLOR_SCALE;
      for (let k = 1; k < K; k++) {
        const sign = FLIP_YZ_SH_SIGN[k]!;
        for (let c = 0; c < 3; c++) rows[r + 11 + k * 3 + c] = (sign * (shBytes[(i * dim + k - 1) * 3 + c]! - 128)) / 128;
      }
    }
    decodeSplatRows(rows, 0, stride, end - first, index, sink, tally);
  }
  return sink.finish(format, tally, n);
}

/** Version 3+ rotation: 2-bit index of the largest component, three signed 9-bit magnitudes. */
function smallestThree(rot: Uint8Array, at: number, out: number[]): void {
  let comp = (rot[at]! | (rot[at + 1]! << 8) | (rot[at + 2]! << 16) | (rot[at + 3]! << 24)) >>> 0;
  const largest = comp >>> 30;
  let sum = 0;
  for (let i = 3; i >= 0; i--) {
    if (i === largest) continue;
    const mag = comp & 511;
    const neg = (comp >>> 9) & 1;
    comp >>>= 10;
    const v = (Math.SQRT1_2 * mag) / 511;
    out[i] = neg ? -v : v;
    sum += v * v;
  }
  out[largest] = Math.sqrt(Math.max(0, 1 - sum));
}

/** Version 2 rotation: x, y, z as bytes, w >= 0 from the unit length. */
function firstThree(rot: Uint8Array, at: number, out: number[]): void {
  let sum = 0;
  for (let a = 0; a < 3; a++) {
    const v = rot[at + a]! / 127.5 - 1;
    out[a] = v;
    sum += v * v;
  }
  out[3] = Math.sqrt(Math.max(0, 1 - sum));
}
