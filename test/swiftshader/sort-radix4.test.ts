/**
 * radix4 again on SwiftShader (SPLAT_GPU=swiftshader, set by this vitest project):
 * subgroup size 4 and at most 256 invocations per workgroup, the browser's WebGPU.
 * SwiftShader is slow on barrier-heavy kernels, so the sizes stay small.
 */
import { describe, expect, it } from 'vitest';
import { useGpu } from '../support/gpu';
import { runRadix4, shapedKeys } from '../support/sort-radix4';

const ctx = useGpu();

describe('radix4 sort (swiftshader)', () => {
  it('runs on SwiftShader with subgroups', () => {
    expect(ctx.gpu.info.vendor).toBe('google');
    expect(ctx.gpu.device.features.has('subgroups')).toBe(true);
  });

  for (const [name, options] of [['subgroups', {}], ['portable', { subgroups: 'off' }]] as const) {
    it.each([1, 513, 4097])(`${name}: n = %i, random and all-equal keys`, async (n) => {
      await runRadix4(ctx.gpu.device, { keys: shapedKeys('random', n, n), options });
      await runRadix4(ctx.gpu.device, { keys: shapedKeys('equal', n, n), options });
    });
  }

  it('a live count below the capacity, an odd key width, indirect dispatch', async () => {
    await runRadix4(ctx.gpu.device, { keys: shapedKeys('depths', 4097, 1500), keyBits: 31, options: { dispatch: 'indirect' } });
  });
});
