/**
 * The entry point for reading a scene file: detects the format from the
 * content (never the file name) and hands the bytes to the reader that fits.
 *
 * Detection, in this order (the first bytes decide):
 * - starts with "ply": PLY (a malformed magic line is a PLY error);
 * - starts with 1f 8b (gzip): SPZ versions 2 and 3;
 * - starts with "NGSP": SPZ version 4;
 * - starts with "PK\x03\x04" (a zip): a bundled SOG (the zip must hold meta.json);
 * - starts with "glTF": a GLB (glTF 2.0 binary) with KHR_gaussian_splatting;
 * - starts with "{" and holds "asset" and "KHR_gaussian_splatting": a .gltf
 *   JSON (its buffers as data: URIs, or files fetched with `getFile`);
 * - starts with "{" and holds "means" and "quats": an unbundled SOG's
 *   meta.json (its WebP files fetched with `getFile`);
 * - starts with "{" and holds "lodLevels" and "filenames": a streamed LOD
 *   manifest (lod-meta.json); loadScene reads its finest level whole, its SOG
 *   files fetched with `getFile` (renderer/lod streams it under a budget);
 * - otherwise, a size that is a positive multiple of 32 whose first rows are
 *   mostly plausible splats: .splat (it has no magic; 32 bytes a splat;
 *   splat-format.ts plausibleSplatRow);
 * - anything else: UnknownFormatError.
 */
import { isCompressedPlyHeader, parseCompressedPly } from './compressed-ply';
import { MissingElementError, UnknownFormatError, UnsupportedError } from './errors';
import { looksLikeSplats } from './ply-decode';
import { parseGeneralPly } from './ply-general';
import { asBytes, parsePlyHeader, type PlyHeader } from './ply-header';
import { parseSplatPly } from './ply';
import { hasGlbMagic, loadGltfFiles, looksLikeGltfJson, parseGlb, parseGltfJson } from './gltf';
import { loadLodFinest, looksLikeLodMeta } from './lod-meta';
import { loadSogFiles, looksLikeSogMeta, parseSog } from './sog';
import { describeBytes, parseSplatFile, SPLAT_ROW_BYTES } from './splat-format';
import { hasGzipMagic, hasNgspMagic, parseSpz } from './spz';
import { hasZipMagic } from './zip';
import type { LoadOptions } from './load-options';
import type { SplatCloud } from './splat-cloud';

export type { LoadOptions } from './load-options';

export { SceneLoadError } from './errors';

/**
 * Values of `SplatCloud.source.format` that loadScene produces:
 * - `ply`: binary little-endian 3DGS PLY (the fast path)
 * - `compressed-ply`: PlayCanvas/SuperSplat compressed PLY
 * - `ply-ascii`, `ply-big-endian`: 3DGS PLY in those encodings
 * - `ply-points`, `ply-points-ascii`, `ply-points-big-endian`: a plain point
 *   cloud (x, y, z and optionally red, green, blue) shown as small splats
 * - `splat`: the 32-byte-a-splat .splat format
 * - `spz-v2`, `spz-v3`, `spz-v4`: Niantic's .spz
 * - `sog`: PlayCanvas SOG (bundled .sog, or meta.json and its WebP files)
 * - `glb`, `gltf`: glTF 2.0 with KHR_gaussian_splatting
 * - `lod`: a streamed LOD manifest's finest level (lod-meta.json and its SOG files)
 */
export type SceneFormat =
  | 'ply'
  | 'compressed-ply'
  | 'ply-ascii'
  | 'ply-big-endian'
  | 'ply-points'
  | 'ply-points-ascii'
  | 'ply-points-big-endian'
  | 'splat'
  | 'spz-v2'
  | 'spz-v3'
  | 'spz-v4'
  | 'sog'
  | 'glb'
  | 'gltf'
  | 'lod';

/** The container a file's first bytes announce. */
export type DetectedKind = 'ply' | 'spz' | 'sog' | 'glb' | 'json' | 'splat' | 'unknown';

/**
 * What the first bytes say the file is (see the module comment). `size` is
 * the whole file's size when known; without it a file with no signature is
 * 'splat' (the caller checks the size when it has all bytes). 'json': it
 * starts with "{", a .gltf when the content says so (looksLikeGltfJson), else
 * judged as bytes without a signature; all three of sog, glb and json are read whole.
 */
export function detectKind(head: Uint8Array, size?: number): DetectedKind {
  if (head.length >= 3 && head[0] === 0x70 && head[1] === 0x6c && head[2] === 0x79) return 'ply';
  if (hasGzipMagic(head) || hasNgspMagic(head)) return 'spz';
  if (hasZipMagic(head)) return 'sog';
  if (hasGlbMagic(head)) return 'glb';
  if (startsWithBrace(head)) return 'json';
  if (size === undefined) return 'splat';
  return size > 0 && size % SPLAT_ROW_BYTES === 0 ? 'splat' : 'unknown';
}

/**
 * Fetches a file that a scene file names beside itself (an unbundled SOG's
 * WebP textures, a .gltf's .bin), by the name as written there (relative to
 * the scene file; a glTF URI already percent-decoded). Rejects when there is
 * none: a plain Error's message is wrapped in a ReadFailedError that names
 * the file; a SceneLoadError passes through.
 */
export type SceneFileGetter = (name: string) => Promise<Uint8Array>;

/**
 * Loads a scene file into a SplatCloud.
 *
 * @param bytes - the whole file
 * @param name - file name, shown in `source` and in error messages
 * @param options - `maxShDegree`: the SH bands to keep (the others are dropped while parsing)
 * @param getFile - where the files a meta.json or .gltf names come from (a
 *   URL's folder, the files dropped with it); without it such a scene is
 *   refused with UnsupportedError
 * @throws SceneLoadError (a subclass per cause; one-line message naming the
 *   file) for any problem with the file; other errors are bugs
 */
export async function loadScene(bytes: ArrayBuffer | Uint8Array, name: string, options?: LoadOptions, getFile?: SceneFileGetter): Promise<SplatCloud> {
  const data = asBytes(bytes);
  const kind = detectKind(data, data.length);
  // SOG's WebP textures decode asynchronously (scenes/webp.ts); every other format is read synchronously.
  if (kind === 'sog') return parseSog(data, name, options);
  if (kind === 'json' && getFile !== undefined) {
    if (looksLikeSogMeta(data)) return loadSogFiles(data, getFile, name, options);
    if (looksLikeGltfJson(data)) return loadGltfFiles(data, getFile, name, options);
    if (looksLikeLodMeta(data)) return loadLodFinest(data, getFile, name, options);
  }
  return loadSceneSync(data, name, options);
}

/**
 * loadScene without the promise, for every format but SOG (whose WebP
 * decoding is asynchronous: it throws UnsupportedError for one).
 */
export function loadSceneSync(data: Uint8Array, name: string, options?: LoadOptions): SplatCloud {
  switch (detectKind(data, data.length)) {
    case 'sog':
      throw new UnsupportedError(name, 'a SOG (zip) decodes its WebP textures asynchronously: load it with loadScene or loadSceneStream', { byteOffset: 0 });
    case 'glb':
      return parseGlb(data, name, options);
    case 'json':
      if (looksLikeGltfJson(data)) return parseGltfJson(data, name, options);
      if (looksLikeSogMeta(data)) {
        throw new UnsupportedError(name, "a SOG meta.json whose WebP files lie beside it: open it together with them (its folder, or every file at once) or by URL", { byteOffset: 0 });
      }
      if (looksLikeLodMeta(data)) {
        throw new UnsupportedError(name, 'a streamed LOD manifest (lod-meta.json) whose SOG files lie beside it: open it together with them (its folder) or by URL', { byteOffset: 0 });
      }
      if (data.length > 0 && data.length % SPLAT_ROW_BYTES === 0) return parseSplatFile(data, name, options);
      throw unknownFormatError(name, data.length, data);
    case 'ply':
      return loadPly(data, name, parsePlyHeader(data, name), options);
    case 'spz':
      return parseSpz(data, name, options);
    case 'splat':
      return parseSplatFile(data, name, options);
    default:
      throw unknownFormatError(name, data.length, data);
  }
}

/** The error for bytes of no format we read (`head`: at least the first 4 bytes, when the file has them). */
export function unknownFormatError(name: string, size: number, head: Uint8Array): UnknownFormatError {
  return new UnknownFormatError(
    name,
    `not a scene file we read: no PLY ("ply"), gzip SPZ (1f 8b), NGSP, zip (SOG), "glTF" signature or glTF JSON with KHR_gaussian_splatting, and ${size} bytes is not a positive multiple of 32 for .splat; it looks like ${describeBytes(head)}`,
    { byteOffset: 0 },
  );
}

/** A PLY whose header is parsed: the compressed, fast or general reader. */
export function loadPly(data: Uint8Array, name: string, header: PlyHeader, options?: LoadOptions): SplatCloud {
  if (header.format === 'binary_little_endian') {
    if (isCompressedPlyHeader(header)) return parseCompressedPly(data, name, header, options);
    const vertex = header.elements.find((e) => e.name === 'vertex');
    if (vertex === undefined) throw new MissingElementError(name, 'the header declares no "vertex" element');
    if (looksLikeSplats(vertex.properties.map((p) => p.name))) return parseSplatPly(data, name, header, options);
  }
  return parseGeneralPly(data, name, header, options);
}

/** Whether the first byte that is not JSON whitespace is "{". */
function startsWithBrace(b: Uint8Array): boolean {
  for (let i = 0; i < b.length && i < 256; i++) {
    const c = b[i]!;
    if (c === 0x7b) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}
