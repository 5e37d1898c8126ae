import { describe, expect, it } from 'vitest';
import { EmptySceneError, SceneLoadError } from './errors';
import { loadScene } from './load';
import { buildPly, floatProps, inriaNames, type FixtureElement } from './ply-fixtures';

const C0 = 0.28209479177387814;

/** Two SH1 splats with distinct values in INRIA order. */
function splats(): FixtureElement {
  const names = inriaNames(1);
  const row = (i: number): number[] =>
    names.map((n, j) => (n === 'rot_0' ? 1 + i : n === 'rot_2' ? 0.5 : n.startsWith('rot_') ? 0 : n === 'opacity' ? i - 0.5 : n.startsWith('scale') ? -i - j / 100 : (i + 1) * 10 + j / 8));
  return { name: 'vertex', properties: floatProps(names), rows: [row(0), row(1)] };
}

describe('loadScene dispatch', () => {
  it('binary little-endian splats take the fast path', async () => {
    const c = await loadScene(buildPly('binary_little_endian', [splats()]), 'le.ply');
    expect(c.source).toEqual({ name: 'le.ply', format: 'ply' });
  });

  it('ASCII and big-endian splat PLYs (the general reader) give the same cloud as little-endian', async () => {
    const reference = await loadScene(buildPly('binary_little_endian', [splats()]), 'le.ply');
    const be = await loadScene(buildPly('binary_big_endian', [splats()]), 'be.ply');
    expect(be).toEqual({ ...reference, source: { name: 'be.ply', format: 'ply-big-endian' } });
    const ascii = await loadScene(buildPly('ascii', [splats()]), 'ascii.ply');
    expect(ascii.source.format).toBe('ply-ascii');
    expect(ascii.shDegree).toBe(1);
    // ASCII holds the decimal values written, so compare to float32 precision.
    for (const key of ['positions', 'scales', 'rotations', 'opacities', 'sh'] as const) {
      const a = ascii[key];
      const b = reference[key];
      expect(a.length).toBe(b.length);
      for (let i = 0; i < a.length; i++) expect(a[i]).toBeCloseTo(b[i]!, 5);
    }
  });

  it('a plain point cloud becomes small opaque isotropic splats coloured from red/green/blue', async () => {
    const points: FixtureElement = {
      name: 'vertex',
      properties: [...floatProps(['x', 'y', 'z']), { name: 'red', type: 'uchar' }, { name: 'green', type: 'uchar' }, { name: 'blue', type: 'uchar' }],
      rows: [[0, 0, 0, 255, 0, 128], [2, 0, 0, 0, 255, 0], [0, 2, 0, 0, 0, 0], [0, 0, 2, 10, 20, 30], [2, 2, 2, 0, 0, 0], [1, 1, 1, 1, 2, 3], [2, 0, 2, 0, 0, 0], [0, 2, 2, 0, 0, 0]],
    };
    for (const format of ['binary_little_endian', 'ascii', 'binary_big_endian'] as const) {
      const c = await loadScene(buildPly(format, [points]), 'points.ply');
      expect(c.source.format).toBe({ binary_little_endian: 'ply-points', ascii: 'ply-points-ascii', binary_big_endian: 'ply-points-big-endian' }[format]);
      expect(c.count).toBe(8);
      expect(c.shDegree).toBe(0);
      expect(c.bounds).toEqual({ min: [0, 0, 0], max: [2, 2, 2] });
      // Bounds diagonal / cbrt(N) * 0.25 = 2 sqrt(3) / 2 / 4.
      const size = (2 * Math.sqrt(3)) / Math.cbrt(8) * 0.25;
      for (const s of c.scales) expect(s).toBeCloseTo(size, 6);
      expect(Array.from(c.opacities)).toEqual(new Array(8).fill(1));
      expect(Array.from(c.rotations.subarray(0, 8))).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
      expect(c.sh[0]).toBeCloseTo((1 - 0.5) / C0, 6);
      expect(c.sh[1]).toBeCloseTo((0 - 0.5) / C0, 6);
      expect(c.sh[2]).toBeCloseTo((128 / 255 - 0.5) / C0, 6);
      expect(Array.from(c.positions.subarray(3, 6))).toEqual([2, 0, 0]);
    }
  });

  it('a point cloud without colours is mid grey', async () => {
    const c = await loadScene(buildPly('binary_little_endian', [{ name: 'vertex', properties: floatProps(['x', 'y', 'z']), rows: [[0, 0, 0], [1, 1, 1]] }]), 'grey.ply');
    expect(Array.from(c.sh)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('errors on the general route: truncated big-endian, short ASCII body, list vertex property, no x/y/z', async () => {
    const be = buildPly('binary_big_endian', [splats()]);
    await expect(loadScene(be.subarray(0, be.length - 4), 'be.ply')).rejects.toMatchObject({ code: 'truncated' });

    const short = buildPly('ascii', [{ ...splats(), declaredCount: 5 }]);
    const e = (await loadScene(short, 'short.ply').catch((x: unknown) => x)) as SceneLoadError;
    expect(e).toBeInstanceOf(SceneLoadError);
    expect(e.code).toBe('truncated');
    expect(e.message).toContain('header declares 5 vertices');

    const list: FixtureElement = { name: 'vertex', properties: [...floatProps(['x', 'y', 'z']), { name: 'idx', type: 'int', list: 'uchar' }], rows: [[0, 0, 0, [1]]] };
    await expect(loadScene(buildPly('ascii', [list]), 'list.ply')).rejects.toMatchObject({ code: 'unsupported', property: 'idx' });

    const noXyz: FixtureElement = { name: 'vertex', properties: floatProps(['u', 'v']), rows: [[0, 0]] };
    await expect(loadScene(buildPly('ascii', [noXyz]), 'uv.ply')).rejects.toMatchObject({ code: 'missing-property', property: 'x' });
  });

  it('an empty vertex element is an EmptySceneError on every route (nothing to draw)', async () => {
    for (const format of ['binary_little_endian', 'ascii', 'binary_big_endian'] as const) {
      await expect(loadScene(buildPly(format, [{ ...splats(), rows: [] }]), 'empty.ply')).rejects.toBeInstanceOf(EmptySceneError);
      await expect(loadScene(buildPly(format, [{ name: 'vertex', properties: floatProps(['x', 'y', 'z']), rows: [] }]), 'none.ply')).rejects.toThrow(
        'none.ply: empty-scene: the file declares 0 splats: nothing to draw',
      );
    }
  });

  it('accepts an ArrayBuffer as well as a Uint8Array', async () => {
    const bytes = buildPly('binary_little_endian', [splats()]);
    const c = await loadScene(bytes.slice().buffer, 'ab.ply');
    expect(c.count).toBe(2);
  });
});
