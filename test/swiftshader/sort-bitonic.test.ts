/**
 * bitonic again on SwiftShader (SPLAT_GPU=swiftshader, set by this vitest project):
 * at most 256 invocations and 32 KiB of workgroup memory (chunks of 4096 pairs fill it),
 * the browser's WebGPU. Small sizes: SwiftShader is slow on barrier-heavy kernels.
 */
import { describe, expect, it } from 'vitest';
import { useGpu } from '../support/gpu';
import { makeSortKeys, runSortCase } from '../support/sort-harness';
import { BitonicSorter, createBitonicFactory } from '../../sort/bitonic';

const ctx = useGpu();

describe('bitonic sort (swiftshader)', () => {
  it('runs on SwiftShader with chunks of 2048 pairs (less workgroup memory to compile there)', () => {
    expect(ctx.gpu.info.vendor).toBe('google');
    const sorter = new BitonicSorter(ctx.gpu.device, 10);
    expect(sorter.localSize).toBe(2048);
    sorter.destroy();
  });

  it('n = 1 and 4097 (global steps and stage tails), random and all-equal keys', async () => {
    for (const n of [1, 4097]) {
      for (const shape of ['random', 'equal'] as const) {
        await runSortCase(ctx.gpu.device, createBitonicFactory(), { keys: makeSortKeys(shape, n), label: shape });
      }
    }
  });

  it('chunks of 512: fused global steps, 20 key bits, a live count below the capacity', async () => {
    const factory = createBitonicFactory({ localSize: 512 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('depths', 5000, 20), keyBits: 20, count: 3000, label: 'depths' });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('few', 3000), label: 'few' });
  });
});
