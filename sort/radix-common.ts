/**
 * What radix4 and radix16 share: both are LSD radix sorts of u32 key/value pairs in one
 * compute pass of the same shape (prepare; count once; per pass the scan levels and a
 * ranked scatter that also counts the next pass's digits into three rotating count
 * buffers), with the same bind groups, dispatch modes and ping-pong between the job's
 * buffers and the sorter's own. `RadixSorter` is that machinery; a sorter supplies a
 * `RadixSpec`: its kernels, tile size, scan-level layout and passInfo table.
 */
import { layoutEntry, type WgslStruct } from './kernel-kit.ts';
import { SorterBase } from './sorter-base.ts';
import { checkKeyBits, grid2d, pingPongGroups, type Grid } from './sort-job.ts';
import type { SortJob, SortTimestamps } from './types.ts';

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
  /** PassInfo (the sorter's common file): one per pass slot and scan level. */
  readonly passInfo: WgslStruct;
  /** PrepareInfo (the sorter's prepare file): one per job. */
  readonly prepareInfo: WgslStruct;
  /** Params (the sorter's common file), written by the prepare kernel. */
  readonly params: WgslStruct;
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
  /** passInfo slots of radix passes; scan level l uses slot passSlots + l. */
  passSlots: number;
  /** The PassInfo (shift, digitMask, nextDigitMask) of radix slot s. */
  passInfo(slot: number): { shift: number; digitMask: number; nextDigitMask: number };
  passes(keyBits: number): number;
  /** The passInfo slot of radix pass p of `passes`. */
  passSlot(p: number, passes: number, keyBits: number): number;
}

/** The bind groups of one job's buffers, kept while the job stays the same. */
interface JobBindings {
  prepare: GPUBindGroup;
  /** src = the job's buffers, dst = the sorter's. */
  jobToOwn: GPUBindGroup;
  /** src = the sorter's buffers, dst = the job's. */
  ownToJob: GPUBindGroup;
}

/** The shared sorter: buffers, bind groups, the pass sequence. */
export class RadixSorter extends SorterBase<JobBindings> {
  /** Whether the subgroup kernels run. */
  readonly usesSubgroups: boolean;
  readonly dispatchMode: 'direct' | 'indirect';

  private readonly spec: RadixSpec;
  /** The digit counts of three consecutive passes, rotating. */
  private readonly counts: GPUBuffer[];
  private readonly levels: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly dispatchArgs: GPUBuffer;
  private readonly passInfoStride: number;
  private readonly passGroup: GPUBindGroup;
  /** Bind group 2 of pass p is countsGroups[p % 3]. */
  private readonly countsGroups: GPUBindGroup[];
  /** Direct mode: the capacity's grids, tiles first, then one per scan level. */
  private readonly directGrids: Grid[];

  protected constructor(
    device: GPUDevice,
    capacity: number,
    name: string,
    usesSubgroups: boolean,
    dispatchMode: 'direct' | 'indirect',
    spec: RadixSpec,
  ) {
    super(device, spec.label, name, capacity);
    this.usesSubgroups = usesSubgroups;
    this.dispatchMode = dispatchMode;
    this.spec = spec;
    const { label, layout, kernels: k } = spec;
    // The prepare kernels' `levelOffset: vec4<u32>` describes 3 scanned levels + the top.
    const maxScanLevels = k.prepareInfo.fieldWords('levelOffset') - 1;
    if (layout.numLevels > maxScanLevels) {
      throw new RangeError(`${label}: capacity ${capacity} needs ${layout.numLevels} scan levels, at most ${maxScanLevels}`);
    }

    const S = GPUBufferUsage.STORAGE;
    this.counts = [0, 1, 2].map((i) => this.buffer(`counts${i}`, layout.countEntries * 4, S));
    this.levels = this.buffer('levels', layout.levelEntries * 4, S);
    this.params = this.buffer('params', k.params.size, S | GPUBufferUsage.UNIFORM);
    this.dispatchArgs = this.buffer('dispatchArgs', 16 * (1 + maxScanLevels), S | GPUBufferUsage.INDIRECT);

    // One PassInfo per slot, written once: radix passes, then scan levels.
    const passInfo = k.passInfo.slots(device, `${label}.passInfo`, spec.passSlots + maxScanLevels, (s) =>
      s < spec.passSlots ? spec.passInfo(s) : { level: s - spec.passSlots },
    );
    this.own(passInfo.buffer);
    this.passInfoStride = passInfo.stride;

    this.passGroup = device.createBindGroup({
      label: `${label}.passGroup`,
      layout: k.passLayout,
      entries: [
        { binding: 0, resource: { buffer: passInfo.buffer, size: k.passInfo.size } },
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

    const pass = this.beginPass(encoder, timestamps);
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
    return this.jobBindings(job, ({ windowOffset, windowSize, countIndex }) => {
      const { label, kernels: k, layout } = this.spec;
      const levelOffset = [...layout.levelOffset, 0, 0, 0].slice(0, 4);
      const info = k.prepareInfo.uniform(this.device, `${label}.prepareInfo`, {
        countIndex,
        capacity: this.capacity,
        numLevels: layout.numLevels,
        levelOffset,
      });
      return {
        info,
        bindings: {
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
        },
      };
    });
  }
}

/**
 * The bind group layouts both kernel sets use (see RadixKernelSet), labelled `${label}.*`;
 * passInfoBytes: the size of one PassInfo.
 */
export function createRadixLayouts(device: GPUDevice, label: string, passInfoBytes: number) {
  const { storage, read, uniform, dynamicUniform } = layoutEntry;
  const prepareLayout = device.createBindGroupLayout({
    label: `${label}.prepareLayout`,
    entries: [read(0), uniform(1), storage(2), storage(3)],
  });
  const passLayout = device.createBindGroupLayout({
    label: `${label}.passLayout`,
    entries: [dynamicUniform(0, passInfoBytes), uniform(1)],
  });
  const dataLayout = device.createBindGroupLayout({
    label: `${label}.dataLayout`,
    entries: [read(0), read(1), storage(2), storage(3)],
  });
  const countsLayout = device.createBindGroupLayout({
    label: `${label}.countsLayout`,
    entries: [storage(0), storage(1), storage(2), storage(3)],
  });
  const passPipelineLayout = device.createPipelineLayout({
    label: `${label}.passPipelineLayout`,
    bindGroupLayouts: [passLayout, dataLayout, countsLayout],
  });
  const preparePipelineLayout = device.createPipelineLayout({ label: `${label}.preparePipelineLayout`, bindGroupLayouts: [prepareLayout] });
  return { prepareLayout, passLayout, dataLayout, countsLayout, passPipelineLayout, preparePipelineLayout };
}
