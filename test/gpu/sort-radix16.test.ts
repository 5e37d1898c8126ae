/**
 * radix16 on the default adapter (lavapipe in CI): real WGSL, checked against the stable
 * CPU reference (values = original index, so stability shows). Sizes sweep the partial
 * last 2048-key tile (1, 2047, 2048, 2049, several tiles + a remainder), both sides of
 * the switch from "the scatter scans the counts" to the scan dispatches (64 tiles), and
 * one size above 1M; key shapes all-equal, sorted, reversed, random, few distinct,
 * splat-like depths; key widths 16, 20, 24, 32 (garbage above them ignored and kept) and
 * odd ones; a live count on the GPU below the capacity; both kernel variants (subgroups,
 * portable) and both dispatch modes. No adapter is a failure, never a skip.
 */
import { describe, expect, it } from 'vitest';
import { useGpu } from '../support/gpu';
import { expectBadJobsRefused, makeSortKeys, runSortCase, SORT_KEY_SHAPES } from '../support/sort-harness';
import { createRadix16Factory } from '../../sort/radix16';
import { RADIX16_CONSTANTS, RADIX16_SCAN_BLOCK, RADIX16_SWIFTSHADER_WG_SIZE, radix16KeysPerThread } from '../../sort/radix16-kernels';

const ctx = useGpu();
const variants = [
  { name: 'subgroups', factory: createRadix16Factory() },
  { name: 'portable', factory: createRadix16Factory({ subgroups: 'off' }) },
] as const;

describe('radix16 sort (gpu)', () => {
  it('runs the subgroup kernels here, so that both variants are tested', () => {
    expect(ctx.gpu.device.features.has('subgroups')).toBe(true);
  });

  for (const { name, factory } of variants) {
    describe(name, () => {
      it.each([1, 2, 2047, 2048, 2049, 5 * 2048 + 77])('n = %i, every key shape', async (n) => {
        for (const shape of SORT_KEY_SHAPES) {
          await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, n), label: shape });
        }
      });

      it('keyBits 16, 20, 24 ignore the garbage above them; odd widths too', async () => {
        for (const keyBits of [16, 20, 24, 1, 5, 30]) {
          for (const shape of ['random', 'depths', 'few'] as const) {
            await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, 6000, keyBits), keyBits, label: shape });
          }
        }
      });

      it('either side of the switch to the scan dispatches (SCAN_BLOCK / 16 tiles)', async () => {
        const tile = RADIX16_CONSTANTS.WG_SIZE * radix16KeysPerThread(name === 'subgroups');
        const atSwitch = (RADIX16_SCAN_BLOCK / 16) * tile;
        await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', atSwitch - 1), label: 'random' });
        await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('depths', atSwitch + 1, 24), keyBits: 24, label: 'depths' });
      });

      it('a live count below the capacity leaves the rest untouched; count = 0', async () => {
        const device = ctx.gpu.device;
        await runSortCase(device, factory, { keys: makeSortKeys('random', 5000), count: 1234 });
        await runSortCase(device, factory, { keys: makeSortKeys('depths', 4097, 20), count: 4095, keyBits: 20 });
        await runSortCase(device, factory, { keys: makeSortKeys('random', 3000), count: 0 });
        await runSortCase(device, factory, { keys: makeSortKeys('random', 3000), count: 1 });
        // scan levels sized for the capacity, a live count of one tile and a bit
        await runSortCase(device, factory, { keys: makeSortKeys('random', 600_000), count: 2100 });
      });
    });
  }

  it('n = 1,100,000 (subgroups), splat-like depths at 20 bits', async () => {
    await runSortCase(ctx.gpu.device, variants[0].factory, { keys: makeSortKeys('depths', 1_100_000, 20), keyBits: 20, label: 'depths' });
  });

  it('indirect dispatch: full buffers and a live count below the capacity', async () => {
    const factory = createRadix16Factory({ dispatch: 'indirect' });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 600_000), count: 530_000 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('few', 9000) });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('few', 9000), count: 0 });
  });

  it('reads the count at an unaligned offset, clamps a count above the capacity, reuses bindings', async () => {
    const factory = variants[0].factory;
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 2000), count: 1500, countOffset: 260 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 2000), count: 2100 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('reversed', 3000), repeat: 2 });
  });

  // SwiftShader's shape (RADIX16_SWIFTSHADER_WG_SIZE: 32 invocations, SCAN_ITEMS 32) here
  // too, where its subgroups are 8 lanes rather than 4: tiles of 256 keys. (The portable
  // kernels in that shape run on SwiftShader itself: test/swiftshader/sort-radix16.test.ts.)
  for (const subgroups of ['auto'] as const) {
    const factory = createRadix16Factory({ subgroups, wgSize: RADIX16_SWIFTSHADER_WG_SIZE });
    it(`${factory.name}: partial tiles, either side of the scan switch, a live count below the capacity`, async () => {
      const tile = RADIX16_SWIFTSHADER_WG_SIZE * radix16KeysPerThread(subgroups === 'auto');
      const atSwitch = (RADIX16_SCAN_BLOCK / 16) * tile;
      for (const n of [1, tile - 1, tile + 1, 7 * tile + 5]) {
        for (const shape of ['random', 'equal', 'few', 'depths'] as const) {
          await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, n), label: shape });
        }
      }
      await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', atSwitch - 1), label: 'random' });
      await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('depths', atSwitch + 1, 24), keyBits: 24, label: 'depths' });
      await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('depths', 100_000, 20), count: 54_321, keyBits: 20, label: 'depths' });
    });
  }

  it('refuses a workgroup size the kernels do not support', async () => {
    const { Radix16Sorter } = await import('../../sort/radix16');
    expect(() => new Radix16Sorter(ctx.gpu.device, 16, { wgSize: 48 })).toThrow(/wgSize must be one of 32, 64, 128, 256, got 48/);
  });

  it('refuses bad jobs on the CPU', async () => {
    const { Radix16Sorter } = await import('../../sort/radix16');
    const device = ctx.gpu.device;
    expectBadJobsRefused(device, (capacity) => new Radix16Sorter(device, capacity));
  });
});
