import { describe, expect, it } from 'vitest';
import { LoadAbortedError, ReadFailedError, TruncatedError } from './errors';
import { loadScene } from './load';
import { buildPly, floatProps, inriaNames, readSharedScene, describeShared } from './ply-fixtures';
import { loadSceneStream, type LoadProgress } from './stream';
import { generateSynthetic } from './generate';
import { writeSplatPly } from './write-ply';
import { writeSpz } from './write-spz';
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
    expect(last).toEqual({ bytes: ply.length, totalBytes: ply.length, splats: 3000 });
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.bytes).toBeGreaterThanOrEqual(seen[i - 1]!.bytes);
      expect(seen[i]!.splats).toBeGreaterThanOrEqual(seen[i - 1]!.splats);
    }
    expect(seen.some((p) => p.splats > 0 && p.splats < 3000)).toBe(true);
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
