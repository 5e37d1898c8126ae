import { describe, expect, it } from 'vitest';
import { assertSceneFits, checkBudget, formatBytes, GpuBudgetError, sceneBuffers, shWordsPerSplat, stageBuffers } from './gpu-budget';
import { GpuScene } from '../gpu-scene/gpu-scene';

const MiB = 2 ** 20;
const lim = (binding: number, buffer = 2 ** 40, stage?: number) => ({
  maxStorageBufferBindingSize: binding,
  maxBufferSize: buffer,
  ...(stage === undefined ? {} : { maxStorageBuffersPerShaderStage: stage }),
});
const pagesOf = (c: { buffers: { name: string; pages: number }[] }) => Object.fromEntries(c.buffers.map((b) => [b.name, b.pages]));

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
    // Every one is paged (the sort's keys and values too: sort/paged-sort.ts); here one page each, and no merge.
    expect(quads.every((b) => b.paged && b.pages === 1)).toBe(true);
  });

  it('formats sizes for people', () => {
    expect(formatBytes(2_100_000_000)).toBe('2.1 GB');
    expect(formatBytes(576_000_000)).toBe('576 MB');
    expect(formatBytes(1_500_000)).toBe('1.5 MB');
    expect(formatBytes(12_345)).toBe('12 KB');
    expect(formatBytes(100)).toBe('100 B');
  });

  it('everything fits one binding each: no error, one page each, 6 (quads) or 7 (tiles) storage buffers in the fullest stage', () => {
    const c = assertSceneFits('s.ply', 1_000_000, 3, 'quads', lim(128 * MiB), 'full');
    expect(c.fits).toBe(true);
    expect(c.over).toBeNull();
    expect(c.binding).toEqual({ bytes: 128 * MiB, limit: 'maxStorageBufferBindingSize' });
    expect(c.stage).toEqual({ needed: 6, allowed: 8 });
    expect(checkBudget(1_000_000, 3, 'tiles', lim(128 * MiB), 'full').stage).toEqual({ needed: 7, allowed: 8 });
  });

  it('pages hold the most whole splats a binding holds; a page more where the count needs it, none where it fits exactly', () => {
    // 96 B a splat (SH3): 1000 splats fit 96,000 bytes whole.
    expect(pagesOf(checkBudget(1000, 3, 'tiles', lim(96_000, 2 ** 40, 16), 'full')).SH).toBe(1);
    // 95,999 bytes hold 999 whole splats: a second page for the last one.
    expect(pagesOf(checkBudget(1000, 3, 'tiles', lim(95_999, 2 ** 40, 16), 'full')).SH).toBe(2);
    // 48,000 bytes: exactly two pages of 500; 47,999: three.
    expect(pagesOf(checkBudget(1000, 3, 'tiles', lim(48_000, 2 ** 40, 16), 'full')).SH).toBe(2);
    expect(pagesOf(checkBudget(1000, 3, 'tiles', lim(47_999, 2 ** 40, 16), 'full')).SH).toBe(3);
    expect(stageBuffers(sceneBuffers(1000, 3, 'tiles', 'full', 47_999))).toBe(3 + 1 + 1 + 1 + 3);
  });

  it('6M splats of SH3 on 128 MiB bindings (lavapipe): compact pages the SH in 3 and the records in 2 (tiles) or 3 (quads), and fits 10 storage buffers (SwiftShader in Chromium) under both draws', () => {
    const tiles = checkBudget(6_000_000, 3, 'tiles', lim(128 * MiB, 4 * 2 ** 30, 16));
    expect(pagesOf(tiles)).toMatchObject({ SH: 3, covariances: 1, centers: 1, 'tile records': 2, 'sort keys': 1 });
    expect([tiles.fits, tiles.stage.needed]).toEqual([true, 10]);
    const quads = checkBudget(6_000_000, 3, 'quads', lim(128 * MiB, 4 * 2 ** 30, 16));
    // The prepare pass: 5 scene pages, 3 of records, the order and its control buffer.
    expect([quads.fits, quads.stage.needed, pagesOf(quads)['draw records']]).toEqual([true, 10, 3]);
    expect(checkBudget(6_000_000, 3, 'tiles', lim(128 * MiB, 2 ** 30, 10)).fits).toBe(true);
    expect(checkBudget(6_000_000, 3, 'quads', lim(128 * MiB, 2 ** 30, 10)).fits).toBe(true);
    expect(checkBudget(6_000_000, 3, 'quads', lim(128 * MiB, 2 ** 30, 9)).fits).toBe(false);
    // Full precision: 144 B a splat; the SH in 5 pages, covariances 2, records 2: 13 buffers.
    const full = checkBudget(6_000_000, 3, 'tiles', lim(128 * MiB, 4 * 2 ** 30, 16), 'full');
    expect([full.fits, full.stage.needed]).toEqual([true, 13]);
  });

  it('too many pages for a shader stage: the message names the pages and the limit, and a lower SH degree when it is the way out', () => {
    // 6M full SH3 under tiles, 128 MiB bindings, 10 buffers a stage: 13 needed; SH2 (56 B): 3 pages, 11; SH1 (24 B): 2, 10.
    const c = checkBudget(6_000_000, 3, 'tiles', lim(128 * MiB, 2 ** 30, 10), 'full');
    expect(c.fits).toBe(false);
    expect(c.fitsAtDegree).toBe(1);
    let err: unknown;
    try {
      assertSceneFits('big.ply', 6_000_000, 3, 'tiles', lim(128 * MiB, 2 ** 30, 10), 'full');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GpuBudgetError);
    const e = err as GpuBudgetError;
    expect(e.message).toBe(
      'big.ply: 6,000,000 splats of SH degree 3 need 13 storage buffers in one shader stage (SH in 5 pages, covariances in 2 pages, tile records in 2 pages of at most 134 MB), ' +
        'the adapter allows 10 (maxStorageBuffersPerShaderStage): reload with SH degree 1 (?sh=1; --sh 1 in npm run render)',
    );
    expect(e.message).not.toMatch(/\n/);
    expect({ buffer: e.buffer, needed: e.needed, available: e.available, limit: e.limit, sh: e.suggestedShDegree }).toEqual({
      buffer: 'storage buffers', needed: 13, available: 10, limit: 'maxStorageBuffersPerShaderStage', sh: 1,
    });
  });

  it("the sort's arrays in pages past binding / 4 splats, with the merge's buffers; its merge binds every key page and two more", () => {
    // 40M splats: 160 MB of keys over 128 MiB: two pages of 2^25 keys, and the merge's output pages and ranks.
    const c = checkBudget(40_000_000, 0, 'tiles', lim(128 * MiB, 2 ** 40, 64));
    expect(c.fits).toBe(true);
    expect(c.over).toBeNull();
    expect(pagesOf(c)['sort keys']).toBe(2);
    expect(pagesOf(c)['sort values']).toBe(2);
    const bytes = Object.fromEntries(c.buffers.map((b) => [b.name, b.bytes]));
    // One sorter of a page and one of the last, shorter page (40M - 2^25 keys).
    expect(bytes['sort scratch keys']).toBe(4 * 40_000_000);
    expect(bytes['sort merge']).toBe(4 * (2 * 40_000_000 + 2 ** 25));
    // One page: no merge.
    expect(checkBudget(30_000_000, 0, 'tiles', lim(128 * MiB, 2 ** 40, 64)).buffers.some((b) => b.name === 'sort merge')).toBe(false);
    // Under 8 storage buffers a stage, at 1 MiB bindings (pages of 2^18 keys), the merge's 6 key pages + 2 cap the sort
    // at 6 pages; the scene's pages cap it long before (the project pass binds them all).
    expect(stageBuffers(sceneBuffers(7 * 2 ** 18, 0, 'tiles', 'compact', MiB).filter((b) => b.name.startsWith('sort')), 'tiles')).toBe(9);
    expect(checkBudget(7 * 2 ** 18, 0, 'tiles', lim(MiB, 2 ** 40, 8)).fits).toBe(false);
  });

  it('the smaller of maxBufferSize and maxStorageBufferBindingSize is the page size, and is named', () => {
    const c = checkBudget(25_000_000, 3, 'tiles', lim(4e9, 1e9, 16), 'full');
    expect(c.binding).toEqual({ bytes: 1e9, limit: 'maxBufferSize' });
    expect(pagesOf(c).SH).toBe(3); // 2.4 GB of SH in pages of 1 GB
    expect(c.fits).toBe(true);
  });

  it('the most splats is where a stage runs out of bindings when the sort is not the limit', () => {
    // Default 8 buffers a stage, quads, 256 MiB bindings. 10M SH3 (full): SH 4 pages, covariances 2, centres 1,
    // records 2: the prepare pass needs 7 + 2 + 2 = 11; at SH1 (24 B: one page) 8.
    const c = checkBudget(10_000_000, 3, 'quads', lim(256 * MiB), 'full');
    expect([c.fits, c.stage.needed, c.fitsAtDegree]).toEqual([false, 11, 1]);
    // At degree 0 the 48-byte records take a third page past 2 x 5,592,405 splats: the 9th buffer.
    expect(c.maxSplats).toBe(2 * Math.floor((256 * MiB) / 48));
  });

  it('the compact precision (the default): the scene 72 B a splat at SH3', () => {
    const compact = Object.fromEntries(sceneBuffers(1000, 3, 'tiles').map((b) => [b.name, b.bytes]));
    expect([compact.centers, compact.covariances, compact.SH]).toEqual([16_000, 8000, 48_000]);
  });
});
