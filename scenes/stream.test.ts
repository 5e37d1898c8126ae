import { describe, expect, it } from 'vitest';
import { LoadAbortedError, ReadFailedError, SceneLoadError, TruncatedError } from './errors';
import { loadScene } from './load';
import { buildPly, floatProps, inriaNames, readSharedScene, describeShared } from './ply-fixtures';
import { BYOB_READ_BYTES, loadSceneStream, type LoadProgress } from './stream';
import { generateSynthetic } from './generate';
import { writeSplatPly } from './write-ply';
import { writeSpz } from './write-spz';
import { writeSplatFile } from './write-splat';
import type { SplatCloud } from './splat-cloud';

/** The bytes in chunks of the given sizes (cycled), as an async iterable. */
async function* chunked(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (let k = 0; at < bytes.length; k++) {
    const n = sizes[k % sizes.length]!;
    // A copy at an odd offset, so views are unaligned as network chunks are.
    const buf = new Uint8Array(n + 1);
    buf.set(bytes.subarray(at, at + n), 1);
    yield buf.subarray(1, 1 + Math.min(n, bytes.length - at));
    at += n;
  }
}

function readable(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/**
 * The bytes in chunks of the given sizes, all views of one buffer that is
 * overwritten (with junk, then the next bytes) when the next chunk is asked for:
 * a parser that keeps a view of a chunk instead of a copy reads junk.
 */
async function* reusing(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  const buf = new Uint8Array(Math.max(...sizes));
  let at = 0;
  for (let k = 0; at < bytes.length; k++) {
    const n = Math.min(sizes[k % sizes.length]!, bytes.length - at);
    buf.fill(0xa5);
    buf.set(bytes.subarray(at, at + n));
    yield buf.subarray(0, n);
    at += n;
  }
  buf.fill(0xa5);
}

/** reusing(), each chunk a Node Buffer (Node streams' chunk type: its slice() is a view, not a copy). */
async function* reusingBuffers(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  for await (const c of reusing(bytes, sizes)) yield Buffer.from(c.buffer, c.byteOffset, c.byteLength);
}

/**
 * A byte stream (as a File's or a fetch body is) serving `size` bytes a pull;
 * `reads` records the size of each BYOB view it was asked to fill (empty when
 * it was read with a default reader).
 */
function byteStream(bytes: Uint8Array, size: number, reads: number[] = []): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    type: 'bytes',
    pull(c) {
      if (at >= bytes.length) {
        c.close();
        c.byobRequest?.respond(0);
        return;
      }
      const req = c.byobRequest;
      if (req?.view) {
        reads.push(req.view.byteLength);
        const n = Math.min(size, req.view.byteLength, bytes.length - at);
        new Uint8Array(req.view.buffer, req.view.byteOffset, n).set(bytes.subarray(at, at + n));
        req.respond(n);
        at += n;
      } else {
        c.enqueue(bytes.slice(at, at + size));
        at += size;
      }
    },
  });
}

describe('loadSceneStream', () => {
  const cloud = generateSynthetic(3000);
  const ply = writeSplatPly(cloud);

  it('gives the same cloud as loadScene for any chunking, on both source kinds', async () => {
    const whole = await loadScene(ply, 's.ply');
    for (const sizes of [[7, 13, 250], [4096], [ply.length]]) expectSame(await loadSceneStream('s.ply', chunked(ply, sizes)), whole);
    expectSame(await loadSceneStream('s.ply', readable(ply, 1000), { totalBytes: ply.length }), whole);
    const small = writeSplatPly(generateSynthetic(20));
    expectSame(await loadSceneStream('s.ply', chunked(small, [1])), await loadScene(small, 's.ply'));
  });

  it('reports progress in bytes and splats, ending at the file size and the count', async () => {
    const seen: LoadProgress[] = [];
    await loadSceneStream('s.ply', chunked(ply, [10_000]), { totalBytes: ply.length, onProgress: (p) => seen.push(p) });
    const last = seen[seen.length - 1]!;
    expect(last).toEqual({ bytes: ply.length, totalBytes: ply.length, splats: 3000, declared: { splats: 3000, shDegree: 3 } });
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.bytes).toBeGreaterThanOrEqual(seen[i - 1]!.bytes);
      expect(seen[i]!.splats).toBeGreaterThanOrEqual(seen[i - 1]!.splats);
    }
    expect(seen.some((p) => p.splats > 0 && p.splats < 3000)).toBe(true);
  });

  it("reports the header's count and SH degree (after maxShDegree) before the body is parsed", async () => {
    for (const maxShDegree of [undefined, 1] as const) {
      const seen: LoadProgress[] = [];
      await loadSceneStream('s.ply', chunked(ply, [10_000]), { totalBytes: ply.length, onProgress: (p) => seen.push(p), ...(maxShDegree === undefined ? {} : { maxShDegree }) });
      const first = seen.findIndex((p) => p.declared !== undefined);
      expect(first).toBeGreaterThanOrEqual(0);
      // Known while the first rows arrive, long before the last ...
      expect(seen[first]!.splats).toBeLessThan(3000);
      expect(seen[first]!.bytes).toBeLessThan(ply.length / 2);
      // ... and the same in every report from then on.
      for (const p of seen.slice(first)) expect(p.declared).toEqual({ splats: 3000, shDegree: maxShDegree ?? 3 });
    }
    // Formats without a header count (a .splat) declare nothing.
    const seen: LoadProgress[] = [];
    const splat = writeSplatFile(generateSynthetic(100));
    await loadSceneStream('s.splat', chunked(splat, [512]), { totalBytes: splat.length, onProgress: (p) => seen.push(p) });
    expect(seen.every((p) => p.declared === undefined)).toBe(true);
  });

  it('an abort rejects with LoadAbortedError and cancels the source', async () => {
    const ac = new AbortController();
    let cancelled = false;
    let at = 0;
    const src = new ReadableStream<Uint8Array>({
      pull(c) {
        if (at > 50_000) ac.abort();
        c.enqueue(ply.slice(at, at + 10_000));
        at += 10_000;
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(loadSceneStream('s.ply', src, { signal: ac.signal })).rejects.toBeInstanceOf(LoadAbortedError);
    expect(cancelled).toBe(true);
    const pre = new AbortController();
    pre.abort();
    await expect(loadSceneStream('s.ply', chunked(ply, [100]), { signal: pre.signal })).rejects.toThrow('s.ply: aborted: ');
  });

  it('a failing source is a ReadFailedError; a truncated body a TruncatedError naming the byte', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield ply.subarray(0, 5000);
      throw new Error('connection reset');
    }
    await expect(loadSceneStream('s.ply', failing())).rejects.toThrow(ReadFailedError);
    const cut = ply.subarray(0, ply.length - 10);
    const e = (await loadSceneStream('s.ply', chunked(cut, [4096])).catch((x: unknown) => x)) as TruncatedError;
    expect(e).toBeInstanceOf(TruncatedError);
    expect(e.byteOffset).toBe(cut.length);
  });

  it('checks elements after the vertices, as loadScene does', async () => {
    const names = inriaNames(0);
    const v = { name: 'vertex', properties: floatProps(names), rows: [names.map((n) => (n === 'rot_0' ? 1 : 0))] };
    const extra = { name: 'extra', properties: floatProps(['a']), rows: [[1], [2]], declaredCount: 3 };
    const bytes = buildPly('binary_little_endian', [v, extra]);
    await expect(loadScene(bytes, 'x.ply')).rejects.toBeInstanceOf(TruncatedError);
    await expect(loadSceneStream('x.ply', chunked(bytes, [9]))).rejects.toBeInstanceOf(TruncatedError);
    const faces = { name: 'face', properties: [{ name: 'vertex_indices', type: 'int', list: 'uchar' }], rows: [[[0, 0, 0]], [[0, 0, 0]]], declaredCount: 3 };
    const withFaces = buildPly('binary_little_endian', [v, faces]);
    await expect(loadScene(withFaces, 'f.ply')).rejects.toBeInstanceOf(TruncatedError);
    await expect(loadSceneStream('f.ply', chunked(withFaces, [5]))).rejects.toBeInstanceOf(TruncatedError);
  });

  it('formats read whole (spz, ASCII) are collected and give loadScene\'s cloud', async () => {
    const spz = writeSpz(generateSynthetic(100), { version: 3 });
    expectSame(await loadSceneStream('z.spz', chunked(spz, [33])), await loadScene(spz, 'z.spz'));
    const names = inriaNames(1);
    const ascii = buildPly('ascii', [{ name: 'vertex', properties: floatProps(names), rows: [names.map((_, j) => j / 10)] }]);
    expect(await loadSceneStream('a.ply', chunked(ascii, [3]))).toEqual(await loadScene(ascii, 'a.ply'));
  });
});

describe('loadSceneStream: .splat and .spz', () => {
  const cloud = generateSynthetic(2500);
  const splat = writeSplatFile(cloud);
  const spz = { v2: writeSpz(cloud, { version: 2 }), v3: writeSpz(cloud, { version: 3 }), v4: writeSpz(cloud, { version: 4 }) };

  /** Streams `bytes` in the given chunk sizes and returns the cloud and every progress report. */
  async function streamed(name: string, bytes: Uint8Array, sizes: number[], totalBytes?: number): Promise<{ cloud: SplatCloud; seen: LoadProgress[] }> {
    const seen: LoadProgress[] = [];
    const c = await loadSceneStream(name, chunked(bytes, sizes), { ...(totalBytes === undefined ? {} : { totalBytes }), onProgress: (p) => seen.push({ ...p }) });
    return { cloud: c, seen };
  }

  function expectProgress(seen: LoadProgress[], size: number, count: number): void {
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.bytes).toBeGreaterThanOrEqual(seen[i - 1]!.bytes);
      expect(seen[i]!.splats).toBeGreaterThanOrEqual(seen[i - 1]!.splats);
    }
    expect(seen[seen.length - 1]).toMatchObject({ bytes: size, splats: count });
  }

  it('.splat: rows decoded as chunks arrive (rows cut between chunks), same cloud as loadScene', async () => {
    const whole = await loadScene(splat, 's.splat');
    expect(whole.source.format).toBe('splat');
    // 1-byte chunks on a small file (each chunk costs an await and a progress call).
    const small = writeSplatFile(generateSynthetic(150));
    expectSame((await streamed('s.splat', small, [1])).cloud, await loadScene(small, 's.splat'));
    for (const sizes of [[7, 13, 250], [31, 33], [32], [4096], [splat.length]]) {
      const { cloud: c, seen } = await streamed('s.splat', splat, sizes, sizes[0] === 4096 ? splat.length : undefined);
      expectSame(c, whole);
      expectProgress(seen, splat.length, whole.count);
      // Splats show up before the last chunk: the file is parsed as it arrives.
      if (sizes[0]! < splat.length) expect(seen.some((p) => p.splats > 0 && p.bytes < splat.length)).toBe(true);
    }
    expectSame(await loadSceneStream('s.splat', readable(splat, 1000)), whole);
  });

  it('.splat: undrawable rows are dropped and counted as by loadScene', async () => {
    const bad = splat.slice();
    new DataView(bad.buffer).setFloat32(32 * 5, NaN, true); // a position
    new DataView(bad.buffer).setFloat32(32 * 9 + 12, -1, true); // a negative scale
    const whole = await loadScene(bad, 'b.splat');
    expect(whole.sanitized!.dropped).toBe(2);
    expectSame(await loadSceneStream('b.splat', chunked(bad, [45])), whole);
  });

  it('.splat: a size that is not a multiple of 32 is the same UnknownFormatError as loadScene', async () => {
    const cut = splat.subarray(0, splat.length - 5);
    const a = (await loadScene(cut, 'c.splat').catch((e: unknown) => e)) as SceneLoadError;
    const b = (await loadSceneStream('c.splat', chunked(cut, [100])).catch((e: unknown) => e)) as SceneLoadError;
    expect(a.code).toBe('unknown-format');
    expect(b.message).toBe(a.message);
  });

  for (const v of ['v2', 'v3'] as const) {
    it(`.spz ${v} (gzip): inflated as chunks arrive, same cloud as loadScene; splats reported at the end`, async () => {
      const bytes = spz[v];
      const whole = await loadScene(bytes, 'z.spz');
      expect(whole.source.format).toBe(`spz-${v}`);
      expect(whole.shDegree).toBe(3);
      const small = writeSpz(generateSynthetic(150), { version: v === 'v2' ? 2 : 3 });
      expectSame((await streamed('z.spz', small, [1])).cloud, await loadScene(small, 'z.spz'));
      for (const sizes of [[5, 17, 300], [4096], [bytes.length]]) {
        const { cloud: c, seen } = await streamed('z.spz', bytes, sizes);
        expectSame(c, whole);
        expectProgress(seen, bytes.length, whole.count);
        // Planar attributes: no splat before the end, then one report with the count.
        expect(seen.slice(0, -1).every((p) => p.splats === 0)).toBe(true);
      }
    });
  }

  it('.spz v2/v3 cut short or corrupt: the same error code as loadScene, whatever the chunking', async () => {
    const bytes = spz.v3;
    const cases = [bytes.subarray(0, bytes.length - 3), bytes.subarray(0, bytes.length - 12), bytes.subarray(0, bytes.length / 2), bytes.subarray(0, 40), bytes.subarray(0, 70)];
    const flipped = bytes.slice();
    flipped[flipped.length - 6]! ^= 0x10; // the CRC-32
    cases.push(flipped);
    const body = bytes.slice();
    body[30]! ^= 0xff;
    cases.push(body);
    for (const b of cases) {
      const a = (await loadScene(b, 'z.spz').catch((e: unknown) => e)) as SceneLoadError;
      expect(a).toBeInstanceOf(SceneLoadError);
      for (const sizes of [[9], [700], [4096]]) {
        const e = (await loadSceneStream('z.spz', chunked(b, sizes)).catch((x: unknown) => x)) as SceneLoadError;
        expect(e).toBeInstanceOf(SceneLoadError);
        expect(e.code).toBe(a.code);
      }
    }
  });

  it('.spz v4 (NGSP, ZSTD): collected and read at the end, same cloud as loadScene', async () => {
    const bytes = spz.v4;
    const whole = await loadScene(bytes, 'z.spz');
    expect(whole.source.format).toBe('spz-v4');
    for (const sizes of [[97], [4096]]) {
      const { cloud: c, seen } = await streamed('z.spz', bytes, sizes);
      expectSame(c, whole);
      expectProgress(seen, bytes.length, whole.count);
      expect(seen.slice(0, -1).every((p) => p.splats === 0)).toBe(true);
    }
  });
});

describe('loadSceneStream: chunks are valid only until the next one (a reused read buffer)', () => {
  const cloud = generateSynthetic(2500);
  const names = inriaNames(1);
  const files: [string, Uint8Array][] = [
    ['s.ply', writeSplatPly(cloud)],
    ['s.splat', writeSplatFile(cloud)],
    ['z2.spz', writeSpz(cloud, { version: 2 })],
    ['z3.spz', writeSpz(cloud, { version: 3 })],
    ['z4.spz', writeSpz(cloud, { version: 4 })],
    ['a.ply', buildPly('ascii', [{ name: 'vertex', properties: floatProps(names), rows: [names.map((_, j) => j / 10), names.map((_, j) => j / 7)] }])],
  ];

  for (const [name, bytes] of files) {
    it(`${name}: the same cloud as loadScene from a source that overwrites each chunk once it is read`, async () => {
      const whole = await loadScene(bytes, name);
      for (const sizes of [[7, 13, 250], [4096], [70_000], [bytes.length]]) expectSame(await loadSceneStream(name, reusing(bytes, sizes)), whole);
    });

    it(`${name}: the same, with the chunks as Node Buffers`, async () => {
      const whole = await loadScene(bytes, name);
      for (const sizes of [[7, 13, 250], [4096], [bytes.length]]) expectSame(await loadSceneStream(name, reusingBuffers(bytes, sizes)), whole);
    });
  }

  it('a byte stream is read through a BYOB reader into one buffer of BYOB_READ_BYTES: the same cloud as loadScene', async () => {
    for (const [name, bytes] of files) {
      const reads: number[] = [];
      const whole = await loadScene(bytes, name);
      expectSame(await loadSceneStream(name, byteStream(bytes, 5000, reads), { totalBytes: bytes.length }), whole);
      // Every read offered the whole buffer (the chunks' memory is reused, never allocated per read).
      expect(reads.length).toBeGreaterThan(0);
      expect(new Set(reads)).toEqual(new Set([BYOB_READ_BYTES]));
    }
  });

  it('a stream of chunks that is not a byte stream is read with a default reader (Node streams, tests)', async () => {
    const [name, bytes] = files[0]!;
    expectSame(await loadSceneStream(name, readable(bytes, 3000)), await loadScene(bytes, name));
  });

  it('an abort during a BYOB read rejects with LoadAbortedError', async () => {
    const [name, bytes] = files[0]!;
    const ac = new AbortController();
    const p = loadSceneStream(name, byteStream(bytes, 1000), { signal: ac.signal, onProgress: (x) => x.bytes > 20_000 && ac.abort() });
    await expect(p).rejects.toBeInstanceOf(LoadAbortedError);
  });
});

/** Same cloud, compared array by array as bytes (toEqual is slow on large typed arrays). */
function expectSame(a: SplatCloud, b: SplatCloud): void {
  const { positions, scales, rotations, opacities, sh, ...rest } = a;
  const { positions: p2, scales: s2, rotations: r2, opacities: o2, sh: h2, ...rest2 } = b;
  expect(rest).toEqual(rest2);
  const bytes = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  for (const [x, y] of [[positions, p2], [scales, s2], [rotations, r2], [opacities, o2], [sh, h2]] as const) expect(bytes(x).equals(bytes(y))).toBe(true);
}

describeShared('loadSceneStream on the shared scenes', () => {
  for (const f of ['inria_sh3_tile_1971.ply', 'playbot_31k_sh2_reordered.ply', 'guitar_float.ply', 'biker.compressed.ply']) {
    it(`${f}: same as loadScene with 64 KiB chunks`, async () => {
      const bytes = readSharedScene(f);
      expectSame(await loadSceneStream(f, chunked(bytes, [65536])), await loadScene(bytes, f));
    });
  }
});
