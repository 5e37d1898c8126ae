/**
 * Reader for the `.splat` format (antimatter15's web viewer and many tools
 * since): no header, no magic, 32 bytes a splat, little-endian:
 *   bytes  0..11  position x, y, z   float32
 *   bytes 12..23  scale x, y, z      float32, linear (not log)
 *   bytes 24..27  colour r, g, b, a  uint8 (a is the opacity, 0..255)
 *   bytes 28..31  rotation w, x, y, z uint8, component = (q - 128) / 128
 *
 * Detection rule (see load.ts): a file that is not PLY (starts with
 * "ply"), not gzip (1f 8b) and not NGSP, whose size is a positive multiple
 * of 32, and whose first rows (SPLAT_SAMPLE_ROWS of them) are mostly plausible
 * splats (plausibleSplatRow: finite positions within 1e7, finite scales in
 * [0, 1e6], rotation bytes that make a quaternion of length 0.8..1.2), is read as
 * .splat. Anything else is an UnknownFormatError that says what the bytes look
 * like (describeBytes: e.g. "a PLY whose first line is damaged").
 */
import { TruncatedError, UnknownFormatError } from './errors';
import { checkMemory } from './budget';
import { canonicalRowIndex, decodeSplatRows } from './ply-decode';
import { SH_C0 } from './sh';
import { SplatSink, Tally } from './sanitize';
import type { LoadOptions } from './load-options';
import type { SplatCloud } from './splat-cloud';

/** Bytes per splat. */
export const SPLAT_ROW_BYTES = 32;

/**
 * Decodes a .splat file. A scale <= 0 or NaN, a NaN/Inf position are dropped
 * and counted like every other loader's undrawable values.
 *
 * .splat holds SH degree 0 only, so `LoadOptions.maxShDegree` changes nothing here.
 *
 * @throws TruncatedError when the size is not a multiple of 32, EmptySceneError when it is 0
 */
export function parseSplatFile(bytes: Uint8Array, name: string, options?: LoadOptions): SplatCloud {
  if (bytes.length % SPLAT_ROW_BYTES !== 0) throw cutRow(name, bytes.length);
  const n = bytes.length / SPLAT_ROW_BYTES;
  const sampled = Math.min(n, SPLAT_SAMPLE_ROWS);
  const plausible = plausibleSplatRows(bytes, 0, sampled);
  if (!enoughPlausible(plausible, sampled)) throw implausibleSplats(name, bytes, plausible, sampled);
  checkMemory(name, n, 0, options, "the .splat file's size");
  const sink = new SplatSink(0, n, name, options);
  const tally = new Tally();
  // A batch at a time, so the canonical-row scratch stays small.
  let scratch: Float32Array | null = null;
  for (let done = 0; done < n; done += STREAM_BATCH_ROWS) {
    scratch = decodeSplatFileRows(bytes, done * SPLAT_ROW_BYTES, Math.min(STREAM_BATCH_ROWS, n - done), sink, tally, scratch);
  }
  return sink.finish('splat', tally, n);
}

function cutRow(name: string, size: number): TruncatedError {
  return new TruncatedError(name, `a .splat file is 32 bytes a splat, but this one has ${size} bytes (${size % SPLAT_ROW_BYTES} after the last whole splat at byte ${size - (size % SPLAT_ROW_BYTES)})`, {
    byteOffset: size - (size % SPLAT_ROW_BYTES),
  });
}

const CANONICAL = canonicalRowIndex(0);

/**
 * Appends `n` whole .splat rows starting at byte `off` of `bytes` to `sink`
 * (through the shared kernel). `scratch` holds the canonical float rows when
 * large enough (streams reuse one); returns the scratch used.
 */
function decodeSplatFileRows(bytes: Uint8Array, off: number, n: number, sink: SplatSink, tally: Tally, scratch: Float32Array | null): Float32Array {
  const { index, stride } = CANONICAL;
  const rows = scratch !== null && scratch.length >= n * stride ? scratch : new Float32Array(n * stride);
  const view = new DataView(bytes.buffer, bytes.byteOffset + off, n * SPLAT_ROW_BYTES);
  for (let i = 0; i < n; i++) {
    const b = i * SPLAT_ROW_BYTES;
    const r = i * stride;
    for (let a = 0; a < 3; a++) {
      rows[r + a] = view.getFloat32(b + a * 4, true);
      // log of a linear scale: 0 -> -Inf (scale 0), negative -> NaN (dropped).
      rows[r + 3 + a] = Math.log(view.getFloat32(b + 12 + a * 4, true));
    }
    for (let a = 0; a < 4; a++) rows[r + 6 + a] = (view.getUint8(b + 28 + a) - 128) / 128;
    const alpha = view.getUint8(b + 27) / 255;
    rows[r + 10] = Math.log(alpha / (1 - alpha)); // 0 -> -Inf, 1 -> +Inf: sigmoid gives them back exactly
    for (let c = 0; c < 3; c++) rows[r + 11 + c] = (view.getUint8(b + 24 + c) / 255 - 0.5) / SH_C0;
  }
  sink.reserve(n);
  decodeSplatRows(rows, 0, stride, n, index, sink, tally);
  return rows;
}

/** Rows at the start of a .splat that must be mostly plausible splats (the format has no magic). */
export const SPLAT_SAMPLE_ROWS = 64;

/**
 * Whether the 32 bytes at `at` look like a .splat row: finite positions within
 * 1e7, finite scales in [0, 1e6], and rotation bytes whose quaternion ((q - 128) /
 * 128) has a length in 0.8..1.2 (a writer stores a unit quaternion; text or
 * random bytes rarely make one). Opacity and colour bytes can be anything.
 */
export function plausibleSplatRow(bytes: Uint8Array, at: number): boolean {
  const v = new DataView(bytes.buffer, bytes.byteOffset + at, SPLAT_ROW_BYTES);
  for (let a = 0; a < 3; a++) {
    const p = v.getFloat32(a * 4, true);
    if (!(p >= -1e7 && p <= 1e7)) return false;
    const s = v.getFloat32(12 + a * 4, true);
    if (!(s >= 0 && s <= 1e6)) return false;
  }
  let len2 = 0;
  for (let a = 0; a < 4; a++) len2 += ((v.getUint8(28 + a) - 128) / 128) ** 2;
  return len2 >= 0.64 && len2 <= 1.44;
}

/** How many of `n` rows from byte `at` are plausible. */
function plausibleSplatRows(bytes: Uint8Array, at: number, n: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (plausibleSplatRow(bytes, at + i * SPLAT_ROW_BYTES)) k++;
  return k;
}

/** At least three quarters of the sampled rows plausible. */
function enoughPlausible(plausible: number, sampled: number): boolean {
  return plausible * 4 >= sampled * 3;
}

function implausibleSplats(name: string, head: Uint8Array, plausible: number, sampled: number): UnknownFormatError {
  return new UnknownFormatError(
    name,
    `not a scene file we read: it has no signature, and as a .splat (32 bytes a splat, no header) only ${plausible} of its first ${sampled} rows are plausible splats (finite positions and scales, a rotation that normalises); it looks like ${describeBytes(head)}`,
    { byteOffset: 0 },
  );
}

/**
 * What bytes with no known signature look like, for an UnknownFormatError: "a PLY
 * whose first line is damaged", "JSON", "text", or "binary data (first bytes ...)".
 */
export function describeBytes(head: Uint8Array): string {
  const t = new TextDecoder('latin1').decode(head.subarray(0, 4096));
  const first = (head.subarray(0, 8).length ? Array.from(head.subarray(0, 8), (x) => x.toString(16).padStart(2, '0')).join(' ') : 'none');
  if (/\n\s*format\s+(ascii|binary_little_endian|binary_big_endian)\b/.test(t) || /\nelement\s+\S+\s+\d+/.test(t) || /\nend_header\r?\n/.test(t)) {
    return `a PLY whose first line is damaged (it must be "ply"; it is ${JSON.stringify(t.slice(0, Math.max(0, t.indexOf('\n'))).slice(0, 20))})`;
  }
  let printable = 0;
  const n = Math.min(head.length, 4096);
  for (let i = 0; i < n; i++) {
    const c = head[i]!;
    if ((c >= 0x20 && c < 0x7f) || c === 0x09 || c === 0x0a || c === 0x0d) printable++;
  }
  if (n > 0 && printable === n) return /^\s*[{[]/.test(t) ? `JSON or other text (first bytes ${first})` : `text (first bytes ${first})`;
  return `binary data of no format we know (first bytes ${first})`;
}

/** Rows a stream allocates before it has seen any (its arrays then double as needed). */
const STREAM_INITIAL_ROWS = 1 << 16;
/** Rows decoded at a time (the canonical-row scratch holds this many). */
const STREAM_BATCH_ROWS = 1 << 14;
/** Most rows a stream allocates up front from a size hint (a hint can lie). */
const STREAM_MAX_INITIAL_ROWS = 1 << 22;

/**
 * A .splat file read as its bytes arrive: every whole 32-byte row is decoded
 * straight into the output arrays, a row cut between chunks is carried (at
 * most 31 bytes), so the file's bytes are never held whole. Gives the same
 * cloud as parseSplatFile on the same bytes. The caller decides first that
 * the bytes are .splat at all (no other signature, a size that is a
 * positive multiple of 32: see load.ts).
 */
export class SplatFileStream {
  private readonly sink: SplatSink;
  private readonly tally = new Tally();
  private readonly carry = new Uint8Array(SPLAT_ROW_BYTES);
  private carryLen = 0;
  private rows = 0;
  private scratch: Float32Array | null = null;
  /** The first bytes (for the message when the rows are not plausible splats). */
  private readonly head = new Uint8Array(4096);
  private headLen = 0;
  /** Of the first SPLAT_SAMPLE_ROWS rows: how many were seen, how many plausible. */
  private sampled = 0;
  private plausible = 0;
  /** The rows the announced size holds, checked against the budget once the first rows are judged .splat. */
  private readonly hinted: number | null;
  private readonly options: LoadOptions | undefined;

  /**
   * @param totalBytes - the file's size when known, to size the arrays once
   * @param options - `memoryBudget`: the arrays never grow past it
   */
  constructor(private readonly name: string, totalBytes: number | undefined, options?: LoadOptions) {
    const hinted = totalBytes === undefined ? STREAM_INITIAL_ROWS : Math.floor(totalBytes / SPLAT_ROW_BYTES);
    this.hinted = totalBytes === undefined ? null : hinted;
    this.options = options;
    this.sink = new SplatSink(0, Math.min(hinted, STREAM_MAX_INITIAL_ROWS), name, options);
  }

  /** Splats decoded so far (after dropping undrawable ones). */
  get splats(): number {
    return this.sink.count;
  }

  /** Takes the next bytes of the file. */
  feed(chunk: Uint8Array): void {
    if (this.headLen < this.head.length) {
      const take = Math.min(this.head.length - this.headLen, chunk.length);
      this.head.set(chunk.subarray(0, take), this.headLen);
      this.headLen += take;
    }
    let off = 0;
    if (this.carryLen > 0) {
      const take = Math.min(SPLAT_ROW_BYTES - this.carryLen, chunk.length);
      this.carry.set(chunk.subarray(0, take), this.carryLen);
      this.carryLen += take;
      off = take;
      if (this.carryLen < SPLAT_ROW_BYTES) return;
      this.decode(this.carry, 0, 1);
      this.carryLen = 0;
    }
    const whole = Math.floor((chunk.length - off) / SPLAT_ROW_BYTES);
    if (whole > 0) this.decode(chunk, off, whole);
    off += whole * SPLAT_ROW_BYTES;
    this.carry.set(chunk.subarray(off), 0);
    this.carryLen = chunk.length - off;
  }

  private decode(bytes: Uint8Array, off: number, n: number): void {
    // The first rows judged before any is decoded, as parseSplatFile does.
    if (this.sampled < SPLAT_SAMPLE_ROWS) {
      const k = Math.min(n, SPLAT_SAMPLE_ROWS - this.sampled);
      this.plausible += plausibleSplatRows(bytes, off, k);
      this.sampled += k;
      if (this.sampled === SPLAT_SAMPLE_ROWS) this.judge();
    }
    // In batches, so a large chunk does not need a large scratch array.
    for (let done = 0; done < n; done += STREAM_BATCH_ROWS) {
      const k = Math.min(STREAM_BATCH_ROWS, n - done);
      this.scratch = decodeSplatFileRows(bytes, off + done * SPLAT_ROW_BYTES, k, this.sink, this.tally, this.scratch);
    }
    this.rows += n;
  }

  /**
   * The finished cloud.
   *
   * @param received - the file's size
   * @throws TruncatedError when a row is cut short, EmptySceneError when nothing is left
   */
  finish(received: number): SplatCloud {
    if (this.carryLen > 0) throw cutRow(this.name, received);
    if (this.sampled < SPLAT_SAMPLE_ROWS) this.judge();
    return this.sink.finish('splat', this.tally, this.rows);
  }

  private judge(): void {
    if (!enoughPlausible(this.plausible, this.sampled)) throw implausibleSplats(this.name, this.head.subarray(0, this.headLen), this.plausible, this.sampled);
    if (this.hinted !== null) checkMemory(this.name, this.hinted, 0, this.options, "the .splat file's size");
  }
}
