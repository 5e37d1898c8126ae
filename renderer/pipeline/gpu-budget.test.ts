import { describe, expect, it } from 'vitest';
import { assertSceneFits, bindingNeed, checkBudget, formatBytes, GpuBudgetError, SH_BINDINGS, sceneBuffers, shSplitAt, shWordsPerSplat } from './gpu-budget';
import { GpuScene } from './gpu-scene';

const MiB = 2 ** 20;
const lim = (binding: number, buffer = 2 ** 40) => ({ maxStorageBufferBindingSize: binding, maxBufferSize: buffer });

describe('GPU budget arithmetic (the full precision\'s buffers, then the compact one)', () => {
  it('SH words a splat: 3 channels x (d+1)^2 halves, two to a u32 (as GpuScene packs them)', () => {
    expect([0, 1, 2, 3].map(shWordsPerSplat)).toEqual([2, 6, 14, 24]);
    // The same stride GpuScene uses on a real cloud.
    const cloud = { count: 1, shDegree: 2 as const, positions: new Float32Array(3), scales: new Float32Array([1, 1, 1]), rotations: new Float32Array([1, 0, 0, 0]), opacities: new Float32Array(1), sh: new Float32Array(27), bounds: { min: [0, 0, 0] as [number, number, number], max: [0, 0, 0] as [number, number, number] }, source: { name: 'm', format: 'm' } };
    expect(GpuScene.pack(cloud, shWordsPerSplat(2)).sh.length).toBe(14);
  });

  it('buffers sized by the count: scene, sort pairs and sorter scratch; quads adds its draw records, tiles its records', () => {
    const quads = sceneBuffers(1000, 3, 'quads', 'full');
    expect(Object.fromEntries(quads.map((b) => [b.name, b.bytes]))).toEqual({
      SH: 96_000, covariances: 32_000, centers: 16_000, 'sort keys': 4000, 'sort values': 4000, 'sort scratch keys': 4000, 'sort scratch values': 4000,
      'draw records': 48_000,
    });
    const tiles = sceneBuffers(1000, 3, 'tiles', 'full');
    expect(tiles.length).toBe(quads.length);
    expect(tiles.find((b) => b.name === 'tile records')?.bytes).toBe(32_000);
    expect(checkBudget(1000, 3, 'quads', lim(2 ** 31), 'full').totalBytes).toBe(1000 * (96 + 32 + 16 + 16 + 48));
  });

  it('formats sizes for people', () => {
    expect(formatBytes(2_100_000_000)).toBe('2.1 GB');
    expect(formatBytes(576_000_000)).toBe('576 MB');
    expect(formatBytes(1_500_000)).toBe('1.5 MB');
    expect(formatBytes(12_345)).toBe('12 KB');
    expect(formatBytes(100)).toBe('100 B');
  });

  it('everything fits: no error, nothing over', () => {
    const c = assertSceneFits('s.ply', 1_000_000, 3, 'quads', lim(128 * MiB), 'full');
    expect(c.over).toBeNull();
    expect(c.binding).toEqual({ bytes: 128 * MiB, limit: 'maxStorageBufferBindingSize' });
  });

  it('the SH splits by whole splats over two bindings: the first as full as the limit allows, the rest in the second', () => {
    expect(SH_BINDINGS).toBe(2);
    // 96 B a splat (SH3): 1000 splats fit 96,000 bytes whole.
    expect(shSplitAt(1000, 24, 96_000)).toBe(1000);
    expect(shSplitAt(1000, 24, 1e9)).toBe(1000);
    // 95,999 bytes hold 999 whole splats: the second buffer holds 1.
    expect(shSplitAt(1000, 24, 95_999)).toBe(999);
    // Exactly half in each: 500 splats = 48,000 bytes.
    expect(shSplitAt(1000, 24, 48_000)).toBe(500);
    expect(() => shSplitAt(1000, 24, 47_999)).toThrow(RangeError);
    // The budget's per-binding need: whole when it fits one binding, else its splats spread evenly (rounded up to a splat).
    const sh = sceneBuffers(1001, 3, 'quads', 'full').find((b) => b.name === 'SH')!;
    expect(sh).toEqual({ name: 'SH', bytes: 96_096, bindings: 2, splatBytes: 96 });
    expect(bindingNeed(sh, 96_096)).toBe(96_096);
    expect(bindingNeed(sh, 60_000)).toBe(501 * 96);
    const covs = sceneBuffers(1001, 3, 'quads', 'full').find((b) => b.name === 'covariances')!;
    expect(bindingNeed(covs, 1000)).toBe(32_032); // one binding: all of it
    // The budget and the split agree at the edge: fits exactly when the split does not throw.
    for (const limit of [48_095, 48_096, 48_097, 48_191, 48_192]) {
      const fits = checkBudget(1001, 3, 'tiles', lim(limit), 'full').over?.name !== 'SH';
      expect(fits, String(limit)).toBe((() => { try { shSplitAt(1001, 24, limit); return true; } catch { return false; } })());
    }
  });

  it('6M splats of SH3 on a 512 MiB binding: the SH (576 MB) is split in two and fits', () => {
    const c = checkBudget(6_000_000, 3, 'quads', lim(512 * MiB), 'full');
    expect(c.over).toBeNull();
    expect(c.buffers.find((b) => b.name === 'SH')?.bytes).toBe(576_000_000);
  });

  it('6M splats of SH3 under tiles on a 256 MiB binding: even split the SH is over, degree 2 is the way out, the message has the numbers', () => {
    const c = checkBudget(6_000_000, 3, 'tiles', lim(256 * MiB), 'full');
    expect(c.over).toEqual({ name: 'SH', bytes: 576_000_000, bindings: 2, splatBytes: 96, bindingBytes: 288_000_000 });
    // Degree 2: 14 words = 336 MB of SH, 168 MB a binding; covariances and tile records 192 MB: fits.
    expect(c.fitsAtDegree).toBe(2);
    // Under quads the draw records (48 B a splat, 288 MB) are over too: no SH degree helps.
    expect(checkBudget(6_000_000, 3, 'quads', lim(256 * MiB), 'full').fitsAtDegree).toBeNull();
    let err: unknown;
    try {
      assertSceneFits('big.ply', 6_000_000, 3, 'tiles', lim(256 * MiB), 'full');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GpuBudgetError);
    const e = err as GpuBudgetError;
    expect(e.message).toBe(
      'big.ply: 6,000,000 splats of SH degree 3 need 576 MB of SH (288 MB in each of 2 bindings), the adapter allows 268 MB per binding (maxStorageBufferBindingSize): reload with SH degree 2 (?sh=2; --sh 2 in npm run render)',
    );
    expect(e.message).not.toMatch(/\n/);
    expect({ buffer: e.buffer, needed: e.neededBytes, available: e.availableBytes, limit: e.limit, sh: e.suggestedShDegree }).toEqual({
      buffer: 'SH', needed: 288_000_000, available: 256 * MiB, limit: 'maxStorageBufferBindingSize', sh: 2,
    });
  });

  it('the smaller of maxBufferSize and maxStorageBufferBindingSize is the limit, and is named', () => {
    const c = checkBudget(25_000_000, 3, 'tiles', lim(4e9, 1e9), 'full');
    expect(c.binding).toEqual({ bytes: 1e9, limit: 'maxBufferSize' });
    expect(() => assertSceneFits('x.ply', 25_000_000, 3, 'tiles', lim(4e9, 1e9), 'full')).toThrow(
      /need 2\.4 GB of SH \(1\.2 GB in each of 2 bindings\), the adapter allows 1\.0 GB per binding \(maxBufferSize\): reload with SH degree 2 \(\?sh=2/,
    );
  });

  it('too many splats for any SH degree: no SH way out, the most splats that fit instead', () => {
    // 10M splats: the draw records (480 MB) and covariances (320 MB) alone are over 256 MiB;
    // the SH's 480 MB a binding ties with the records (the first listed is named).
    const c = checkBudget(10_000_000, 3, 'quads', lim(256 * MiB), 'full');
    expect(c.over?.name).toBe('SH');
    expect(c.over?.bindingBytes).toBe(480_000_000);
    expect(c.fitsAtDegree).toBeNull();
    expect(c.maxSplats).toBe(Math.floor((256 * MiB) / 48));
    // Under tiles the covariances and records (32 B) set it; the SH at degree 0 (8 B a splat, two bindings) never does.
    expect(checkBudget(10_000_000, 3, 'tiles', lim(256 * MiB), 'full').maxSplats).toBe(Math.floor((256 * MiB) / 32));
    expect(() => assertSceneFits('huge.ply', 10_000_000, 0, 'quads', lim(256 * MiB), 'full')).toThrow(
      'huge.ply: 10,000,000 splats of SH degree 0 need 480 MB of draw records in one buffer, the adapter allows 268 MB per binding (maxStorageBufferBindingSize): this adapter binds at most 5,592,405 splats (at SH degree 0): open a smaller scene',
    );
  });

  it("each draw's own buffers: the quads draw's 48-byte records can be the widest, the tiles draw has none wider than the covariances", () => {
    const n = 1_500_000;
    const q = checkBudget(n, 1, 'quads', lim(60e6), 'full');
    const t = checkBudget(n, 1, 'tiles', lim(60e6), 'full');
    expect(q.totalBytes - t.totalBytes).toBe(16 * n); // quads' records 48 B a splat, the tiles draw's 32
    expect(q.over?.name).toBe('draw records');
    expect(t.over).toBeNull();
    expect(checkBudget(n, 1, 'tiles', lim(40e6), 'full').over?.name).toBe('covariances');
  });

  it('the compact precision (the default): the scene 72 B a splat at SH3, and the same 6M splats fit a 256 MiB binding under tiles where full does not', () => {
    const compact = Object.fromEntries(sceneBuffers(1000, 3, 'tiles').map((b) => [b.name, b.bytes]));
    expect([compact.centers, compact.covariances, compact.SH]).toEqual([16_000, 8000, 48_000]);
    expect(checkBudget(6_000_000, 3, 'tiles', lim(256 * MiB)).over).toBeNull();
    expect(checkBudget(6_000_000, 3, 'tiles', lim(256 * MiB), 'full').over?.name).toBe('SH');
  });
});
