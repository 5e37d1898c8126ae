/**
 * What radix4 and radix16 share: both are LSD radix sorts of u32 key/value pairs in one
 * compute pass of the same shape (prepare; count once; per pass the scan levels and a
 * ranked scatter that also counts the next pass's digits into three rotating count
 * buffers), with the same bind groups, dispatch modes and ping-pong between the job's
 * buffers and the sorter's own. `RadixSorter` is that machinery; a sorter supplies a
 * `RadixSpec`: its kernels, tile size, scan-level layout and passInfo table.
 */
import { checkKeyBits, grid2d, JobCache, jobCountWindow, passTimestampWrites, pingPongGroups, uniformWords, type Grid } from './sort-job.ts';
import type { GpuSorter, SortJob, SortTimestamps } from './types.ts';

/** Sizes of the count buffers and of the scan levels, for a capacity. */
export interface ScanLayout {
  /** Entries of each of the three rotating count buffers. */
  countEntries: number;
  /** Scan dispatches a pass needs at full capacity. */
  numLevels: number;
  /** Offsets in the levels buffer of levels 1..numLevels (the last: the top level); [0] unused. */
  levelOffset: number[];
  /** Entries of each scanned level (level 0 = the counts) at full capacity. */
  levelSize: number[];
  /** Entries of the levels buffer. */
  levelEntries: number;
}

/** Levels buffer entries are 256-byte aligned. */
export const LEVEL_ALIGN_ENTRIES = 64;

/** The pipelines and layouts both radix kernels sets have (radix4-kernels.ts, radix16-kernels.ts). */
export interface RadixKernelSet {
  /** prepare: count (read), info (uniform), params (write), dispatchArgs (write). */
  readonly prepareLayout: GPUBindGroupLayout;
  /** group 0 of count/scan/scatter: passInfo (uniform, dynamic offset), params (uniform). */
  readonly passLayout: GPUBindGroupLayout;
  /** group 1: srcKeys, srcValues (read), dstKeys, dstValues (read-write). */
  readonly dataLayout: GPUBindGroupLayout;
  /** group 2: counts, nextCounts, clearCounts (the rotating count buffers), levels. */
  readonly countsLayout: GPUBindGroupLayout;
  readonly prepare: GPUComputePipeline;
  readonly count: GPUComputePipeline;
  /** count that also copies its input to dst: the first pass of an odd pass count. */
  readonly countCopy: GPUComputePipeline;
  readonly scan: GPUComputePipeline;
}

/** What a radix sorter tells RadixSorter. */
export interface RadixSpec {
  /** The class name, for labels and errors ('Radix4Sorter'). */
  label: string;
  kernels: RadixKernelSet;
  /** The scatter pipeline for this layout. */
  scatter: GPUComputePipeline;
  /** Keys per count/scatter workgroup. */
  tile: number;
  scanBlock: number;
  layout: ScanLayout;
  maxScanLevels: number;
  passInfoBytes: number;
  /** passInfo slots of radix passes; scan level l uses slot passSlots + l. */
  passSlots: number;
  /** The PassInfo words (shift, digitMask, nextDigitMask, level) of radix slot s. */
  passInfo(slot: number): [number, number, number, number];
  passes(keyBits: number): number;
  /** The passInfo slot of radix pass p of `passes`. */
  passSlot(p: number, passes: number, keyBits: number): number;
}

/** The bind groups of one job's buffers, kept while the job stays the same. */
interface JobBindings {
  keys: GPUBuffer;
  values: GPUBuffer;
  count: GPUBuffer;
  countOffset: number;
  info: GPUBuffer;
  prepare: GPUBindGroup;
  /** src = the job's buffers, dst = the sorter's. */
  jobToOwn: GPUBindGroup;
  /** src = the sorter's buffers, dst = the job's. */
  ownToJob: GPUBindGroup;
}

/** Throws unless `capacity` pairs fit this device's buffers. */
export function checkCapacity(label: string, device: GPUDevice, capacity: number): void {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`${label}: capacity must be a positive integer, got ${capacity}`);
  }
  const maxBytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  if (capacity * 4 > maxBytes) {
    throw new RangeError(`${label}: capacity ${capacity} needs ${capacity * 4} bytes per buffer; this device binds at most ${maxBytes}`);
  }
}

/** The shared sorter: buffers, bind groups, the pass sequence, the job cache. */
export class RadixSorter implements GpuSorter {
  readonly name: string;
  readonly capacity: number;
  /** Whether the subgroup kernels run. */
  readonly usesSubgroups: boolean;
  readonly dispatchMode: 'direct' | 'indirect';

  private readonly device: GPUDevice;
  private readonly spec: RadixSpec;
  private readonly keysB: GPUBuffer;
  private readonly valuesB: GPUBuffer;
  /** The digit counts of three consecutive passes, rotating. */
  private readonly counts: GPUBuffer[];
  private readonly levels: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly dispatchArgs: GPUBuffer;
  private readonly passInfo: GPUBuffer;
  private readonly passInfoStride: number;
  private readonly passGroup: GPUBindGroup;
  /** Bind group 2 of pass p is countsGroups[p % 3]. */
  private readonly countsGroups: GPUBindGroup[];
  /** Direct mode: the capacity's grids, tiles first, then one per scan level. */
  private readonly directGrids: Grid[];
  private readonly jobs = new JobCache<JobBindings>();

  protected constructor(
    device: GPUDevice,
    capacity: number,
    name: string,
    usesSubgroups: boolean,
    dispatchMode: 'direct' | 'indirect',
    spec: RadixSpec,
  ) {
    this.device = device;
    this.capacity = capacity;
    this.name = name;
    this.usesSubgroups = usesSubgroups;
    this.dispatchMode = dispatchMode;
    this.spec = spec;
    const { label, layout } = spec;
    if (layout.numLevels > spec.maxScanLevels) {
      throw new RangeError(`${label}: capacity ${capacity} needs ${layout.numLevels} scan levels, at most ${spec.maxScanLevels}`);
    }

    const buffer = (member: string, size: number, usage: GPUBufferUsageFlags) =>
      device.createBuffer({ label: `${label}.${member}`, size, usage });
    const S = GPUBufferUsage.STORAGE;
    this.keysB = buffer('keysB', capacity * 4, S);
    this.valuesB = buffer('valuesB', capacity * 4, S);
    this.counts = [0, 1, 2].map((i) => buffer(`counts${i}`, layout.countEntries * 4, S));
    this.levels = buffer('levels', layout.levelEntries * 4, S);
    this.params = buffer('params', 64, S | GPUBufferUsage.UNIFORM); // Params: at most 64 bytes
    this.dispatchArgs = buffer('dispatchArgs', 16 * (1 + spec.maxScanLevels), S | GPUBufferUsage.INDIRECT);

    // One PassInfo (shift, digitMask, nextDigitMask, level) per slot, written once.
    this.passInfoStride = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
    this.passInfo = device.createBuffer({
      label: `${label}.passInfo`,
      size: (spec.passSlots + spec.maxScanLevels) * this.passInfoStride,
      usage: GPUBufferUsage.UNIFORM,
      mappedAtCreation: true,
    });
    const words = new Uint32Array(this.passInfo.getMappedRange());
    const put = (slot: number, info: [number, number, number, number]) => words.set(info, (slot * this.passInfoStride) / 4);
    for (let s = 0; s < spec.passSlots; s++) put(s, spec.passInfo(s));
    for (let l = 0; l < spec.maxScanLevels; l++) put(spec.passSlots + l, [0, 0, 0, l]);
    this.passInfo.unmap();

    const k = spec.kernels;
    this.passGroup = device.createBindGroup({
      label: `${label}.passGroup`,
      layout: k.passLayout,
      entries: [
        { binding: 0, resource: { buffer: this.passInfo, size: spec.passInfoBytes } },
        { binding: 1, resource: { buffer: this.params } },
      ],
    });
    this.countsGroups = [0, 1, 2].map((r) =>
      device.createBindGroup({
        label: `${label}.countsGroup${r}`,
        layout: k.countsLayout,
        entries: [this.counts[r]!, this.counts[(r + 1) % 3]!, this.counts[(r + 2) % 3]!, this.levels].map((b, binding) => ({
          binding,
          resource: { buffer: b },
        })),
      }),
    );

    const maxPerDim = device.limits.maxComputeWorkgroupsPerDimension;
    this.directGrids = [
      grid2d(Math.ceil(capacity / spec.tile), maxPerDim),
      ...layout.levelSize.map((size) => grid2d(Math.ceil(size / spec.scanBlock), maxPerDim)),
    ];
  }

  encode(encoder: GPUCommandEncoder, job: SortJob, timestamps?: SortTimestamps): void {
    const { keyBits } = job;
    const { label, kernels: k, layout, scatter } = this.spec;
    checkKeyBits(label, keyBits);
    const jb = this.bindingsFor(job);
    const passes = this.spec.passes(keyBits);
    const odd = passes % 2 === 1;

    const pass = encoder.beginComputePass({
      label: `${label}.computePass`,
      timestampWrites: passTimestampWrites(timestamps),
    });
    pass.setPipeline(k.prepare);
    pass.setBindGroup(0, jb.prepare);
    pass.dispatchWorkgroups(1);

    for (let p = 0; p < passes; p++) {
      const slotOffset = this.spec.passSlot(p, passes, keyBits) * this.passInfoStride;
      // The last pass must write the job's buffers: count the directions from the end.
      const dataGroup = (passes - 1 - p) % 2 === 0 ? jb.ownToJob : jb.jobToOwn;
      pass.setBindGroup(2, this.countsGroups[p % 3]!);

      if (p === 0) {
        pass.setBindGroup(0, this.passGroup, [slotOffset]);
        pass.setBindGroup(1, odd ? jb.jobToOwn : dataGroup);
        pass.setPipeline(odd ? k.countCopy : k.count);
        this.dispatch(pass, 0);
      }
      pass.setBindGroup(1, dataGroup);
      if (layout.numLevels > 0) {
        pass.setPipeline(k.scan);
        for (let l = 0; l < layout.numLevels; l++) {
          pass.setBindGroup(0, this.passGroup, [(this.spec.passSlots + l) * this.passInfoStride]);
          this.dispatch(pass, 1 + l);
        }
      }
      pass.setPipeline(scatter);
      pass.setBindGroup(0, this.passGroup, [slotOffset]);
      this.dispatch(pass, 0);
    }
    pass.end();
  }

  destroy(): void {
    for (const b of [this.keysB, this.valuesB, ...this.counts, this.levels, this.params, this.dispatchArgs, this.passInfo]) b.destroy();
    this.jobs.clear();
  }

  /** Grid `index`: 0 = one workgroup per tile, 1 + l = scan level l. */
  private dispatch(pass: GPUComputePassEncoder, index: number): void {
    if (this.dispatchMode === 'indirect') {
      pass.dispatchWorkgroupsIndirect(this.dispatchArgs, 16 * index);
    } else {
      const g = this.directGrids[index]!;
      pass.dispatchWorkgroups(g.x, g.y);
    }
  }

  private bindingsFor(job: SortJob): JobBindings {
    return this.jobs.get(job, () => {
      const { label, kernels: k, layout } = this.spec;
      const { countOffset, windowOffset, windowSize, countIndex } = jobCountWindow(label, this.device, job, this.capacity);
      // PrepareInfo (the prepare kernels): countIndex, capacity, numLevels, _pad, levelOffset: vec4<u32>.
      const levelOffset = [...layout.levelOffset, 0, 0, 0].slice(0, 4);
      const info = uniformWords(this.device, `${label}.prepareInfo`, [countIndex, this.capacity, layout.numLevels, 0, ...levelOffset]);
      return {
        keys: job.keys,
        values: job.values,
        count: job.count,
        countOffset,
        info,
        prepare: this.device.createBindGroup({
          label: `${label}.prepareGroup`,
          layout: k.prepareLayout,
          entries: [
            { binding: 0, resource: { buffer: job.count, offset: windowOffset, size: windowSize } },
            { binding: 1, resource: { buffer: info } },
            { binding: 2, resource: { buffer: this.params } },
            { binding: 3, resource: { buffer: this.dispatchArgs } },
          ],
        }),
        ...pingPongGroups(this.device, k.dataLayout, label, job, this.keysB, this.valuesB, this.capacity * 4),
      };
    });
  }
}

/**
 * The bind group layouts both kernel sets use (see RadixKernelSet), labelled `${label}.*`.
 */
export function createRadixLayouts(device: GPUDevice, label: string, passInfoBytes: number) {
  const C = GPUShaderStage.COMPUTE;
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: C, buffer: { type } });
  const prepareLayout = device.createBindGroupLayout({
    label: `${label}.prepareLayout`,
    entries: [storage(0, 'read-only-storage'), { binding: 1, visibility: C, buffer: { type: 'uniform' } }, storage(2, 'storage'), storage(3, 'storage')],
  });
  const passLayout = device.createBindGroupLayout({
    label: `${label}.passLayout`,
    entries: [
      { binding: 0, visibility: C, buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: passInfoBytes } },
      { binding: 1, visibility: C, buffer: { type: 'uniform' } },
    ],
  });
  const dataLayout = device.createBindGroupLayout({
    label: `${label}.dataLayout`,
    entries: [storage(0, 'read-only-storage'), storage(1, 'read-only-storage'), storage(2, 'storage'), storage(3, 'storage')],
  });
  const countsLayout = device.createBindGroupLayout({
    label: `${label}.countsLayout`,
    entries: [storage(0, 'storage'), storage(1, 'storage'), storage(2, 'storage'), storage(3, 'storage')],
  });
  const passPipelineLayout = device.createPipelineLayout({
    label: `${label}.passPipelineLayout`,
    bindGroupLayouts: [passLayout, dataLayout, countsLayout],
  });
  const preparePipelineLayout = device.createPipelineLayout({ label: `${label}.preparePipelineLayout`, bindGroupLayouts: [prepareLayout] });
  return { prepareLayout, passLayout, dataLayout, countsLayout, passPipelineLayout, preparePipelineLayout };
}
