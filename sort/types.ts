/**
 * The generic GPU key/value sort interface. Nothing here knows about splats:
 * keys and values are u32, the live count is a u32 on the GPU.
 */

/** One sort to encode: ascending by key; stable sorters keep the input order of equal keys. */
export interface SortJob {
  /** u32 keys, `capacity` of them at least. Input, and the sorted output lands here. */
  keys: GPUBuffer;
  /** u32 values (payload), permuted with the keys. Input and output. */
  values: GPUBuffer;
  /**
   * A buffer holding the live element count as a u32 at `countOffset` (written on the
   * GPU, e.g. by a culling pass). Never read back to the CPU. Must be <= capacity.
   */
  count: GPUBuffer;
  countOffset?: number;
  /** How many low bits of the key matter (1..32). Fewer bits, fewer passes. */
  keyBits: number;
}

/** Where the sorter writes timestamps: begin of its first pass (when given), end of its last. */
export interface SortTimestamps {
  querySet: GPUQuerySet;
  beginIndex?: number;
  endIndex: number;
}

export interface GpuSorter {
  readonly name: string;
  /** Elements the scratch buffers hold. */
  readonly capacity: number;
  /** Records the sort into `encoder` (compute passes only). */
  encode(encoder: GPUCommandEncoder, job: SortJob, timestamps?: SortTimestamps): void;
  /** Frees the scratch buffers it owns (not the job's buffers). */
  destroy(): void;
}

/** A strategy as listed in the registry and the GUI. */
export interface SorterFactory {
  readonly name: string;
  /** One line for the GUI and reports. */
  readonly description: string;
  readonly stable: boolean;
  /** Whether this adapter/device can run it (features, limits). */
  supported(device: GPUDevice): boolean;
  /** Why this device cannot run it (one line), or undefined where `supported` is true. */
  unsupportedReason?(device: GPUDevice): string | undefined;
  create(device: GPUDevice, capacity: number): GpuSorter;
  /**
   * Compiles the pipelines that create(device, capacity) needs, on the side
   * (createComputePipelineAsync, kernel-kit.ts compileAhead): the create after it
   * does not hold up the device's queue compiling them.
   */
  compileAhead(device: GPUDevice, capacity: number): Promise<void>;
}

/**
 * Buffer usages a job's keys/values buffers need for every sorter. A function, not a
 * constant: in Node the GPU* globals exist only once the `webgpu` package is loaded.
 */
export function sortBufferUsage(): GPUBufferUsageFlags {
  return GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
}
