/**
 * Sorters' pipelines compiled ahead (sort/kernel-kit.ts compileAhead, SorterFactory.
 * compileAhead): the compile goes through createComputePipelineAsync only, and the
 * sorter made after it compiles nothing on the spot (no createComputePipeline call,
 * lazy pipelines included) and still sorts right (the generic harness against the
 * CPU's stable sort); a second compileAhead of kernels already made compiles nothing.
 */
import { describe, expect, it } from 'vitest';
import { listSorters } from '../../sort/registry';
import { useGpu } from '../support/gpu';
import { makeSortKeys, runSortCase } from '../support/sort-harness';

const ctx = useGpu();

describe('compileAhead', () => {
  it('every sorter: compiled on the side first, then made and run with no synchronous compile', async () => {
    const { device } = ctx.gpu;
    const sync: string[] = [];
    const async: string[] = [];
    const createSync = device.createComputePipeline.bind(device);
    const createAsync = device.createComputePipelineAsync.bind(device);
    device.createComputePipeline = (d) => {
      sync.push(d.label ?? '?');
      return createSync(d);
    };
    device.createComputePipelineAsync = (d) => {
      async.push(d.label ?? '?');
      return createAsync(d);
    };
    try {
      const factories = listSorters(device);
      expect(factories.length).toBeGreaterThanOrEqual(3);
      for (const [i, factory] of factories.entries()) {
        const capacity = 3000 + 17 * i;
        sync.length = async.length = 0;
        await factory.compileAhead(device, capacity);
        expect(sync, `${factory.name}: compiled ahead without a synchronous compile`).toEqual([]);
        expect(async.length, `${factory.name}: compiled its pipelines ahead`).toBeGreaterThan(0);
        await runSortCase(device, factory, { keys: makeSortKeys('random', capacity, 32, 7 + i), label: 'after compileAhead' });
        expect(sync, `${factory.name}: made and ran on pipelines compiled ahead`).toEqual([]);
        // Kernels already made: nothing more to compile.
        async.length = 0;
        await factory.compileAhead(device, capacity);
        expect(async, `${factory.name}: compiled ahead again`).toEqual([]);
        console.log(`${factory.name}: ${async.length} pipelines compiled ahead`);
      }
    } finally {
      device.createComputePipeline = createSync;
      device.createComputePipelineAsync = createAsync;
    }
  });
});
