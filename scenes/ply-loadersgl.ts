/**
 * The slow but general route: PLYs that the binary fast path does not read
 * (ASCII, big-endian, plain point clouds) go through @loaders.gl/ply. Such
 * files are small in practice (ASCII is ~3x larger per value, and point
 * clouds are not trained splat scenes), so its cost is acceptable here; see
 * ply.ts for why splat files do not take this route.
 */
import { SceneLoadError } from './errors';
import { copyBytes, locateElements, type PlyElement, type PlyHeader } from './ply-header';
import { decodeSplats, looksLikeSplats, resolveSplatProperties } from './ply-decode';
import { SH_C0 } from './sh';
import { rejectVertexLists } from './ply';
import { computeBounds, type SplatCloud } from './splat-cloud';

/** The typed-array view of one attribute of a loaders.gl mesh. */
interface MeshAttribute {
  value: ArrayLike<number>;
  size: number;
}

/**
 * Side length of the isotropic splat made for each point of a plain point
 * cloud, relative to the bounds diagonal / cbrt(N) (the mean spacing of N
 * points spread through the bounds): a quarter of it leaves gaps that show
 * the points as points rather than a blur.
 */
export const POINT_SPLAT_SPACING_FRACTION = 0.25;

/**
 * Reads any PLY through @loaders.gl/ply: 3DGS splat properties when present,
 * else a point cloud turned into small isotropic opaque splats (colour from
 * red/green/blue when present, else mid grey).
 *
 * Checks what loaders.gl does not: a truncated binary body, a missing or list
 * vertex property, an ASCII body with fewer rows than declared.
 *
 * @param bytes - the whole file
 * @param name - file name, for `source` and errors
 * @param header - its header, already parsed
 */
export async function parseWithLoadersGl(bytes: Uint8Array, name: string, header: PlyHeader): Promise<SplatCloud> {
  if (header.format !== 'ascii') locateElements(bytes, header, name);
  const vertex = header.elements.find((e) => e.name === 'vertex');
  if (vertex === undefined) throw new SceneLoadError(name, 'missing-element', 'the header declares no "vertex" element');
  rejectVertexLists(vertex.properties, name);
  const names = vertex.properties.map((p) => p.name);
  const splats = looksLikeSplats(names);
  // Check the header before the (slow) body parse.
  const splatIndex = splats ? resolveSplatProperties(names, name) : null;
  if (!splats) {
    for (const axis of ['x', 'y', 'z']) {
      if (!names.includes(axis)) {
        throw new SceneLoadError(name, 'missing-property', `the vertex element has neither Gaussian splat properties nor point property '${axis}'`, { property: axis });
      }
    }
  }

  const { PLYLoader } = await import('@loaders.gl/ply');
  // loaders.gl reads the whole ArrayBuffer, so hand it one that is exactly the file.
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
    ? bytes.buffer
    : (copyBytes(bytes, 0, bytes.length).buffer as ArrayBuffer);
  let attributes: Record<string, MeshAttribute>;
  try {
    const mesh = await PLYLoader.parse(whole, {});
    attributes = mesh.attributes as unknown as Record<string, MeshAttribute>;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new SceneLoadError(name, 'bad-data', `@loaders.gl/ply could not read the ${header.format} body (${why})`, { byteOffset: header.dataOffset, cause: e });
  }

  const position = attributes['POSITION'];
  const count = position === undefined ? 0 : position.value.length / 3;
  if (count !== vertex.count) {
    throw new SceneLoadError(
      name,
      count < vertex.count ? 'truncated' : 'bad-data',
      `header declares ${vertex.count} vertices but the ${header.format} body after byte ${header.dataOffset} holds ${count}`,
      { byteOffset: header.dataOffset },
    );
  }
  const suffix = header.format === 'ascii' ? '-ascii' : header.format === 'binary_big_endian' ? '-big-endian' : '';

  if (splatIndex !== null) {
    // With no rows loaders.gl returns no attributes at all.
    const rows = count === 0 ? new Float32Array(0) : interleave(vertex, count, attributes, name);
    const arrays = decodeSplats(rows, names.length, count, splatIndex);
    return { ...arrays, bounds: computeBounds(arrays.positions), source: { name, format: `ply${suffix}` } };
  }
  return pointsToSplats(Float32Array.from(position?.value ?? []), attributes['COLOR_0']?.value ?? null, name, `ply-points${suffix}`);
}

/** Rows of one float per vertex property, from loaders.gl's per-attribute arrays. */
function interleave(vertex: PlyElement, count: number, attributes: Record<string, MeshAttribute>, file: string): Float32Array {
  const stride = vertex.properties.length;
  const rows = new Float32Array(count * stride);
  // loaders.gl folds these into vec3 attributes and keeps other properties under their own names.
  const folded: Record<string, [string, number]> = {
    x: ['POSITION', 0], y: ['POSITION', 1], z: ['POSITION', 2],
    nx: ['NORMAL', 0], ny: ['NORMAL', 1], nz: ['NORMAL', 2],
    red: ['COLOR_0', 0], green: ['COLOR_0', 1], blue: ['COLOR_0', 2],
    s: ['TEXCOORD_0', 0], t: ['TEXCOORD_0', 1],
  };
  vertex.properties.forEach((p, j) => {
    const [attr, component] = folded[p.name] ?? [p.name, 0];
    const a = attributes[attr];
    if (a === undefined) {
      // Only properties that splats do not use can be absent here (e.g. a lone
      // `nx`, which loaders.gl drops without ny and nz).
      if (looksLikeSplats([p.name]) || ['x', 'y', 'z'].includes(p.name)) {
        throw new SceneLoadError(file, 'bad-data', `@loaders.gl/ply returned no values for property '${p.name}'`, { property: p.name });
      }
      return;
    }
    const v = a.value;
    const size = a.size;
    for (let i = 0; i < count; i++) rows[i * stride + j] = v[i * size + component]!;
  });
  return rows;
}

/**
 * Turns a plain point cloud into opaque isotropic splats with identity
 * rotation and SH degree 0.
 *
 * @param positions - 3 floats per point
 * @param colors - 3 bytes (0..255) per point, or null for mid grey
 * @param name - file name for `source`
 * @param format - `source.format`
 */
export function pointsToSplats(positions: Float32Array, colors: ArrayLike<number> | null, name: string, format: string): SplatCloud {
  const count = positions.length / 3;
  const bounds = computeBounds(positions);
  const diagonal = Math.hypot(bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1], bounds.max[2] - bounds.min[2]);
  // A single point, or all points in one place, has no spacing to go by.
  const size = diagonal > 0 ? (diagonal / Math.cbrt(count)) * POINT_SPLAT_SPACING_FRACTION : 0.01;
  const scales = new Float32Array(count * 3).fill(size);
  const rotations = new Float32Array(count * 4);
  const opacities = new Float32Array(count).fill(1);
  const sh = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) {
    rotations[i * 4] = 1;
    for (let c = 0; c < 3; c++) sh[i * 3 + c] = colors === null ? 0 : (colors[i * 3 + c]! / 255 - 0.5) / SH_C0;
  }
  return { count, shDegree: 0, positions, scales, rotations, opacities, sh, bounds, source: { name, format } };
}
