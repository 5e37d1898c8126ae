/**
 * The tiles draw's sizing and its (tile, depth) pair buffers: what a draw of a scene
 * is sized for at first (records, pair pages, capacity), the pairs' keys and splat ids
 * with the sorter for them (TilePairs, made again when the capacity or the sorter
 * changes), and compileTilesAhead, which compiles the pipelines those sizes need.
 */
import { compileAhead } from '../../../sort/kernel-kit';
import { maxSortPages, PagedSorter, sortPageCapacity } from '../../../sort/paged-sort';
import type { SorterFactory } from '../../../sort/types';
import { sortBufferUsage } from '../../../sort/types';
import { blendPipeline, canBlendInto, tilePipelines, tileProjectPipeline } from './tile-pipelines';
import type { GpuScene } from '../../gpu-scene/gpu-scene';
import type { DrawKind } from '../../gpu-scene/scene-wgsl';
import { MAX_PAGES, PagedBuffer, pagingFor, sortPagingFor, type Paging } from '../../gpu-scene/paging';

/** The scene as the GPU holds it (renderer/gpu-scene/gpu-scene.ts): its count, layout, pages. */
export type TileSceneBuffers = Pick<GpuScene, 'count' | 'precision' | 'paging' | 'bindEntries'>;

/** Bytes of a splat's record (tiles_common.wgsl: two vec4u). */
export const TILE_RECORD_BYTES = 32;

export interface TileRasterizerOptions {
  /**
   * Pairs a frame may use at first; default max(4,096, 2 x splats) (sorters cost by
   * capacity on slow adapters; the buffers grow after a frame that needs more, and
   * shrink back towards this after a long spell of needing far fewer).
   */
  initialPairs?: number;
  /** Most pairs the buffers may ever hold; default what the device binds (and the sorter accepts). */
  maxPairs?: number;
  /** Read-backs in a row needing under a quarter of the capacity before it shrinks (default pair-budget.ts SHRINK_AFTER). */
  shrinkAfter?: number;
  /** The most bytes one binding holds: the records and the pairs are paged under it (paging.ts); default the device's limit. */
  bindingBytes?: number;
  /** The most bytes a page of the pairs' keys or values holds, when lower than bindingBytes (tests: gpu-budget.ts sortPageBytes). */
  pairPageBytes?: number;
}

/** What a tiles draw of `scene` is sized for at first (no GPU memory made): its constructor's and compileTilesAhead's. */
export function tileSizing(device: GPUDevice, scene: TileSceneBuffers, options: TileRasterizerOptions): { pairPageBytes: number; records: Paging; maxPairs: number; initialPairs: number } {
  const n = Math.max(1, scene.count);
  const maxBytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  const bindingBytes = Math.min(options.bindingBytes ?? maxBytes, maxBytes);
  const pairPageBytes = Math.min(bindingBytes, options.pairPageBytes ?? Infinity);
  const records = pagingFor(n, TILE_RECORD_BYTES, bindingBytes);
  // The pairs in as many pages as the passes can bind: the project pass binds the
  // scene's and the records' pages, the pairs' keys' and values' pages and a counter;
  // the sort's merge every key page and two more (sort/paged-sort.ts).
  const scenePages = scene.paging.centers.pages + scene.paging.covs.pages + scene.paging.sh.pages;
  const stage = device.limits.maxStorageBuffersPerShaderStage;
  const pairPages = Math.max(1, Math.min(Math.floor((stage - scenePages - records.pages - 1) / 2), maxSortPages(device), MAX_PAGES));
  const deviceMax = pairPages === 1 ? Math.floor(pairPageBytes / 4) : sortPageCapacity(pairPageBytes) * pairPages;
  const maxPairs = Math.max(1, Math.min(options.maxPairs ?? deviceMax, deviceMax));
  const initialPairs = Math.max(1, Math.min(Math.floor(options.initialPairs ?? Math.max(4096, 2 * scene.count)), maxPairs));
  return { pairPageBytes, records, maxPairs, initialPairs };
}

/**
 * Compiles on the side (createComputePipelineAsync: sort/kernel-kit.ts compileAhead) the
 * compute pipelines a tiles draw of `scene` builds for its first frames into a target of
 * `targetFormat` (`targetStorage`: the target can be a storage texture), and its sorter's
 * for the pairs; resolves when they are compiled, and the draw then takes them. Made on
 * the spot, they hold up the queue: on SwiftShader the project and blend kernels compile
 * 1.1-1.3 s each, and the page's frames wait (auto's draw trial switching to tiles).
 */
export async function compileTilesAhead(
  device: GPUDevice,
  scene: TileSceneBuffers,
  factory: SorterFactory,
  targetFormat: GPUTextureFormat,
  targetStorage: boolean,
  options: TileRasterizerOptions = {},
): Promise<void> {
  const sizing = tileSizing(device, scene, options);
  // As allocatePairs sizes the pairs (a fallback frame sorts a key per splat in them).
  const slots = Math.max(sizing.initialPairs, scene.count, 1);
  const pairs = sortPagingFor(slots, sizing.pairPageBytes);
  const kind: DrawKind = { scene: { precision: scene.precision, paging: scene.paging }, records: sizing.records, pairs };
  const outFormat: GPUTextureFormat = targetStorage && canBlendInto(device, targetFormat) ? targetFormat : 'rgba8unorm';
  await Promise.all([
    compileAhead(device, () => {
      tilePipelines(device, kind);
      tileProjectPipeline(device, kind);
      blendPipeline(device, kind, outFormat);
    }),
    factory.compileAhead(device, Math.min(slots, pairs.pageSplats)),
  ]);
}

/**
 * The pairs' keys and splat ids, in pages past one binding (paging.ts sortPagingFor;
 * PagedSorter merges them), and the sorter for them: `slots` entries, max(pair
 * capacity, splats), since a fallback frame sorts a key per visible splat in them.
 */
export class TilePairs {
  keys: PagedBuffer | null = null;
  values: PagedBuffer | null = null;
  sorter: PagedSorter | null = null;
  /** Entries the key/value buffers hold. */
  slots = 0;

  constructor(
    private readonly device: GPUDevice,
    private factory: SorterFactory,
    /** Bytes a page of the pairs holds. */
    private readonly pageBytes: number,
  ) {}

  /** The sorter in use. */
  get sorterName(): string {
    return this.factory.name;
  }

  /** Takes `factory` for the next allocate(); false when it is the one in use already. */
  setFactory(factory: SorterFactory): boolean {
    if (factory === this.factory) return false;
    this.factory = factory;
    return true;
  }

  /**
   * A sorter for `capacity` pairs in pages, or for fewer where this sorter cannot hold
   * that many on this device (bitonic pads to a power of two): halved until it fits.
   */
  private createSorter(capacity: number): { sorter: PagedSorter; capacity: number } {
    let c = Math.max(1, capacity);
    for (;;) {
      try {
        return { sorter: new PagedSorter(this.device, this.factory, c, sortPagingFor(c, this.pageBytes).pageSplats), capacity: c };
      } catch (err) {
        if (!(err instanceof RangeError) || c <= 1) throw err;
        c = Math.floor(c / 2);
      }
    }
  }

  /**
   * The buffers and the sorter made again for `wanted` pairs and `splats` keys (the
   * old ones freed): their slots (fewer than wanted where the sorter holds fewer) and paging.
   */
  allocate(wanted: number, splats: number): { slots: number; paging: Paging } {
    const { sorter, capacity: slots } = this.createSorter(Math.max(wanted, splats, 1));
    const usage = sortBufferUsage();
    this.destroy();
    this.sorter = sorter;
    this.slots = slots;
    const paging = sortPagingFor(slots, this.pageBytes);
    this.keys = new PagedBuffer(this.device, 'TileRasterizer.keys', paging, usage);
    this.values = new PagedBuffer(this.device, 'TileRasterizer.values', paging, usage);
    return { slots, paging };
  }

  destroy(): void {
    this.sorter?.destroy();
    this.keys?.destroy();
    this.values?.destroy();
    this.sorter = null;
    this.keys = this.values = null;
  }
}
