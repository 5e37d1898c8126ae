/**
 * One minimal file per cause of issue 10's fuzz findings: each must give a
 * consistent cloud (with what was dropped or clamped counted) or the typed
 * error of its cause.
 */
import { describe, expect, it } from 'vitest';
import {
  ChunkRangeError, DuplicateNameError, EmptyElementError, EmptySceneError, ExtraDataError, BadValueError,
  HeaderSyntaxError, SceneLoadError, TruncatedError, UnknownTypeError,
} from './errors';
import { loadScene, loadSceneSync } from './load';
import { buildPly, floatProps, inriaNames, type FixtureElement, type FixtureFormat } from './ply-fixtures';
import { MAX_SCALE } from './sanitize';
import type { SplatCloud } from './splat-cloud';

const FORMATS: FixtureFormat[] = ['binary_little_endian', 'binary_big_endian', 'ascii'];

function splats(rows: Record<string, number>[], degree = 0): FixtureElement {
  const names = inriaNames(degree);
  return { name: 'vertex', properties: floatProps(names), rows: rows.map((o) => names.map((n) => o[n] ?? (n === 'rot_0' ? 1 : n.startsWith('scale') ? -2 : 0.25))) };
}

function points(rows: number[][], colourType = 'uchar'): FixtureElement {
  return {
    name: 'vertex',
    properties: [...floatProps(['x', 'y', 'z']), ...['red', 'green', 'blue'].map((name) => ({ name, type: colourType }))],
    rows,
  };
}

/** The header text of a file, edited, with the same body. */
function editHeader(bytes: Uint8Array, edit: (header: string) => string): Uint8Array {
  const text = new TextDecoder('latin1').decode(bytes);
  const end = text.indexOf('end_header\n') + 11;
  const head = Uint8Array.from(edit(text.slice(0, end)), (c) => c.charCodeAt(0));
  const out = new Uint8Array(head.length + bytes.length - end);
  out.set(head);
  out.set(bytes.subarray(end), head.length);
  return out;
}

function errorOf(bytes: Uint8Array, name = 'bad.ply'): SceneLoadError {
  try {
    loadSceneSync(bytes, name);
  } catch (e) {
    expect(e).toBeInstanceOf(SceneLoadError);
    const err = e as SceneLoadError;
    expect(err.message.startsWith(`${name}: ${err.code}: `)).toBe(true);
    expect(err.message).not.toMatch(/[\r\n]/);
    return err;
  }
  throw new Error('expected a SceneLoadError');
}

function finite(c: SplatCloud): boolean {
  return [c.positions, c.scales, c.rotations, c.opacities, c.sh].every((a) => a.every(Number.isFinite));
}

describe('undrawable values are dropped or clamped, counted and reported', () => {
  it('a log-scale above ~88.7 (finite as a double, +Inf in float32) is clamped to MAX_SCALE', () => {
    for (const format of FORMATS) {
      const c = loadSceneSync(buildPly(format, [splats([{ scale_0: 89 }, { scale_1: 1000 }, {}])]), 's.ply');
      expect(c.count).toBe(3);
      expect(c.scales[0]).toBe(MAX_SCALE);
      expect(c.scales[4]).toBe(MAX_SCALE);
      expect(finite(c)).toBe(true);
      expect(c.sanitized).toEqual({ dropped: 0, clamped: 2, reasons: { 'scale overflow': 2 } });
    }
  });

  it('NaN / Inf / huge positions of point clouds are dropped; the derived sizes stay finite', () => {
    for (const format of FORMATS) {
      const c = loadSceneSync(buildPly(format, [points([[0, 0, 0, 1, 2, 3], [Infinity, 0, 0, 0, 0, 0], [1, NaN, 1, 0, 0, 0], [1, 1, 1, 9, 9, 9], [0, 0, 1e30, 0, 0, 0]])]), 'p.ply');
      expect(c.count).toBe(2);
      expect(c.sanitized).toEqual({ dropped: 3, clamped: 0, reasons: { 'non-finite position': 2, 'position out of range': 1 } });
      expect(finite(c)).toBe(true);
      expect(c.scales[0]).toBeCloseTo((Math.sqrt(3) / Math.cbrt(2)) * 0.25, 6);
    }
  });

  it('every splat undrawable: EmptySceneError saying why', () => {
    const e = errorOf(buildPly('binary_little_endian', [splats([{ x: NaN }, { y: Infinity }])]));
    expect(e).toBeInstanceOf(EmptySceneError);
    expect(e.message).toContain('all 2 splats were dropped as undrawable (non-finite position: 2)');
  });

  it('ASCII inf / -inf / nan are infinities and NaN (not all NaN)', () => {
    const text = new TextEncoder().encode(
      `ply\nformat ascii 1.0\nelement vertex 3\n${inriaNames(0).map((n) => `property float ${n}\n`).join('')}end_header\n` +
        '0 0 0 0 0 0 0 0 0 inf -2 -2 -2 1 0 0 0\n' + // opacity +inf -> 1
        '0 0 0 0 0 0 0 0 0 -INF -2 -2 -2 1 0 0 0\n' + // opacity -inf -> 0
        '0 0 0 0 0 0 0 0 0 nan -2 -2 -2 1 0 0 0\n', // opacity nan -> 0, counted
    );
    const c = loadSceneSync(text, 'inf.ply');
    expect(Array.from(c.opacities)).toEqual([1, 0, 0]);
    expect(c.sanitized!.reasons).toEqual({ 'non-finite opacity': 1 });
  });

  it('float colours of point clouds keep their value (0.5 is not truncated to 0)', () => {
    const C0 = 0.28209479177387814;
    for (const format of FORMATS) {
      const c = loadSceneSync(buildPly(format, [points([[0, 0, 0, 0.5, 0.25, 1], [1, 1, 1, 2, -1, NaN]], 'float')]), 'f.ply');
      expect(c.sh[0]).toBeCloseTo(0, 6);
      expect(c.sh[1]).toBeCloseTo((0.25 - 0.5) / C0, 6);
      expect(c.sh[2]).toBeCloseTo(0.5 / C0, 6);
      // Out of [0, 1]: clamped; NaN: mid grey, counted.
      expect(Array.from(c.sh.subarray(3, 6)).map((v) => Math.round(v * C0 * 1e6) / 1e6)).toEqual([0.5, -0.5, 0]);
      expect(c.sanitized!.reasons).toEqual({ 'non-finite colour': 1 });
    }
  });

  it('compressed PLY: a NaN / Inf / inverted chunk range is a ChunkRangeError naming the chunk, property and byte', () => {
    const chunk = [-1, -1, -1, 3, 3, 3, -2, -2, -2, 0, 0, 0];
    const vertex = { name: 'vertex', properties: ['packed_position', 'packed_rotation', 'packed_scale', 'packed_color'].map((name) => ({ name, type: 'uint' })), rows: [[0, 0, 0, 0xffffffff]] };
    const file = (c: number[], v = vertex): Uint8Array => buildPly('binary_little_endian', [{ name: 'chunk', properties: floatProps(['min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z', 'min_scale_x', 'min_scale_y', 'min_scale_z', 'max_scale_x', 'max_scale_y', 'max_scale_z']), rows: [c] }, v]);
    expect(loadSceneSync(file(chunk), 'c.ply').count).toBe(1);
    const bad: [number, number][] = [[1, NaN], [3, Infinity], [6, -Infinity], [9, NaN], [4, -5]];
    for (const [at, v] of bad) {
      const c = chunk.slice();
      c[at] = v;
      const e = errorOf(file(c));
      expect(e).toBeInstanceOf(ChunkRangeError);
      expect(e.element).toBe('chunk');
      expect(e.byteOffset).toBeGreaterThan(0);
    }
    // A huge but finite log-scale range: clamped, counted.
    const big = chunk.slice();
    big[9] = 200;
    const c = loadSceneSync(file(big, { ...vertex, rows: [[0, 0, 0xffffffff, 0xffffffff]] }), 'c.ply');
    expect(c.scales[0]).toBe(MAX_SCALE);
    expect(c.sanitized!.reasons).toEqual({ 'scale overflow': 1 });
  });
});

describe('the header decides where the body starts (every route)', () => {
  const variants: [string, (h: string) => string][] = [
    ['CRLF line ends', (h) => h.replace(/\n/g, '\r\n')],
    ['a trailing blank after end_header', (h) => h.replace('end_header\n', 'end_header \n')],
    ['a multi-byte UTF-8 comment', (h) => h.replace('format', 'comment caf\u00c3\u00a9 \u00e2\u0082\u00ac\nformat')],
    ['a comment end_header line', (h) => h.replace('element', 'comment end_header\nelement')],
    ['an obj_info line', (h) => h.replace('element', 'obj_info x\nelement')],
  ];
  for (const format of FORMATS) {
    for (const [what, edit] of variants) {
      it(`${format}, ${what}: same cloud as the plain file`, () => {
        for (const el of [splats([{ x: 1 }, { y: 2, opacity: 3 }], 1), points([[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]])]) {
          const plain = buildPly(format, [el]);
          const edited = editHeader(plain, edit);
          expect(edited).not.toEqual(plain);
          const a = loadSceneSync(plain, 'f.ply');
          const b = loadSceneSync(edited, 'f.ply');
          expect(b).toEqual(a);
        }
      });
    }
  }

  it('trailing bytes holding "end_header" after a binary body are ignored', () => {
    for (const format of ['binary_little_endian', 'binary_big_endian'] as const) {
      const trailing = new TextEncoder().encode('\nend_header\nend_header\r\n');
      const a = loadSceneSync(buildPly(format, [points([[0, 1, 2, 3, 4, 5]])]), 'f.ply');
      expect(loadSceneSync(buildPly(format, [points([[0, 1, 2, 3, 4, 5]])], { trailing }), 'f.ply')).toEqual(a);
    }
  });

  it('a property named hasOwnProperty (or __proto__) is just a property', () => {
    for (const format of FORMATS) {
      const el = points([[0, 1, 2, 3, 4, 5]]);
      el.properties.push({ name: 'hasOwnProperty', type: 'float' }, { name: '__proto__', type: 'float' });
      el.rows[0]!.push(7, 8);
      expect(loadSceneSync(buildPly(format, [el]), 'f.ply').count).toBe(1);
    }
  });
});

describe('typed errors, one class per cause', () => {
  it('type names are looked up in a Map: constructor, toString, valueOf, hasOwnProperty, __proto__ are unknown types', () => {
    for (const t of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__']) {
      const e = errorOf(new TextEncoder().encode(`ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty ${t} x\nend_header\n`));
      expect(e).toBeInstanceOf(UnknownTypeError);
      expect(e.byteOffset).toBe(53);
      expect(e.element).toBe('vertex');
    }
  });

  it('rows are bounded before any loop: 0-byte rows are refused, huge counts are truncation', () => {
    for (const count of [2 ** 53 - 1, 2 ** 32 + 5]) {
      const noProps = errorOf(new TextEncoder().encode(`ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nelement nothing ${count}\nend_header\n${'\0'.repeat(12)}`));
      expect(noProps).toBeInstanceOf(EmptyElementError);
      expect(noProps.element).toBe('nothing');
      const huge = errorOf(new TextEncoder().encode(`ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nelement face ${count}\nproperty list uchar int i\nend_header\n${'\0'.repeat(20)}`));
      expect(huge).toBeInstanceOf(TruncatedError);
      expect(huge.element).toBe('face');
      for (const format of FORMATS) {
        const vertices = errorOf(buildPly(format, [{ ...points([[0, 0, 0, 1, 1, 1]]), declaredCount: count }]));
        expect(vertices).toBeInstanceOf(TruncatedError);
      }
    }
    expect(() => loadSceneSync(new TextEncoder().encode('ply\nformat ascii 1.0\nelement vertex 1e3\nend_header\n'), 'e.ply')).toThrow(HeaderSyntaxError);
  });

  it('duplicate checks are linear: 45,000 properties (a header just under 1 MB) with the duplicate last', () => {
    const props = Array.from({ length: 45_000 }, (_, j) => `property float p${j}\n`).join('');
    const e = errorOf(new TextEncoder().encode(`ply\nformat binary_little_endian 1.0\nelement vertex 1\n${props}property float p0\nend_header\n`));
    expect(e).toBeInstanceOf(DuplicateNameError);
    expect(e.property).toBe('p0');
    const el = errorOf(new TextEncoder().encode('ply\nformat ascii 1.0\nelement a 0\nelement a 0\nend_header\n'));
    expect(el).toBeInstanceOf(DuplicateNameError);
  });

  it("later elements' missing rows are truncation on every route", () => {
    for (const format of FORMATS) {
      const later: FixtureElement = { name: 'extra', properties: floatProps(['a', 'b']), rows: [[1, 2]], declaredCount: 4 };
      for (const el of [splats([{}]), points([[0, 0, 0, 1, 1, 1]])]) {
        const e = errorOf(buildPly(format, [el, later]));
        expect(e, format).toBeInstanceOf(TruncatedError);
        expect(e.element).toBe('extra');
      }
    }
  });

  it('ASCII: a bad token, an int out of range, values after the last row', () => {
    const ok = buildPly('ascii', [points([[0, 0, 0, 1, 2, 3]])]);
    const text = new TextDecoder().decode(ok);
    const bad = (s: string): SceneLoadError => errorOf(new TextEncoder().encode(s));
    expect(bad(text.replace('\n0 0 0 1 2 3', '\n0 0x10 0 1 2 3'))).toBeInstanceOf(BadValueError);
    expect(bad(text.replace('\n0 0 0 1 2 3', '\n0 0 0 1 2 300')).property).toBe('blue');
    expect(bad(text.replace('\n0 0 0 1 2 3', '\n0 0 0 1 2 3.5'))).toBeInstanceOf(BadValueError);
    expect(bad(`${text}4 5 6\n`)).toBeInstanceOf(ExtraDataError);
    // A 900,000-digit token: refused at once (a backtracking number pattern would take hours).
    expect(bad(text.replace('\n0 0 0 1 2 3', `\n${'1'.repeat(900_000)}x 0 0 1 2 3`))).toBeInstanceOf(BadValueError);
    expect(bad(text.replace('\n0 0 0 1 2 3', '\n0 0 0 1 2'))).toBeInstanceOf(TruncatedError);
  });

  it('element vertex 0: EmptySceneError, a clear rule (nothing to draw is an error, not an empty scene)', async () => {
    await expect(loadScene(buildPly('binary_little_endian', [splats([])]), 'z.ply')).rejects.toThrow(EmptySceneError);
  });
});
