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
