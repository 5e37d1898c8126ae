/**
 * radix16: an LSD radix sort of u32 key/value pairs, 4 bits a pass (ceil(keyBits / 4)
 * passes), ascending and stable, after AMD's 'Introduction to GPU Radix Sort' (radix-16
 * variant): per-tile digit histograms, a global exclusive scan of the digit-major
 * histograms, and a ranked scatter whose ranks are recomputed in workgroup memory. All
 * in one compute pass:
 *
 *   prepare  1 invocation: reads the live count on the GPU, writes sizes and grids
 *   count    (first pass only) one workgroup per 2048-key tile: its 16 digit counts,
 *            digit-major, so that one exclusive scan gives each (digit, tile) its base
 *   then per pass:
 *   scan     exclusive scan of the counts in 4096-entry blocks, storing the block
 *            totals; not dispatched up to 524,288 keys (4096 counts), once a pass up to
 *            2^37 keys: the last level, at most 4096 entries, every scatter workgroup
 *            scans itself
 *   scatter  one workgroup per tile: stable ranks from one workgroup scan of per-
 *            invocation digit counts, the tile sorted by digit in workgroup memory and
 *            written out in coalesced runs; it also counts the next pass's digits per
 *            output tile (workgroup, then global atomics), which is why `count` runs once
 *
 * Dispatches: 2 + passes up to 524,288 keys, else 2 + 2 * passes.
 * No workgroup waits on another (no forward-progress assumption).
 *
 * The passes ping-pong between the job's buffers and the sorter's own, so that the last
 * pass writes into the job's buffers (for an odd pass count, the count kernel also copies
 * the input across). Only the low `keyBits` bits of a key decide its place; the higher
 * bits are ignored by the sort and kept in the output. Pairs past the live count are
 * neither read nor written.
 */
import type { GpuSorter, SorterFactory, SortJob, SortTimestamps } from './types.ts';
import {
  getRadix16Kernels,
  radix16DigitStride,
  radix16WorkgroupBytes,
  RADIX16_CONSTANTS,
  RADIX16_KEYS_PER_THREAD,
  RADIX16_MAX_SCAN_LEVELS,
  RADIX16_PASS_INFO_BYTES,
  RADIX16_RADIX,
  RADIX16_SCAN_BLOCK,
  type Radix16Kernels,
} from './radix16-kernels.ts';

export interface Radix16Options {
  /**
   * 'auto' (default): the subgroup kernels when the device has the 'subgroups' feature;
   * 'off': the portable kernels (workgroup-memory scans) everywhere.
   */
  subgroups?: 'auto' | 'off';
  /**
   * How the count, scan and scatter kernels are launched. 'direct' (default): grids sized
   * for the capacity; workgroups past the live count exit at once. 'indirect': grids
   * written on the GPU by the prepare kernel (dispatchWorkgroupsIndirect), which Dawn
   * validates with a hidden dispatch of its own each: worth it only when the live count
   * is far below the capacity.
   */
  dispatch?: 'direct' | 'indirect';
  /** Keys per invocation in count and scatter, 1..15 (tile = WG_SIZE x this); default RADIX16_KEYS_PER_THREAD. */
  keysPerThread?: number;
}

/** Passes for a key width: 4 bits each. */
export function radix16Passes(keyBits: number): number {
  return Math.ceil(keyBits / 4);
}

interface Grid {
  x: number;
  y: number;
}

/** A grid of w workgroups as x * y within the per-dimension limit (the prepare kernel's rule). */
function grid2d(w: number, maxPerDim: number): Grid {
  if (w === 0) return { x: 0, y: 1 };
  const y = Math.ceil(w / maxPerDim);
  return { x: Math.ceil(w / y), y };
}

/** Sizes of the count buffers and of the scan levels, for a capacity. */
interface ScanLayout {
  /** Entries of each of the three count buffers: 16 x tiles. */
  countEntries: number;
  /** Scan dispatches a pass needs at full capacity (levels with more than SCAN_BLOCK entries). */
  numLevels: number;
  /** Offsets in the levels buffer of levels 1..numLevels (the last: the top level); [0] unused. */
  levelOffset: number[];
  /** Entries of each scanned level (level 0 = the counts) at full capacity. */
  levelSize: number[];
  /** Entries of the levels buffer. */
  levelEntries: number;
}

const ALIGN_ENTRIES = 64; // 256 bytes

function scanLayout(capacity: number, TILE: number): ScanLayout {
  const align = (v: number) => Math.ceil(Math.max(v, 1) / ALIGN_ENTRIES) * ALIGN_ENTRIES;
  const tiles = Math.ceil(capacity / TILE);
  const levelOffset = [0];
  const levelSize: number[] = [];
  let levelEntries = 0;
  let size = RADIX16_RADIX * radix16DigitStride(tiles);
  while (size > RADIX16_SCAN_BLOCK) {
    levelSize.push(size);
    size = Math.ceil(size / RADIX16_SCAN_BLOCK);
    levelOffset.push(levelEntries); // this level's block totals: the next level, or the top level
    levelEntries += align(size);
  }
  return { countEntries: RADIX16_RADIX * radix16DigitStride(tiles), numLevels: levelSize.length, levelOffset, levelSize, levelEntries: Math.max(levelEntries, 1) };
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

const JOB_CACHE_SIZE = 4;
const MAX_PASSES = 8;
/**
 * passInfo slots. Radix pass p: slot KINDS * p + kind; with b = the bits of the last pass
 * (1..4) and m(b) = 2^b - 1, kind b - 1 = (digit mask 15, next m(b)) and kind 3 + b =
 * (m(b), none: last pass). Kind 3 = (15, 15) serves every pass before the last two.
 * Scan level l: slot SLOT_SCAN + l.
 */
const KINDS = 8;
const SLOT_SCAN = KINDS * MAX_PASSES;
const SLOTS = SLOT_SCAN + RADIX16_MAX_SCAN_LEVELS;

function passSlot(p: number, passes: number, keyBits: number): number {
  const lastBits = keyBits - 4 * (passes - 1);
  let kind = 3;
  if (p === passes - 1) kind = 3 + lastBits;
  else if (p === passes - 2) kind = lastBits - 1;
  return KINDS * p + kind;
}

/** A radix16 sorter of up to `capacity` pairs; see the module comment. */
export class Radix16Sorter implements GpuSorter {
  readonly name: string;
  readonly capacity: number;
  /** Whether the subgroup kernels run. */
  readonly usesSubgroups: boolean;
  readonly dispatchMode: 'direct' | 'indirect';

  private readonly device: GPUDevice;
  private readonly tile: number;
  private readonly kernels: Radix16Kernels;
  private readonly layout: ScanLayout;
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
  private jobs: JobBindings[] = [];

  constructor(device: GPUDevice, capacity: number, options: Radix16Options = {}) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`Radix16Sorter: capacity must be a positive integer, got ${capacity}`);
    }
    const maxBytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    if (capacity * 4 > maxBytes) {
      throw new RangeError(`Radix16Sorter: capacity ${capacity} needs ${capacity * 4} bytes per buffer; this device binds at most ${maxBytes}`);
    }
    this.device = device;
    this.capacity = capacity;
    this.usesSubgroups = options.subgroups !== 'off' && device.features.has('subgroups');
    this.dispatchMode = options.dispatch ?? 'direct';
    this.name = radix16Name(options);
    const kpt = options.keysPerThread ?? RADIX16_KEYS_PER_THREAD;
    if (!Number.isInteger(kpt) || kpt < 1 || kpt > 15) {
      throw new RangeError(`Radix16Sorter: keysPerThread must be an integer in 1..15 (4-bit counters), got ${kpt}`);
    }
    this.tile = RADIX16_CONSTANTS.WG_SIZE * kpt;
    this.kernels = getRadix16Kernels(device, this.usesSubgroups, kpt);
    this.layout = scanLayout(capacity, this.tile);
    if (this.layout.numLevels > RADIX16_MAX_SCAN_LEVELS) {
      throw new RangeError(`Radix16Sorter: capacity ${capacity} needs ${this.layout.numLevels} scan levels, at most ${RADIX16_MAX_SCAN_LEVELS}`);
    }

    const buffer = (member: string, size: number, usage: GPUBufferUsageFlags) =>
      device.createBuffer({ label: `Radix16Sorter.${member}`, size, usage });
    const S = GPUBufferUsage.STORAGE;
    this.keysB = buffer('keysB', capacity * 4, S);
    this.valuesB = buffer('valuesB', capacity * 4, S);
    this.counts = [0, 1, 2].map((i) => buffer(`counts${i}`, this.layout.countEntries * 4, S));
    this.levels = buffer('levels', this.layout.levelEntries * 4, S);
    this.params = buffer('params', 64, S | GPUBufferUsage.UNIFORM); // Params: 64 bytes
    this.dispatchArgs = buffer('dispatchArgs', 16 * (1 + RADIX16_MAX_SCAN_LEVELS), S | GPUBufferUsage.INDIRECT);

    // One PassInfo (radix16_common.wgsl: shift, digitMask, nextDigitMask, level) per slot, written once.
    this.passInfoStride = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
    this.passInfo = device.createBuffer({
      label: 'Radix16Sorter.passInfo',
      size: SLOTS * this.passInfoStride,
      usage: GPUBufferUsage.UNIFORM,
      mappedAtCreation: true,
    });
    const words = new Uint32Array(this.passInfo.getMappedRange());
    const put = (slot: number, info: [number, number, number, number]) => words.set(info, (slot * this.passInfoStride) / 4);
    for (let p = 0; p < MAX_PASSES; p++) {
      for (let b = 1; b <= 4; b++) {
        put(KINDS * p + b - 1, [4 * p, 15, (1 << b) - 1, 0]);
        put(KINDS * p + 3 + b, [4 * p, (1 << b) - 1, 0, 0]);
      }
    }
    for (let l = 0; l < RADIX16_MAX_SCAN_LEVELS; l++) put(SLOT_SCAN + l, [0, 0, 0, l]);
    this.passInfo.unmap();

    this.passGroup = device.createBindGroup({
      label: 'Radix16Sorter.passGroup',
      layout: this.kernels.passLayout,
      entries: [
        { binding: 0, resource: { buffer: this.passInfo, size: RADIX16_PASS_INFO_BYTES } },
        { binding: 1, resource: { buffer: this.params } },
      ],
    });
    this.countsGroups = [0, 1, 2].map((r) =>
      device.createBindGroup({
        label: `Radix16Sorter.countsGroup${r}`,
        layout: this.kernels.countsLayout,
        entries: [this.counts[r]!, this.counts[(r + 1) % 3]!, this.counts[(r + 2) % 3]!, this.levels].map((b, binding) => ({
          binding,
          resource: { buffer: b },
        })),
      }),
    );

    const maxPerDim = device.limits.maxComputeWorkgroupsPerDimension;
    this.directGrids = [
      grid2d(Math.ceil(capacity / this.tile), maxPerDim),
      ...this.layout.levelSize.map((size) => grid2d(Math.ceil(size / RADIX16_SCAN_BLOCK), maxPerDim)),
    ];
    // Compile now the pipelines every sort of this capacity needs (countCopy: on first use).
    void [this.kernels.prepare, this.kernels.count, this.kernels.scatter, ...(this.layout.numLevels > 0 ? [this.kernels.scan] : [])];
  }

  encode(encoder: GPUCommandEncoder, job: SortJob, timestamps?: SortTimestamps): void {
    const { keyBits } = job;
    if (!Number.isInteger(keyBits) || keyBits < 1 || keyBits > 32) {
      throw new RangeError(`Radix16Sorter: keyBits must be an integer in 1..32, got ${keyBits}`);
    }
    const jb = this.bindingsFor(job);
    const k = this.kernels;
    const passes = radix16Passes(keyBits);
    const odd = passes % 2 === 1;

    const pass = encoder.beginComputePass({
      label: 'Radix16Sorter.computePass',
      timestampWrites: timestamps && {
        querySet: timestamps.querySet,
        beginningOfPassWriteIndex: timestamps.beginIndex,
        endOfPassWriteIndex: timestamps.endIndex,
      },
    });
    pass.setPipeline(k.prepare);
    pass.setBindGroup(0, jb.prepare);
    pass.dispatchWorkgroups(1);

    for (let p = 0; p < passes; p++) {
      const slotOffset = passSlot(p, passes, keyBits) * this.passInfoStride;
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
      if (this.layout.numLevels > 0) {
        pass.setPipeline(k.scan);
        for (let l = 0; l < this.layout.numLevels; l++) {
          pass.setBindGroup(0, this.passGroup, [(SLOT_SCAN + l) * this.passInfoStride]);
          this.dispatch(pass, 1 + l);
        }
      }
      pass.setPipeline(k.scatter);
      pass.setBindGroup(0, this.passGroup, [slotOffset]);
      this.dispatch(pass, 0);
    }
    pass.end();
  }

  destroy(): void {
    for (const b of [this.keysB, this.valuesB, ...this.counts, this.levels, this.params, this.dispatchArgs, this.passInfo]) b.destroy();
    for (const j of this.jobs) j.info.destroy();
    this.jobs = [];
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
    const countOffset = job.countOffset ?? 0;
    const hit = this.jobs.find(
      (j) => j.keys === job.keys && j.values === job.values && j.count === job.count && j.countOffset === countOffset,
    );
    if (hit) return hit;

    const bytes = this.capacity * 4;
    for (const [what, b] of [['keys', job.keys], ['values', job.values]] as const) {
      if (b.size < bytes) throw new RangeError(`Radix16Sorter: job.${what} holds ${b.size} bytes, the capacity needs ${bytes}`);
    }
    if (countOffset % 4 !== 0 || countOffset < 0 || countOffset + 4 > job.count.size) {
      throw new RangeError(`Radix16Sorter: countOffset ${countOffset} is not a u32 inside the count buffer (${job.count.size} bytes)`);
    }
    // Storage bindings start at aligned offsets: bind the aligned window holding the count.
    const align = this.device.limits.minStorageBufferOffsetAlignment;
    const windowOffset = Math.floor(countOffset / align) * align;
    const windowSize = Math.min(job.count.size - windowOffset, align);

    const info = this.device.createBuffer({
      label: 'Radix16Sorter.prepareInfo',
      size: 32,
      usage: GPUBufferUsage.UNIFORM,
      mappedAtCreation: true,
    });
    // PrepareInfo (radix16_prepare.wgsl): countIndex, capacity, numLevels, _pad, levelOffset: vec4<u32>.
    const levelOffset = [...this.layout.levelOffset, 0, 0, 0].slice(0, 4);
    new Uint32Array(info.getMappedRange()).set([(countOffset - windowOffset) / 4, this.capacity, this.layout.numLevels, 0, ...levelOffset]);
    info.unmap();

    const d = this.device;
    const k = this.kernels;
    const data = (label: string, srcK: GPUBuffer, srcV: GPUBuffer, dstK: GPUBuffer, dstV: GPUBuffer) =>
      d.createBindGroup({
        label: `Radix16Sorter.${label}`,
        layout: k.dataLayout,
        entries: [srcK, srcV, dstK, dstV].map((buffer, binding) => ({ binding, resource: { buffer, size: bytes } })),
      });
    const jb: JobBindings = {
      keys: job.keys,
      values: job.values,
      count: job.count,
      countOffset,
      info,
      prepare: d.createBindGroup({
        label: 'Radix16Sorter.prepareGroup',
        layout: k.prepareLayout,
        entries: [
          { binding: 0, resource: { buffer: job.count, offset: windowOffset, size: windowSize } },
          { binding: 1, resource: { buffer: info } },
          { binding: 2, resource: { buffer: this.params } },
          { binding: 3, resource: { buffer: this.dispatchArgs } },
        ],
      }),
      jobToOwn: data('jobToOwnGroup', job.keys, job.values, this.keysB, this.valuesB),
      ownToJob: data('ownToJobGroup', this.keysB, this.valuesB, job.keys, job.values),
    };
    // An evicted entry's buffer may still be used by a recorded, unsubmitted command
    // buffer: it is left to the garbage collector, not destroyed.
    this.jobs = [jb, ...this.jobs].slice(0, JOB_CACHE_SIZE);
    return jb;
  }
}

function radix16Name(options: Radix16Options): string {
  let name = 'radix16';
  if (options.subgroups === 'off') name += '-portable';
  if (options.dispatch === 'indirect') name += '-indirect';
  if (options.keysPerThread !== undefined) name += `-k${options.keysPerThread}`;
  return name;
}

/** A radix16 factory; options choose the kernel variant and the dispatch mode (tests, benchmarks). */
export function createRadix16Factory(options: Radix16Options = {}): SorterFactory {
  return {
    name: radix16Name(options),
    description: 'LSD radix sort, 4 bits a pass (2048-key tiles, 16-bin tile histograms, hierarchical scan, ranked stable scatter), after AMD\'s radix-16 slides',
    stable: true,
    supported(device: GPUDevice): boolean {
      const l = device.limits;
      const subgroups = options.subgroups !== 'off' && device.features.has('subgroups');
      return (
        l.maxComputeInvocationsPerWorkgroup >= RADIX16_CONSTANTS.WG_SIZE &&
        l.maxComputeWorkgroupSizeX >= RADIX16_CONSTANTS.WG_SIZE &&
        l.maxStorageBuffersPerShaderStage >= 8 &&
        l.maxComputeWorkgroupStorageSize >= radix16WorkgroupBytes(subgroups, options.keysPerThread)
      );
    },
    create(device: GPUDevice, capacity: number): GpuSorter {
      return new Radix16Sorter(device, capacity, options);
    },
  };
}

/** The product's radix16 strategy, with the default options. */
export const radix16Factory: SorterFactory = createRadix16Factory();
