/**
 * The paged sort (sort/paged-sort.ts) on the default adapter (lavapipe in CI): keys and
 * values in pages of a small forced capacity, every GPU sorter as the pages' sorter,
 * checked against the stable CPU reference over the whole array (values = original
 * index: stability across pages shows). Sizes at the seams: a page exactly full, one
 * element into the next page, live counts ending exactly at and just past a boundary,
 * 0 and 1; equal keys spread over every page (the merge's ties); key bits below 32 with
 * garbage above them; the most pages the device binds; the same job twice (cached
 * bindings). No adapter is a failure, never a skip.
 */
import { describe, expect, it } from 'vitest';
import { maxSortPages, PagedSorter, sortPageCapacity } from '../../sort/paged-sort';
import { sorterFactories } from '../../sort/registry';
import { sortBufferUsage, type SorterFactory } from '../../sort/types';
import { readPagesU32, useGpu, withValidation } from '../support/gpu';
import { expectSorted, makeSortKeys, type SortKeyShape } from '../support/sort-harness';

const ctx = useGpu();

interface PagedCase {
  shape: SortKeyShape;
  capacity: number;
  pageCapacity: number;
  count?: number;
  keyBits?: number;
  repeat?: number;
}

async function runPagedCase(device: GPUDevice, factory: SorterFactory, c: PagedCase): Promise<void> {
  const keyBits = c.keyBits ?? 32;
  const keys = makeSortKeys(c.shape, c.capacity, keyBits, 3);
  const values = Uint32Array.from({ length: c.capacity }, (_, i) => i);
  const live = Math.min(c.count ?? c.capacity, c.capacity);
  const label = `${factory.name} ${c.shape} capacity=${c.capacity} pages of ${c.pageCapacity} count=${c.count ?? c.capacity} keyBits=${keyBits}`;
  await withValidation(device, async () => {
    const sorter = new PagedSorter(device, factory, c.capacity, c.pageCapacity);
    const usage = sortBufferUsage();
    const pageKeys: GPUBuffer[] = [];
    const pageValues: GPUBuffer[] = [];
    for (let p = 0; p < sorter.pages; p++) {
      pageKeys.push(device.createBuffer({ label: `test.keys${p}`, size: sorter.pageSize(p) * 4, usage }));
      pageValues.push(device.createBuffer({ label: `test.values${p}`, size: sorter.pageSize(p) * 4, usage }));
    }
    const count = device.createBuffer({ label: 'test.count', size: 64, usage });
    device.queue.writeBuffer(count, 8, new Uint32Array([c.count ?? c.capacity]));
    try {
      for (let r = 0; r < (c.repeat ?? 1); r++) {
        for (let p = 0; p < sorter.pages; p++) {
          const from = p * c.pageCapacity;
          device.queue.writeBuffer(pageKeys[p]!, 0, keys.subarray(from, from + sorter.pageSize(p)));
          device.queue.writeBuffer(pageValues[p]!, 0, values.subarray(from, from + sorter.pageSize(p)));
        }
        const encoder = device.createCommandEncoder();
        sorter.encode(encoder, { keys: pageKeys, values: pageValues, count, countOffset: 8, keyBits });
        device.queue.submit([encoder.finish()]);
        const outKeys = await readPagesU32(device, pageKeys, c.pageCapacity, c.capacity);
        const outValues = await readPagesU32(device, pageValues, c.pageCapacity, c.capacity);
        expectSorted(factory.stable, { keys, values, live, keyBits }, outKeys, outValues, label);
      }
    } finally {
      sorter.destroy();
      for (const b of [...pageKeys, ...pageValues, count]) b.destroy();
    }
  });
}

describe('paged sort (gpu)', () => {
  it('page capacities: the largest power of two of u32s a binding holds', () => {
    expect(sortPageCapacity(128 * 2 ** 20)).toBe(2 ** 25);
    expect(sortPageCapacity(128e6)).toBe(2 ** 24);
    expect(sortPageCapacity(4)).toBe(1);
    expect(() => sortPageCapacity(3)).toThrow(/holds no u32/);
  });

  it('refuses more pages than a shader stage binds, naming the limit', () => {
    const device = ctx.gpu.device;
    const most = maxSortPages(device);
    const radix16 = sorterFactories.find((f) => f.name === 'radix16')!;
    expect(() => new PagedSorter(device, radix16, (most + 1) * 64, 64)).toThrow(
      new RegExp(`need ${most + 1} pages of 64, the device binds ${most} \\(maxStorageBuffersPerShaderStage ${device.limits.maxStorageBuffersPerShaderStage}, less 2\\)`),
    );
  });

  for (const factory of sorterFactories) {
    it(`${factory.name}: at the seams of pages of 1,024`, async () => {
      const device = ctx.gpu.device;
      const C = 1024;
      // One page (the sorter's own sort), a full page and one into the next, pages that end exactly.
      await runPagedCase(device, factory, { shape: 'random', capacity: C, pageCapacity: C });
      await runPagedCase(device, factory, { shape: 'random', capacity: C + 1, pageCapacity: C });
      await runPagedCase(device, factory, { shape: 'depths', capacity: 3 * C, pageCapacity: C, keyBits: 20 });
      // Equal and few distinct keys over every page: ties across pages keep the input order.
      await runPagedCase(device, factory, { shape: 'equal', capacity: 3 * C + 77, pageCapacity: C });
      await runPagedCase(device, factory, { shape: 'few', capacity: 4 * C - 1, pageCapacity: C, keyBits: 16 });
      // Live counts at a boundary, one past it, 1 and 0.
      await runPagedCase(device, factory, { shape: 'reversed', capacity: 3 * C + 5, pageCapacity: C, count: 2 * C });
      await runPagedCase(device, factory, { shape: 'random', capacity: 3 * C + 5, pageCapacity: C, count: 2 * C + 1, repeat: 2 });
      await runPagedCase(device, factory, { shape: 'random', capacity: 2 * C, pageCapacity: C, count: 1 });
      await runPagedCase(device, factory, { shape: 'random', capacity: 2 * C, pageCapacity: C, count: 0 });
    });
  }

  it('radix16: the most pages the device binds, pages of 2,048, a count above the capacity clamped', async () => {
    const device = ctx.gpu.device;
    const radix16 = sorterFactories.find((f) => f.name === 'radix16')!;
    const P = maxSortPages(device);
    await runPagedCase(device, radix16, { shape: 'depths', capacity: P * 2048 - 3, pageCapacity: 2048, count: P * 2048 + 100, keyBits: 24 });
  });
});
