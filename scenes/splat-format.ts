/**
 * Reader for the `.splat` format (antimatter15's web viewer and many tools
 * since): no header, no magic, 32 bytes a splat, little-endian:
 *   bytes  0..11  position x, y, z   float32
 *   bytes 12..23  scale x, y, z      float32, linear (not log)
 *   bytes 24..27  colour r, g, b, a  uint8 (a is the opacity, 0..255)
 *   bytes 28..31  rotation w, x, y, z uint8, component = (q - 128) / 128
 *
 * Detection rule (see detect.ts): a file that is not PLY (starts with
 * "ply"), not gzip (1f 8b) and not NGSP, whose size is a positive multiple
 * of 32, is read as .splat.
 */
import { TruncatedError } from './errors';
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
export function parseSplatFile(bytes: Uint8Array, name: string, _options?: LoadOptions): SplatCloud {
  if (bytes.length % SPLAT_ROW_BYTES !== 0) throw cutRow(name, bytes.length);
  const n = bytes.length / SPLAT_ROW_BYTES;
  const sink = new SplatSink(0, n, name);
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

  /** @param totalBytes - the file's size when known, to size the arrays once */
  constructor(private readonly name: string, totalBytes: number | undefined) {
    const hinted = totalBytes === undefined ? STREAM_INITIAL_ROWS : Math.floor(totalBytes / SPLAT_ROW_BYTES);
    this.sink = new SplatSink(0, Math.min(hinted, STREAM_MAX_INITIAL_ROWS), name);
  }

  /** Splats decoded so far (after dropping undrawable ones). */
  get splats(): number {
    return this.sink.count;
  }

  /** Takes the next bytes of the file. */
  feed(chunk: Uint8Array): void {
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
    return this.sink.finish('splat', this.tally, this.rows);
  }
}
