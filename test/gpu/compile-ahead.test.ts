/**
 * Sorters' pipelines compiled ahead (sort/kernel-kit.ts compileAhead, SorterFactory.
 * compileAhead): the compile goes through createComputePipelineAsync only, and the
 * sorter made after it compiles nothing on the spot (no createComputePipeline call,
 * lazy pipelines included) and still sorts right (the generic harness against the
 * CPU's stable sort); a second compileAhead of kernels already made compiles nothing.
 * The tiles draw's the same way (compileTilesAhead: what auto's draw trial compiles
 * before it first switches to tiles).
 */
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { createNodeGpu } from '../../renderer/gpu/node-gpu';
import { GpuScene } from '../../renderer/gpu-scene/gpu-scene';
import { compileTilesAhead } from '../../renderer/draw/tiles/tile-rasterizer';
import { generateDefaultScene } from '../../scenes/generate';
import { getSorterFactory, listSorters } from '../../sort/registry';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { makeSortKeys, runSortCase } from '../support/sort-harness';
import { referenceRgb, rgbOf, TileHarness, type TileSettings } from '../support/tile-render';

const ctx = useGpu();

/** Records the labels of the compute pipelines `device` creates, synchronously and async, until restore(). */
function recordCompiles(device: GPUDevice): { sync: string[]; async: string[]; restore: () => void } {
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
  return {
    sync,
    async,
    restore: () => {
      device.createComputePipeline = createSync;
      device.createComputePipelineAsync = createAsync;
    },
  };
}

describe('compileAhead', () => {
  it('every sorter: compiled on the side first, then made and run with no synchronous compile', async () => {
    const { device } = ctx.gpu;
    const { sync, async, restore } = recordCompiles(device);
    try {
      const factories = listSorters(device);
      expect(factories.length).toBeGreaterThanOrEqual(3);
      for (const [i, factory] of factories.entries()) {
        const capacity = 3000 + 17 * i;
        sync.length = async.length = 0;
        await factory.compileAhead(device, capacity);
        expect(sync, `${factory.name}: compiled ahead without a synchronous compile`).toEqual([]);
        expect(async.length, `${factory.name}: compiled its pipelines ahead`).toBeGreaterThan(0);
        const compiledAhead = async.length;
        await runSortCase(device, factory, { keys: makeSortKeys('random', capacity, 32, 7 + i), label: 'after compileAhead' });
        expect(sync, `${factory.name}: made and ran on pipelines compiled ahead`).toEqual([]);
        // Kernels already made: nothing more to compile.
        async.length = 0;
        await factory.compileAhead(device, capacity);
        expect(async, `${factory.name}: compiled ahead again`).toEqual([]);
        console.log(`${factory.name}: ${compiledAhead} pipelines compiled ahead`);
      }
    } finally {
      restore();
    }
  });

  it('a sorter used before at a small capacity, then compiled ahead at a larger one (its lazy kernels first read in the build), sorts right', async () => {
    // A device of its own: no kernel compiled by an earlier test.
    const { device } = await createNodeGpu();
    try {
      for (const factory of listSorters(device)) {
        // Its kernel set cached at 1,000 keys (radix16: no scan level), then the larger capacity's build reads the rest.
        await runSortCase(device, factory, { keys: makeSortKeys('random', 1000, 32, 3), label: 'small first' });
        await factory.compileAhead(device, 300_000);
        await runSortCase(device, factory, { keys: makeSortKeys('random', 300_000, 32, 4), label: 'large after compileAhead' });
      }
    } finally {
      device.destroy();
    }
  });

  it('the tiles draw: compileTilesAhead, then its first frame compiles no compute pipeline on the spot and draws right', async () => {
    const { device } = ctx.gpu;
    const { sync, async, restore } = recordCompiles(device);
    try {
      const cloud = generateDefaultScene(1500);
      const factory = getSorterFactory('radix16');
      const scene = new GpuScene(device, cloud);
      await compileTilesAhead(device, scene, factory, 'rgba8unorm', true);
      scene.destroy();
      expect(sync, 'compiled ahead without a synchronous compile').toEqual([]);
      for (const kernel of ['tiles.project', 'tiles.settle', 'tiles.ranges', 'tiles.blend(rgba8unorm)']) {
        expect(async.some((l) => l.startsWith(kernel)), `${kernel} compiled ahead`).toBe(true);
      }
      const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 50, 96 / 64);
      const settings: TileSettings = { shDegree: 1, splatScale: 1, background: [0, 0, 0] };
      const gpu = await withValidation(device, async () => {
        const harness = new TileHarness(device, cloud, factory);
        const img = await harness.render(pose, 96, 64, settings, 'rgba8unorm', true);
        harness.destroy();
        return img;
      });
      expect(sync.filter((l) => l.startsWith('tiles.')), 'the draw took the pipelines compiled ahead').toEqual([]);
      const p = psnr(rgbOf(gpu), referenceRgb(cloud, pose, 96, 64, settings).rgb);
      console.log(`tiles after compileTilesAhead: ${async.length} pipelines compiled ahead, PSNR ${p.toFixed(1)} dB vs the reference`);
      expect(p).toBeGreaterThan(40);
    } finally {
      restore();
    }
  });
});
