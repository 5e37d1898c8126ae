import { describe, expect, it } from 'vitest';
import { SceneLoadError, type SceneLoadErrorCode } from './errors';
import { loadScene } from './load';
import { parseSplatPly } from './ply';
import { buildPly, describeShared, floatProps, inriaNames, readSharedScene, type FixtureElement } from './ply-fixtures';
import type { SplatCloud } from './splat-cloud';

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** Independent reading of a float PLY body: the header's property names and a float getter. */
function rawFloats(bytes: Uint8Array): { names: string[]; get: (row: number, name: string) => number } {
  const text = new TextDecoder('latin1').decode(bytes.subarray(0, 4096));
  const end = text.indexOf('end_header\n') + 'end_header\n'.length;
  const names = text.slice(0, end).split('\n').filter((l) => l.startsWith('property float ')).map((l) => l.split(' ')[2] as string);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stride = names.length * 4;
  return { names, get: (row, name) => view.getFloat32(end + row * stride + names.indexOf(name) * 4, true) };
}

function expectSane(cloud: SplatCloud): void {
  const { count } = cloud;
  const K3 = (cloud.shDegree + 1) ** 2 * 3;
  expect(cloud.positions.length).toBe(count * 3);
  expect(cloud.scales.length).toBe(count * 3);
  expect(cloud.rotations.length).toBe(count * 4);
  expect(cloud.opacities.length).toBe(count);
  expect(cloud.sh.length).toBe(count * K3);
  for (const [name, a] of Object.entries({ positions: cloud.positions, scales: cloud.scales, rotations: cloud.rotations, opacities: cloud.opacities, sh: cloud.sh })) {
    const bad = a.findIndex((v) => Number.isNaN(v));
    expect(bad, `NaN in ${name} at ${bad}`).toBe(-1);
  }
  // One expect per property: per-value expects make large scenes slow.
  let worst = 0;
  const r = cloud.rotations;
  for (let i = 0; i < count * 4; i += 4) worst = Math.max(worst, Math.abs(Math.hypot(r[i]!, r[i + 1]!, r[i + 2]!, r[i + 3]!) - 1));
  expect(worst).toBeLessThan(1e-6);
  expect(cloud.opacities.findIndex((o) => !(o >= 0 && o <= 1))).toBe(-1);
  expect(cloud.scales.findIndex((s) => !(s >= 0))).toBe(-1);
}

/** Largest |a - b| (or |a / b - 1| when relative), so that big arrays cost one expect. */
function maxDiff(a: Float32Array, b: Float32Array, relative = false): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, relative ? Math.abs(a[i]! / b[i]! - 1) : Math.abs(a[i]! - b[i]!));
  return m;
}

async function loadError(bytes: Uint8Array, name = 'bad.ply'): Promise<SceneLoadError> {
  try {
    await loadScene(bytes, name);
  } catch (e) {
    expect(e).toBeInstanceOf(SceneLoadError);
    const err = e as SceneLoadError;
    expect(err.message.startsWith(`${name}: ${err.code}: `)).toBe(true);
    expect(err.message).not.toMatch(/[\r\n]/);
    return err;
  }
  throw new Error('expected a SceneLoadError');
}

async function expectError(bytes: Uint8Array, code: SceneLoadErrorCode): Promise<SceneLoadError> {
  const err = await loadError(bytes);
  expect(err.code, err.message).toBe(code);
  return err;
}

describeShared('shared real scenes', () => {
  // Counts and degrees as listed in ../shared/scenes/SOURCES.md.
  const table: [string, number, number, string][] = [
    ['biker.compressed.ply', 152_746, 0, 'compressed-ply'],
    ['guitar.compressed.ply', 90_854, 0, 'compressed-ply'],
    ['guitar_float.ply', 90_854, 0, 'ply'],
    ['playbot_31k_sh2_reordered.ply', 31_000, 2, 'ply'],
    ['inria_sh3_tile_6831.ply', 6_831, 3, 'ply'],
    ['inria_sh3_tile_1971.ply', 1_971, 3, 'ply'],
    ['inria_sh3_tile_111.ply', 111, 3, 'ply'],
  ];
  for (const [file, count, degree, format] of table) {
    it(`${file}: ${count} splats, SH degree ${degree}, sane values`, async () => {
      const cloud = await loadScene(readSharedScene(file), file);
      expect(cloud.count).toBe(count);
      expect(cloud.shDegree).toBe(degree);
      expect(cloud.source).toEqual({ name: file, format });
      expectSane(cloud);
    });
  }

  it('INRIA tile: splats match an independent reading of the bytes', () => {
    const bytes = readSharedScene('inria_sh3_tile_6831.ply');
    const cloud = parseSplatPly(bytes, 'tile');
    const raw = rawFloats(bytes);
    expect(raw.names).toEqual(inriaNames(3));
    for (const i of [0, 1, 3000, 6830]) {
      for (let a = 0; a < 3; a++) {
        expect(cloud.positions[i * 3 + a]).toBe(raw.get(i, 'xyz'[a]!));
        expect(cloud.scales[i * 3 + a]).toBeCloseTo(Math.exp(raw.get(i, `scale_${a}`)), 6);
        expect(cloud.sh[i * 48 + a]).toBe(raw.get(i, `f_dc_${a}`));
      }
      expect(cloud.opacities[i]).toBeCloseTo(sigmoid(raw.get(i, 'opacity')), 6);
      const q = [0, 1, 2, 3].map((k) => raw.get(i, `rot_${k}`));
      const len = Math.hypot(...q);
      for (let k = 0; k < 4; k++) expect(cloud.rotations[i * 4 + k]).toBeCloseTo(q[k]! / len, 6);
    }
  });

  it('INRIA tile 111: hard-coded values', () => {
    // Obtained once with Python: struct.unpack_from('<62f', b, off + i * 248),
    // off = b.index(b'end_header\n') + 11 = 1528, for i = 0 and 57.
    const cloud = parseSplatPly(readSharedScene('inria_sh3_tile_111.ply'), 'tile111');
    expect(Array.from(cloud.positions.subarray(0, 3))).toEqual([0.006689310073852539, 1.3071370124816895, 4.695684432983398]);
    expect(cloud.sh[0]).toBe(4.479684352874756);
    expect(cloud.opacities[0]).toBeCloseTo(sigmoid(-1.687857747077942), 6);
    expect(cloud.scales[0]).toBeCloseTo(Math.exp(-1.4976589679718018), 6);
    expect(cloud.scales[2]).toBeCloseTo(Math.exp(-2.653672695159912), 6);
    const q = [0.8490658402442932, 0.8958070874214172, 0.6913146376609802, 0.7389349937438965];
    const n = Math.hypot(...q);
    expect(Array.from(cloud.rotations.subarray(0, 4)).map((v) => +v.toFixed(6))).toEqual(q.map((v) => +(v / n).toFixed(6)));
    expect(Array.from(cloud.positions.subarray(57 * 3, 58 * 3))).toEqual([1.9840521812438965, 1.6881532669067383, 4.520462512969971]);
    expect(cloud.scales[57 * 3 + 2]).toBeCloseTo(Math.exp(-0.8700587749481201), 6);
  });

  it('playbot (reordered, SH2): f_rest is transposed from channel-major to coefficient-major', () => {
    const bytes = readSharedScene('playbot_31k_sh2_reordered.ply');
    const cloud = parseSplatPly(bytes, 'playbot');
    const raw = rawFloats(bytes);
    const K = 9;
    for (const i of [0, 12345, 30999]) {
      for (let c = 0; c < 3; c++) {
        expect(cloud.sh[(i * K) * 3 + c]).toBe(raw.get(i, `f_dc_${c}`));
        for (let k = 1; k < K; k++) expect(cloud.sh[(i * K + k) * 3 + c]).toBe(raw.get(i, `f_rest_${c * (K - 1) + k - 1}`));
      }
      for (let a = 0; a < 3; a++) expect(cloud.positions[i * 3 + a]).toBe(raw.get(i, 'xyz'[a]!));
    }
    // Obtained once with Python (v = struct.unpack_from('<38f', b, 951 + 12345 * 152);
    // f_rest_0 is v[14]): splat 12345 has f_rest_0 = -0.17397578060626984 (R,
    // coefficient 1), f_rest_8 = -0.3356776833534241 (G, coefficient 1) and
    // f_rest_16 = -0.4308309853076935 (B, coefficient 1).
    expect(Array.from(cloud.sh.subarray((12345 * K + 1) * 3, (12345 * K + 2) * 3))).toEqual([
      -0.17397578060626984, -0.3356776833534241, -0.4308309853076935,
    ]);
  });

  it('guitar_float: +Infinity opacity becomes 1, never NaN', () => {
    const bytes = readSharedScene('guitar_float.ply');
    const raw = rawFloats(bytes);
    const cloud = parseSplatPly(bytes, 'guitar_float.ply');
    const infinite: number[] = [];
    for (let i = 0; i < cloud.count; i++) if (raw.get(i, 'opacity') === Infinity) infinite.push(i);
    expect(infinite.length).toBeGreaterThan(0);
    for (const i of infinite) expect(cloud.opacities[i]).toBe(1);
  });

  it('round trip: INRIA tile -> writeSplatPly -> parse gives the same cloud', async () => {
    const { writeSplatPly } = await import('./write-ply');
    const a = parseSplatPly(readSharedScene('inria_sh3_tile_1971.ply'), 'a');
    const b = parseSplatPly(writeSplatPly(a), 'b');
    expect(b.count).toBe(a.count);
    expect(b.shDegree).toBe(a.shDegree);
    expect(maxDiff(b.positions, a.positions)).toBe(0);
    expect(maxDiff(b.sh, a.sh)).toBe(0);
    expect(maxDiff(b.scales, a.scales, true)).toBeLessThan(1e-5);
    expect(maxDiff(b.opacities, a.opacities)).toBeLessThan(1e-6);
    expect(maxDiff(b.rotations, a.rotations)).toBeLessThan(1e-6);
  });
});

/** A tiny INRIA-order vertex element with recognisable values: value of property j of row i = i * 100 + j. */
function tinySplats(rows: number, degree: number, type = 'float'): FixtureElement {
  const names = inriaNames(degree);
  return {
    name: 'vertex',
    properties: floatProps(names, type),
    rows: Array.from({ length: rows }, (_, i) => names.map((n, j) => (n.startsWith('rot_') ? (n === 'rot_0' ? 2 : 0) : n === 'opacity' || n.startsWith('scale_') ? 0 : i * 100 + j))),
  };
}

describe('binary splat PLY, hand-made files', () => {
  it('transposes f_rest (channel-major in the file) to coefficient-major', () => {
    // SH1: f_rest_0..2 are R coefficients 1..3, f_rest_3..5 G, f_rest_6..8 B.
    const names = ['x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', ...Array.from({ length: 9 }, (_, j) => `f_rest_${j}`), 'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3'];
    const row = [0, 0, 0, 0.1, 0.2, 0.3, 10, 11, 12, 20, 21, 22, 30, 31, 32, 0, 0, 0, 0, 1, 0, 0, 0];
    const cloud = parseSplatPly(buildPly('binary_little_endian', [{ name: 'vertex', properties: floatProps(names), rows: [row] }]), 'sh1.ply');
    expect(cloud.shDegree).toBe(1);
    // sh[k * 3 + c]: k = 0 is f_dc.
    expect(Array.from(cloud.sh).map((v) => +v.toFixed(4))).toEqual([0.1, 0.2, 0.3, 10, 20, 30, 11, 21, 31, 12, 22, 32]);
  });

  it('looks properties up by name whatever their order, and ignores unknown ones', () => {
    const names = ['rot_3', 'opacity', 'z', 'extra', 'scale_2', 'f_dc_2', 'rot_0', 'y', 'scale_0', 'f_dc_0', 'rot_1', 'x', 'scale_1', 'f_dc_1', 'rot_2'];
    const values: Record<string, number> = { x: 1, y: 2, z: 3, extra: 99, f_dc_0: 4, f_dc_1: 5, f_dc_2: 6, opacity: 0, scale_0: 0, scale_1: Math.log(2), scale_2: Math.log(4), rot_0: 0, rot_1: 3, rot_2: 0, rot_3: 4 };
    const cloud = parseSplatPly(buildPly('binary_little_endian', [{ name: 'vertex', properties: floatProps(names), rows: [names.map((n) => values[n]!)] }]), 'order.ply');
    expect(Array.from(cloud.positions)).toEqual([1, 2, 3]);
    expect(Array.from(cloud.sh)).toEqual([4, 5, 6]);
    expect(cloud.opacities[0]).toBe(0.5);
    expect(Array.from(cloud.scales).map((v) => +v.toFixed(5))).toEqual([1, 2, 4]);
    expect(Array.from(cloud.rotations).map((v) => +v.toFixed(6))).toEqual([0, 0.6, 0, 0.8]);
  });

  it('reads an unaligned body, other types (DataView path), and skips elements before and after vertex', () => {
    const base = tinySplats(3, 1);
    const before: FixtureElement = { name: 'camera', properties: [{ name: 'id', type: 'uchar' }, { name: 'f', type: 'double' }], rows: [[1, 2.5], [2, 3.5]] };
    const listBefore: FixtureElement = { name: 'tags', properties: [{ name: 'ids', type: 'int', list: 'uchar' }], rows: [[[1, 2, 3]], [[]], [[7]]] };
    const after: FixtureElement = { name: 'face', properties: [{ name: 'vertex_indices', type: 'int', list: 'uchar' }], rows: [[[0, 1, 2]]] };
    const reference = parseSplatPly(buildPly('binary_little_endian', [base]), 'ref.ply');
    for (let pad = 0; pad < 4; pad++) {
      const cloud = parseSplatPly(buildPly('binary_little_endian', [before, listBefore, base, after], { headerPad: pad }), `pad${pad}.ply`);
      expect(cloud).toEqual({ ...reference, source: { name: `pad${pad}.ply`, format: 'ply' } });
    }
    // Mixed types: positions as double, colours as float32 alias, the rest float.
    const mixed: FixtureElement = { ...base, properties: base.properties.map((p) => ({ ...p, type: 'xyz'.includes(p.name) && p.name.length === 1 ? 'double' : p.name.startsWith('f_') ? 'float32' : 'float' })) };
    expect(parseSplatPly(buildPly('binary_little_endian', [mixed]), 'mixed.ply')).toEqual({ ...reference, source: { name: 'mixed.ply', format: 'ply' } });
    // A Uint8Array that is a view at an odd offset into a larger buffer.
    const file = buildPly('binary_little_endian', [base]);
    const big = new Uint8Array(file.length + 3);
    big.set(file, 3);
    expect(parseSplatPly(big.subarray(3), 'view.ply').positions).toEqual(reference.positions);
  });

  it('ignores trailing bytes after the declared elements', () => {
    const ok = buildPly('binary_little_endian', [tinySplats(2, 0)], { trailing: new Uint8Array(13).fill(0xff) });
    expect(parseSplatPly(ok, 'trailing.ply').count).toBe(2);
  });

  it('handles NaN and infinities: never NaN out; undrawable splats dropped or clamped and counted', () => {
    const names = inriaNames(0);
    const row = (over: Record<string, number>): number[] => names.map((n) => over[n] ?? (n === 'rot_0' ? 1 : 0));
    const cloud = parseSplatPly(
      buildPly('binary_little_endian', [{
        name: 'vertex',
        properties: floatProps(names),
        rows: [
          row({ opacity: Infinity }),
          row({ opacity: -Infinity }),
          row({ opacity: NaN }),
          row({ x: NaN, opacity: 5 }),
          row({ scale_1: Infinity, opacity: 5 }),
          row({ rot_0: 0, rot_1: 0, rot_2: 0, rot_3: 0, f_dc_1: NaN }),
          row({ rot_0: NaN }),
        ],
      }]),
      'nan.ply',
    );
    // The NaN position (row 3) is dropped; so is the infinite scale (row 4): clamped to 65504, it
    // is still implausible in a scene of unit splats (scenes/robust.ts); the rest are kept.
    expect(cloud.count).toBe(5);
    expect(Array.from(cloud.opacities)).toEqual([1, 0, 0, 0.5, 0.5]);
    expect(Array.from(cloud.rotations.subarray(12, 20))).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
    expect(cloud.sh[3 * 3 + 1]).toBe(0);
    expect(cloud.sanitized).toEqual({
      dropped: 2,
      clamped: 3,
      reasons: { 'non-finite position': 1, 'scale overflow': 1, 'non-finite opacity': 1, 'degenerate rotation': 2, 'non-finite sh': 1, 'scale implausible': 1 },
    });
    expectSane(cloud);
  });

  it('round trip: write -> parse for SH degrees 0..3', async () => {
    const { writeSplatPly } = await import('./write-ply');
    for (const degree of [0, 1, 2, 3] as const) {
      const n = 50;
      const K3 = (degree + 1) ** 2 * 3;
      const positions = Float32Array.from({ length: n * 3 }, (_, i) => Math.sin(i) * 10);
      const scales = Float32Array.from({ length: n * 3 }, (_, i) => 0.01 + (i % 7) * 0.1);
      const rotations = new Float32Array(n * 4);
      for (let i = 0; i < n; i++) {
        const q = [Math.cos(i), Math.sin(i), 0.5, -0.25];
        const len = Math.hypot(...q);
        q.forEach((v, k) => (rotations[i * 4 + k] = v / len));
      }
      const opacities = Float32Array.from({ length: n }, (_, i) => (i === 0 ? 1 : i === 1 ? 0 : i / n));
      const sh = Float32Array.from({ length: n * K3 }, (_, i) => Math.cos(i * 0.37));
      const cloud: SplatCloud = { count: n, shDegree: degree, positions, scales, rotations, opacities, sh, bounds: { min: [0, 0, 0], max: [0, 0, 0] }, source: { name: 'x', format: 'x' } };
      const bytes = writeSplatPly(cloud);
      const raw = rawFloats(bytes);
      expect(raw.names).toEqual(inriaNames(degree));
      const back = await loadScene(bytes, 'rt.ply');
      expect(back.shDegree).toBe(degree);
      expect(back.positions).toEqual(positions);
      expect(back.sh).toEqual(sh);
      expect(back.rotations).toEqual(rotations);
      expect(maxDiff(back.scales, scales, true)).toBeLessThan(1e-5);
      expect(maxDiff(back.opacities, opacities)).toBeLessThan(1e-6);
    }
  });
});

describe('binary splat PLY errors', () => {
  const good = buildPly('binary_little_endian', [tinySplats(4, 0)]);
  const headerEnd = new TextDecoder().decode(good).indexOf('end_header\n') + 11;

  it('not a PLY', async () => {
    const err = await expectError(new TextEncoder().encode('solid cube\nfacet normal 0 0 1\n'), 'unknown-format');
    expect(err.byteOffset).toBe(0);
    await expectError(new Uint8Array(0), 'unknown-format');
    await expectError(new TextEncoder().encode('ply format ascii 1.0\n'), 'not-ply');
  });

  it('no end_header', async () => {
    const err = await expectError(new TextEncoder().encode('ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\n'), 'bad-header');
    expect(err.message).toContain('end_header');
  });

  it('malformed header lines name the byte offset', async () => {
    const err = await expectError(new TextEncoder().encode('ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float128 x\nend_header\n'), 'unknown-type');
    expect(err.byteOffset).toBe(53);
    expect(err.message).toContain('at byte 53');
  });

  it('truncated body names the expected size and byte offset', async () => {
    const cut = good.subarray(0, good.length - 10);
    const err = await expectError(cut, 'truncated');
    expect(err.byteOffset).toBe(headerEnd);
    expect(err.message).toBe(
      `bad.ply: truncated: header declares 4 vertices of 68 bytes (272 bytes) but only 262 bytes follow the header at byte ${headerEnd}`,
    );
  });

  it('a header that lies about the count', async () => {
    const el = tinySplats(4, 0);
    const lying = buildPly('binary_little_endian', [{ ...el, declaredCount: 90854 }]);
    const err = await expectError(lying, 'truncated');
    expect(err.message).toContain('header declares 90854 vertices of 68 bytes (6178072 bytes) but only 272 bytes follow the header at byte');
    // Lying low is harmless: the extra rows are trailing bytes.
    expect((await loadScene(buildPly('binary_little_endian', [{ ...el, declaredCount: 2 }]), 'low.ply')).count).toBe(2);
  });

  it('a truncated element before the vertex element is named', async () => {
    const cams: FixtureElement = { name: 'camera', properties: [{ name: 'f', type: 'double' }], rows: [[1]], declaredCount: 1000 };
    const err = await expectError(buildPly('binary_little_endian', [cams, tinySplats(1, 0)]), 'truncated');
    expect(err.message).toContain("1000 'camera' rows of 8 bytes (8000 bytes)");
  });

  it('a splat property missing', async () => {
    const el = tinySplats(1, 0);
    const idx = el.properties.findIndex((p) => p.name === 'opacity');
    const without: FixtureElement = { name: 'vertex', properties: el.properties.filter((_, j) => j !== idx), rows: el.rows.map((r) => r.filter((_, j) => j !== idx)) };
    const err = await expectError(buildPly('binary_little_endian', [without]), 'missing-property');
    expect(err.property).toBe('opacity');
    expect(err.message).toContain("'opacity'");
  });

  it('no splat properties and no x, y, z', async () => {
    const el: FixtureElement = { name: 'vertex', properties: floatProps(['u', 'v']), rows: [[1, 2]] };
    const err = await expectError(buildPly('binary_little_endian', [el]), 'missing-property');
    expect(err.property).toBe('x');
  });

  it('no vertex element', async () => {
    const el: FixtureElement = { name: 'points', properties: floatProps(['x', 'y', 'z']), rows: [[1, 2, 3]] };
    await expectError(buildPly('binary_little_endian', [el]), 'missing-element');
  });

  it('an f_rest count that is not a whole SH degree', async () => {
    const names = [...inriaNames(0), ...Array.from({ length: 10 }, (_, j) => `f_rest_${j}`)];
    const err = await expectError(buildPly('binary_little_endian', [{ name: 'vertex', properties: floatProps(names), rows: [names.map(() => 0)] }]), 'bad-sh');
    expect(err.message).toContain('10 f_rest_* properties');
    expect(err.property).toBe('f_rest_*');
  });

  it('f_rest with a gap in its numbering', async () => {
    const names = [...inriaNames(0), ...Array.from({ length: 9 }, (_, j) => `f_rest_${j === 4 ? 40 : j}`)];
    const err = await expectError(buildPly('binary_little_endian', [{ name: 'vertex', properties: floatProps(names), rows: [names.map(() => 0)] }]), 'missing-property');
    expect(err.property).toBe('f_rest_4');
  });

  it('a list property on the vertex element', async () => {
    const el = tinySplats(1, 0);
    const withList: FixtureElement = { name: 'vertex', properties: [...el.properties, { name: 'neighbours', type: 'int', list: 'uchar' }], rows: el.rows.map((r) => [...r, [1, 2]]) };
    const err = await expectError(buildPly('binary_little_endian', [withList]), 'unsupported');
    expect(err.property).toBe('neighbours');
    expect(err.message).toContain("'neighbours'");
  });
});
