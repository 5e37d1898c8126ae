import { describe, expect, it } from 'vitest';
import { DecompressError, SpzFormatError, TruncatedError, UnknownFormatError, UnsupportedError } from './errors';
import { loadScene, loadSceneSync } from './load';
import { computeBounds, shCoeffCount, type ShDegree, type SplatCloud } from './splat-cloud';
import { writeSplatPly } from './write-ply';
import { writeSplatFile } from './write-splat';
import { rawZstdFrame, writeSpz } from './write-spz';
import { rotationError, worst } from '../test/support/cloud-compare';

/** A small deterministic cloud inside every format's range (positions within +-8, |SH| < 1). */
function cloud(n: number, degree: ShDegree): SplatCloud {
  let s = 12345;
  const r = (): number => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const K3 = shCoeffCount(degree) * 3;
  const positions = Float32Array.from({ length: n * 3 }, () => (r() - 0.5) * 16);
  const scales = Float32Array.from({ length: n * 3 }, () => Math.exp(-6 + r() * 5));
  const rotations = new Float32Array(n * 4);
  for (let i = 0; i < n; i++) {
    const q = [r() - 0.5, r() - 0.5, r() - 0.5, r() - 0.5];
    const len = Math.hypot(...q);
    q.forEach((v, k) => (rotations[i * 4 + k] = v / len));
  }
  const opacities = Float32Array.from({ length: n }, () => 0.05 + r() * 0.9);
  const sh = Float32Array.from({ length: n * K3 }, (_, i) => (i % K3 < 3 ? (r() - 0.5) * 3 : (r() - 0.5) * 1.6));
  return { count: n, shDegree: degree, positions, scales, rotations, opacities, sh, bounds: computeBounds(positions), source: { name: 'mem', format: 'mem' } };
}

describe('.splat and .spz round trips against the same scene as PLY', () => {
  const C0 = 0.28209479177387814;

  it('.splat: positions and scales as float32, colour / opacity / rotation within a byte step', async () => {
    const c = cloud(300, 2);
    const ply = await loadScene(writeSplatPly(c), 'same.ply');
    const s = await loadScene(writeSplatFile(c), 'scene.bin'); // the extension does not matter
    expect(s.source.format).toBe('splat');
    expect(s.count).toBe(ply.count);
    expect(s.shDegree).toBe(0);
    expect(worst(s.positions, ply.positions)).toBe(0);
    expect(worst(s.scales, ply.scales, (x, y) => Math.abs(x / y - 1))).toBeLessThan(1e-5);
    expect(worst(s.opacities, ply.opacities)).toBeLessThanOrEqual(0.5 / 255 + 1e-6);
    const dc = ply.sh.filter((_, i) => i % 27 < 3);
    expect(worst(s.sh, Float32Array.from(dc))).toBeLessThanOrEqual(0.5 / 255 / C0 + 1e-5);
    // Each stored component is within 1/256 before normalisation.
    expect(rotationError(s.rotations, ply.rotations)).toBeLessThan(0.02);
    expect(s.sanitized).toEqual({ dropped: 0, clamped: 0, reasons: {} });
  });

  for (const version of [2, 3, 4] as const) {
    it(`.spz v${version}: every attribute within its quantisation step, same frame as the PLY`, async () => {
      const c = cloud(300, 3);
      const ply = await loadScene(writeSplatPly(c), 'same.ply');
      const z = await loadScene(writeSpz(c, { version }), 'scene.ply'); // a misleading extension
      expect(z.source.format).toBe(`spz-v${version}`);
      expect(z.count).toBe(ply.count);
      expect(z.shDegree).toBe(3);
      expect(worst(z.positions, ply.positions)).toBeLessThanOrEqual(0.5 / 4096 + 1e-6);
      // log-scale in 1/16 steps
      expect(worst(z.scales, ply.scales, (x, y) => Math.abs(Math.log(x / y)))).toBeLessThanOrEqual(1 / 32 + 1e-4);
      expect(worst(z.opacities, ply.opacities)).toBeLessThanOrEqual(0.5 / 255 + 1e-6);
      let dc = 0, rest = 0;
      for (let i = 0; i < z.sh.length; i++) {
        const d = Math.abs(z.sh[i]! - ply.sh[i]!);
        if (i % 48 < 3) dc = Math.max(dc, d);
        else rest = Math.max(rest, d);
      }
      expect(dc).toBeLessThanOrEqual(0.5 / 255 / 0.15 + 1e-5);
      expect(rest).toBeLessThanOrEqual(0.5 / 128 + 1e-6);
      expect(rotationError(z.rotations, ply.rotations)).toBeLessThan(version === 2 ? 0.08 : 0.01); // v2 rebuilds w from x, y, z: coarse where w is small
    });
  }

  it('.spz of SH degree 0 (v4 has five streams)', async () => {
    const c = cloud(10, 0);
    for (const version of [2, 3, 4] as const) {
      const z = loadSceneSync(writeSpz(c, { version }), 'z.spz');
      expect(z.count).toBe(10);
      expect(z.shDegree).toBe(0);
    }
  });
});

describe('.splat and .spz errors', () => {
  it('a size that is not a multiple of 32 and no signature: UnknownFormatError', () => {
    expect(() => loadSceneSync(new Uint8Array(33), 'x.splat')).toThrow(UnknownFormatError);
  });

  it('SPZ: truncated gzip, corrupt gzip, lying point count, unknown version, trailing bytes', () => {
    const good = writeSpz(cloud(20, 1), { version: 3 });
    expect(() => loadSceneSync(good.subarray(0, good.length - 12), 'z.spz')).toThrow(TruncatedError);
    const corrupt = good.slice();
    corrupt[10] = 0x07; // first deflate block: final, reserved block type 3
    expect(() => loadSceneSync(corrupt, 'z.spz')).toThrow(DecompressError);
    const { gunzipSync, gzipSync } = require('fflate') as typeof import('fflate');
    const raw = gunzipSync(good);
    const lie = raw.slice();
    new DataView(lie.buffer).setUint32(8, 21, true);
    expect(() => loadSceneSync(gzipSync(lie), 'z.spz')).toThrow(TruncatedError);
    new DataView(lie.buffer).setUint32(8, 19, true);
    expect(() => loadSceneSync(gzipSync(lie), 'z.spz')).toThrow(SpzFormatError);
    const v9 = raw.slice();
    v9[4] = 9;
    expect(() => loadSceneSync(gzipSync(v9), 'z.spz')).toThrow(UnsupportedError);
    const notSpz = gzipSync(new TextEncoder().encode('hello world, not a splat'));
    expect(() => loadSceneSync(notSpz, 'z.spz')).toThrow(SpzFormatError);
  });

  it('SPZ v4: table of contents checked against the header and the file size', () => {
    const good = writeSpz(cloud(20, 1), { version: 4 });
    const v = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);
    const streams = good.slice();
    streams[15] = 5;
    expect(() => loadSceneSync(streams, 'z.spz')).toThrow(SpzFormatError);
    const toc = good.slice();
    v(toc).setUint32(16, 1 << 30, true);
    expect(() => loadSceneSync(toc, 'z.spz')).toThrow(SpzFormatError);
    const size = good.slice();
    v(size).setUint32(32 + 8, 999, true);
    expect(() => loadSceneSync(size, 'z.spz')).toThrow(SpzFormatError);
    expect(() => loadSceneSync(good.subarray(0, good.length - 1), 'z.spz')).toThrow(TruncatedError);
    const extra = new Uint8Array(good.length + 3);
    extra.set(good);
    expect(() => loadSceneSync(extra, 'z.spz')).toThrow(SpzFormatError);
    // A ZSTD stream that yields more than its table of contents says.
    const frame = rawZstdFrame(new Uint8Array(10));
    expect(frame.length).toBe(10 + 16);
  });
});
