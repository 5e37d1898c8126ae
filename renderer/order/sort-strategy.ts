/**
 * The interface of a sort strategy: how a frame's splats get their back-to-front
 * order (strategies.ts lists them).
 */
import type { SplatCloud } from '../../scenes/splat-cloud';
import type { SorterFactory } from '../../sort/types';
import type { FrameCamera } from '../stage/frame-uniforms';
import type { FrameTimestamps } from '../stage/frame-stages';
import type { PagedBuffer } from '../gpu-scene/paging';
import type { ObjectRun } from '../gpu-scene/objects';
import type { ProjectPass } from '../project/project-pass';

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
  /** The splats on the CPU: positions in their objects' frames (`objects`). */
  cloud: SplatCloud;
  /**
   * The placed objects the splats are runs of (the drawn scene's object table:
   * renderer/gpu-scene/objects.ts), read when a host sort computes depths; absent: one
   * object at the identity.
   */
  objects?: { readonly runs: readonly ObjectRun[] };
  /** Depth keys (u32), one per splat, in pages when one binding does not hold them (paging.ts sortPagingFor). */
  keys: PagedBuffer;
  /** Splat ids (u32): the draw order once sorted; paged as the keys. */
  values: PagedBuffer;
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
  /**
   * Resolves once a host sort in flight has finished; true when it left an order that
   * no frame has drawn yet (draw again for it). A GPU sort resolves false at once.
   */
  settle(): Promise<boolean>;
  destroy(): void;
}

export interface SortStrategy {
  readonly info: StrategyInfo;
  /**
   * The GPU sorter behind the strategy, for draws that sort keys of their own (the
   * tiles draw sorts (tile, depth) pairs with it); absent for a host sort.
   */
  readonly sorter?: SorterFactory;
  supported(device: GPUDevice): boolean;
  create(device: GPUDevice, target: SortTarget): SortState;
}

