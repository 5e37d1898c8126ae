/**
 * The quads draw's shape vocabulary: the polygon a splat is drawn with, its extent,
 * the order and chunks of the draw, and their text form (bench:frame's `--geometry`).
 * Pure: no GPU objects.
 */
import { DRAW_GEOMETRIES, type DrawGeometry } from '../../stage/draw-settings';

export { DRAW_GEOMETRIES, DRAW_ORDERS, type DrawGeometry, type DrawOrder } from '../../stage/draw-settings';

/**
 * 'splat': the real draw; 'floor': the same geometry with a trivial fragment shader;
 * 'count': the floor's fragments counted into a buffer (covered and contributing
 * pixels; a measurement, slow: atomics per fragment).
 */
export type DrawVariant = 'splat' | 'floor' | 'count';
/** The default: measured fastest on the H200 for the same image (docs/PERFORMANCE.md). */
export const DEFAULT_GEOMETRY: DrawGeometry = 'tri';

/** Triangle-strip vertices of one splat for each geometry (the drawIndirect vertexCount). */
export const VERTICES_PER_SPLAT: Readonly<Record<DrawGeometry, number>> = { quad: 4, rect: 4, hex: 6, oct: 8, tri: 3, auto: 4 };

/** PlayCanvas's extent: quads and fragments stop at 2 sqrt(2) sigma (the `sigmaCut` setting). */
export const CUT_SIGMA = 2 * Math.SQRT2;
/** The forward model's extent. */
export const MODEL_SIGMA = 3;

/** 'auto': the contour-ellipse area (px^2) from which the rectangle is drawn instead of the triangle. */
export const DEFAULT_AUTO_AREA = 256;

/** How the splats are drawn: geometry and extent. */
export interface DrawShape {
  geometry: DrawGeometry;
  /** Stop at 2 sqrt(2) sigma instead of 3 (changes the image). */
  sigmaCut: boolean;
  /** 'auto' only: the rectangle from this contour-ellipse area (px^2) up; default DEFAULT_AUTO_AREA. */
  autoArea?: number;
  /** Draw a plain triangle list (3 vertices a triangle) instead of an instanced strip; default DEFAULT_LIST. */
  list?: boolean;
  /**
   * Front to back in chunks, skipping pixels already opaque (see DrawPass); default
   * DEFAULT_FRONT_TO_BACK. Strips only.
   */
  frontToBack?: boolean;
  /** Front to back: the number of chunks (masks between them); default F2B_CHUNKS. For tests. */
  chunks?: number;
}

/** Front to back unless the shape says otherwise (the quads draw resolves its 'auto' order into the shape: draw-order.ts). */
export const DEFAULT_FRONT_TO_BACK = false;
/**
 * Chunks of the front-to-back draw: chunk c < F2B_CHUNKS - 1 ends at count / 2^(F2B_CHUNKS - 1 - c)
 * of the front-to-back order (the nearest 1/64, then 1/32, ...), the last at count;
 * each chunk but the last is followed by a mask pass.
 */
export const F2B_CHUNKS = 7;
/** The most chunks the chunk buffers hold. */
export const F2B_MAX_CHUNKS = 16;

/** Instanced strips or a triangle list: measured on the H200 (docs/PERFORMANCE.md). */
export const DEFAULT_LIST = false;

/**
 * A draw shape as text, e.g. `oct`, `auto+cut`, `auto:128` (auto's area), `rect@list`:
 * the form of bench:frame's `--geometry` list and of its rows' `draw` column.
 */
export function parseDrawShape(text: string, sigmaCut = false): DrawShape {
  const m = /^([a-z]+)(?::(\d+(?:\.\d+)?))?()(\+cut)?(\+f2b|\+b2f)?(@list|@strip)?$/.exec(text.trim());
  const geometry = m?.[1] as DrawGeometry | undefined;
  if (!m || !geometry || !DRAW_GEOMETRIES.includes(geometry)) {
    throw new Error(`draw shape "${text}": expected GEOMETRY[:AUTO_AREA][+cut][+f2b|+b2f][@list|@strip] with GEOMETRY one of ${DRAW_GEOMETRIES.join(', ')}`);
  }
  const shape: DrawShape = { geometry, sigmaCut: sigmaCut || m[4] !== undefined };
  if (m[5] !== undefined) shape.frontToBack = m[5] === '+f2b';
  if (m[6] !== undefined) shape.list = m[6] === '@list';
  if (shape.frontToBack && shape.list) throw new Error(`draw shape "${text}": front to back draws strips only`);
  if (m[2] !== undefined) {
    if (geometry !== 'auto') throw new Error(`draw shape "${text}": an area is for 'auto' only`);
    shape.autoArea = Number(m[2]);
  }
  return shape;
}

/** The inverse of {@link parseDrawShape}. */
export function formatDrawShape(shape: DrawShape): string {
  const areas = shape.geometry === 'auto' && shape.autoArea !== undefined ? `:${shape.autoArea}` : '';
  const mode = shape.list === undefined ? '' : shape.list ? '@list' : '@strip';
  const order = shape.frontToBack === undefined ? '' : shape.frontToBack ? '+f2b' : '+b2f';
  return `${shape.geometry}${areas}${shape.sigmaCut ? '+cut' : ''}${order}${mode}`;
}

/** Vertices of one splat's triangle list: 3 per triangle of its strip. */
export function triangleVertices(geometry: DrawGeometry): number {
  return 3 * (VERTICES_PER_SPLAT[geometry] - 2);
}

/** The front-to-back draw's chunk count of `shape` (default F2B_CHUNKS). @throws out of 1..F2B_MAX_CHUNKS */
export function chunksOf(shape: DrawShape): number {
  const k = shape.chunks ?? F2B_CHUNKS;
  if (!(Number.isInteger(k) && k >= 1 && k <= F2B_MAX_CHUNKS)) throw new Error(`draw shape: chunks ${k} out of 1..${F2B_MAX_CHUNKS}`);
  return k;
}

/** Whether a frame with this shape and variant is drawn front to back (the real draw only). */
export function drawsFrontToBack(shape: DrawShape, variant: DrawVariant): boolean {
  return variant === 'splat' && (shape.frontToBack ?? DEFAULT_FRONT_TO_BACK) && !(shape.list ?? DEFAULT_LIST);
}
