/**
 * Loading from a byte stream (a File's stream, a fetch body, a Node file
 * stream), for the worker loader and `npm run info`. The format is detected
 * from the first bytes, as loadScene does, then:
 * - binary little-endian splat PLY (the fast path): vertex rows are parsed
 *   as the chunks arrive, straight into the final typed arrays;
 * - .splat: 32-byte rows are decoded as the chunks arrive (a row cut
 *   between chunks is carried); its size is checked at the end;
 * - gzip .spz (versions 2 and 3): inflated as the chunks arrive (fflate's
 *   streaming Gunzip), decoded at the end (its attributes are stored one
 *   after another, so no splat is whole before the last bytes);
 * so for these the compressed or raw file is never held whole: peak memory
 * is the output (for .spz, its inflated attributes too) plus about one chunk
 * (a byte stream is read into one reused buffer: see pullFrom).
 * - Every other format is collected, then read by loadScene's readers:
 *   NGSP (.spz v4: one ZSTD stream per attribute; no splat is whole before
 *   the last stream, so streaming them would only save the compressed copy,
 *   about a tenth of the output), compressed PLY, ASCII and big-endian PLY,
 *   point clouds, PLYs with list elements before the vertices, SOG (a zip
 *   of WebP images) and glTF / GLB (attributes one after another).
 * Progress (bytes, splats) is reported after every chunk; splats stay 0
 * until the end for the formats decoded at the end.
 */
import { isCompressedPlyHeader } from './compressed-ply';
import { LoadAbortedError, ReadFailedError, SceneLoadError, TruncatedError } from './errors';
import { detectKind, loadPly, loadScene, unknownFormatError, type SceneFileGetter } from './load';
import { decodeSplatRows, looksLikeSplats, resolveSplatProperties, type SplatPropertyIndex } from './ply-decode';
import { locateElements, MAX_HEADER_BYTES, rowsNoun, tryParsePlyHeader, type PlyElement, type PlyHeader } from './ply-header';
import { rejectVertexLists, rowsAsFloats } from './ply';
import { SplatSink, Tally } from './sanitize';
import { SplatFileStream } from './splat-format';
import { hasGzipMagic, SpzGzipStream } from './spz';
import type { LoadOptions } from './load-options';
import type { ShDegree, SplatCloud } from './splat-cloud';
import { copyBytes } from './bytes';
import { checkMemory } from './budget';

/** What `onProgress` is told after each chunk. */
export interface LoadProgress {
  /** Bytes received so far. */
  bytes: number;
  /** The size the caller announced, when it did. */
  totalBytes?: number;
  /**
   * Splats decoded so far: for formats decoded at the end (see the module
   * comment) 0 until then, and one last report with the count when done.
   */
  splats: number;
  /**
   * What the file's header declares, once read (the binary PLY fast path): its
   * splat count and the SH degree it loads with (after `maxShDegree`). Lets a
   * caller refuse a scene too large for it before its body is parsed; the
   * cloud may end with fewer splats (those that cannot be drawn are dropped).
   */
  declared?: { splats: number; shDegree: ShDegree };
}

export interface LoadStreamOptions {
  /**
   * The file's size when known (File.size, a Content-Length without
   * content encoding): used to size the output arrays once. It is a hint:
   * truncation is decided by the bytes that actually arrive.
   */
  totalBytes?: number;
  /** Called after every chunk. */
  onProgress?: (progress: LoadProgress) => void;
  /** Cancels the load: the promise rejects with LoadAbortedError and the source is cancelled. */
  signal?: AbortSignal;
  /** The SH bands to keep (LoadOptions); the others are dropped as the rows are decoded. */
  maxShDegree?: LoadOptions['maxShDegree'];
  /** The most memory the load may take (LoadOptions.memoryBudget; default 4 GB). */
  memoryBudget?: LoadOptions['memoryBudget'];
  /** Where the files a meta.json or .gltf names come from (loadScene's getFile). */
  getFile?: SceneFileGetter;
}

/** Where bytes come from: a web ReadableStream or any async iterable (Node streams are). */
export type ByteSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** Rows allocated up front when the total size is unknown (the arrays then double as needed). */
const INITIAL_ROWS = 1 << 16;

/**
 * Loads a scene from a stream of bytes.
 *
 * @param name - file name, for `source` and error messages
 * @param source - the bytes, in chunks of any size
 * @param options - size hint, progress callback, abort signal
 * @returns the same SplatCloud loadScene gives for the same bytes
 * @throws SceneLoadError subclasses: the file's problems as loadScene throws
 *   them, LoadAbortedError when `signal` aborts, ReadFailedError when the
 *   source fails
 */
export async function loadSceneStream(name: string, source: ByteSource, options: LoadStreamOptions = {}): Promise<SplatCloud> {
  const { signal, onProgress, totalBytes, getFile } = options;
  const load: LoadOptions = {
    ...(options.maxShDegree === undefined ? {} : { maxShDegree: options.maxShDegree }),
    ...(options.memoryBudget === undefined ? {} : { memoryBudget: options.memoryBudget }),
  };
  let received = 0;
  const aborted = (): LoadAbortedError => new LoadAbortedError(name, `load cancelled after ${received} bytes`, { byteOffset: received });
  if (signal?.aborted) throw aborted();
  let reported = 0;
  let declared: LoadProgress['declared'];
  const progress = (splats: number): void => {
    reported = splats;
    onProgress?.({ bytes: received, ...(totalBytes === undefined ? {} : { totalBytes }), splats, ...(declared ? { declared } : {}) });
  };
  // Formats decoded at the end report their splats once more, when done.
  const done = (cloud: SplatCloud): SplatCloud => {
    if (cloud.count !== reported) progress(cloud.count);
    return cloud;
  };

  const chunks = readChunks(source, name, signal, () => aborted());
  try {
    // The head: enough bytes to know the format, and for PLY the whole header.
    // The header is re-parsed only each time the head has doubled, so that
    // tiny chunks (or a 1 MB header) cost linear time, not quadratic.
    const head: Uint8Array[] = [];
    let headBytes = 0;
    let header: PlyHeader | null = null;
    let nextParse = 64;
    let ended = false;
    while (true) {
      const r = await chunks.next();
      if (r.done) {
        ended = true;
        break;
      }
      // Copied: a chunk is valid only until the next is read (pullFrom).
      head.push(copyBytes(r.value));
      headBytes += r.value.length;
      received = headBytes;
      progress(0);
      if (headBytes < nextParse && headBytes < MAX_HEADER_BYTES) continue;
      nextParse = headBytes * 2;
      const bytes = concat(head, headBytes);
      head.length = 0;
      head.push(bytes);
      if (detectKind(bytes) !== 'ply') break;
      header = tryParsePlyHeader(bytes, name, false);
      if (header !== null || headBytes >= MAX_HEADER_BYTES) break;
    }
    const first = concat(head, headBytes);
    if (ended) return done(await loadScene(first, name, load, getFile));
    const kind = header === null ? detectKind(first) : 'ply';
    const body: BodyStream | null =
      header !== null ? (streamable(header) ? new RowStream(name, header, totalBytes, load) : null)
      : kind === 'splat' ? new SplatFileStream(name, totalBytes, load)
      : kind === 'spz' && hasGzipMagic(first) ? new SpzGzipStream(name, totalBytes, load)
      : null;
    if (body === null) {
      // Formats read whole (NGSP, compressed PLY, ASCII, PLYs with list
      // elements before the vertices, a PLY head without end_header, SOG,
      // glTF): collect the rest. SOG is a zip whose directory is at its end and
      // whose textures are whole images (WebP decodes a whole image at once);
      // a GLB's or .gltf's JSON says where each attribute lies, and the
      // attributes are stored one after another, so no splat is whole before
      // the last one arrives: streaming them would save only the file's copy.
      const all = [first];
      let total = first.length;
      for (let r = await chunks.next(); !r.done; r = await chunks.next()) {
        all.push(copyBytes(r.value));
        total += r.value.length;
        received = total;
        progress(0);
      }
      const bytes = concat(all, total);
      return done(header === null ? await loadScene(bytes, name, load, getFile) : loadPly(bytes, name, header, load));
    }

    declared = body.declared;
    body.feed(header === null ? first : first.subarray(header.dataOffset));
    progress(body.splats);
    for (let r = await chunks.next(); !r.done; r = await chunks.next()) {
      body.feed(r.value);
      received += r.value.length;
      progress(body.splats);
    }
    // .splat has no signature: only its size (a positive multiple of 32) says it is one, as in loadScene.
    if (kind === 'splat' && detectKind(first, received) !== 'splat') throw unknownFormatError(name, received, first);
    return done(body.finish(received));
  } finally {
    await chunks.return(undefined);
  }
}

/** A format's reader fed as the bytes arrive. */
interface BodyStream {
  /** Takes the next bytes (for PLY: of the body, after the header); valid only during the call: what it keeps, it copies. */
  feed(chunk: Uint8Array): void;
  /** Splats decoded so far, for progress. */
  readonly splats: number;
  /** The count and SH degree the header declares, where it has one (LoadProgress.declared). */
  readonly declared?: { splats: number; shDegree: ShDegree };
  /** The cloud, once every byte is fed (`received`: the file's size). */
  finish(received: number): SplatCloud;
}

/** Whether the fast path can take this PLY as a stream. */
function streamable(h: PlyHeader): boolean {
  if (h.format !== 'binary_little_endian' || isCompressedPlyHeader(h)) return false;
  const v = h.elements.findIndex((e) => e.name === 'vertex');
  if (v < 0) return false;
  const vertex = h.elements[v]!;
  if (vertex.stride === null || !looksLikeSplats(vertex.properties.map((p) => p.name))) return false;
  return h.elements.slice(0, v).every((e) => e.stride !== null);
}

/** Parses vertex rows of a binary little-endian splat PLY as chunks arrive. */
class RowStream implements BodyStream {
  readonly sink: SplatSink;
  private readonly tally = new Tally();
  private readonly vertex: PlyElement;
  private readonly ix: SplatPropertyIndex;
  private readonly stride: number;
  private readonly nprops: number;
  private readonly after: PlyElement[];
  private skip: number;
  private rowsLeft: number;
  private readonly carry: Uint8Array;
  private carryLen = 0;
  private scratch: Float32Array | null = null;
  private readonly trailing: Uint8Array[] = [];
  private trailingBytes = 0;

  get splats(): number {
    return this.sink.count;
  }

  get declared(): { splats: number; shDegree: ShDegree } {
    return { splats: this.vertex.count, shDegree: this.ix.shDegree };
  }

  constructor(private readonly name: string, private readonly header: PlyHeader, totalBytes: number | undefined, load: LoadOptions) {
    const v = header.elements.findIndex((e) => e.name === 'vertex');
    this.vertex = header.elements[v]!;
    rejectVertexLists(this.vertex.properties, name);
    this.ix = resolveSplatProperties(this.vertex.properties.map((p) => p.name), name, load);
    this.stride = this.vertex.stride!;
    this.nprops = this.vertex.properties.length;
    this.skip = header.elements.slice(0, v).reduce((a, e) => a + e.count * e.stride!, 0);
    this.after = header.elements.slice(v + 1);
    this.rowsLeft = this.vertex.count;
    this.carry = new Uint8Array(this.stride);
    // Allocate for the rows the announced size can hold, never more than declared.
    const room = totalBytes === undefined ? INITIAL_ROWS : Math.floor(Math.max(0, totalBytes - header.dataOffset - this.skip) / Math.max(1, this.stride));
    // The count capped by the announced size, within the budget (as loadScene checks it); unannounced, the arrays' growth is.
    if (totalBytes !== undefined) checkMemory(name, Math.min(this.vertex.count, room), this.ix.shDegree, load, 'the header', 0, { element: 'vertex' });
    this.sink = new SplatSink(this.ix.shDegree, Math.min(this.vertex.count, room), name, load);
  }

  /** Takes the next bytes of the body. */
  feed(chunk: Uint8Array): void {
    let off = 0;
    const len = chunk.length;
    if (this.skip > 0) {
      const take = Math.min(this.skip, len);
      this.skip -= take;
      off += take;
    }
    if (this.skip === 0 && this.rowsLeft > 0 && off < len) {
      if (this.carryLen > 0) {
        const take = Math.min(this.stride - this.carryLen, len - off);
        this.carry.set(chunk.subarray(off, off + take), this.carryLen);
        this.carryLen += take;
        off += take;
        if (this.carryLen === this.stride) {
          this.decode(this.carry, 0, 1);
          this.carryLen = 0;
        }
      }
      const full = Math.min(this.rowsLeft, Math.floor((len - off) / this.stride));
      if (full > 0) {
        this.decode(chunk, off, full);
        off += full * this.stride;
      }
      if (this.rowsLeft > 0 && off < len) {
        this.carry.set(chunk.subarray(off), 0);
        this.carryLen = len - off;
        off = len;
      }
    }
    if (off < len) {
      // Bytes after the vertex rows: kept only when a later element has lists (walked at the end).
      if (this.after.some((e) => e.stride === null)) this.trailing.push(copyBytes(chunk, off));
      this.trailingBytes += len - off;
    }
  }

  private decode(bytes: Uint8Array, off: number, rows: number): void {
    const n = rows * this.nprops;
    if (this.scratch === null || this.scratch.length < n) this.scratch = new Float32Array(n);
    const floats = rowsAsFloats(bytes, off, this.vertex, rows, true, this.scratch);
    this.sink.reserve(rows);
    decodeSplatRows(floats, 0, this.nprops, rows, this.ix, this.sink, this.tally);
    this.rowsLeft -= rows;
  }

  finish(received: number): SplatCloud {
    const el = this.vertex;
    if (this.skip > 0 || this.rowsLeft > 0) {
      const done = el.count - this.rowsLeft;
      throw new TruncatedError(
        this.name,
        this.skip > 0
          ? `the file ends at byte ${received} inside the elements before the vertices`
          : `header declares ${el.count} ${rowsNoun(el)} of ${this.stride} bytes but the file ends at byte ${received} after ${done} whole rows`,
        this.skip > 0 ? { byteOffset: received } : { element: 'vertex', byteOffset: received },
      );
    }
    // Elements after the vertices must be present too, as in loadScene.
    const bodyEnd = received - this.trailingBytes;
    const tail = { ...this.header, elements: this.after, dataOffset: 0 };
    const bytes = this.after.some((e) => e.stride === null) ? concat(this.trailing, this.trailingBytes) : { length: this.trailingBytes };
    try {
      if (bytes instanceof Uint8Array) locateElements(bytes, tail, this.name);
      else locateFixed(this.after, this.trailingBytes, bodyEnd, this.name);
    } catch (e) {
      if (e instanceof SceneLoadError && e.byteOffset !== undefined && bytes instanceof Uint8Array) {
        // locateElements counted from the end of the vertex rows: report file offsets.
        const detail = e.message.slice(this.name.length + e.code.length + 4);
        throw new TruncatedError(this.name, `after the vertex rows (which end at byte ${bodyEnd}): ${detail}`, { ...(e.element === undefined ? {} : { element: e.element }), byteOffset: bodyEnd + e.byteOffset });
      }
      throw e;
    }
    return this.sink.finish('ply', this.tally, el.count);
  }
}

/** The size check of locateElements for fixed-stride elements after the vertices, without their bytes. */
function locateFixed(elements: PlyElement[], available: number, start: number, name: string): void {
  let at = 0;
  for (const el of elements) {
    const size = el.count * el.stride!;
    if (size > available - at) {
      throw new TruncatedError(name, `header declares ${el.count} ${rowsNoun(el)} of ${el.stride} bytes (${size} bytes) but only ${available - at} bytes follow at byte ${start + at}`, {
        element: el.name, byteOffset: start + at,
      });
    }
    at += size;
  }
}

/** Chunks of a source, as an async generator that aborts and wraps source errors. */
async function* readChunks(source: ByteSource, name: string, signal: AbortSignal | undefined, aborted: () => LoadAbortedError): AsyncGenerator<Uint8Array, void, undefined> {
  const src = pullFrom(source, signal);
  let done = false;
  try {
    while (true) {
      let r: IteratorResult<unknown>;
      try {
        r = await src.next();
      } catch (e) {
        if (e instanceof SceneLoadError) throw e;
        if (signal?.aborted) throw aborted();
        throw new ReadFailedError(name, `reading the file failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      if (signal?.aborted) throw aborted();
      if (r.done) {
        done = true;
        return;
      }
      yield asUint8(r.value, name);
    }
  } finally {
    await src.close(!done);
  }
}

/**
 * Bytes a byte stream is read into at a time: one buffer, reused for every read, so
 * a load makes no garbage per chunk (a default reader's fresh chunks, 64 KB-2 MB each
 * from a File in Chromium, were measured adding 0.3-0.8x the file to the page's
 * memory before the collector took them).
 */
export const BYOB_READ_BYTES = 1 << 20;

/**
 * Either kind of source as one pull interface: `next` gives the next chunk,
 * `close` releases the source (cancelling it when the read stopped early).
 * A chunk is valid only until the next call of `next`: a byte stream (a File's,
 * a fetch body) is read into one reused buffer (BYOB_READ_BYTES), so whatever
 * the parsers keep of a chunk they copy. A web stream's pending read is cancelled
 * as soon as `signal` aborts.
 */
function pullFrom(source: ByteSource, signal: AbortSignal | undefined): { next(): Promise<IteratorResult<unknown>>; close(early: boolean): Promise<void> } {
  if ('getReader' in source) {
    const byob = byobReader(source);
    const reader = byob ?? source.getReader();
    const onAbort = (): void => void reader.cancel().catch(() => undefined);
    signal?.addEventListener('abort', onAbort);
    let buffer: ArrayBuffer | null = byob ? new ArrayBuffer(BYOB_READ_BYTES) : null;
    return {
      next: async () => {
        if (!byob) return (reader as ReadableStreamDefaultReader<Uint8Array>).read();
        // The buffer is transferred into the read and comes back as the chunk's.
        const r = await byob.read(new Uint8Array(buffer!));
        if (r.done) return { done: true, value: undefined };
        buffer = r.value.buffer as ArrayBuffer;
        return r;
      },
      close: async (early) => {
        signal?.removeEventListener('abort', onAbort);
        if (early) await reader.cancel().catch(() => undefined);
        reader.releaseLock();
      },
    };
  }
  const it = source[Symbol.asyncIterator]();
  return {
    next: () => it.next(),
    close: async (early) => {
      if (early) await it.return?.(undefined)?.catch?.(() => undefined);
    },
  };
}

/** A BYOB reader of a byte stream, or null for a stream of other chunks (which refuses one). */
function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | null {
  try {
    return (stream as ReadableStream<Uint8Array<ArrayBuffer>>).getReader({ mode: 'byob' });
  } catch (e) {
    if (e instanceof TypeError) return null;
    throw e;
  }
}

function asUint8(v: unknown, name: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  throw new ReadFailedError(name, `the byte source yielded a ${typeof v === 'object' && v !== null ? v.constructor.name : typeof v}, not bytes`);
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1 && parts[0]!.length === length) return parts[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
