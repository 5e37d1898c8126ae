import { describe, expect, it } from 'vitest';
import { keptShDegree, parseShDegree, withShDegree } from './load-options';
import { loadScene, loadSceneSync } from './load';
import { readGeneralVertexRows } from './ply-general';
import { parsePlyHeader } from './ply-header';
import { buildPly, floatProps, inriaNames } from './ply-fixtures';
import { computeBounds, shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';
import { loadSceneStream } from './stream';
import { writeSplatPly } from './write-ply';
import { writeSplatFile } from './write-splat';
import { writeSpz } from './write-spz';

/** A small deterministic cloud with distinct SH values in every band. */
function cloud(n: number, degree: ShDegree): SplatCloud {
  let s = 777;
  const r = (): number => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const K3 = shCoeffCount(degree) * 3;
  const positions = Float32Array.from({ length: n * 3 }, () => (r() - 0.5) * 10);
  const scales = Float32Array.from({ length: n * 3 }, () => Math.exp(-5 + r() * 3));
  const rotations = new Float32Array(n * 4);
  for (let i = 0; i < n; i++) {
    const q = [r() + 0.1, r() - 0.5, r() - 0.5, r() - 0.5];
    const len = Math.hypot(...q);
    q.forEach((v, k) => (rotations[i * 4 + k] = v / len));
  }
  const opacities = Float32Array.from({ length: n }, () => 0.1 + r() * 0.8);
  const sh = Float32Array.from({ length: n * K3 }, () => (r() - 0.5) * 1.5);
  return { count: n, shDegree: degree, positions, scales, rotations, opacities, sh, bounds: computeBounds(positions), source: { name: 'mem', format: 'mem' } };
}

/**
 * `capped` is `full` with only the SH bands up to `degree` kept: every other
 * array equal, and each splat's SH the first shCoeffCount(degree) * 3 values of
 * the full load's (SplatCloud.sh is coefficient-major).
 */
function expectCapped(capped: SplatCloud, full: SplatCloud, degree: ShDegree): void {
  expect(capped.shDegree).toBe(degree);
  expect(capped.count).toBe(full.count);
  expect(capped.source.format).toBe(full.source.format);
  // Compared as bytes (toEqual is slow on the large arrays of the .spz stream cases).
  const bytes = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  for (const k of ['positions', 'scales', 'rotations', 'opacities'] as const) expect(bytes(capped[k]).equals(bytes(full[k])), k).toBe(true);
  const K3 = shCoeffCount(degree) * 3;
  const F3 = shCoeffCount(full.shDegree) * 3;
  expect(capped.sh.length).toBe(full.count * K3);
  const want = new Float32Array(full.count * K3);
  for (let i = 0; i < full.count; i++) want.set(full.sh.subarray(i * F3, i * F3 + K3), i * K3);
  expect(bytes(capped.sh).equals(bytes(want)), 'sh').toBe(true);
}

/** The bytes in chunks of `size` (a copy each, at an odd offset, as network chunks are), as an async iterable. */
async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) {
    const n = Math.min(size, bytes.length - at);
    const buf = new Uint8Array(n + 1);
    buf.set(bytes.subarray(at, at + n), 1);
    yield buf.subarray(1);
  }
}

/** Which reader decodes the vertex rows of a general-route PLY ('auto', as loadScene picks). */
function generalDecoder(bytes: Uint8Array): string {
  const header = parsePlyHeader(bytes, 'g.ply');
  return readGeneralVertexRows(bytes, 'g.ply', header, header.elements.find((e) => e.name === 'vertex')!, 'auto').decoder;
}

describe('LoadOptions.maxShDegree', () => {
  it('keptShDegree and parseShDegree', () => {
    expect(keptShDegree(3, { maxShDegree: 1 })).toBe(1);
    expect(keptShDegree(1, { maxShDegree: 3 })).toBe(1);
    expect(keptShDegree(2, {})).toBe(2);
    expect(keptShDegree(2, undefined)).toBe(2);
    expect(parseShDegree('0', '?sh=')).toBe(0);
    expect(parseShDegree('3', '--sh')).toBe(3);
    for (const bad of ['', '4', '-1', '1.5', 'x']) expect(() => parseShDegree(bad, '--sh')).toThrow(/--sh .*expected an SH degree 0, 1, 2 or 3/);
  });

  it('binary PLY (fast path): each lower degree keeps exactly the lower bands', async () => {
    const bytes = writeSplatPly(cloud(200, 3));
    const full = await loadScene(bytes, 'a.ply');
    expect(full.shDegree).toBe(3);
    for (const d of [0, 1, 2] as const) expectCapped(await loadScene(bytes, 'a.ply', { maxShDegree: d }), full, d);
    // A limit at or above the file's degree changes nothing.
    expectCapped(await loadScene(bytes, 'a.ply', { maxShDegree: 3 }), full, 3);
    const sh1 = await loadScene(writeSplatPly(cloud(10, 1)), 'b.ply', { maxShDegree: 2 });
    expect(sh1.shDegree).toBe(1);
  });

  it('binary PLY as a stream (loadSceneStream), in small chunks', async () => {
    const bytes = writeSplatPly(cloud(300, 3));
    const full = await loadScene(bytes, 's.ply');
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let at = 0; at < bytes.length; at += 999) yield bytes.slice(at, at + 999);
    }
    const capped = await loadSceneStream('s.ply', chunks(), { totalBytes: bytes.length, maxShDegree: 1 });
    expectCapped(capped, full, 1);
  });

  it('ASCII and big-endian PLY (the general reader)', async () => {
    const src = cloud(20, 2);
    const names = inriaNames(2);
    const le = writeSplatPly(src);
    const full = await loadScene(le, 'le.ply');
    // The same rows as the little-endian file, re-encoded: read back through the float view.
    const text = new TextDecoder('latin1').decode(le);
    const body = le.byteOffset + text.indexOf('end_header\n') + 11;
    const floats = new Float32Array(le.buffer.slice(body, body + src.count * names.length * 4));
    const rows = Array.from({ length: src.count }, (_, i) => Array.from(floats.subarray(i * names.length, (i + 1) * names.length)));
    for (const format of ['ascii', 'binary_big_endian'] as const) {
      const bytes = buildPly(format, [{ name: 'vertex', properties: floatProps(names), rows }]);
      // Small and clean: the general route decodes these rows with @loaders.gl/ply.
      expect(generalDecoder(bytes)).toBe('loaders.gl');
      const general = loadSceneSync(bytes, 'g.ply');
      const capped = loadSceneSync(bytes, 'g.ply', { maxShDegree: 1 });
      expectCapped(capped, general, 1);
      expectCapped(loadSceneSync(bytes, 'g.ply', { maxShDegree: 0 }), general, 0);
      // And the general reader's full load is the fast path's (ASCII through decimal text: float32-exact here).
      if (format === 'binary_big_endian') expect(general.sh).toEqual(full.sh);
      // Streamed (the general route is collected, then read with the same options).
      expectCapped(await loadSceneStream('g.ply', chunked(bytes, 101), { maxShDegree: 1 }), general, 1);
    }
  });

  it('general route, our own reader (ASCII rows loaders.gl would misread): the same cut', async () => {
    const names = inriaNames(3);
    const src = cloud(12, 3);
    const le = writeSplatPly(src);
    const text = new TextDecoder('latin1').decode(le);
    const body = le.byteOffset + text.indexOf('end_header\n') + 11;
    const floats = new Float32Array(le.buffer.slice(body, body + src.count * names.length * 4));
    const rows = Array.from({ length: src.count }, (_, i) => Array.from(floats.subarray(i * names.length, (i + 1) * names.length)));
    const oneLine = buildPly('ascii', [{ name: 'vertex', properties: floatProps(names), rows }]);
    // Each row's last value moved to a line of its own: valid PLY, but loaders.gl reads one row a line.
    const ascii = new TextDecoder('latin1').decode(oneLine);
    const start = ascii.indexOf('end_header\n') + 11;
    const split = ascii.slice(0, start) + ascii.slice(start).split('\n').map((line) => line.replace(/ (\S+)$/, '\n$1')).join('\n');
    const bytes = Uint8Array.from(split, (c) => c.charCodeAt(0));
    expect(generalDecoder(oneLine)).toBe('loaders.gl');
    expect(generalDecoder(bytes)).toBe('own');
    const full = loadSceneSync(bytes, 'g.ply');
    expect(full.shDegree).toBe(3);
    expectCapped(full, loadSceneSync(oneLine, 'g.ply'), 3);
    for (const d of [0, 1, 2] as const) expectCapped(loadSceneSync(bytes, 'g.ply', { maxShDegree: d }), full, d);
  });

  it('compressed PLY: the optional sh element read to the kept degree', async () => {
    // One chunk (position range [-1, 3], log-scale [-2, 0]), two splats, an SH degree 2 element (24 uchar f_rest, channel-major).
    const chunk = [-1, -1, -1, 3, 3, 3, -2, -2, -2, 0, 0, 0];
    const chunkNames = ['min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z', 'min_scale_x', 'min_scale_y', 'min_scale_z', 'max_scale_x', 'max_scale_y', 'max_scale_z'];
    const packed = ['packed_position', 'packed_rotation', 'packed_scale', 'packed_color'].map((name) => ({ name, type: 'uint' }));
    const shRows = [Array.from({ length: 24 }, (_, j) => j * 10), Array.from({ length: 24 }, (_, j) => 250 - j * 7)];
    const bytes = buildPly('binary_little_endian', [
      { name: 'chunk', properties: floatProps(chunkNames), rows: [chunk] },
      { name: 'vertex', properties: packed, rows: [[0x12345678, 0xc0000000, 0x00400100, 0x80402010], [0x7ff003ff, 0xc0000000, 0x0, 0xffffffff]] },
      { name: 'sh', properties: Array.from({ length: 24 }, (_, j) => ({ name: `f_rest_${j}`, type: 'uchar' })), rows: shRows },
    ]);
    const full = loadSceneSync(bytes, 'c.ply');
    expect(full.source.format).toBe('compressed-ply');
    expect(full.shDegree).toBe(2);
    expectCapped(loadSceneSync(bytes, 'c.ply', { maxShDegree: 1 }), full, 1);
    expectCapped(loadSceneSync(bytes, 'c.ply', { maxShDegree: 0 }), full, 0);
    // Degree 1 coefficient k of channel c is the file's f_rest_{c * 8 + k - 1} (channel-major over 8 bands), not c * 3 + k - 1.
    const one = loadSceneSync(bytes, 'c.ply', { maxShDegree: 1 });
    const deq = (n: number): number => ((n === 0 ? 0 : n === 255 ? 1 : (n + 0.5) / 256) - 0.5) * 8;
    for (let k = 1; k < 4; k++) for (let c = 0; c < 3; c++) expect(one.sh[k * 3 + c]).toBeCloseTo(deq(shRows[0]![c * 8 + k - 1]!), 6);
  });

  it('.splat has degree 0 only: the option is accepted and changes nothing, whole or streamed', async () => {
    const bytes = writeSplatFile(cloud(50, 0));
    const full = await loadScene(bytes, 'x.splat');
    expectCapped(await loadScene(bytes, 'x.splat', { maxShDegree: 0 }), full, 0);
    expectCapped(await loadScene(bytes, 'x.splat', { maxShDegree: 2 }), full, 0);
    // The streaming .splat reader (rows decoded as chunks arrive, rows cut between chunks).
    for (const d of [0, 2] as const) expectCapped(await loadSceneStream('x.splat', chunked(bytes, 45), { maxShDegree: d }), full, 0);
  });

  for (const version of [2, 3, 4] as const) {
    it(`.spz v${version}`, async () => {
      const bytes = writeSpz(cloud(64, 3), { version });
      const full = await loadScene(bytes, 'z.spz');
      expect(full.shDegree).toBe(3);
      for (const d of [0, 1, 2] as const) expectCapped(await loadScene(bytes, 'z.spz', { maxShDegree: d }), full, d);
    });
  }

  for (const version of [2, 3] as const) {
    it(`.spz v${version} (gzip) streamed: inflated as chunks arrive, decoded to the kept degree`, async () => {
      // More splats than one decode batch (16K), so the chunked decoder's later batches are cut too.
      const bytes = writeSpz(cloud((1 << 14) + 300, 3), { version });
      const full = await loadScene(bytes, 'z.spz');
      for (const d of [0, 1, 2] as const) {
        const streamed = await loadSceneStream('z.spz', chunked(bytes, 7001), { maxShDegree: d });
        expectCapped(streamed, full, d);
      }
      // Small chunks (gathered before they are inflated).
      const small = writeSpz(cloud(40, 3), { version });
      expectCapped(await loadSceneStream('s.spz', chunked(small, 3), { maxShDegree: 1 }), await loadScene(small, 's.spz'), 1);
    });
  }

  it('.spz v4 (NGSP) streamed: collected, then decoded to the kept degree', async () => {
    const bytes = writeSpz(cloud(64, 3), { version: 4 });
    const full = await loadScene(bytes, 'z.spz');
    expectCapped(await loadSceneStream('z.spz', chunked(bytes, 97), { maxShDegree: 2 }), full, 2);
  });

  it('withShDegree cuts a cloud made in memory the way the loaders cut a file', async () => {
    const c = cloud(40, 3);
    const full = await loadScene(writeSplatPly(c), 'w.ply');
    expectCapped(withShDegree(full, { maxShDegree: 2 }), full, 2);
    expect(withShDegree(full, { maxShDegree: 3 })).toBe(full);
    expect(withShDegree(full, {})).toBe(full);
    const cut = withShDegree(full, { maxShDegree: 1 });
    const parsed = await loadScene(writeSplatPly(c), 'w.ply', { maxShDegree: 1 });
    expect(cut.sh).toEqual(parsed.sh);
  });
});
