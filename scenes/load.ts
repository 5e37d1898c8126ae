/**
 * The entry point for reading a scene file: sniffs the PLY flavour and hands
 * it to the reader that fits.
 */
import { isCompressedPlyHeader, parseCompressedPly } from './compressed-ply';
import { SceneLoadError } from './errors';
import { looksLikeSplats } from './ply-decode';
import { asBytes, parsePlyHeader } from './ply-header';
import { parseWithLoadersGl } from './ply-loadersgl';
import { parseSplatPly } from './ply';
import type { SplatCloud } from './splat-cloud';

export { SceneLoadError } from './errors';

/**
 * Values of `SplatCloud.source.format` that loadScene produces:
 * - `ply`: binary little-endian 3DGS PLY (the fast path)
 * - `compressed-ply`: PlayCanvas/SuperSplat compressed PLY
 * - `ply-ascii`, `ply-big-endian`: 3DGS PLY in those encodings (loaders.gl)
 * - `ply-points`, `ply-points-ascii`, `ply-points-big-endian`: a plain point
 *   cloud (x, y, z and optionally red, green, blue) shown as small splats
 */
export type SceneFormat =
  | 'ply'
  | 'compressed-ply'
  | 'ply-ascii'
  | 'ply-big-endian'
  | 'ply-points'
  | 'ply-points-ascii'
  | 'ply-points-big-endian';

/**
 * Loads a scene file into a SplatCloud.
 *
 * Dispatch: a compressed PLY goes to the compressed reader; a binary
 * little-endian PLY with splat properties to the fast path; anything else
 * that is PLY (ASCII, big-endian, or a plain point cloud) to @loaders.gl/ply.
 *
 * @param bytes - the whole file
 * @param name - file name, shown in `source` and in error messages
 * @throws SceneLoadError (one-line message naming the file) for any problem
 *   with the file; other errors are bugs
 */
export async function loadScene(bytes: ArrayBuffer | Uint8Array, name: string): Promise<SplatCloud> {
  const data = asBytes(bytes);
  const header = parsePlyHeader(data, name);
  if (header.format === 'binary_little_endian') {
    if (isCompressedPlyHeader(header)) return parseCompressedPly(data, name, header);
    const vertex = header.elements.find((e) => e.name === 'vertex');
    if (vertex === undefined) throw new SceneLoadError(name, 'missing-element', 'the header declares no "vertex" element');
    if (looksLikeSplats(vertex.properties.map((p) => p.name))) return parseSplatPly(data, name, header);
  }
  return parseWithLoadersGl(data, name, header);
}
