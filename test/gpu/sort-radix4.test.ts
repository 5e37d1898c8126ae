/**
 * radix4 on the default adapter (lavapipe in CI): real WGSL, checked against the CPU
 * reference. Sizes sweep the partial last chunk (1, 2, 511, 512, 513), both sides of
 * the book's 262,144-key limit, the scan levels (capacities above 524,288 keys:
 * 600,000 and 1,048,577) and below them the scatter summing the counts itself;
 * key shapes: all-equal, sorted, reversed, random, splat-like
 * depths; stability through values = original index; key widths with garbage high
 * bits; a live count on the GPU below the capacity; both kernel variants and both
 * dispatch modes. No adapter is a failure, never a skip.
 */
import { describe, expect, it } from 'vitest';
import { useGpu } from '../support/gpu';
import { expectBadJobsRefused } from '../support/sort-harness';
import { type KeyShape, runRadix4, shapedKeys } from '../support/sort-radix4';

const ctx = useGpu();
const variants = [
  { name: 'subgroups', options: {} },
  { name: 'portable', options: { subgroups: 'off' } },
] as const;

describe('radix4 sort (gpu)', () => {
  it('runs the subgroup kernels here, so that both variants are tested', () => {
    expect(ctx.gpu.device.features.has('subgroups')).toBe(true);
  });

  for (const { name, options } of variants) {
    describe(name, () => {
      const shapes: KeyShape[] = ['equal', 'sorted', 'reversed', 'random', 'depths'];
      it.each([1, 2, 511, 512, 513, 4097])('n = %i, every key shape', async (n) => {
        for (const shape of shapes) {
          await runRadix4(ctx.gpu.device, { keys: shapedKeys(shape, n, n), options });
        }
      });

      it.each([262_143, 262_145])('n = %i, random and splat-like depths', async (n) => {
        await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', n, n), options });
        await runRadix4(ctx.gpu.device, { keys: shapedKeys('depths', n, n), options });
      });

      it('keyBits 16 and 20 ignore the garbage above them; odd widths too', async () => {
        for (const keyBits of [16, 20, 1, 5, 31]) {
          await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 3000, 3000), keyBits, options });
        }
      });

      it('a live count below the capacity leaves the rest untouched (direct and indirect)', async () => {
        for (const dispatch of ['direct', 'indirect'] as const) {
          const o = { ...options, dispatch };
          await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 5000, 1234), options: o });
          // scan levels sized for the capacity, a live count of one chunk and a bit
          await runRadix4(ctx.gpu.device, { keys: shapedKeys('depths', 600_000, 700), options: o });
          await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 513, 0), options: o });
          await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 513, 1), options: o });
        }
      });
    });
  }

  it('n = 600,000 and 1,048,577 (scan levels), random keys, both variants', async () => {
    for (const { options } of variants) {
      await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 600_000, 600_000), options });
      await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 1_048_577, 1_048_577), options });
    }
  });

  it('indirect dispatch sorts full buffers too', async () => {
    await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 262_145, 262_145), options: { dispatch: 'indirect' } });
    await runRadix4(ctx.gpu.device, { keys: shapedKeys('equal', 4097, 4097), options: { dispatch: 'indirect', subgroups: 'off' } });
  });

  it('reads the count at an unaligned offset and clamps a count above the capacity', async () => {
    await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 2000, 1500), countOffset: 260 });
    await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', 2000, 2000), liveCount: 2100 });
  });

  it('sorts the same job again from the cached bind groups', async () => {
    await runRadix4(ctx.gpu.device, { keys: shapedKeys('reversed', 3000, 3000), repeat: 2 });
  });

  it('refuses bad jobs on the CPU', async () => {
    const { Radix4Sorter } = await import('../../sort/radix4');
    const device = ctx.gpu.device;
    expectBadJobsRefused(device, (capacity) => new Radix4Sorter(device, capacity));
  });
});
