/**
 * Issue 33: inflation bounded by the file and a memory budget, and formats told
 * from content honestly. The bombs of the issue, built small in memory: a gzip of
 * zeros (no SPZ magic), SPZ v3 and v4 headers declaring 2^32 - 1 points, ZSTD
 * run-length frames declaring millions of points in a few hundred bytes, a zip
 * entry declaring a gigabyte. Each ends in one typed line naming the file, fast.
 * The memory budget (LoadOptions.memoryBudget) is checked in every format; a PLY
 * whose first line is damaged is not read as .splat; no message prints NaN.
 */
import { gzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { CompressionBombError, SceneLoadError, SpzFormatError, TooLargeError, UnknownFormatError, type SceneLoadErrorCode } from './errors';
import { generateSynthetic } from './generate';
import { loadScene } from './load';
import { buildPly, floatProps, inriaNames } from './ply-fixtures';
import type { SplatCloud } from './splat-cloud';
import { loadSceneStream } from './stream';
import { writeSplatPly } from './write-ply';
import { writeSplatFile } from './write-splat';
import { writeSpz } from './write-spz';
import { cat, ngspRle, spzHeader } from '../test/support/spz-bombs';
import { tinyGltf } from '../test/support/tiny-gltf';

async function* chunks(b: Uint8Array, size = 1 << 20): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < b.length; at += size) yield b.slice(at, at + size);
}

/** The error of a load (whole, and as a stream with or without the size announced), checked to be one typed line naming the file. */
async function failure(bytes: Uint8Array, name: string, code: SceneLoadErrorCode, options: { memoryBudget?: number; stream?: 'sized' | 'unsized' } = {}): Promise<SceneLoadError> {
  const t0 = performance.now();
  let err: unknown = null;
  try {
    const load = options.memoryBudget === undefined ? {} : { memoryBudget: options.memoryBudget };
    if (options.stream === undefined) await loadScene(bytes, name, load);
    else await loadSceneStream(name, chunks(bytes), { ...load, ...(options.stream === 'sized' ? { totalBytes: bytes.length } : {}) });
  } catch (e) {
    err = e;
  }
  expect(err, `${name}: expected ${code}`).toBeInstanceOf(SceneLoadError);
  const e = err as SceneLoadError;
  expect(e.code, e.message).toBe(code);
  expect(e.message.startsWith(`${name}: ${code}: `)).toBe(true);
  expect(e.message).not.toMatch(/[\r\n]|\bNaN\b|\bundefined\b/);
  expect(performance.now() - t0, `${name} took too long`).toBeLessThan(5000);
  return e;
}

describe('decompression bombs end in one typed line, before they inflate', () => {
  it('a gzip of 16 MB of zeros: the SPZ magic is checked on the first inflated bytes', async () => {
    const zeros = gzipSync(new Uint8Array(16 << 20), { level: 9 });
    for (const stream of [undefined, 'sized', 'unsized'] as const) {
      const e = await failure(zeros, 'zeros.spz', 'bad-spz', stream ? { stream } : {});
      expect(e).toBeInstanceOf(SpzFormatError);
      expect(e.message).toContain('magic');
    }
  });

  it('SPZ v3 and v4 headers declaring 2^32 - 1 points: refused by the budget, naming the count and the budget (no RangeError)', async () => {
    const v3 = gzipSync(cat(spzHeader(0xffffffff), new Uint8Array(1 << 16)));
    for (const [bytes, name] of [[v3, 'huge-v3.spz'], [ngspRle(0xffffffff), 'huge-v4.spz']] as const) {
      const e = await failure(bytes, name, 'too-large');
      expect(e).toBeInstanceOf(TooLargeError);
      expect(e.message).toMatch(/header: 4294967295 splats of SH degree 0 need [\d.]+ GB .*more than the memory budget of 4 GB/);
    }
    await failure(v3, 'huge-v3.spz', 'too-large', { stream: 'unsized' });
  });

  it('ZSTD run-length frames: a few hundred bytes declaring 1 million points (20 MB) are a bomb; 50 million are past the budget, and a bomb under a larger one', async () => {
    const million = ngspRle(1_000_000);
    expect(million.length).toBeLessThan(1000);
    const e = await failure(million, 'rle.spz', 'bomb');
    expect(e).toBeInstanceOf(CompressionBombError);
    expect(e.message).toMatch(/20000000 bytes inflated from \d+ compressed bytes, more than 1000x/);
    const fifty = ngspRle(50_000_000);
    expect(fifty.length).toBeLessThan(40_000);
    await failure(fifty, 'rle50m.spz', 'too-large');
    await failure(fifty, 'rle50m.spz', 'bomb', { memoryBudget: 64e9 });
  });

  it('a gzip SPZ whose header declares more than 1,000x the file: refused by its declared size, and as it inflates when the size is unknown', async () => {
    const bytes = gzipSync(cat(spzHeader(400_000), new Uint8Array(8_000_000)), { level: 9 });
    expect(bytes.length).toBeLessThan(8_000_000 / 1000);
    await failure(bytes, 'zeros400k.spz', 'bomb');
    await failure(bytes, 'zeros400k.spz', 'bomb', { stream: 'sized' });
    const unsized = await failure(bytes, 'zeros400k.spz', 'bomb', { stream: 'unsized' });
    expect(unsized.message).toContain('the gzip stream');
  });

  it('a zip entry declaring a gigabyte from 40 bytes: refused before its output is allocated', async () => {
    const z = zipSync({ 'meta.json': new TextEncoder().encode('{"version": 2}'.padEnd(4000, ' ')) }, { level: 9 });
    const v = new DataView(z.buffer);
    let cd = z.length - 22;
    while (v.getUint32(cd, true) !== 0x06054b50) cd--;
    v.setUint32(v.getUint32(cd + 16, true) + 24, 1e9, true);
    await failure(z, 'bomb.sog', 'bomb');
  });
});

describe('the memory budget (LoadOptions.memoryBudget), in every format', () => {
  const cloud = generateSynthetic(300, 4);
  const sh0: SplatCloud = { ...cloud, shDegree: 0, sh: cloud.sh.filter((_, i) => i % 48 < 3) };
  const files: [string, Uint8Array][] = [
    ['scene.ply', writeSplatPly(cloud)],
    ['scene-sh0.ply', writeSplatPly(sh0)],
    ['scene.splat', writeSplatFile(cloud)],
    ['scene-v2.spz', writeSpz(cloud, { version: 2 })],
    ['scene-v3.spz', writeSpz(cloud, { version: 3 })],
    ['scene-v4.spz', writeSpz(cloud, { version: 4 })],
    ['scene-ascii.ply', buildPly('ascii', [{ name: 'vertex', properties: floatProps(inriaNames(0)), rows: Array.from({ length: 300 }, (_, i) => inriaNames(0).map((n) => (n === 'rot_0' ? 1 : n.startsWith('scale') ? -3 : i % 7))) }])],
  ];

  it.each(files)('%s loads under the default budget, and is refused in one line under a budget below its splats', async (name, bytes) => {
    expect((await loadScene(bytes, name)).count).toBe(300);
    const budget = 300 * 68 - 1; // less than 300 splats of SH degree 0 need
    const e = await failure(bytes, name, 'too-large', { memoryBudget: budget });
    expect(e.message).toMatch(/: 300 splats of SH degree [03] need .* more than the memory budget of 20.4 KB/);
    await failure(bytes, name, 'too-large', { memoryBudget: budget, stream: 'sized' });
    await failure(bytes, name, 'too-large', { memoryBudget: budget, stream: 'unsized' });
  });

  it('.gltf: primitives sharing one set of accessors declare more splats than the buffer holds; the budget bounds them', async () => {
    const { json, bin } = tinyGltf(sh0, 'scene.bin', {}, 50);
    const getFile = async (): Promise<Uint8Array> => bin;
    expect((await loadScene(json, 'shared.gltf', {}, getFile)).count).toBe(300 * 50);
    const e = await loadScene(json, 'shared.gltf', { memoryBudget: 1e6 }, getFile).catch((x: unknown) => x as SceneLoadError);
    expect(e).toBeInstanceOf(TooLargeError);
    expect((e as Error).message).toMatch(/^shared\.gltf: too-large: the splat primitives' accessors: 15000 splats of SH degree 0 need 1.02 MB, more than the memory budget of 1 MB/);
  });
});

describe('formats from the content: .splat only when its rows look like splats', () => {
  const cloud = generateSynthetic(500, 6);

  it('a PLY whose "ply" line is damaged, its size a multiple of 32, is an unknown format that says so (whole and streamed)', async () => {
    const ply = writeSplatPly(cloud);
    const bad = new Uint8Array(Math.ceil(ply.length / 32) * 32);
    bad.set(ply);
    bad[2] = 0x78; // "plx"
    for (const stream of [undefined, 'sized', 'unsized'] as const) {
      const e = await failure(bad, 'damaged.ply', 'unknown-format', stream ? { stream } : {});
      expect(e).toBeInstanceOf(UnknownFormatError);
      expect(e.message).toContain('a PLY whose first line is damaged');
    }
  });

  it('JSON, text and random bytes of a multiple of 32 bytes are unknown formats that say what they look like', async () => {
    const json = new TextEncoder().encode(JSON.stringify({ hello: 'world', list: [1, 2, 3] }).padEnd(320, ' '));
    expect((await failure(json, 'x.json', 'unknown-format')).message).toContain('JSON or other text');
    const text = new TextEncoder().encode('just some words in a file\n'.repeat(40).slice(0, 640));
    expect((await failure(text, 'x.txt', 'unknown-format')).message).toContain('text (first bytes');
    let s = 7;
    const noise = Uint8Array.from({ length: 32 * 100 }, () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 24));
    expect((await failure(noise, 'x.bin', 'unknown-format')).message).toContain('binary data of no format we know');
  });

  it('a real .splat still loads, also with a few undrawable rows (dropped and counted)', async () => {
    const bytes = writeSplatFile(cloud);
    const v = new DataView(bytes.buffer);
    for (let i = 0; i < 500; i += 50) v.setFloat32(i * 32, NaN, true);
    const c = await loadScene(bytes, 'real.splat');
    expect(c.source.format).toBe('splat');
    expect(c.count).toBe(490);
    expect(c.sanitized?.reasons['non-finite position']).toBe(10);
    const s = await loadSceneStream('real.splat', chunks(bytes, 100));
    expect(s.count).toBe(490);
  });
});

describe('no message prints NaN', () => {
  it('a compressed PLY chunk range of NaN reads "not a number"', async () => {
    const names = ['min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z', 'min_scale_x', 'min_scale_y', 'min_scale_z', 'max_scale_x', 'max_scale_y', 'max_scale_z'];
    const bytes = buildPly('binary_little_endian', [
      { name: 'chunk', properties: floatProps(names), rows: [[NaN, 0, 0, 1, 1, 1, -5, -5, -5, -4, -4, -4]] },
      { name: 'vertex', properties: ['packed_position', 'packed_rotation', 'packed_scale', 'packed_color'].map((name) => ({ name, type: 'uint' })), rows: [[0, 0, 0, 0xffffffff]] },
    ]);
    const e = await failure(bytes, 'nan.compressed.ply', 'bad-chunk');
    expect(e.message).toContain('min_x = not a number');
  });
});
