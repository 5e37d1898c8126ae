/**
 * A small zip reader for containers of scene files (the bundled .sog). Ours
 * rather than fflate's unzipSync because unzipSync allocates each entry's
 * output from the size its header declares, before any check, and reads the
 * central directory without bounds checks: here every offset and size is
 * checked against the file before it is used, an entry is inflated only when
 * asked for (SOG reads the entries its meta.json names), its declared size
 * must be one deflate can reach from its compressed size, and its CRC-32 must
 * match. fflate does the inflating.
 *
 * Facts of the format (PKWARE APPNOTE): the end-of-central-directory record
 * (50 4b 05 06, 22 bytes plus a comment of up to 65535) at the end of the file
 * gives the entry count (u16 at 10), the directory's size (u32 at 12) and
 * offset (u32 at 16); each central directory entry (50 4b 01 02, 46 bytes)
 * holds flags (u16 at 8), method (u16 at 10: 0 stored, 8 deflate), CRC-32
 * (u32 at 16), compressed and uncompressed sizes (u32 at 20, 24), name, extra
 * and comment lengths (u16 at 28, 30, 32) and its local header's offset (u32
 * at 42), the name at 46; each local header (50 4b 03 04, 30 bytes) has its
 * own name and extra lengths (u16 at 26, 28) before the data. ZIP64 and
 * encrypted entries are not read.
 */
import { inflateSync } from 'fflate';
import { crc32 } from './crc32';
import { TooLargeError, TruncatedError, UnsupportedError, ZipFormatError } from './errors';
import { checkInflation, formatBytes } from './budget';
import { memoryBudgetOf, type LoadOptions } from './load-options';

/** Local file header signature "PK\x03\x04" (the first bytes of a zip that starts with an entry). */
export function hasZipMagic(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

/** Deflate's largest expansion (a run-length stream turns 1 byte into 258 at best, about 1032:1 with block overhead). */
const DEFLATE_MAX_RATIO = 1032;

export interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  /** Where its local header is. */
  localOffset: number;
}

export class ZipArchive {
  readonly entries = new Map<string, ZipEntry>();

  /**
   * Reads the central directory (no entry is inflated yet).
   *
   * @throws ZipFormatError for a malformed end record or directory,
   *   TruncatedError when the directory runs past the end of the file,
   *   UnsupportedError for ZIP64
   */
  /** @param options - `memoryBudget`: no entry larger is inflated (TooLargeError) */
  constructor(private readonly bytes: Uint8Array, private readonly file: string, private readonly options?: LoadOptions) {
    const b = bytes;
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    let eocd = -1;
    for (let at = b.length - 22; at >= Math.max(0, b.length - 22 - 0xffff); at--) {
      if (b[at] === 0x50 && b[at + 1] === 0x4b && b[at + 2] === 0x05 && b[at + 3] === 0x06) {
        eocd = at;
        break;
      }
    }
    if (eocd < 0) throw new ZipFormatError(file, `no zip end-of-central-directory record (50 4b 05 06) in the last ${Math.min(b.length, 22 + 0xffff)} bytes: the zip is cut short or not a zip`, { byteOffset: b.length });
    const count = v.getUint16(eocd + 10, true);
    const cdSize = v.getUint32(eocd + 12, true);
    const cdOffset = v.getUint32(eocd + 16, true);
    if (count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) {
      throw new UnsupportedError(file, `the zip end record at byte ${eocd} points to a ZIP64 directory, which is not read here`, { byteOffset: eocd });
    }
    if (cdOffset + cdSize > eocd) {
      throw new TruncatedError(file, `the zip central directory (${cdSize} bytes at byte ${cdOffset}, end record at byte ${eocd + 16}) runs past the end record at byte ${eocd}`, { byteOffset: eocd + 16 });
    }
    let at = cdOffset;
    const end = cdOffset + cdSize;
    for (let i = 0; i < count; i++) {
      if (at + 46 > end) throw new ZipFormatError(file, `zip central directory entry ${i} at byte ${at} runs past the directory's end at byte ${end}`, { byteOffset: at });
      if (v.getUint32(at, true) !== 0x02014b50) throw new ZipFormatError(file, `zip central directory entry ${i} at byte ${at} has no signature 50 4b 01 02`, { byteOffset: at });
      const flags = v.getUint16(at + 8, true);
      const method = v.getUint16(at + 10, true);
      const nameLen = v.getUint16(at + 28, true);
      const skip = 46 + nameLen + v.getUint16(at + 30, true) + v.getUint16(at + 32, true);
      if (at + skip > end) throw new ZipFormatError(file, `zip central directory entry ${i} at byte ${at} (${skip} bytes) runs past the directory's end at byte ${end}`, { byteOffset: at });
      const name = new TextDecoder().decode(b.subarray(at + 46, at + 46 + nameLen));
      if (flags & 1) throw new UnsupportedError(file, `zip entry '${name}' (directory byte ${at}) is encrypted`, { byteOffset: at + 8 });
      const entry: ZipEntry = {
        name, method, crc: v.getUint32(at + 16, true), compressedSize: v.getUint32(at + 20, true), size: v.getUint32(at + 24, true), localOffset: v.getUint32(at + 42, true),
      };
      if (this.entries.has(name)) throw new ZipFormatError(file, `the zip holds two entries named '${name}' (the second at directory byte ${at})`, { byteOffset: at });
      this.entries.set(name, entry);
      at += skip;
    }
  }

  /**
   * An entry's bytes, inflated and checked (size and CRC-32).
   *
   * @throws ZipFormatError for a bad local header, method, declared size or CRC,
   *   TruncatedError when its data runs past the end of the file
   */
  read(entry: ZipEntry): Uint8Array {
    const { file, bytes: b } = this;
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const where = `zip entry '${entry.name}'`;
    const lo = entry.localOffset;
    if (lo + 30 > b.length) throw new TruncatedError(file, `${where}: its local header at byte ${lo} runs past the end of the file (${b.length} bytes)`, { byteOffset: lo });
    if (v.getUint32(lo, true) !== 0x04034b50) throw new ZipFormatError(file, `${where}: no local header signature 50 4b 03 04 at byte ${lo}`, { byteOffset: lo });
    const start = lo + 30 + v.getUint16(lo + 26, true) + v.getUint16(lo + 28, true);
    if (start + entry.compressedSize > b.length) {
      throw new TruncatedError(file, `${where}: ${entry.compressedSize} bytes of data at byte ${start} run past the end of the file (${b.length} bytes)`, { byteOffset: start });
    }
    const src = b.subarray(start, start + entry.compressedSize);
    let out: Uint8Array;
    if (entry.method === 0) {
      if (entry.size !== entry.compressedSize) throw new ZipFormatError(file, `${where}: stored (not compressed) but declares ${entry.size} bytes from ${entry.compressedSize}`, { byteOffset: lo });
      out = src;
    } else if (entry.method === 8) {
      // Declared sizes checked before the output is allocated: a bomb, more than deflate can reach, or more than the load may hold.
      checkInflation(file, where, entry.size, entry.compressedSize, { byteOffset: lo, element: entry.name });
      if (entry.size > entry.compressedSize * DEFLATE_MAX_RATIO + 64) {
        throw new ZipFormatError(file, `${where}: declares ${entry.size} bytes from ${entry.compressedSize} compressed bytes, more than deflate can expand`, { byteOffset: lo });
      }
      const budget = memoryBudgetOf(this.options);
      if (entry.size > budget) throw new TooLargeError(file, `${where}: declares ${formatBytes(entry.size)}, more than the memory budget of ${formatBytes(budget)} (LoadOptions.memoryBudget)`, { byteOffset: lo, element: entry.name });
      let buf: Uint8Array;
      try {
        buf = new Uint8Array(entry.size);
      } catch (e) {
        throw new TooLargeError(file, `${where}: ${entry.size} bytes cannot be allocated`, { cause: e });
      }
      try {
        out = inflateSync(src, { out: buf });
      } catch (e) {
        throw new ZipFormatError(file, `${where}: corrupt deflate data at byte ${start} (${e instanceof Error ? e.message : String(e)})`, { byteOffset: start, cause: e });
      }
      if (out.length !== entry.size) throw new ZipFormatError(file, `${where}: inflates to ${out.length} bytes, its directory entry declares ${entry.size}`, { byteOffset: start });
    } else {
      throw new UnsupportedError(file, `${where}: compression method ${entry.method} (only 0, stored, and 8, deflate, are read)`, { byteOffset: lo + 8 });
    }
    // The output buffer is exactly the declared size, so data that would overflow it shows as a CRC mismatch.
    if (crc32(out) !== entry.crc) throw new ZipFormatError(file, `${where}: CRC-32 of its ${out.length} bytes does not match the directory's`, { byteOffset: start });
    return out;
  }
}
