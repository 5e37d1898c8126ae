/**
 * bitonic: a bitonic sorting network over u32 key/value pairs, after Intel's bitonic sort
 * tutorial: chunks sorted entirely in workgroup memory, then for each larger stage the
 * large strides as compare-exchange dispatches in global memory and the strides below
 * the chunk size back in workgroup memory. NOT stable: equal keys come out ordered by
 * value (then full key), not by input position; that is the stable order only where the
 * values ascend in input order (indices). All in one compute pass:
 *
 *   prepare      1 invocation: reads the live count n on the GPU; padded = the next
 *                power of two >= n, at least the chunk size L (4096 pairs where
 *                workgroup memory allows, else 2048 ..)
 *   local        the local sort, one workgroup per L-pair chunk: loads the job's pairs
 *                (padding pairs (0xFFFFFFFF, 0xFFFFFFFF) past n), runs every stage
 *                k <= L, stores to the scratch buffers (or, when padded == L, the
 *                first n straight back)
 *   for each stage k = 2L, 4L, .. up to the padded capacity:
 *     mergeGlobal  the strides k/2 (the flip) .. L, two strides a dispatch where it can
 *     local        strides L/2 .. 1 in workgroup memory; after the last stage of this
 *                  sort (k == padded) it writes the first n pairs to the job's buffers
 *
 * Dispatches are sized for the capacity; workgroups past the live network exit at once
 * (the count never comes back to the CPU). The job's pairs at or past the live count are
 * never written. Scratch: two buffers of the padded capacity.
 *
 * keyBits < 32 compares `key & mask` and carries the full keys and values; ties (and the
 * padding) are broken by the value, then the full key: a total order on pairs, so the
 * padding pair sorts after every live pair it could be confused with.
 */
import { checkKeyBits, type Grid, grid2d } from './sort-job.ts';
import { checkCapacity, SorterBase, sorterFactory } from './sorter-base.ts';
import type { SorterFactory, SortJob, SortTimestamps } from './types.ts';
import { BITONIC_CONSTANTS, bitonicLocalSize, getBitonicKernels, type BitonicKernels } from './bitonic-kernels.ts';

export interface BitonicOptions {
  /** Pairs a workgroup sorts in workgroup memory (a power of two, 512..4096); default: the most the device affords. */
  localSize?: number;
}

/** One dispatch after prepare: a kernel, its StepInfo slot, its grid. */
interface Dispatch {
  kernel: 'local' | 'mergeGlobal';
  slot: number;
  grid: Grid;
}

/** The network's dispatches and their StepInfo (blockSize, stride, flip, twoSteps) for a padded capacity. */
export function bitonicSchedule(paddedCapacity: number, localSize: number): { kernel: Dispatch['kernel']; info: [number, number, number, number]; invocations: number }[] {
  const wg = BITONIC_CONSTANTS.WG_SIZE;
  const out: { kernel: Dispatch['kernel']; info: [number, number, number, number]; invocations: number }[] = [
    { kernel: 'local', info: [localSize, 0, 0, 0], invocations: (paddedCapacity / localSize) * wg },
  ];
  for (let k = 2 * localSize; k <= paddedCapacity; k *= 2) {
    let flip = 1;
    for (let j = k / 2; j >= localSize; ) {
      const two = j / 2 >= localSize ? 1 : 0;
      out.push({ kernel: 'mergeGlobal', info: [k, j, flip, two], invocations: paddedCapacity / (two ? 4 : 2) });
      j /= two ? 4 : 2;
      flip = 0;
    }
    out.push({ kernel: 'local', info: [k, 0, 0, 0], invocations: (paddedCapacity / localSize) * wg });
  }
  return out;
}

interface JobBindings {
  prepare: GPUBindGroup;
  data: GPUBindGroup;
}

/** A bitonic sorter of up to `capacity` pairs; see the module comment. */
export class BitonicSorter extends SorterBase<JobBindings> {
  /** Pairs sorted per workgroup in workgroup memory. */
  readonly localSize: number;
  /** The network size for a full buffer: max(next power of two >= capacity, localSize). */
  readonly paddedCapacity: number;

  private readonly kernels: BitonicKernels;
  private readonly params: GPUBuffer;
  private readonly stepInfoStride: number;
  private readonly stepGroup: GPUBindGroup;
  private readonly dispatches: Dispatch[];

  constructor(device: GPUDevice, capacity: number, options: BitonicOptions = {}) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`BitonicSorter: capacity must be a positive integer, got ${capacity}`);
    }
    const localSize = options.localSize ?? bitonicLocalSize(device);
    const wg = BITONIC_CONSTANTS.WG_SIZE;
    if (!Number.isInteger(Math.log2(localSize)) || localSize < 2 * wg || localSize * 8 > device.limits.maxComputeWorkgroupStorageSize) {
      throw new RangeError(`BitonicSorter: localSize ${localSize} must be a power of two >= ${2 * wg} whose pairs fit the workgroup memory`);
    }
    let padded = localSize;
    while (padded < capacity) padded *= 2;
    checkCapacity('BitonicSorter', device, capacity, padded);
    super(device, 'BitonicSorter', bitonicName(options), capacity, padded);
    this.localSize = localSize;
    this.paddedCapacity = padded;
    this.kernels = getBitonicKernels(device, localSize);
    const k = this.kernels;
    this.params = this.buffer('params', k.params.size, GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM);

    const schedule = bitonicSchedule(padded, localSize);
    const table = k.stepInfo.slots(device, 'BitonicSorter.stepInfo', schedule.length, (slot) => {
      const [blockSize, stride, flip, twoSteps] = schedule[slot]!.info;
      return { blockSize, stride, flip, twoSteps };
    });
    this.own(table.buffer);
    this.stepInfoStride = table.stride;
    const maxPerDim = device.limits.maxComputeWorkgroupsPerDimension;
    this.dispatches = schedule.map((s, slot) => ({ kernel: s.kernel, slot, grid: grid2d(Math.ceil(s.invocations / wg), maxPerDim) }));

    this.stepGroup = device.createBindGroup({
      label: 'BitonicSorter.stepGroup',
      layout: k.stepLayout,
      entries: [
        { binding: 0, resource: { buffer: table.buffer, size: k.stepInfo.size } },
        { binding: 1, resource: { buffer: this.params } },
      ],
    });
  }

  encode(encoder: GPUCommandEncoder, job: SortJob, timestamps?: SortTimestamps): void {
    const { keyBits } = job;
    checkKeyBits('BitonicSorter', keyBits);
    const jb = this.bindingsFor(job);
    const k = this.kernels;
    const pass = this.beginPass(encoder, timestamps);
    pass.setPipeline(k.prepare);
    pass.setBindGroup(0, jb.prepare);
    pass.dispatchWorkgroups(1);
    pass.setBindGroup(1, jb.data);
    let current: Dispatch['kernel'] | undefined;
    for (const d of this.dispatches) {
      if (d.kernel !== current) {
        pass.setPipeline(k[d.kernel]);
        current = d.kernel;
      }
      pass.setBindGroup(0, this.stepGroup, [d.slot * this.stepInfoStride]);
      pass.dispatchWorkgroups(d.grid.x, d.grid.y);
    }
    pass.end();
  }

  private bindingsFor(job: SortJob): JobBindings {
    return this.jobBindings(
      job,
      ({ windowOffset, windowSize, countIndex }) => {
        const d = this.device;
        const bytes = this.capacity * 4;
        const keyMask = job.keyBits >= 32 ? 0xffffffff : 2 ** job.keyBits - 1;
        const info = this.kernels.prepareInfo.uniform(d, 'BitonicSorter.prepareInfo', { countIndex, capacity: this.capacity, keyMask });
        return {
          info,
          bindings: {
            prepare: d.createBindGroup({
              label: 'BitonicSorter.prepareGroup',
              layout: this.kernels.prepareLayout,
              entries: [
                { binding: 0, resource: { buffer: job.count, offset: windowOffset, size: windowSize } },
                { binding: 1, resource: { buffer: info } },
                { binding: 2, resource: { buffer: this.params } },
              ],
            }),
            data: d.createBindGroup({
              label: 'BitonicSorter.dataGroup',
              layout: this.kernels.dataLayout,
              entries: [
                { binding: 0, resource: { buffer: job.keys, size: bytes } },
                { binding: 1, resource: { buffer: job.values, size: bytes } },
                { binding: 2, resource: { buffer: this.keysB } },
                { binding: 3, resource: { buffer: this.valuesB } },
              ],
            }),
          },
        };
      },
      true,
    );
  }
}

function bitonicName(options: BitonicOptions): string {
  return options.localSize ? `bitonic-${options.localSize}` : 'bitonic';
}

/** A bitonic factory; options set the chunk size (tests, benchmarks). */
export function createBitonicFactory(options: BitonicOptions = {}): SorterFactory {
  return sorterFactory({
    name: bitonicName(options),
    description: 'Bitonic sorting network, padded to a power of two (chunks sorted in workgroup memory, large strides in global memory), after Intel\'s tutorial; NOT stable',
    stable: false,
    needs: (device) => ({
      workgroupSize: BITONIC_CONSTANTS.WG_SIZE,
      storageBuffers: 4,
      workgroupBytes: (options.localSize ?? bitonicLocalSize(device)) * 8,
    }),
    create: (device, capacity) => new BitonicSorter(device, capacity, options),
  });
}

/** The product's bitonic strategy, with the default options. */
export const bitonicFactory: SorterFactory = createBitonicFactory();
