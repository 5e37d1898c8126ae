/**
 * bitonic on the default adapter (lavapipe in CI): real WGSL. Not stable, so the output
 * must be a permutation of the input pairs with keys ascending (by the low keyBits bits),
 * and the pairs past the live count untouched. Sizes sweep the chunk size L (4096 here;
 * 512 too, which makes small sizes run the global-memory steps, single and fused, and
 * several local merges): 1, L - 1, L, L + 1, several chunks + a remainder, a power of two
 * and one above; key shapes all-equal, sorted, reversed, random, few distinct, splat-like
 * depths; keyBits 16, 20, 24, 32 with garbage above them (and live keys equal to the
 * padding key); a live count on the GPU below the capacity; count = 0.
 */
import { describe, expect, it } from 'vitest';
import { useGpu } from '../support/gpu';
import { expectBadJobsRefused, makeSortKeys, runSortCase, SORT_KEY_SHAPES } from '../support/sort-harness';
import { BitonicSorter, bitonicSchedule, createBitonicFactory } from '../../sort/bitonic';

const ctx = useGpu();

describe('bitonic sort (gpu)', () => {
  it('chunks of 4096 pairs on this device; the schedule fuses global strides in pairs', () => {
    const sorter = new BitonicSorter(ctx.gpu.device, 100);
    expect(sorter.localSize).toBe(4096);
    expect(sorter.paddedCapacity).toBe(4096);
    sorter.destroy();
    // 2^16 pairs in chunks of 2^12: stages 2^13 .. 2^16 with 1, 2, 3, 4 global strides.
    const kinds = bitonicSchedule(65536, 4096).map((s) => `${s.kernel}:${s.info.join(',')}`);
    expect(kinds).toEqual([
      'local:4096,0,0,0',
      'mergeGlobal:8192,4096,1,0', 'local:8192,0,0,0',
      'mergeGlobal:16384,8192,1,1', 'local:16384,0,0,0',
      'mergeGlobal:32768,16384,1,1', 'mergeGlobal:32768,4096,0,0', 'local:32768,0,0,0',
      'mergeGlobal:65536,32768,1,1', 'mergeGlobal:65536,8192,0,1', 'local:65536,0,0,0',
    ]);
  });

  for (const localSize of [4096, 512]) {
    const factory = createBitonicFactory({ localSize });
    describe(`chunks of ${localSize}`, () => {
      const L = localSize;
      it.each([1, L - 1, L, L + 1, 5 * L + 77])('n = %i, every key shape', async (n) => {
        for (const shape of SORT_KEY_SHAPES) {
          await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, n), label: shape });
        }
      });

      it('keyBits 16, 20, 24 compare the low bits only and keep the rest', async () => {
        for (const keyBits of [16, 20, 24]) {
          for (const shape of ['random', 'depths', 'few'] as const) {
            await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, 3 * L + 5, keyBits), keyBits, label: shape });
          }
        }
      });

      it('a live count below the capacity leaves the rest untouched; count = 0', async () => {
        const device = ctx.gpu.device;
        await runSortCase(device, factory, { keys: makeSortKeys('random', 9 * L), count: 2 * L + 3 });
        await runSortCase(device, factory, { keys: makeSortKeys('depths', 9 * L, 20), count: L - 5, keyBits: 20 });
        await runSortCase(device, factory, { keys: makeSortKeys('random', 3 * L), count: 0 });
        await runSortCase(device, factory, { keys: makeSortKeys('random', 3 * L), count: 1 });
      });
    });
  }

  it('live pairs like the padding pair (keys and values 0xFFFFFFFF, all-ones low bits) are kept', async () => {
    // A third of the pairs tie with the padding pair on (key & mask, value); 1996 padding pairs.
    const factory = createBitonicFactory({ localSize: 512 });
    const keys = makeSortKeys('random', 2100, 16);
    const values = Uint32Array.from(keys, (_, i) => i);
    for (let i = 0; i < keys.length; i += 3) {
      keys[i] = i % 2 ? 0xffffffff : (keys[i]! | 0xffff) >>> 0;
      values[i] = 0xffffffff;
    }
    await runSortCase(ctx.gpu.device, factory, { keys, values, keyBits: 16, label: 'padding-like pairs' });
    await runSortCase(ctx.gpu.device, factory, { keys, values, keyBits: 32, count: 2099, label: 'padding-like pairs' });
  });

  it('n = 262,144 and 1,100,000 (padded to 2^21), random and depths (default chunks)', async () => {
    const factory = createBitonicFactory();
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 262_144), label: 'random' });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('depths', 1_100_000, 24), keyBits: 24, label: 'depths' });
  });

  it('reads the count at an unaligned offset, clamps a count above the capacity, reuses bindings', async () => {
    const factory = createBitonicFactory();
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 2000), count: 1500, countOffset: 260 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 2000), count: 2100 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('reversed', 5000), repeat: 2 });
  });

  it('refuses bad jobs and sizes on the CPU', () => {
    const device = ctx.gpu.device;
    expectBadJobsRefused(device, (capacity) => new BitonicSorter(device, capacity));
    expect(() => new BitonicSorter(device, 10, { localSize: 1000 })).toThrow(/localSize/);
  });
});
