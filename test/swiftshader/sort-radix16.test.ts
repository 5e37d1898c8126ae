/**
 * radix16 again on SwiftShader (SPLAT_GPU=swiftshader, set by this vitest project):
 * subgroup size 4, at most 256 invocations and 32 KiB of workgroup memory, the
 * browser's WebGPU; radix16's workgroups of 32 there (RADIX16_SWIFTSHADER_WG_SIZE). SwiftShader is slow on barrier-heavy kernels: small sizes only.
 */
import { describe, expect, it } from 'vitest';
import { useGpu } from '../support/gpu';
import { makeSortKeys, runSortCase } from '../support/sort-harness';
import { createRadix16Factory } from '../../sort/radix16';
import { RADIX16_SWIFTSHADER_WG_SIZE, radix16WgSize } from '../../sort/radix16-kernels';

const ctx = useGpu();

describe('radix16 sort (swiftshader)', () => {
  it('runs on SwiftShader with subgroups, in workgroups of 32 (less workgroup memory to compile there)', () => {
    expect(ctx.gpu.info.vendor).toBe('google');
    expect(ctx.gpu.device.features.has('subgroups')).toBe(true);
    expect(radix16WgSize(ctx.gpu.device)).toBe(RADIX16_SWIFTSHADER_WG_SIZE);
  });

  for (const [name, factory] of [['subgroups', createRadix16Factory()], ['portable', createRadix16Factory({ subgroups: 'off' })]] as const) {
    it(`${name}: n = 1, 257, 2049 and 4500 (tiles of 256 / 192), random, few distinct and all-equal keys; past 64 tiles (the scan dispatches)`, async () => {
      await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys('depths', 20_000, 24), keyBits: 24, label: 'depths' });
      for (const n of [1, 257, 2049, 4500]) {
        for (const shape of ['random', 'few', 'equal'] as const) {
          await runSortCase(ctx.gpu.device, factory, { keys: makeSortKeys(shape, n, 16), keyBits: 16, label: shape });
        }
      }
    });
  }

  it('32 and 20 key bits, a live count below the capacity, indirect dispatch', async () => {
    await runSortCase(ctx.gpu.device, createRadix16Factory(), { keys: makeSortKeys('depths', 3000), label: 'depths' });
    await runSortCase(ctx.gpu.device, createRadix16Factory({ dispatch: 'indirect' }), {
      keys: makeSortKeys('depths', 4097, 20),
      count: 2500,
      keyBits: 20,
      label: 'depths',
    });
  });
});
