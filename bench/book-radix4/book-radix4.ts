/**
 * book-radix4: the benchmark baseline, a port of the three-kernel quaternary radix sort
 * of 'WebGPU Unleashed' ch. 4.1, written for this project from the book's structure:
 * per 2-bit pass,
 *   1. local scan   one workgroup per 512 keys: one-hot vec4 digit flags, Blelloch scan
 *                   in workgroup memory, a vec4 local prefix per key to global memory
 *                   (16 bytes a key) and a vec4 of digit totals per block;
 *   2. block scan   ONE workgroup scans the <= 512 block totals (hence N <= 262,144);
 *   3. scatter      one invocation per key: digit start + block prefix + local prefix.
 * 3 dependent dispatches a pass, 48 for 32-bit keys. It sorts `capacity` keys: the
 * live count of the job is not read (the book's sort knows N on the CPU). Not in the
 * registry or the GUI; bench/sort.ts measures it beside radix4.
 *
 * Two deviations, both for a like-for-like comparison: a digit mask so that only the
 * low keyBits bits count (the book sorts full 32-bit keys), and for an odd pass count
 * a copy back into the job's buffers after the compute pass (outside its timestamps).
 */
import { passTimestampWrites } from '../../sort/sort-job.ts';
import type { GpuSorter, SortJob, SortTimestamps } from '../../sort/types.ts';
import commonWgsl from './book_radix4_common.wgsl?raw';
import localScanWgsl from './book_radix4_local_scan.wgsl?raw';
import blockScanWgsl from './book_radix4_block_scan.wgsl?raw';
import scatterWgsl from './book_radix4_scatter.wgsl?raw';

/** The book's limit: one workgroup scans 512 block totals of 512 keys. */
export const BOOK_RADIX4_MAX_N = 512 * 512;
const BLOCK = 512;

export class BookRadix4Sorter implements GpuSorter {
  readonly name = 'book-radix4';
  readonly capacity: number;
  private readonly device: GPUDevice;
  private readonly localScan: GPUComputePipeline;
  private readonly blockScan: GPUComputePipeline;
  private readonly scatter: GPUComputePipeline;
  private readonly keysB: GPUBuffer;
  private readonly valuesB: GPUBuffer;
  private readonly localPrefix: GPUBuffer;
  private readonly blockSums: GPUBuffer;
  private readonly passParams: GPUBuffer;
  private readonly stride: number;
  private readonly numBlocks: number;
  private cached?: { keys: GPUBuffer; values: GPUBuffer; groups: GPUBindGroup[][] };

  constructor(device: GPUDevice, capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > BOOK_RADIX4_MAX_N) {
      throw new RangeError(`BookRadix4Sorter: capacity must be 1..${BOOK_RADIX4_MAX_N}, got ${capacity}`);
    }
    this.device = device;
    this.capacity = capacity;
    this.numBlocks = Math.ceil(capacity / BLOCK);
    // Explicit layouts: binding 0 is the pass uniform with a dynamic offset, then storage
    // buffers ('r' read-only, 'w' read-write) in binding order.
    const pipeline = (name: string, code: string, buffers: string) => {
      const layout = device.createBindGroupLayout({
        label: `BookRadix4Sorter.${name}Layout`,
        entries: [
          { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform', hasDynamicOffset: true } },
          ...[...buffers].map((rw, i) => ({
            binding: i + 1,
            visibility: GPUShaderStage.COMPUTE,
            buffer: { type: (rw === 'r' ? 'read-only-storage' : 'storage') as GPUBufferBindingType },
          })),
        ],
      });
      return device.createComputePipeline({
        label: `BookRadix4Sorter.${name}`,
        layout: device.createPipelineLayout({ label: `BookRadix4Sorter.${name}PipelineLayout`, bindGroupLayouts: [layout] }),
        compute: { module: device.createShaderModule({ label: `BookRadix4Sorter.${name}Module`, code: commonWgsl + code }), entryPoint: 'main' },
      });
    };
    this.localScan = pipeline('localScan', localScanWgsl, 'rww');
    this.blockScan = pipeline('blockScan', blockScanWgsl, 'w');
    this.scatter = pipeline('scatter', scatterWgsl, 'rrrrww');
    const S = GPUBufferUsage.STORAGE;
    const buffer = (member: string, size: number, usage = S) => device.createBuffer({ label: `BookRadix4Sorter.${member}`, size, usage });
    this.keysB = buffer('keysB', capacity * 4, S | GPUBufferUsage.COPY_SRC);
    this.valuesB = buffer('valuesB', capacity * 4, S | GPUBufferUsage.COPY_SRC);
    this.localPrefix = buffer('localPrefix', capacity * 16);
    this.blockSums = buffer('blockSums', (BLOCK + 1) * 16);

    // PassParams {shift, digitMask, n, numBlocks}: one slot per (pass, digit mask).
    this.stride = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
    this.passParams = device.createBuffer({
      label: 'BookRadix4Sorter.passParams',
      size: 32 * this.stride,
      usage: GPUBufferUsage.UNIFORM,
      mappedAtCreation: true,
    });
    const words = new Uint32Array(this.passParams.getMappedRange());
    for (let p = 0; p < 16; p++) {
      words.set([2 * p, 3, capacity, this.numBlocks], (p * this.stride) / 4);
      words.set([2 * p, 1, capacity, this.numBlocks], ((16 + p) * this.stride) / 4);
    }
    this.passParams.unmap();
  }

  encode(encoder: GPUCommandEncoder, job: SortJob, timestamps?: SortTimestamps): void {
    const passes = Math.ceil(job.keyBits / 2);
    const groups = this.bindGroups(job);
    const pass = encoder.beginComputePass({
      label: 'BookRadix4Sorter.computePass',
      timestampWrites: passTimestampWrites(timestamps),
    });
    for (let p = 0; p < passes; p++) {
      const slot = p === passes - 1 && job.keyBits % 2 === 1 ? 16 + p : p;
      const [local, block, scatter] = groups[p % 2]!;
      const offset = [slot * this.stride];
      pass.setPipeline(this.localScan);
      pass.setBindGroup(0, local!, offset);
      pass.dispatchWorkgroups(this.numBlocks);
      pass.setPipeline(this.blockScan);
      pass.setBindGroup(0, block!, offset);
      pass.dispatchWorkgroups(1);
      pass.setPipeline(this.scatter);
      pass.setBindGroup(0, scatter!, offset);
      pass.dispatchWorkgroups(Math.ceil(this.capacity / 256));
    }
    pass.end();
    if (passes % 2 === 1) {
      encoder.copyBufferToBuffer(this.keysB, 0, job.keys, 0, this.capacity * 4);
      encoder.copyBufferToBuffer(this.valuesB, 0, job.values, 0, this.capacity * 4);
    }
  }

  destroy(): void {
    for (const b of [this.keysB, this.valuesB, this.localPrefix, this.blockSums, this.passParams]) b.destroy();
  }

  /** [even passes, odd passes] x [local scan, block scan, scatter]. */
  private bindGroups(job: SortJob): GPUBindGroup[][] {
    if (this.cached?.keys === job.keys && this.cached.values === job.values) return this.cached.groups;
    const d = this.device;
    const bytes = this.capacity * 4;
    const params = { buffer: this.passParams, size: 16 };
    const make = (srcK: GPUBuffer, srcV: GPUBuffer, dstK: GPUBuffer, dstV: GPUBuffer, dir: string) => [
      d.createBindGroup({
        label: `BookRadix4Sorter.localScanGroup(${dir})`,
        layout: this.localScan.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: params },
          { binding: 1, resource: { buffer: srcK, size: bytes } },
          { binding: 2, resource: { buffer: this.localPrefix } },
          { binding: 3, resource: { buffer: this.blockSums } },
        ],
      }),
      d.createBindGroup({
        label: `BookRadix4Sorter.blockScanGroup(${dir})`,
        layout: this.blockScan.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: params },
          { binding: 1, resource: { buffer: this.blockSums } },
        ],
      }),
      d.createBindGroup({
        label: `BookRadix4Sorter.scatterGroup(${dir})`,
        layout: this.scatter.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: params },
          { binding: 1, resource: { buffer: srcK, size: bytes } },
          { binding: 2, resource: { buffer: srcV, size: bytes } },
          { binding: 3, resource: { buffer: this.localPrefix } },
          { binding: 4, resource: { buffer: this.blockSums } },
          { binding: 5, resource: { buffer: dstK, size: bytes } },
          { binding: 6, resource: { buffer: dstV, size: bytes } },
        ],
      }),
    ];
    const groups = [
      make(job.keys, job.values, this.keysB, this.valuesB, 'jobToOwn'),
      make(this.keysB, this.valuesB, job.keys, job.values, 'ownToJob'),
    ];
    this.cached = { keys: job.keys, values: job.values, groups };
    return groups;
  }
}
