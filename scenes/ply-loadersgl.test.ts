/**
 * @loaders.gl/ply as the general route's decoder: on every hand-made ASCII /
 * big-endian / point-cloud fixture it reads the same rows as our own reader,
 * and the cases where it is measured to misread even a canonical header are
 * the ones routed to our reader.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSceneSync } from './load';
import { scanAsciiBody } from './ply-ascii';
import { buildPly, floatProps, generalRouteFixtures } from './ply-fixtures';
import { readGeneralVertexRows } from './ply-general';
import { parsePlyHeader } from './ply-header';
import { canonicalHeader, decodeVertexWithLoadersGl, indexOfEndHeader, loadersGlCanReadBinary, LOADERSGL_MAX_BODY_BYTES, LOADERSGL_MAX_ROWS } from './ply-loadersgl';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function rowsBy(bytes: Uint8Array, decoder: 'auto' | 'own' | 'loaders.gl'): ReturnType<typeof readGeneralVertexRows> {
  const header = parsePlyHeader(bytes, 'f.ply');
  const vertex = header.elements.find((e) => e.name === 'vertex')!;
  return readGeneralVertexRows(bytes, 'f.ply', header, vertex, decoder);
}

/** Float32 rows as their bit patterns (so NaN == NaN, -0 != 0). */
const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer, a.byteOffset, a.length);

describe('loaders.gl and our own reader agree on the general route', () => {
  const fixtures = generalRouteFixtures();
  it('covers ASCII, big-endian and point clouds', () => {
    expect(fixtures.length).toBeGreaterThan(30);
  });
  for (const { name, bytes } of fixtures) {
    it(`${name}: same rows, and 'auto' picks loaders.gl`, () => {
      const theirs = rowsBy(bytes, 'loaders.gl');
      const ours = rowsBy(bytes, 'own');
      expect(theirs.decoder).toBe('loaders.gl');
      expect(ours.decoder).toBe('own');
      expect(theirs.rows.length).toBeGreaterThan(0);
      expect(bits(theirs.rows)).toEqual(bits(ours.rows));
      expect(rowsBy(bytes, 'auto').decoder).toBe('loaders.gl');
    });
  }
});

describe('what loaders.gl still misreads is read by our own reader', () => {
  const xyz = floatProps(['x', 'y', 'z']);

  it('a binary body holding "end_header" and a blank: loaders.gl fails even after a canonical header; auto reads it right', () => {
    // The float 2.0376e+20 is the bytes "end_" in big-endian; the row after spells "header ".
    const text = enc('end_header \n');
    const row = (at: number): number => new DataView(text.buffer).getFloat32(at, false);
    const bytes = buildPly('binary_big_endian', [{ name: 'vertex', properties: xyz, rows: [[row(0), row(4), row(8)], [1, 2, 3]] }]);
    expect(indexOfEndHeader(bytes.subarray(parsePlyHeader(bytes, 'f.ply').dataOffset))).toBe(0);
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(() => rowsBy(bytes, 'loaders.gl')).toThrow(RangeError);
    expect(log).toHaveBeenCalled(); // its "unhandled" lines
    log.mockRestore();
    const auto = rowsBy(bytes, 'auto');
    expect(auto.decoder).toBe('own');
    expect(Array.from(auto.rows.subarray(3))).toEqual([1, 2, 3]);
  });

  it('ASCII inf: loaders.gl reads NaN, auto reads infinity', () => {
    const bytes = enc('ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\ninf -inf 1\nINFINITY nan 2\n');
    expect(Array.from(rowsBy(bytes, 'loaders.gl').rows)).toEqual([NaN, NaN, 1, NaN, NaN, 2]);
    const auto = rowsBy(bytes, 'auto');
    expect(auto.decoder).toBe('own');
    expect(Array.from(auto.rows)).toEqual([Infinity, -Infinity, 1, Infinity, NaN, 2]);
    expect(scanAsciiBody(bytes, 'f.ply', parsePlyHeader(bytes, 'f.ply'), false).misread).toContain('"inf"');
  });

  it('ASCII int written with an exponent: loaders.gl reads 1e2 as 1, auto as 100', () => {
    const bytes = enc('ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n0 0 0 1e2 2 3\n');
    expect(Array.from(rowsBy(bytes, 'loaders.gl').rows)).toEqual([0, 0, 0, 1, 2, 3]);
    expect(rowsBy(bytes, 'auto')).toEqual({ decoder: 'own', rows: Float32Array.from([0, 0, 0, 100, 2, 3]) });
  });

  it('ASCII rows not one to a line: loaders.gl reads short rows, auto reads the tokens in order', () => {
    const bytes = enc('ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2\n3 4 5 6\n');
    expect(Array.from(rowsBy(bytes, 'loaders.gl').rows)).toEqual([1, 2, NaN, 3, 4, 5]);
    const auto = rowsBy(bytes, 'auto');
    expect(auto.decoder).toBe('own');
    expect(Array.from(auto.rows)).toEqual([1, 2, 3, 4, 5, 6]);
    // Two rows on one line, too.
    expect(rowsBy(enc('ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3 4 5 6\n'), 'auto').decoder).toBe('own');
  });

  it('the canonical header: LF only, no comments, properties p0..pN-1 with their validated types', () => {
    const bytes = enc('ply\r\nformat binary_big_endian 1.0\r\ncomment caf\u00c3\u00a9 end_header\r\nobj_info x\r\nelement vertex 1\r\nproperty float32 x\r\nproperty uint8 red\r\nend_header\r\n\0\0\0\0\0');
    const vertex = parsePlyHeader(bytes, 'f.ply').elements[0]!;
    expect(canonicalHeader('binary_big_endian', vertex)).toBe('ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty float p0\nproperty uchar p1\nend_header\n');
  });

  it('bodies past LOADERSGL_MAX_BODY_BYTES or LOADERSGL_MAX_ROWS go to our reader; "end_header" is found anywhere in a body', () => {
    expect(loadersGlCanReadBinary(new Uint8Array(LOADERSGL_MAX_BODY_BYTES), LOADERSGL_MAX_ROWS)).toBe(true);
    expect(loadersGlCanReadBinary(new Uint8Array(LOADERSGL_MAX_BODY_BYTES + 1), 1)).toBe(false);
    expect(loadersGlCanReadBinary(new Uint8Array(100), LOADERSGL_MAX_ROWS + 1)).toBe(false);
    const body = new Uint8Array(100).fill(0x65); // "eeee..." then the word at the very end
    body.set(enc('end_header'), 90);
    expect(indexOfEndHeader(body)).toBe(90);
    expect(indexOfEndHeader(body.subarray(0, 99))).toBe(-1);
    expect(loadersGlCanReadBinary(body, 1)).toBe(false);
  });

  it('loaders.gl output is checked against the row count it was given', () => {
    const header = parsePlyHeader(enc('ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nend_header\n1\n2\n'), 'f.ply');
    expect(() => decodeVertexWithLoadersGl('ascii', header.elements[0]!, enc('1\n'))).toThrow(/returned 1 values for property 0 of 2 vertices/);
  });
});

describe('nothing of loaders.gl reaches the console', () => {
  afterEach(() => vi.restoreAllMocks());
  it('headers with obj_info, comment end_header, UTF-8 comments, CRLF; bodies holding end_header', () => {
    const log = vi.spyOn(console, 'log');
    const info = vi.spyOn(console, 'info');
    const warn = vi.spyOn(console, 'warn');
    const trailing = enc('\nend_header\n');
    const cases = [
      ...generalRouteFixtures().map((f) => f.bytes),
      buildPly('binary_big_endian', [{ name: 'vertex', properties: floatProps(['x', 'y', 'z']), rows: [[1, 2, 3]] }], { trailing }),
      enc('ply\r\nformat ascii 1.0\r\nobj_info scanner\r\ncomment end_header\r\ncomment caf\u00c3\u00a9\r\nelement vertex 1\r\nproperty float x\r\nproperty float y\r\nproperty float z\r\nend_header\r\n1 2 3\r\n'),
    ];
    for (const bytes of cases) expect(loadSceneSync(bytes, 'f.ply').count).toBeGreaterThan(0);
    expect(log).not.toHaveBeenCalled();
    expect(info).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });
});
