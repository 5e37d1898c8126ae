/**
 * Test support for the scene loaders: where the shared real scenes are, and a
 * tiny independent PLY writer for hand-made files (any format, any type, list
 * properties, lying counts). Deliberately shares no code with the readers, so
 * a bug in one is not mirrored in the other.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/** ../shared/scenes as seen from the project root (this file is in scenes/). */
export const SHARED_SCENES_DIR = fileURLToPath(new URL('../../shared/scenes/', import.meta.url));

/** Whether the shared real scenes are present. */
export const haveSharedScenes = fs.existsSync(SHARED_SCENES_DIR);

/**
 * `describe` for tests that need ../shared/scenes. Without the directory: in
 * CI (process.env.CI set) the suite fails saying so; elsewhere it is skipped
 * with a warning, so a checkout without the data still runs the rest.
 */
export function describeShared(name: string, body: () => void): void {
  if (haveSharedScenes) {
    describe(name, body);
  } else if (process.env['CI']) {
    describe(name, () => {
      it('needs the shared scenes directory', () => {
        throw new Error(`shared scenes directory is missing: ${SHARED_SCENES_DIR} (CI must provide ../shared/scenes)`);
      });
    });
  } else {
    console.warn(`skipping "${name}": shared scenes directory is missing: ${SHARED_SCENES_DIR}`);
    describe.skip(name, body);
  }
}

/** Reads a shared scene file as bytes. */
export function readSharedScene(file: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(SHARED_SCENES_DIR + file));
}

/** One property of a hand-made element; `list` is the count type of a list property. */
export interface FixtureProperty {
  name: string;
  /** Type as written in the header (aliases such as float32 are allowed). */
  type: string;
  list?: string;
}

/** One element of a hand-made PLY; a list property's value is a number[]. */
export interface FixtureElement {
  name: string;
  properties: FixtureProperty[];
  rows: (number | number[])[][];
  /** Count written in the header, when it should lie. */
  declaredCount?: number;
}

/** Body encodings the fixture writer supports. */
export type FixtureFormat = 'binary_little_endian' | 'binary_big_endian' | 'ascii';

const SIZES: Record<string, [number, (v: DataView, at: number, x: number, le: boolean) => void]> = {
  char: [1, (v, a, x) => v.setInt8(a, x)], int8: [1, (v, a, x) => v.setInt8(a, x)],
  uchar: [1, (v, a, x) => v.setUint8(a, x)], uint8: [1, (v, a, x) => v.setUint8(a, x)],
  short: [2, (v, a, x, le) => v.setInt16(a, x, le)], int16: [2, (v, a, x, le) => v.setInt16(a, x, le)],
  ushort: [2, (v, a, x, le) => v.setUint16(a, x, le)], uint16: [2, (v, a, x, le) => v.setUint16(a, x, le)],
  int: [4, (v, a, x, le) => v.setInt32(a, x, le)], int32: [4, (v, a, x, le) => v.setInt32(a, x, le)],
  uint: [4, (v, a, x, le) => v.setUint32(a, x, le)], uint32: [4, (v, a, x, le) => v.setUint32(a, x, le)],
  float: [4, (v, a, x, le) => v.setFloat32(a, x, le)], float32: [4, (v, a, x, le) => v.setFloat32(a, x, le)],
  double: [8, (v, a, x, le) => v.setFloat64(a, x, le)], float64: [8, (v, a, x, le) => v.setFloat64(a, x, le)],
};

/**
 * Writes a PLY from explicit rows.
 *
 * @param format - body encoding
 * @param elements - elements in file order
 * @param options.headerPad - extra spaces in a comment line, to move the body's alignment
 * @param options.trailing - bytes appended after the body
 */
export function buildPly(format: FixtureFormat, elements: FixtureElement[], options: { headerPad?: number; trailing?: Uint8Array } = {}): Uint8Array {
  const lines = ['ply', `format ${format} 1.0`];
  if (options.headerPad !== undefined) lines.push(`comment fixture${' '.repeat(options.headerPad)}`);
  for (const el of elements) {
    lines.push(`element ${el.name} ${el.declaredCount ?? el.rows.length}`);
    for (const p of el.properties) lines.push(p.list ? `property list ${p.list} ${p.type} ${p.name}` : `property ${p.type} ${p.name}`);
  }
  lines.push('end_header', '');
  const head = new TextEncoder().encode(lines.join('\n'));

  let body: Uint8Array;
  if (format === 'ascii') {
    const text = elements
      .flatMap((el) => el.rows.map((row) => row.map((v) => (Array.isArray(v) ? [v.length, ...v].join(' ') : numberText(v))).join(' ')))
      .join('\n');
    body = new TextEncoder().encode(text + '\n');
  } else {
    const le = format === 'binary_little_endian';
    let size = 0;
    for (const el of elements) {
      for (const row of el.rows) {
        el.properties.forEach((p, j) => {
          const v = row[j];
          size += Array.isArray(v) ? sizeOf(p.list as string) + v.length * sizeOf(p.type) : sizeOf(p.type);
        });
      }
    }
    body = new Uint8Array(size);
    const view = new DataView(body.buffer);
    let at = 0;
    for (const el of elements) {
      for (const row of el.rows) {
        el.properties.forEach((p, j) => {
          const v = row[j] as number | number[];
          if (Array.isArray(v)) {
            put(view, at, p.list as string, v.length, le);
            at += sizeOf(p.list as string);
            for (const x of v) {
              put(view, at, p.type, x, le);
              at += sizeOf(p.type);
            }
          } else {
            put(view, at, p.type, v, le);
            at += sizeOf(p.type);
          }
        });
      }
    }
  }
  const trailing = options.trailing ?? new Uint8Array(0);
  const out = new Uint8Array(head.length + body.length + trailing.length);
  out.set(head);
  out.set(body, head.length);
  out.set(trailing, head.length + body.length);
  return out;
}

function numberText(v: number): string {
  return Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v);
}

function sizeOf(type: string): number {
  const s = SIZES[type];
  if (s === undefined) throw new Error(`fixture: unknown type ${type}`);
  return s[0];
}

function put(view: DataView, at: number, type: string, x: number, le: boolean): void {
  (SIZES[type] as (typeof SIZES)[string])[1](view, at, x, le);
}

/** The INRIA property names for an SH degree, in the trainer's order. */
export function inriaNames(degree: number): string[] {
  const rest = ((degree + 1) * (degree + 1) - 1) * 3;
  return [
    'x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2',
    ...Array.from({ length: rest }, (_, j) => `f_rest_${j}`),
    'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3',
  ];
}

/** A float property list for names. */
export function floatProps(names: string[], type = 'float'): FixtureProperty[] {
  return names.map((name) => ({ name, type }));
}

/**
 * Hand-made PLYs of the general route (ASCII, big-endian, point clouds in
 * every encoding), for comparing its two readers: splats of SH degree 0..3,
 * point clouds with uchar / ushort / float colours and none, every scalar
 * type, elements before and after the vertices (lists included), special
 * floats in binary bodies, values spelled with exponents and signs.
 */
export function generalRouteFixtures(): { name: string; bytes: Uint8Array }[] {
  const out: { name: string; bytes: Uint8Array }[] = [];
  const formats: FixtureFormat[] = ['ascii', 'binary_big_endian', 'binary_little_endian'];
  const splatRows = (degree: number, n: number): number[][] =>
    Array.from({ length: n }, (_, i) => inriaNames(degree).map((name, j) =>
      name === 'rot_0' ? 1 + i / 8 : name.startsWith('scale') ? -3 + j / 50 : Math.sin(i * 7.3 + j * 1.7) * (j + 1)));
  const pts = Array.from({ length: 9 }, (_, i) => [i * 0.5 - 2, Math.cos(i) * 3, i * i / 7, (i * 37) % 256, (i * 91) % 256, (i * 13) % 256]);
  const pointsEl = (colour: string | null, scale = 1): FixtureElement => ({
    name: 'vertex',
    properties: [...floatProps(['x', 'y', 'z']), ...(colour === null ? [] : ['red', 'green', 'blue'].map((name) => ({ name, type: colour })))],
    rows: pts.map((p) => (colour === null ? p.slice(0, 3) : [...p.slice(0, 3), ...p.slice(3).map((c) => (colour === 'float' ? c / 255 : Math.round(c * scale)))])),
  });
  const face: FixtureElement = { name: 'face', properties: [{ name: 'vertex_indices', type: 'int', list: 'uchar' }], rows: [[[0, 1, 2]], [[2, 3, 4, 5]]] };
  const before: FixtureElement = { name: 'camera', properties: [{ name: 'k', type: 'double' }, { name: 'id', type: 'ushort' }], rows: [[1.5, 7], [-2.25, 9]] };
  for (const format of formats) {
    // Splat files of the general route are ASCII or big-endian (little-endian ones take the fast path).
    if (format !== 'binary_little_endian') {
      for (const degree of [0, 1, 2, 3]) out.push({ name: `splats-sh${degree}-${format}`, bytes: buildPly(format, [{ name: 'vertex', properties: floatProps(inriaNames(degree)), rows: splatRows(degree, 5) }]) });
      out.push({ name: `splats-double-${format}`, bytes: buildPly(format, [{ name: 'vertex', properties: floatProps(inriaNames(1), 'double'), rows: splatRows(1, 4) }]) });
    }
    out.push({ name: `points-uchar-${format}`, bytes: buildPly(format, [pointsEl('uchar')]) });
    out.push({ name: `points-ushort-${format}`, bytes: buildPly(format, [pointsEl('ushort', 257)]) });
    out.push({ name: `points-float-colour-${format}`, bytes: buildPly(format, [pointsEl('float')]) });
    out.push({ name: `points-no-colour-${format}`, bytes: buildPly(format, [pointsEl(null)]) });
    out.push({ name: `points-uint8-alias-${format}`, bytes: buildPly(format, [{ ...pointsEl('uint8') }]) });
    out.push({ name: `points-with-elements-around-${format}`, bytes: buildPly(format, [before, pointsEl('uchar'), face]) });
    out.push({
      name: `points-every-type-${format}`,
      bytes: buildPly(format, [{
        name: 'vertex',
        properties: [
          { name: 'x', type: 'char' }, { name: 'y', type: 'short' }, { name: 'z', type: 'int' },
          { name: 'a', type: 'uint' }, { name: 'b', type: 'double' }, { name: 'c', type: 'float64' }, { name: 'd', type: 'int16' },
        ],
        rows: [[-128, -32768, -2147483648, 4294967295, 1e300, -1e-300, 32767], [127, 32767, 2147483647, 0, -0, 5e-324, -1], [0, 1, -1, 16777217, 0.1, 3.4e38, 0]],
      }]),
    });
    if (format !== 'ascii') {
      // Special floats in a binary body (ASCII spelled inf is a case of its own, see ply-ascii.ts).
      out.push({ name: `points-special-floats-${format}`, bytes: buildPly(format, [{ name: 'vertex', properties: floatProps(['x', 'y', 'z', 'w']), rows: [[NaN, 1, 2, 3], [Infinity, -Infinity, -0, 1e-45], [1, 2, 3, 3.4e38]] }]) });
    }
  }
  // ASCII spellings parseFloat reads as we do: exponents, signs, leading dots, NaN, Infinity, CRLF rows.
  const head = (n: number): string => `ply\nformat ascii 1.0\nelement vertex ${n}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n`;
  out.push({ name: 'points-ascii-spellings', bytes: new TextEncoder().encode(head(4) + '1e3 -.5 +2. 0 +255 007\r\n  -1.5E-3\t2e+1 NaN 1 2 3  \r\n\r\n-Infinity Infinity 0.1 4 5 6\n3 2 1 7 8 9') });
  return out;
}
