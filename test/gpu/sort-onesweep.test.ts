/**
 * onesweep on the default adapter (lavapipe in CI, subgroup size 8): real WGSL, checked
 * against the stable CPU reference (values = original index, so stability shows). Sizes
 * sweep the partial last tile (1, tile - 1, tile, tile + 1, several tiles + a remainder)
 * and one size above 1M; key shapes all-equal, sorted, reversed, random, few distinct,
 * splat-like depths; key widths 8, 16, 24, 32 and odd ones (garbage above them ignored
 * and kept); count = 0 and live counts on the GPU below the capacity; both kernel
 * variants (subgroup ballots, portable), both dispatch modes, many sorts on one sorter
 * (each relies on the one before to leave its counters zeroed), and the look-back fallback
 * forced (spinLimit 0: every look-back step recounts the predecessor's tile) or mixed
 * with published words (spinLimit 1). No adapter is a failure, never a skip.
 *
 * Each distinct kernel configuration costs lavapipe seconds of compile time, so these
 * tests use two (default subgroups, default portable); spinLimit and dispatch mode are
 * not pipeline constants.
 */
import { describe, expect, it } from 'vitest';
import { useGpu, withValidation } from '../support/gpu';
import { makeSortKeys, runSortCase, SORT_KEY_SHAPES } from '../support/sort-harness';
import { createOnesweepFactory, OnesweepSorter, type OnesweepOptions } from '../../sort/onesweep';
import { checkSortedPairs } from '../../sort/cpu-reference';
import { sortBufferUsage } from '../../sort/types';
import { readBuffer } from '../../renderer/gpu/node-gpu';

const ctx = useGpu();
const variants: readonly { name: string; options: OnesweepOptions }[] = [
  { name: 'subgroups', options: {} },
  { name: 'portable', options: { subgroups: 'off' } },
];

/** The tile size a configuration gets on this device. */
function tileOf(options: OnesweepOptions): number {
  const s = new OnesweepSorter(ctx.gpu.device, 1, options);
  s.destroy();
  return s.tileSize;
}

describe('onesweep sort (gpu)', () => {
  it('runs the subgroup kernels here, so that both variants are tested', () => {
    expect(ctx.gpu.device.features.has('subgroups')).toBe(true);
    expect(new OnesweepSorter(ctx.gpu.device, 1).usesSubgroups).toBe(true);
  });

  for (const { name, options } of variants) {
    describe(name, () => {
      const factory = createOnesweepFactory(options);

      it('sizes around the tile, every key shape', async () => {
        const t = tileOf(options);
        for (const n of [1, t - 1, t, t + 1, 5 * t + 77]) {
          for (const shape of SORT_KEY_SHAPES) {
            await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, n), label: `${shape} tile=${t}` });
          }
        }
      });

      it('keyBits 8, 16, 24 ignore the garbage above them; odd widths too', async () => {
        const n = 3 * tileOf(options) + 5;
        for (const keyBits of [8, 16, 24, 1, 12, 20, 31]) {
          for (const shape of ['random', 'depths', 'few'] as const) {
            await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, n, keyBits), keyBits, label: shape });
          }
        }
      });

      it('a live count below the capacity leaves the rest untouched; count = 0', async () => {
        const device = ctx.gpu.device;
        const t = tileOf(options);
        await runSortCase(device, factory, { keys: makeSortKeys('random', 4 * t), count: 2 * t + 3 });
        await runSortCase(device, factory, { keys: makeSortKeys('depths', 2 * t, 20), count: t - 1, keyBits: 20 });
        await runSortCase(device, factory, { keys: makeSortKeys('random', 3000), count: 0 });
        await runSortCase(device, factory, { keys: makeSortKeys('random', 3000), count: 1 });
      });

      it('forced look-back fallback: every predecessor recounted (spinLimit 0), or mixed (spinLimit 1)', async () => {
        const t = tileOf(options);
        for (const spinLimit of [0, 1]) {
          const f = createOnesweepFactory({ ...options, spinLimit });
          await runSortCase(ctx.gpu.device, f, { keys: makeSortKeys('random', 7 * t + 9), label: `spinLimit=${spinLimit}` });
          await runSortCase(ctx.gpu.device, f, { keys: makeSortKeys('few', 4 * t + 1, 20), keyBits: 20, label: `few spinLimit=${spinLimit}` });
        }
      });
    });
  }

  it('n = 1,100,000, random 32-bit keys and splat-like depths at 16 bits (subgroups)', async () => {
    const factory = createOnesweepFactory();
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 1_100_000), label: 'random' });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('depths', 1_100_000, 16), keyBits: 16, label: 'depths' });
  });

  it('one sorter, many sorts: each starts from the zeroed counters the one before left (direct and indirect)', async () => {
    // Direct mode has no prepare dispatch: the last workgroup of a sort's last pass
    // zeroes the histograms and tile counters for the next one. Sorts of different live
    // counts (0 and partial tiles too), key widths (odd pass counts too) and two sorts in
    // one command buffer, on one sorter, every result checked.
    const device = ctx.gpu.device;
    const t = tileOf({});
    const capacity = 5 * t + 11;
    const usage = sortBufferUsage();
    for (const dispatch of ['direct', 'indirect'] as const) {
      await withValidation(device, async () => {
        const sorter = new OnesweepSorter(device, capacity, { dispatch });
        const keysB = device.createBuffer({ label: 'test.keys', size: capacity * 4, usage });
        const valuesB = device.createBuffer({ label: 'test.values', size: capacity * 4, usage });
        const countB = device.createBuffer({ label: 'test.count', size: 16, usage });
        const values = Uint32Array.from({ length: capacity }, (_, i) => i);
        const runs: [number, number, number][] = [[capacity, 32, 1], [0, 32, 1], [2 * t + 5, 24, 1], [capacity, 8, 2], [t - 1, 16, 1], [capacity, 32, 2], [1, 32, 1]];
        for (const [live, keyBits, times] of runs) {
          const keys = makeSortKeys('random', capacity, keyBits, live + keyBits);
          device.queue.writeBuffer(keysB, 0, keys);
          device.queue.writeBuffer(valuesB, 0, values);
          device.queue.writeBuffer(countB, 0, Uint32Array.of(live));
          const enc = device.createCommandEncoder();
          for (let i = 0; i < times; i++) sorter.encode(enc, { keys: keysB, values: valuesB, count: countB, keyBits });
          device.queue.submit([enc.finish()]);
          const outKeys = new Uint32Array(await readBuffer(device, keysB));
          const outValues = new Uint32Array(await readBuffer(device, valuesB));
          // Sorting twice is sorting once (stable), so the check is the same.
          const check = checkSortedPairs(keys.subarray(0, live), values.subarray(0, live), outKeys, outValues, keyBits);
          expect(check.ok, `${dispatch} live=${live} keyBits=${keyBits} x${times}: ${check.message}`).toBe(true);
        }
        sorter.destroy();
        for (const b of [keysB, valuesB, countB]) b.destroy();
      });
    }
  });

  it('indirect dispatch: full buffers, a live count below the capacity, count = 0', async () => {
    const factory = createOnesweepFactory({ dispatch: 'indirect' });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 40_000), count: 23_456 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('few', 9000), keyBits: 24 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('few', 9000), count: 0 });
  });

  it('reads the count at an unaligned offset, clamps a count above the capacity, reuses bindings', async () => {
    const factory = createOnesweepFactory();
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 2000), count: 1500, countOffset: 260 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 2000), count: 2100 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('reversed', 9000), repeat: 2 });
  });

  it('refuses bad jobs and options on the CPU', () => {
    const device = ctx.gpu.device;
    const sorter = new OnesweepSorter(device, 1024);
    const usage = GPUBufferUsage.STORAGE;
    const small = device.createBuffer({ size: 1024, usage });
    const big = device.createBuffer({ size: 4096, usage });
    const count = device.createBuffer({ size: 16, usage });
    const enc = device.createCommandEncoder();
    expect(() => sorter.encode(enc, { keys: small, values: big, count, keyBits: 32 })).toThrow(/job.keys/);
    expect(() => sorter.encode(enc, { keys: big, values: big, count, keyBits: 0 })).toThrow(/keyBits/);
    expect(() => sorter.encode(enc, { keys: big, values: big, count, keyBits: 33 })).toThrow(/keyBits/);
    expect(() => sorter.encode(enc, { keys: big, values: big, count, countOffset: 16, keyBits: 32 })).toThrow(/countOffset/);
    expect(() => new OnesweepSorter(device, 0)).toThrow(/capacity/);
    expect(() => new OnesweepSorter(device, 2 ** 30)).toThrow(/capacity/);
    expect(() => new OnesweepSorter(device, 16, { rowMin: 12 })).toThrow(/rowMin/);
    expect(() => new OnesweepSorter(device, 16, { keysPerThread: 0 })).toThrow(/keysPerThread/);
    expect(() => new OnesweepSorter(device, 16, { keysPerThread: 60 })).toThrow(/workgroup memory/);
    expect(() => new OnesweepSorter(device, 16, { spinLimit: -1 })).toThrow(/spinLimit/);
    for (const b of [small, big, count]) b.destroy();
    sorter.destroy();
  });
});
