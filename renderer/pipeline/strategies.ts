/**
 * Sort strategies: how a frame's splats get their back-to-front order. Each is an
 * object behind one interface, so no caller tests for a name:
 * - a GPU sorter of sort/ (project pass + sort on the GPU), one per registry entry;
 * - the CPU worker (cpu-depth-sort.ts): depths and sort on the CPU, a frame late.
 */
import { sorterFactories } from '../../sort/registry';
import type { SorterFactory } from '../../sort/types';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { cpuWorkerStrategy } from './cpu-depth-sort';
import { DrawArgs } from './draw-args';
import type { FrameCamera } from './frame-uniforms';
import { encodeEmptyStages, stageWrites, type FrameTimestamps } from './frame-stages';
import type { ProjectPass } from './project-pass';

/** A sort strategy as the GUI and the benchmarks list it. */
export interface StrategyInfo {
  name: string;
  description: string;
  stable: boolean;
  /** The drawn order is from an earlier frame's camera: ask for a sort every frame until it catches up. */
  lagsCamera: boolean;
}

/** The scene's GPU buffers a strategy orders (owned by the renderer). */
export interface SortTarget {
  cloud: SplatCloud;
  /** Depth keys (u32), one per splat. */
  keys: GPUBuffer;
  /** Splat ids (u32): the draw order once sorted. */
  values: GPUBuffer;
  /** The indirect draw arguments (struct DrawArgs); its count is the number of ids drawn. */
  drawArgs: GPUBuffer;
  /** The project pass into keys / values / drawArgs. */
  project: ProjectPass;
  /** Writes the draw arguments for `count` splats. */
  writeCount(count: number): void;
}

/** What a frame asks of its strategy. */
export interface SortFrame {
  camera: FrameCamera;
  keyBits: number;
  /** False: keep the last order and count (nothing moved). */
  sortNow: boolean;
  timestamps?: FrameTimestamps;
}

/** A strategy's state for one scene. */
export interface SortState {
  /** Records the frame's ordering work (timing the `project` and `sort` stages). */
  encode(encoder: GPUCommandEncoder, frame: SortFrame): void;
  /**
   * Wall time (ms) of the last sort when it runs on the host, which then stands for the
   * `sort` stage (the GPU does none); null for a GPU sort.
   */
  readonly hostSortMs: number | null;
  /** Resolves once a host sort in flight has finished (no-op for a GPU sort). */
  settle(): Promise<void>;
  destroy(): void;
}

export interface SortStrategy {
  readonly info: StrategyInfo;
  supported(device: GPUDevice): boolean;
  create(device: GPUDevice, target: SortTarget): SortState;
}

/** A GPU sorter of sort/ as a strategy: project (cull + keys) then the sort, all on the GPU. */
export function gpuSortStrategy(factory: SorterFactory): SortStrategy {
  return {
    info: { name: factory.name, description: factory.description, stable: factory.stable, lagsCamera: false },
    supported: (device) => factory.supported(device),
    create(device, target) {
      const sorter = factory.create(device, Math.max(1, target.cloud.count));
      return {
        hostSortMs: null,
        encode(encoder, frame) {
          if (!frame.sortNow) {
            encodeEmptyStages(encoder, frame.timestamps, ['project', 'sort']);
            return;
          }
          target.writeCount(0);
          target.project.encode(encoder, stageWrites(frame.timestamps, 'project'));
          const w = stageWrites(frame.timestamps, 'sort');
          sorter.encode(
            encoder,
            { keys: target.keys, values: target.values, count: target.drawArgs, countOffset: DrawArgs.countOffset, keyBits: frame.keyBits },
            w && { querySet: w.querySet, beginIndex: w.beginningOfPassWriteIndex, endIndex: w.endOfPassWriteIndex },
          );
        },
        settle: async () => undefined,
        destroy: () => sorter.destroy(),
      };
    },
  };
}

/** Every strategy, in the order the GUI lists them: the GPU sorters of the registry, then the CPU worker. */
export const SORT_STRATEGIES: readonly SortStrategy[] = [...sorterFactories.map(gpuSortStrategy), cpuWorkerStrategy];

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
