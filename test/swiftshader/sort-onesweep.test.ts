/**
 * onesweep again on SwiftShader (SPLAT_GPU=swiftshader, set by this vitest project):
 * subgroup size 4, so each row of rank counters (8 invocations) is shared by two
 * subgroups taking turns, unlike lavapipe (8) and NVIDIA (32). SwiftShader runs
 * workgroups on a few CPU threads in an order of its own: the look-back must terminate
 * there, and the forced-fallback cases (spinLimit 0: every look-back step recounts the
 * predecessor's tile from the input) prove the fallback's counts right. Small sizes, and
 * only the two default kernel configurations: SwiftShader compiles each for seconds.
 */
import { describe, expect, it } from 'vitest';
import { useGpu } from '../support/gpu';
import { makeSortKeys, runSortCase } from '../support/sort-harness';
import { createOnesweepFactory, ONESWEEP_SWIFTSHADER_ROW_MIN, OnesweepSorter, type OnesweepOptions } from '../../sort/onesweep';

const ctx = useGpu();

describe('onesweep sort (swiftshader)', () => {
  it('runs on SwiftShader with subgroups of 4, rows of 64 (16 turns a row: less workgroup memory to compile there)', () => {
    expect(ctx.gpu.info.vendor).toBe('google');
    const sorter = new OnesweepSorter(ctx.gpu.device, 1);
    sorter.destroy();
    expect(sorter.usesSubgroups).toBe(true);
    expect(ctx.gpu.info.subgroupMaxSize).toBe(4);
    expect(sorter.config.rowMin).toBe(ONESWEEP_SWIFTSHADER_ROW_MIN);
  });

  for (const [name, options] of [['subgroups', {}], ['portable', { subgroups: 'off' }]] as [string, OnesweepOptions][]) {
    it(`${name}: 1, tile + 1 and 2 tiles + 77 keys, random, all-equal and splat-like depths`, async () => {
      const factory = createOnesweepFactory(options);
      const sorter = new OnesweepSorter(ctx.gpu.device, 1, options);
      sorter.destroy();
      for (const n of [1, sorter.tileSize + 1, 2 * sorter.tileSize + 77]) {
        for (const shape of ['random', 'equal', 'depths'] as const) {
          await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, n), label: shape });
        }
      }
    });
  }

  it('forced look-back fallback over 7 tiles (spinLimit 0), and mixed with published words (spinLimit 1)', async () => {
    for (const subgroups of ['auto', 'off'] as const) {
      const sorter = new OnesweepSorter(ctx.gpu.device, 1, { subgroups });
      sorter.destroy();
      const n = 6 * sorter.tileSize + 3;
      for (const spinLimit of [0, 1]) {
        const factory = createOnesweepFactory({ spinLimit, subgroups });
        const label = `spinLimit=${spinLimit} ${subgroups}`;
        await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(spinLimit ? 'few' : 'random', n, 20), keyBits: 20, label });
      }
    }
  });

  it('a live count below the capacity, keyBits 8 and 24, indirect dispatch', async () => {
    const factory = createOnesweepFactory({ dispatch: 'indirect' });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('depths', 8000, 24), count: 3400, keyBits: 24 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('few', 4000, 8), keyBits: 8 });
    await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('random', 4000), count: 0 });
  });
});
