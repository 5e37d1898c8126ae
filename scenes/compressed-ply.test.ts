import { describe, expect, it } from 'vitest';
import { parseCompressedPly } from './compressed-ply';
import { SceneLoadError } from './errors';
import { loadScene } from './load';
import { parseSplatPly } from './ply';
import { buildPly, describeShared, floatProps, readSharedScene, type FixtureElement } from './ply-fixtures';

const C0 = 0.28209479177387814;

describeShared('compressed PLY, shared scenes', () => {
  it('guitar.compressed.ply agrees with guitar_float.ply (same data, converted) within the quantisation', () => {
    const bytes = readSharedScene('guitar.compressed.ply');
    const c = parseCompressedPly(bytes, 'guitar.compressed.ply');
    const f = parseSplatPly(readSharedScene('guitar_float.ply'), 'guitar_float.ply');
    expect(c.count).toBe(90_854);
    expect(f.count).toBe(c.count);

    // Independent read of the chunk ranges: the 'chunk' element comes first,
    // 18 floats a row (min_x..max_z, min_scale_x..max_scale_z, min_r..max_b).
    const text = new TextDecoder('latin1').decode(bytes.subarray(0, 4096));
    const body = text.indexOf('end_header\n') + 11;
    expect(text).toContain('element chunk 355\n');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const chunk = (i: number, p: number): number => view.getFloat32(body + (Math.floor(i / 256) * 18 + p) * 4, true);

    const worst = { pos: 0, logScale: 0, color: 0, opacity: 0, rot: 0 };
    for (let i = 0; i < c.count; i++) {
      for (let a = 0; a < 3; a++) {
        const step = (chunk(i, 3 + a) - chunk(i, a)) / (a === 1 ? 1023 : 2047);
        worst.pos = Math.max(worst.pos, Math.abs(c.positions[i * 3 + a]! - f.positions[i * 3 + a]!) / Math.max(step, 1e-7));
        const sstep = (chunk(i, 9 + a) - chunk(i, 6 + a)) / (a === 1 ? 1023 : 2047);
        worst.logScale = Math.max(worst.logScale, Math.abs(Math.log(c.scales[i * 3 + a]!) - Math.log(f.scales[i * 3 + a]!)) / Math.max(sstep, 1e-7));
        const cstep = (chunk(i, 15 + a) - chunk(i, 12 + a)) / 255 / C0;
        worst.color = Math.max(worst.color, Math.abs(c.sh[i * 3 + a]! - f.sh[i * 3 + a]!) / Math.max(cstep, 1e-7));
      }
      worst.opacity = Math.max(worst.opacity, Math.abs(c.opacities[i]! - f.opacities[i]!) * 255);
      let dot = 0;
      for (let k = 0; k < 4; k++) dot += c.rotations[i * 4 + k]! * f.rotations[i * 4 + k]!;
      worst.rot = Math.max(worst.rot, 1 - Math.abs(dot));
    }
    // Differences in units of one quantisation step: both sides decode the
    // same bits, so they agree to far better than a step.
    expect(worst.pos).toBeLessThan(1);
    expect(worst.logScale).toBeLessThan(1);
    expect(worst.color).toBeLessThan(1);
    expect(worst.opacity).toBeLessThan(1);
    // 10-bit components: a step of sqrt(2)/1023.
    expect(worst.rot).toBeLessThan(1e-3);
  });

  it('biker.compressed.ply: every splat inside its chunk range', () => {
    const bytes = readSharedScene('biker.compressed.ply');
    const c = parseCompressedPly(bytes, 'biker');
    expect(c.count).toBe(152_746);
    expect(c.shDegree).toBe(0);
    const text = new TextDecoder('latin1').decode(bytes.subarray(0, 4096));
    const body = text.indexOf('end_header\n') + 11;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let outside = 0;
    for (let i = 0; i < c.count; i++) {
      for (let a = 0; a < 3; a++) {
        const lo = view.getFloat32(body + (Math.floor(i / 256) * 18 + a) * 4, true);
        const hi = view.getFloat32(body + (Math.floor(i / 256) * 18 + 3 + a) * 4, true);
        const p = c.positions[i * 3 + a]!;
        if (p < lo - 1e-6 || p > hi + 1e-6) outside++;
      }
    }
    expect(outside).toBe(0);
  });
});

// An encoder written here from the format description, independent of the reader.
const unorm = (t: number, bits: number): number => Math.round(Math.min(1, Math.max(0, t)) * ((1 << bits) - 1));
const pack111011 = (x: number, y: number, z: number): number => ((unorm(x, 11) << 21) | (unorm(y, 10) << 11) | unorm(z, 11)) >>> 0;
const pack8888 = (r: number, g: number, b: number, a: number): number => ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
function packRotation(q: number[]): number {
  const len = Math.hypot(...q);
  let n = q.map((v) => v / len);
  let largest = 0;
  for (let k = 1; k < 4; k++) if (Math.abs(n[k]!) > Math.abs(n[largest]!)) largest = k;
  if (n[largest]! < 0) n = n.map((v) => -v);
  const rest = n.filter((_, k) => k !== largest).map((v) => unorm(v / Math.SQRT2 + 0.5, 10));
  return ((largest << 30) | (rest[0]! << 20) | (rest[1]! << 10) | rest[2]!) >>> 0;
}

const CHUNK = ['min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z', 'min_scale_x', 'min_scale_y', 'min_scale_z', 'max_scale_x', 'max_scale_y', 'max_scale_z'];
const CHUNK_COLOR = ['min_r', 'min_g', 'min_b', 'max_r', 'max_g', 'max_b'];
const PACKED = ['packed_position', 'packed_rotation', 'packed_scale', 'packed_color'].map((name) => ({ name, type: 'uint' }));

function compressed(chunks: number[][], vertices: number[][], extra: FixtureElement[] = []): Uint8Array {
  const chunkNames = chunks[0]!.length === 18 ? [...CHUNK, ...CHUNK_COLOR] : CHUNK;
  return buildPly('binary_little_endian', [
    { name: 'chunk', properties: floatProps(chunkNames), rows: chunks },
    { name: 'vertex', properties: PACKED, rows: vertices },
    ...extra,
  ]);
}

describe('compressed PLY, hand-made files', () => {
  // Position range [-1, 3] on every axis, log-scale range [-2, 0], colour range [0.2, 0.8].
  const chunkRow = [-1, -1, -1, 3, 3, 3, -2, -2, -2, 0, 0, 0, 0.2, 0.2, 0.2, 0.8, 0.8, 0.8];

  it('decodes the bit layouts', () => {
    const q = [0.1, 0.2, 0.9, -0.3];
    const bytes = compressed([chunkRow], [
      [pack111011(1, 0, 0.5), packRotation(q), pack111011(1, 0, 0.5), pack8888(255, 0, 128, 64)],
      [pack111011(0, 1, 0.25), packRotation([-1, 0, 0, 0]), pack111011(0, 1, 0), pack8888(0, 255, 0, 255)],
    ]);
    const c = parseCompressedPly(bytes, 'tiny.compressed.ply');
    expect(c.count).toBe(2);
    expect(c.shDegree).toBe(0);
    expect(c.source.format).toBe('compressed-ply');
    const close = (a: ArrayLike<number>, b: number[], eps: number): void => {
      expect(a.length).toBe(b.length);
      for (let k = 0; k < b.length; k++) expect(Math.abs(a[k]! - b[k]!), `component ${k}: ${a[k]} vs ${b[k]}`).toBeLessThan(eps);
    };
    close(c.positions.subarray(0, 3), [3, -1, 1], 4 / 1023);
    close(c.positions.subarray(3, 6), [-1, 3, 0], 4 / 1023);
    close(c.scales.subarray(0, 3), [1, Math.exp(-2), Math.exp(-1)], 2e-3);
    const n = Math.hypot(...q);
    close(c.rotations.subarray(0, 4), q.map((v) => v / n), 2e-3);
    close(c.rotations.subarray(4, 8), [1, 0, 0, 0], 2e-3);
    close(c.sh.subarray(0, 3), [(0.8 - 0.5) / C0, (0.2 - 0.5) / C0, (0.2 + 0.6 * (128 / 255) - 0.5) / C0], 1e-5);
    close(c.opacities, [64 / 255, 1], 1e-7);
  });

  it('reads chunks without a colour range (colours span [0, 1]) and the 257th splat from the second chunk', () => {
    const rows = Array.from({ length: 257 }, () => [pack111011(0, 0, 0), packRotation([1, 0, 0, 0]), pack111011(0, 0, 0), pack8888(255, 0, 255, 255)]);
    const c = parseCompressedPly(compressed([chunkRow.slice(0, 12), [10, 20, 30, 11, 21, 31, 0, 0, 0, 1, 1, 1]], rows), 'two-chunks.ply');
    expect(c.count).toBe(257);
    expect(Array.from(c.positions.subarray(0, 3))).toEqual([-1, -1, -1]);
    expect(Array.from(c.positions.subarray(256 * 3, 257 * 3))).toEqual([10, 20, 30]);
    expect(c.sh[0]).toBeCloseTo(0.5 / C0, 6);
    expect(c.sh[1]).toBeCloseTo(-0.5 / C0, 6);
  });

  it('reads the optional sh element (uchar, channel-major) into coefficient-major SH', () => {
    const shRow = [0, 255, 128, 10, 20, 30, 40, 50, 60];
    const sh: FixtureElement = { name: 'sh', properties: Array.from({ length: 9 }, (_, j) => ({ name: `f_rest_${j}`, type: 'uchar' })), rows: [shRow] };
    const c = parseCompressedPly(compressed([chunkRow], [[0, packRotation([1, 0, 0, 0]), 0, 0]], [sh]), 'sh.ply');
    expect(c.shDegree).toBe(1);
    const deq = (n: number): number => ((n === 0 ? 0 : n === 255 ? 1 : (n + 0.5) / 256) - 0.5) * 8;
    // Coefficient k (1..3) of channel c is f_rest_{c * 3 + k - 1}.
    for (let k = 1; k < 4; k++) for (let ch = 0; ch < 3; ch++) expect(c.sh[k * 3 + ch]).toBeCloseTo(deq(shRow[ch * 3 + k - 1]!), 6);
    expect(c.sh[3]).toBe(-4);
    expect(c.sh[6]).toBe(4);
  });

  it('loadScene routes compressed files here', async () => {
    const c = await loadScene(compressed([chunkRow], [[0, packRotation([1, 0, 0, 0]), 0, 0]]), 'routed.ply');
    expect(c.source.format).toBe('compressed-ply');
  });

  it('errors: too few chunks, missing packed property, truncated', async () => {
    const row = [0, packRotation([1, 0, 0, 0]), 0, 0];
    const few = compressed([chunkRow], Array.from({ length: 257 }, () => row));
    await expect(loadScene(few, 'few.ply')).rejects.toMatchObject({ code: 'bad-header' });

    const noColor = buildPly('binary_little_endian', [
      { name: 'chunk', properties: floatProps([...CHUNK, ...CHUNK_COLOR]), rows: [chunkRow] },
      { name: 'vertex', properties: PACKED.slice(0, 3), rows: [row.slice(0, 3)] },
    ]);
    const e1 = await loadScene(noColor, 'nocolor.ply').catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(SceneLoadError);
    expect(e1).toMatchObject({ code: 'missing-property', property: 'packed_color' });

    const whole = compressed([chunkRow], [row, row]);
    const e2 = (await loadScene(whole.subarray(0, whole.length - 20), 'cut.compressed.ply').catch((e: unknown) => e)) as SceneLoadError;
    expect(e2).toBeInstanceOf(SceneLoadError);
    expect(e2.code).toBe('truncated');
    expect(e2.message).toMatch(/^cut\.compressed\.ply: truncated: header declares 2 vertices of 16 bytes \(32 bytes\) but only 12 bytes follow the 'chunk' element at byte \d+$/);
  });
});
