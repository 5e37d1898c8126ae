/**
 * The tiles draw as a draw strategy (draw.ts): the compute tile rasteriser
 * (tile-rasterizer.ts), whose (tile, depth) pairs the sort strategy's GPU sorter sorts.
 */
import type { SorterFactory } from '../../../sort/types';
import type { GpuScene } from '../../gpu-scene/gpu-scene';
import { stageWrites } from '../../stage/frame-stages';
import type { SortStrategy } from '../../order/sort-strategy';
import type { Coverage, Draw, DrawContext, DrawFrame, DrawKind } from '../draw';
import type { PairStatus } from './pair-budget';
import { compileTilesAhead, TILE_RECORD_BYTES, type TileRasterizerOptions } from './tile-pairs';
import { TILE_STAGES, TileRasterizer } from './tile-rasterizer';

/** Storage buffers of the tiles' project pass besides the pages it binds: keys, values, a counter. */
const PROJECT_OWN_BUFFERS = 3;

/** The renderer's tile options, its binding limit, and a test's smaller pair pages (gpu-budget.ts sortPageBytes). */
function rasterizerOptions(ctx: DrawContext): TileRasterizerOptions {
  return {
    ...ctx.tileOptions,
    bindingBytes: ctx.bindingBytes,
    ...(ctx.sortPageBytes ? { pairPageBytes: ctx.sortPageBytes } : {}),
  };
}

/** The GPU sorter of `sort`: the renderer hands this draw only sort strategies that have one (draw-strategies.ts drawRefusal). */
function gpuSorter(sort: SortStrategy): SorterFactory {
  return sort.sorter!;
}

/** The tiles draw's state for one scene: the rasteriser, with its records and pair buffers. */
class TilesDraw implements Draw {
  private readonly raster: TileRasterizer;

  constructor(
    readonly kind: DrawKind,
    private readonly ctx: DrawContext,
    scene: GpuScene,
    public sort: SortStrategy,
  ) {
    this.raster = new TileRasterizer(ctx.device, ctx.frame, scene, gpuSorter(sort), rasterizerOptions(ctx));
  }

  setStrategy(sort: SortStrategy): void {
    this.raster.setSorter(gpuSorter(sort));
    this.sort = sort;
  }

  encode(encoder: GPUCommandEncoder, frame: DrawFrame): void {
    const { camera, settings, timestamps } = frame;
    // The tile path always redraws (its image depends on every setting); the
    // key-bits setting caps the depth bits of its (tile, depth) keys.
    this.raster.encode(
      encoder,
      frame.target,
      this.ctx.format,
      {
        width: camera.width,
        height: camera.height,
        depthBits: settings.keyBits,
        background: settings.background,
        targetStorage: settings.targetStorage ?? false,
        ...(settings.hostDepth || settings.outputDepth
          ? { depth: { ...(settings.hostDepth ? { host: settings.hostDepth } : {}), ...(settings.outputDepth ? { output: settings.outputDepth } : {}), near: camera.near, far: camera.far } }
          : {}),
      },
      (stage) => stageWrites(timestamps, stage),
    );
  }

  measureCoverage(): Promise<Coverage> {
    return Promise.reject(new Error("measureCoverage counts the quads draw's fragments: the draw strategy is 'tiles'"));
  }

  submitted(): void {
    this.raster.submitted();
  }

  settle(): Promise<boolean> {
    return this.raster.settle();
  }

  get hostSortMs(): null {
    return null;
  }

  get tileStatus(): PairStatus {
    return this.raster.status;
  }

  get drawOrder(): null {
    return null;
  }

  destroy(): void {
    this.raster.destroy();
  }
}

/** The compute tile rasteriser: needs a GPU sort strategy for its pairs. */
export const tilesDraw: DrawKind<'tiles'> = {
  info: {
    name: 'tiles',
    description: 'compute tile rasteriser: (tile, depth) pairs sorted on the GPU, blended per 16x16 tile front to back',
    needsGpuSorter: true,
    stages: TILE_STAGES,
  },
  gpuSorts: 'its (tile, depth) pairs',
  budget: {
    records: { name: 'tile records', bytes: TILE_RECORD_BYTES },
    // Its project pass binds every page of the scene and of the records, and its keys, values and counters.
    stageBuffers: ({ scene, records }) => scene + records + PROJECT_OWN_BUFFERS,
  },
  create(ctx, scene, _target, sort) {
    return new TilesDraw(this, ctx, scene, sort);
  },
  // Its compute kernels take seconds to compile on a software adapter: on the side (tile-pairs.ts).
  compileAhead: (ctx, scene, sort, targetStorage) =>
    sort.sorter ? compileTilesAhead(ctx.device, scene, sort.sorter, ctx.format, targetStorage, rasterizerOptions(ctx)) : Promise.resolve(),
};
