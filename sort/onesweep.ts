/**
 * onesweep: the LSD radix sort of u32 key/value pairs with 8-bit digits and one kernel
 * per pass, after Adinets and Merrill, "Onesweep: A Faster Least Significant Digit
 * Radix Sort for GPUs" (2022). Ascending and stable. All in one compute pass:
 *
 *   prepare    (indirect dispatch only) one workgroup: reads the live count on the
 *              GPU, writes sizes and grids, zeroes the histograms and counters
 *   histogram  reads the live count on the GPU (and writes the sizes for the passes);
 *              one read of the keys: the 256-bin histograms of ALL passes at once
 *              (for an odd pass count it also copies the input across, so that the
 *              last pass writes the job's buffers)
 *   then per pass (ceil(keyBits / 8) of them), one kernel: each workgroup takes the
 *   next tile id (atomic counter, start order), ranks its tile's keys by digit (subgroup
 *   ballots, or one key at a time in the portable variant), publishes its digit counts,
 *   finds its global digit offsets by decoupled look-back over the tiles before it (the
 *   exclusive scan of the global histogram comes in the same workgroup scan as its
 *   tile-local starts), and scatters through workgroup memory in digit runs. The
 *   last workgroup of the last pass to finish zeroes the histograms and counters for
 *   the next sort (the buffer starts zeroed), which is what saves the prepare dispatch.
 *
 * So 1 + passes dispatches: 5 for 32-bit keys, 3 for 16-bit keys (one more with
 * indirect dispatch).
 *
 * Forward progress: WebGPU promises none between workgroups, and decoupled look-back
 * waits for other workgroups. The wait is bounded: after `spinLimit` consecutive polls
 * of a predecessor that has not published, the workgroup counts that predecessor's
 * digits itself from the input keys (immutable during the pass) and goes on; see
 * shaders/sort/onesweep_pass.wgsl, step 6. It terminates on any scheduler; on one that
 * starves workgroups it is slow, which is why sort/default-strategy.ts makes it the
 * default only where scheduling is known to be fair.
 *
 * Only the low `keyBits` bits of a key decide its place; the higher bits are ignored
 * by the sort and kept in the output.
 */
import { isSwiftShader } from './kernel-kit.ts';
import { checkKeyBits, type Grid, grid2d, pingPongGroups } from './sort-job.ts';
import { checkCapacity, SorterBase, sorterFactory } from './sorter-base.ts';
import type { SorterFactory, SortJob, SortTimestamps } from './types.ts';
import {
  getOnesweepKernels,
  ONESWEEP_CONSTS,
  ONESWEEP_DEFAULT_SPIN_LIMIT,
  ONESWEEP_GLOBALS_ENTRIES,
  ONESWEEP_HIST_LARGE_CAPACITY,
  onesweepHistKeysPerThread,
  ONESWEEP_MAX_CAPACITY,
  ONESWEEP_MAX_KEYS_PER_THREAD,
  ONESWEEP_SMALL_CAPACITY,
  ONESWEEP_SMALL_KEYS_PER_THREAD,
  ONESWEEP_MAX_PASSES,
  ONESWEEP_RADIX,
  ONESWEEP_WG_SIZE,
  onesweepPassWorkgroupBytes,
  type OnesweepKernelConfig,
  type OnesweepKernels,
} from './onesweep-kernels.ts';

export interface OnesweepOptions {
  /**
   * 'auto' (default): subgroup ballots rank the keys when the device has the
   * 'subgroups' feature; 'off': the portable kernels (one key at a time per row).
   */
  subgroups?: 'auto' | 'off';
  /**
   * 'direct' (default): grids sized for the capacity, surplus workgroups leave at once.
   * 'indirect': grids written on the GPU from the live count. Dawn validates every
   * indirect dispatch with a hidden dispatch of its own (docs/PERFORMANCE.md).
   */
  dispatch?: 'direct' | 'indirect';
  /**
   * Keys per invocation of the pass kernel (tile = 256 x this); default: up to
   * ONESWEEP_MAX_KEYS_PER_THREAD (ONESWEEP_SMALL_KEYS_PER_THREAD for capacities up to
   * ONESWEEP_SMALL_CAPACITY), as workgroup memory allows.
   */
  keysPerThread?: number;
  /**
   * Consecutive not-ready polls of one predecessor's word before the look-back counts
   * that tile itself (default 4096). 0 never polls: every look-back step recounts (a
   * test hook that proves the fallback; slow, quadratic in the tile count).
   */
  spinLimit?: number;
  /**
   * Fewest invocations sharing one row of rank counters (power of two, 8..256 with
   * subgroups, 1..256 portable). Default: the adapter's smallest subgroup size, at
   * least 8, with subgroups (on SwiftShader: ONESWEEP_SWIFTSHADER_ROW_MIN); 16 portable.
   * Smaller rows, more workgroup memory.
   */
  rowMin?: number;
}

/** Passes for a key width: 8 bits each. */
export function onesweepPasses(keyBits: number): number {
  return Math.ceil(keyBits / 8);
}

/**
 * rowMin on SwiftShader (subgroups of 4), whose compile grows with workgroup memory
 * (kernel-kit.ts isSwiftShader): rows of 64 invocations hold 1,024 words of rank
 * counters where rows of 8 hold 4,096. The pass kernel compiles in ~1.0 s instead of
 * 2.7 s, and sorts 10,000 keys in 168 ms instead of 307, 100,000 in 1.16 s instead of
 * 1.40 (rows of 256: 299 ms and 2.23 s), 2-core machine, 2026-11-28.
 */
export const ONESWEEP_SWIFTSHADER_ROW_MIN = 64;

const isPow2 = (v: number) => Number.isInteger(v) && v >= 1 && (v & (v - 1)) === 0;
const nextPow2 = (v: number) => 2 ** Math.ceil(Math.log2(Math.max(1, v)));

/** The kernel configuration for a device and options; throws on options it cannot honour. */
export function onesweepConfig(device: GPUDevice, options: OnesweepOptions = {}, capacity = ONESWEEP_HIST_LARGE_CAPACITY): OnesweepKernelConfig {
  const subgroups = options.subgroups !== 'off' && device.features.has('subgroups');
  // device.adapterInfo is missing in older browsers: then assume any size from 4 to 128.
  const info = (device as { adapterInfo?: GPUAdapterInfo }).adapterInfo;
  const sgMin = info?.subgroupMinSize ?? 4;
  const sgMax = info?.subgroupMaxSize ?? 128;
  const gpuRowMin = () => (isSwiftShader(device) ? ONESWEEP_SWIFTSHADER_ROW_MIN : Math.min(256, Math.max(8, nextPow2(sgMin))));
  const rowMin = options.rowMin ?? (subgroups ? gpuRowMin() : 16);
  if (!isPow2(rowMin) || rowMin > ONESWEEP_WG_SIZE || (subgroups && rowMin < 8)) {
    throw new RangeError(`OnesweepSorter: rowMin must be a power of two in ${subgroups ? 8 : 1}..256, got ${rowMin}`);
  }
  const sgWords = subgroups ? Math.min(4, Math.max(1, Math.ceil(sgMax / 32))) : 1;
  const limit = device.limits.maxComputeWorkgroupStorageSize;
  let keysPerThread = options.keysPerThread;
  if (keysPerThread === undefined) {
    keysPerThread = capacity <= ONESWEEP_SMALL_CAPACITY ? ONESWEEP_SMALL_KEYS_PER_THREAD : ONESWEEP_MAX_KEYS_PER_THREAD;
    while (keysPerThread > 1 && onesweepPassWorkgroupBytes(keysPerThread, rowMin, subgroups) > limit) keysPerThread--;
  }
  if (!Number.isInteger(keysPerThread) || keysPerThread < 1 || keysPerThread > 64) {
    throw new RangeError(`OnesweepSorter: keysPerThread must be an integer in 1..64, got ${keysPerThread}`);
  }
  const bytes = onesweepPassWorkgroupBytes(keysPerThread, rowMin, subgroups);
  if (bytes > limit) {
    throw new RangeError(`OnesweepSorter: keysPerThread ${keysPerThread} with rowMin ${rowMin} needs ${bytes} bytes of workgroup memory, the device has ${limit}`);
  }
  return { subgroups, keysPerThread, rowMin, sgWords, histKeysPerThread: onesweepHistKeysPerThread(capacity) };
}

/** The bind groups of one job's buffers, kept while the job stays the same. */
interface JobBindings {
  prepare: GPUBindGroup;
  /** group 0 of the histogram: passInfo, the count window, info, params. */
  histogram: GPUBindGroup;
  /** src = the job's buffers, dst = the sorter's. */
  jobToOwn: GPUBindGroup;
  /** src = the sorter's buffers, dst = the job's. */
  ownToJob: GPUBindGroup;
}

/** passInfo slot of pass p of a key width. */
const passSlot = (keyBits: number, p: number) => (keyBits - 1) * ONESWEEP_MAX_PASSES + p;
const SLOTS = 32 * ONESWEEP_MAX_PASSES;

/** A onesweep sorter of up to `capacity` pairs; see the module comment. */
export class OnesweepSorter extends SorterBase<JobBindings> {
  /** Whether the subgroup kernels run. */
  readonly usesSubgroups: boolean;
  readonly dispatchMode: 'direct' | 'indirect';
  /** Keys per pass-kernel workgroup. */
  readonly tileSize: number;
  readonly config: OnesweepKernelConfig;
  /** Look-back polls of a not-ready word before the fallback (a uniform, not a pipeline constant). */
  readonly spinLimit: number;

  private readonly kernels: OnesweepKernels;
  private readonly globals: GPUBuffer;
  private readonly status: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly dispatchArgs: GPUBuffer;
  private readonly passInfo: GPUBuffer;
  private readonly passInfoStride: number;
  private readonly passGroup: GPUBindGroup;
  private readonly lookbackGroup: GPUBindGroup;
  /** Direct mode: the capacity's grids, histogram then pass. */
  private readonly directGrids: [Grid, Grid];

  constructor(device: GPUDevice, capacity: number, options: OnesweepOptions = {}) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > ONESWEEP_MAX_CAPACITY) {
      throw new RangeError(`OnesweepSorter: capacity must be an integer in 1..${ONESWEEP_MAX_CAPACITY}, got ${capacity}`);
    }
    checkCapacity('OnesweepSorter', device, capacity);
    const config = onesweepConfig(device, options, capacity);
    const spinLimit = options.spinLimit ?? ONESWEEP_DEFAULT_SPIN_LIMIT;
    if (!Number.isInteger(spinLimit) || spinLimit < 0 || spinLimit > 0xffffffff) {
      throw new RangeError(`OnesweepSorter: spinLimit must be a u32, got ${spinLimit}`);
    }
    super(device, 'OnesweepSorter', onesweepName(options), capacity);
    this.config = config;
    this.spinLimit = spinLimit;
    this.usesSubgroups = config.subgroups;
    this.dispatchMode = options.dispatch ?? 'direct';
    this.kernels = getOnesweepKernels(device, config);
    this.tileSize = ONESWEEP_WG_SIZE * config.keysPerThread;
    const k = this.kernels;

    const maxTiles = Math.ceil(capacity / this.tileSize);
    const regionWords = maxTiles * ONESWEEP_RADIX;
    const S = GPUBufferUsage.STORAGE;
    this.globals = this.buffer('globals', ONESWEEP_GLOBALS_ENTRIES * 4, S);
    this.status = this.buffer('status', 2 * regionWords * 4, S);
    this.params = this.buffer('params', k.params.size, S | GPUBufferUsage.UNIFORM);
    this.dispatchArgs = this.buffer('dispatchArgs', 32, S | GPUBufferUsage.INDIRECT);

    // One PassInfo (onesweep_common.wgsl) per (key width, pass), written once.
    const table = k.passInfo.slots(device, 'OnesweepSorter.passInfo', SLOTS, (slot) => {
      const keyBits = Math.floor(slot / ONESWEEP_MAX_PASSES) + 1;
      const p = slot % ONESWEEP_MAX_PASSES;
      const passes = onesweepPasses(keyBits);
      if (p >= passes) return undefined;
      const { RADIX_BITS, NO_REGION } = ONESWEEP_CONSTS;
      const lastMask = 2 ** (keyBits - RADIX_BITS * (passes - 1)) - 1;
      const last = p === passes - 1;
      return {
        shift: RADIX_BITS * p,
        digitMask: last ? lastMask : ONESWEEP_RADIX - 1,
        passIndex: p,
        passes,
        lastMask,
        statusOffset: (p % 2) * regionWords,
        clearOffset: last ? NO_REGION : ((p + 1) % 2) * regionWords,
        spinLimit: this.spinLimit,
      };
    });
    this.passInfo = this.own(table.buffer);
    this.passInfoStride = table.stride;

    this.passGroup = device.createBindGroup({
      label: 'OnesweepSorter.passGroup',
      layout: k.passLayout,
      entries: [
        { binding: 0, resource: { buffer: this.passInfo, size: k.passInfo.size } },
        { binding: 1, resource: { buffer: this.params } },
      ],
    });
    this.lookbackGroup = device.createBindGroup({
      label: 'OnesweepSorter.lookbackGroup',
      layout: k.lookbackLayout,
      entries: [
        { binding: 0, resource: { buffer: this.globals } },
        { binding: 1, resource: { buffer: this.status } },
      ],
    });
    const maxPerDim = device.limits.maxComputeWorkgroupsPerDimension;
    this.directGrids = [
      grid2d(Math.ceil(capacity / (ONESWEEP_WG_SIZE * config.histKeysPerThread)), maxPerDim),
      grid2d(maxTiles, maxPerDim),
    ];
  }

  encode(encoder: GPUCommandEncoder, job: SortJob, timestamps?: SortTimestamps): void {
    const { keyBits } = job;
    checkKeyBits('OnesweepSorter', keyBits);
    const jb = this.bindingsFor(job);
    const k = this.kernels;
    const passes = onesweepPasses(keyBits);

    const pass = this.beginPass(encoder, timestamps);
    if (this.dispatchMode === 'indirect') {
      // The grids come from the live count: prepare writes them (and zeroes globals,
      // which a direct-mode sort finds zeroed by the previous sort's last pass).
      pass.setPipeline(k.prepare);
      pass.setBindGroup(0, jb.prepare);
      pass.dispatchWorkgroups(1);
    }

    pass.setBindGroup(2, this.lookbackGroup);
    pass.setPipeline(k.histogram); // reads the live count; copies the input across for an odd pass count
    pass.setBindGroup(0, jb.histogram, [passSlot(keyBits, 0) * this.passInfoStride]);
    pass.setBindGroup(1, jb.jobToOwn);
    this.dispatch(pass, 0);

    pass.setPipeline(k.pass);
    for (let p = 0; p < passes; p++) {
      // The last pass must write the job's buffers: count the directions from the end.
      pass.setBindGroup(0, this.passGroup, [passSlot(keyBits, p) * this.passInfoStride]);
      pass.setBindGroup(1, (passes - 1 - p) % 2 === 0 ? jb.ownToJob : jb.jobToOwn);
      this.dispatch(pass, 1);
    }
    pass.end();
  }

  /** Grid `index`: 0 = histogram, 1 = pass. */
  private dispatch(pass: GPUComputePassEncoder, index: 0 | 1): void {
    if (this.dispatchMode === 'indirect') {
      pass.dispatchWorkgroupsIndirect(this.dispatchArgs, 16 * index);
    } else {
      const g = this.directGrids[index];
      pass.dispatchWorkgroups(g.x, g.y);
    }
  }

  private bindingsFor(job: SortJob): JobBindings {
    return this.jobBindings(job, ({ windowOffset, windowSize, countIndex }) => {
      const d = this.device;
      const k = this.kernels;
      const info = k.prepareInfo.uniform(d, 'OnesweepSorter.prepareInfo', { countIndex, capacity: this.capacity });
      const countWindow = { buffer: job.count, offset: windowOffset, size: windowSize };
      return {
        info,
        bindings: {
          prepare: d.createBindGroup({
            label: 'OnesweepSorter.prepareGroup',
            layout: k.prepareLayout,
            entries: [
              { binding: 0, resource: countWindow },
              { binding: 1, resource: { buffer: info } },
              { binding: 2, resource: { buffer: this.params } },
              { binding: 3, resource: { buffer: this.dispatchArgs } },
              { binding: 4, resource: { buffer: this.globals } },
            ],
          }),
          histogram: d.createBindGroup({
            label: 'OnesweepSorter.histogramGroup',
            layout: k.histogramLayout,
            entries: [
              { binding: 0, resource: { buffer: this.passInfo, size: k.passInfo.size } },
              { binding: 1, resource: countWindow },
              { binding: 2, resource: { buffer: info } },
              { binding: 3, resource: { buffer: this.params } },
            ],
          }),
          ...pingPongGroups(d, k.dataLayout, 'OnesweepSorter', job, this.keysB, this.valuesB, this.capacity * 4),
        },
      };
    });
  }
}

function onesweepName(options: OnesweepOptions): string {
  let name = 'onesweep';
  if (options.subgroups === 'off') name += '-portable';
  if (options.dispatch === 'indirect') name += '-indirect';
  if (options.keysPerThread !== undefined) name += `-k${options.keysPerThread}`;
  return name;
}

/** A onesweep factory; options choose the kernel variant and the dispatch mode (tests, benchmarks). */
export function createOnesweepFactory(options: OnesweepOptions = {}): SorterFactory {
  return sorterFactory({
    name: onesweepName(options),
    description: 'Onesweep LSD radix sort (8 bits a pass, one kernel a pass, decoupled look-back with a recounting fallback), after Adinets & Merrill 2022',
    stable: true,
    needs: (device) => {
      let config: OnesweepKernelConfig;
      try {
        config = onesweepConfig(device, options);
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
      return {
        workgroupSize: ONESWEEP_WG_SIZE,
        storageBuffers: 6,
        workgroupBytes: Math.max(16384, onesweepPassWorkgroupBytes(config.keysPerThread, config.rowMin, config.subgroups)),
      };
    },
    create: (device, capacity) => new OnesweepSorter(device, capacity, options),
  });
}

/** The product's onesweep strategy, with the default options. */
export const onesweepFactory: SorterFactory = createOnesweepFactory();
