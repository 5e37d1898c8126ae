/**
 * The onesweep compute pipelines, their shared bind group layouts, and the constants
 * the kernels are specialised with. Built once per device and configuration
 * (DeviceCache).
 *
 * A kernel module is sortModule([primitives, onesweep_common.wgsl, onesweep_<stage>.wgsl],
 * generated constants): the sort prelude first, then the primitives file,
 * onesweep_subgroups.wgsl or onesweep_portable.wgsl, both defining `struct WgIds`,
 * `matchDigit`, `fromLeader` and `wgExclusiveScan2`. The generated `const` lines are
 * ONESWEEP_CONSTS (the digit width, the pass count the globals buffer holds, the "no
 * region" marker: the host sizes buffers and fills the pass table with the same numbers)
 * and KEYS_PER_THREAD (it sizes per-invocation arrays, which WGSL allows only with a
 * const). Every other number reaches WGSL as a pipeline-overridable constant.
 */
import subgroupsWgsl from '../shaders/sort/onesweep_subgroups.wgsl?raw';
import portableWgsl from '../shaders/sort/onesweep_portable.wgsl?raw';
import commonWgsl from '../shaders/sort/onesweep_common.wgsl?raw';
import prepareWgsl from '../shaders/sort/onesweep_prepare.wgsl?raw';
import histogramWgsl from '../shaders/sort/onesweep_histogram.wgsl?raw';
import passWgsl from '../shaders/sort/onesweep_pass.wgsl?raw';
import { DeviceCache, layoutEntry, pipelineMaker, sortModule, wgslStruct, type WgslStruct } from './kernel-kit.ts';

/** Constants both sides need, generated into every onesweep module as WGSL `const` lines. */
export const ONESWEEP_CONSTS = {
  /** Bits of a digit: one pass sorts by 8 bits. */
  RADIX_BITS: 8,
  /** Digit values per pass. */
  RADIX: 256,
  /** Passes the globals buffer has histograms and tile counters for (32-bit keys). */
  MAX_PASSES: 4,
  /** PassInfo.clearOffset of the last pass: no next region to clear. */
  NO_REGION: 0xffffffff,
} as const;

/**
 * The globals buffer (onesweep_common.wgsl): u32 [ hist: MAX_PASSES x RADIX |
 * tileCounters: MAX_PASSES | done ], offsets generated into WGSL beside ONESWEEP_CONSTS.
 */
export const ONESWEEP_GLOBALS = {
  COUNTERS_OFFSET: ONESWEEP_CONSTS.MAX_PASSES * ONESWEEP_CONSTS.RADIX,
  DONE_OFFSET: ONESWEEP_CONSTS.MAX_PASSES * ONESWEEP_CONSTS.RADIX + ONESWEEP_CONSTS.MAX_PASSES,
  GLOBALS_WORDS: ONESWEEP_CONSTS.MAX_PASSES * ONESWEEP_CONSTS.RADIX + ONESWEEP_CONSTS.MAX_PASSES + 1,
} as const;

/** Invocations per workgroup: the pass kernel gives one to each digit. */
export const ONESWEEP_WG_SIZE = ONESWEEP_CONSTS.RADIX;
export const ONESWEEP_RADIX = ONESWEEP_CONSTS.RADIX;
export const ONESWEEP_MAX_PASSES = ONESWEEP_CONSTS.MAX_PASSES;
/**
 * Keys per invocation of the pass kernel where workgroup memory allows (tile 4096): on
 * an H200 16 keeps two workgroups on each SM and 1M keys make one wave of 256 tiles
 * (measured: docs/PERFORMANCE.md, "onesweep keys a thread").
 */
export const ONESWEEP_MAX_KEYS_PER_THREAD = 16;
/**
 * Keys per invocation below ONESWEEP_SMALL_CAPACITY: small sorts are latency-bound, and
 * 1,024-key tiles give more workgroups, each with a shorter walk (33,594 pairs of a
 * frame's tiles, H100: 0.041 ms with 4 keys a thread (or 2), 0.046 with 8, 0.056 with
 * 16; at 3.7M keys 8 costs 0.300 ms against 16's 0.278; docs/PERFORMANCE.md).
 */
export const ONESWEEP_SMALL_KEYS_PER_THREAD = 4;
export const ONESWEEP_SMALL_CAPACITY = 131_072;
/**
 * Keys per invocation of the histogram kernel (HIST_BLOCK = 256 x this per workgroup),
 * by capacity: 8192-key blocks from ONESWEEP_HIST_LARGE_CAPACITY keys up (fewer global
 * atomics to merge), 2048-key blocks below, where 8192-key blocks would leave most of a
 * large GPU idle (262,144 keys: 32 workgroups, each walking its block in turn; measured:
 * docs/PERFORMANCE.md, "onesweep histogram blocks").
 */
export function onesweepHistKeysPerThread(capacity: number): number {
  return capacity >= ONESWEEP_HIST_LARGE_CAPACITY ? 32 : 8;
}
export const ONESWEEP_HIST_LARGE_CAPACITY = 2_097_152;
/**
 * Copies of the histogram kernel's workgroup histograms: they spread the atomics of keys
 * with few distinct digits (splat depths); 2 keeps some relief for skewed keys at little
 * cost (measured: docs/PERFORMANCE.md, "onesweep histogram copies").
 */
export const ONESWEEP_HIST_COPIES = 2;
/** Predecessors' look-back words read per poll (at most 4: a vec4 in WGSL). */
export const ONESWEEP_LOOKBACK_BATCH = 4;
/** Default look-back patience: consecutive not-ready polls of one word before the fallback. */
export const ONESWEEP_DEFAULT_SPIN_LIMIT = 4096;
/** u32 entries of the globals buffer: the histogram bins of every pass, the tile counters, the done counter. */
export const ONESWEEP_GLOBALS_ENTRIES = ONESWEEP_GLOBALS.GLOBALS_WORDS;
/** Status words hold 30-bit values: the sort's element count must stay below 2^30. */
export const ONESWEEP_MAX_CAPACITY = 2 ** 30 - 1;

/** What specialises a set of pipelines (the cache key). */
export interface OnesweepKernelConfig {
  subgroups: boolean;
  keysPerThread: number;
  /** ROW_MIN: fewest invocations sharing one row of rank counters (a power of two, 1..256). */
  rowMin: number;
  /** SG_WORDS: u32 words of a ballot that can be non-zero (1..4). */
  sgWords: number;
  /** HIST_KEYS_PER_THREAD: keys per invocation of the histogram kernel. */
  histKeysPerThread: number;
}

export interface OnesweepKernels {
  readonly config: OnesweepKernelConfig;
  /** PassInfo (onesweep_common.wgsl): one per (key width, pass). */
  readonly passInfo: WgslStruct;
  /** PrepareInfo (onesweep_common.wgsl): one per job. */
  readonly prepareInfo: WgslStruct;
  /** Params (onesweep_common.wgsl), written by the histogram (and prepare) kernel. */
  readonly params: WgslStruct;
  /** prepare: count (read), info (uniform), params, dispatchArgs, globals (write). */
  readonly prepareLayout: GPUBindGroupLayout;
  /** group 0 of pass: passInfo (uniform, dynamic offset), params (uniform). */
  readonly passLayout: GPUBindGroupLayout;
  /** group 0 of histogram: passInfo (uniform, dynamic offset), count (read), info (uniform), params (write). */
  readonly histogramLayout: GPUBindGroupLayout;
  /** group 1: srcKeys, srcValues (read), dstKeys, dstValues (read-write). */
  readonly dataLayout: GPUBindGroupLayout;
  /** group 2: globals (histograms + tile counters), status (look-back words). */
  readonly lookbackLayout: GPUBindGroupLayout;
  readonly prepare: GPUComputePipeline;
  /** histogram; for an odd number of passes it also copies its input to dst. */
  readonly histogram: GPUComputePipeline;
  readonly pass: GPUComputePipeline;
}

/**
 * Workgroup bytes the pass kernel declares for a configuration (rank counters, the
 * stage, a per-digit array, scan scratch, a few words), as Dawn counts them against
 * maxComputeWorkgroupStorageSize: onesweep_pass.wgsl's arrays from the same constants.
 */
export function onesweepPassWorkgroupBytes(keysPerThread: number, rowMin: number, subgroups: boolean): number {
  const table = Math.max((ONESWEEP_WG_SIZE / rowMin) * (ONESWEEP_RADIX / 2), ONESWEEP_RADIX) * 4;
  const stage = ONESWEEP_WG_SIZE * keysPerThread * 4;
  const digits = ONESWEEP_RADIX * 4;
  const scan = subgroups ? (ONESWEEP_WG_SIZE / 4) * 8 : (ONESWEEP_WG_SIZE + ONESWEEP_WG_SIZE / 16) * 8;
  return table + stage + digits + scan + 68; // + tile id, stuck flags, last flag, alignment: an upper bound
}

const cache = new DeviceCache<OnesweepKernels>();

/** The kernels for `device` and `config`. */
export function getOnesweepKernels(device: GPUDevice, config: OnesweepKernelConfig): OnesweepKernels {
  return cache.get(device, JSON.stringify(config), () => createKernels(device, config));
}

function createKernels(device: GPUDevice, config: OnesweepKernelConfig): OnesweepKernels {
  const variant = `${config.subgroups ? 'subgroups' : 'portable'},kpt=${config.keysPerThread},rowMin=${config.rowMin},hist=${config.histKeysPerThread}`;
  const { storage, read, uniform, dynamicUniform } = layoutEntry;
  const passInfo = wgslStruct(commonWgsl, 'PassInfo');

  const prepareLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.prepareLayout',
    entries: [read(0), uniform(1), storage(2), storage(3), storage(4)],
  });
  const passLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.passLayout',
    entries: [dynamicUniform(0, passInfo.size), uniform(1)],
  });
  const histogramLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.histogramLayout',
    entries: [dynamicUniform(0, passInfo.size), read(1), uniform(2), storage(3)],
  });
  const dataLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.dataLayout',
    entries: [read(0), read(1), storage(2), storage(3)],
  });
  const lookbackLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.lookbackLayout',
    entries: [storage(0), storage(1)],
  });
  const passPipelineLayout = device.createPipelineLayout({
    label: 'OnesweepSorter.passPipelineLayout',
    bindGroupLayouts: [passLayout, dataLayout, lookbackLayout],
  });

  const pipeline = pipelineMaker(device, 'OnesweepSorter', variant, {
    WG_SIZE: ONESWEEP_WG_SIZE,
    HIST_KEYS_PER_THREAD: config.histKeysPerThread,
    HIST_COPIES: ONESWEEP_HIST_COPIES,
    ROW_MIN: config.rowMin,
    SG_WORDS: config.sgWords,
    LOOKBACK_BATCH: ONESWEEP_LOOKBACK_BATCH,
  });
  const module = (stage: string) =>
    sortModule([config.subgroups ? subgroupsWgsl : portableWgsl, commonWgsl, stage], { ...ONESWEEP_CONSTS, ...ONESWEEP_GLOBALS, KEYS_PER_THREAD: config.keysPerThread });

  return {
    config,
    passInfo,
    prepareInfo: wgslStruct(commonWgsl, 'PrepareInfo'),
    params: wgslStruct(commonWgsl, 'Params'),
    prepareLayout,
    passLayout,
    histogramLayout,
    dataLayout,
    lookbackLayout,
    prepare: pipeline(
      'prepare',
      module(prepareWgsl),
      device.createPipelineLayout({ label: 'OnesweepSorter.preparePipelineLayout', bindGroupLayouts: [prepareLayout] }),
    ),
    histogram: pipeline(
      'histogram',
      module(histogramWgsl),
      device.createPipelineLayout({ label: 'OnesweepSorter.histogramPipelineLayout', bindGroupLayouts: [histogramLayout, dataLayout, lookbackLayout] }),
    ),
    pass: pipeline('pass', module(passWgsl), passPipelineLayout),
  };
}
