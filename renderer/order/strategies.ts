/**
 * Sort strategies: how a frame's splats get their back-to-front order. Each is an
 * object behind one interface, so no caller tests for a name:
 * - a GPU sorter of sort/ (project pass + sort on the GPU), one per registry entry;
 * - the CPU worker (cpu-depth-sort.ts): depths and sort on the CPU, a frame late.
 */
import { PagedSorter } from '../../sort/paged-sort';
import { sorterFactories } from '../../sort/registry';
import type { SorterFactory } from '../../sort/types';
import { cpuWorkerStrategy } from './cpu-depth-sort';
import { DrawArgs } from '../stage/draw-args';
import { stageIndices, stageWrites } from '../stage/frame-stages';
import type { SortStrategy, StrategyInfo } from './sort-strategy';

export type { SortFrame, SortState, SortStrategy, SortTarget, StrategyInfo } from './sort-strategy';

/** A GPU sorter of sort/ as a strategy: project (cull + keys) then the sort, all on the GPU. */
function gpuSortStrategy(factory: SorterFactory): SortStrategy {
  return {
    info: { name: factory.name, description: factory.description, stable: factory.stable, lagsCamera: false },
    sorter: factory,
    supported: (device) => factory.supported(device),
    create(device, target) {
      // Keys and values in pages when one binding does not hold them (paging.ts sortPagingFor).
      const sorter = new PagedSorter(device, factory, target.keys.paging.count, target.keys.paging.pageSplats);
      return {
        hostSortMs: null,
        encode(encoder, frame) {
          // No sort this frame: its project and sort stages are absent from its timings.
          if (!frame.sortNow) return;
          target.writeCount(0);
          target.project.encode(encoder, stageWrites(frame.timestamps, 'project'));
          const w = stageWrites(frame.timestamps, 'sort');
          sorter.encode(
            encoder,
            { keys: target.keys.buffers, values: target.values.buffers, count: target.drawArgs, countOffset: DrawArgs.countOffset, keyBits: frame.keyBits },
            stageIndices(w),
          );
        },
        settle: async () => false,
        destroy: () => sorter.destroy(),
      };
    },
  };
}

/** Every strategy, in the order the GUI lists them: the GPU sorters of the registry, then the CPU worker. */
const SORT_STRATEGIES: readonly SortStrategy[] = [...sorterFactories.map(gpuSortStrategy), cpuWorkerStrategy];

/** The strategy called `name`; throws, naming the known ones, if there is none. */
export function strategyByName(name: string): SortStrategy {
  const s = SORT_STRATEGIES.find((x) => x.info.name === name);
  if (!s) throw new Error(`unknown sort strategy '${name}' (known: ${SORT_STRATEGIES.map((x) => x.info.name).join(', ')})`);
  return s;
}

/** Every strategy this device can run. */
export function listStrategies(device: GPUDevice): StrategyInfo[] {
  return SORT_STRATEGIES.filter((s) => s.supported(device)).map((s) => s.info);
}
