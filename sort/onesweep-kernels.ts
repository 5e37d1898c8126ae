/**
 * The onesweep compute pipelines, their shared bind group layouts, and the constants
 * the kernels are specialised with. Built once per device and configuration, cached in
 * a WeakMap keyed by the device.
 *
 * A kernel module is `[primitives] + [generated const] + onesweep_common.wgsl +
 * onesweep_<stage>.wgsl`: the primitives file is onesweep_subgroups.wgsl (it starts
 * with `enable subgroups;`) or onesweep_portable.wgsl, both defining `struct WgIds`,
 * `matchDigit`, `fromLeader` and `wgExclusiveScan2`. The generated lines are
 * `const KEYS_PER_THREAD: u32 = N;` (it sizes per-invocation arrays, which WGSL allows
 * only with a const, not an override) and `const STAGE_PAIRS: bool = B;` (it picks the
 * pass kernel's workgroup arrays). Every other number reaches WGSL as a
 * pipeline-overridable constant.
 */
import subgroupsWgsl from '../shaders/sort/onesweep_subgroups.wgsl?raw';
import portableWgsl from '../shaders/sort/onesweep_portable.wgsl?raw';
import commonWgsl from '../shaders/sort/onesweep_common.wgsl?raw';
import prepareWgsl from '../shaders/sort/onesweep_prepare.wgsl?raw';
import histogramWgsl from '../shaders/sort/onesweep_histogram.wgsl?raw';
import passWgsl from '../shaders/sort/onesweep_pass.wgsl?raw';

/** Invocations per workgroup: the pass kernel gives one to each of the 256 digits. */
export const ONESWEEP_WG_SIZE = 256;
/** Digit values per pass (8 bits). */
export const ONESWEEP_RADIX = 256;
/** Passes the globals buffer has histograms and tile counters for (32-bit keys). */
export const ONESWEEP_MAX_PASSES = 4;
/**
 * Keys per invocation of the pass kernel where workgroup memory allows (tile 4096).
 * H200, 2026-11-22: 16 keeps two workgroups on each SM (as 12..15 do; 18 drops to one
 * and is 35% slower), and 1M keys make 256 tiles, one wave of them (at 15, 273 tiles:
 * 9 wait for a second wave): 1M pairs 0.108 ms against 0.125 at 15, 8M 0.556 against
 * 0.566, 16M 1.038 against 1.061.
 */
export const ONESWEEP_MAX_KEYS_PER_THREAD = 16;
/**
 * Keys per invocation of the histogram kernel (HIST_BLOCK = 256 x this per workgroup),
 * by capacity: 8192-key blocks from ONESWEEP_HIST_LARGE_CAPACITY keys up (fewer global
 * atomics to merge), 2048-key blocks below, where 8192-key blocks would leave most of a
 * large GPU idle (262,144 keys: 32 workgroups, each walking its block in turn). H200,
 * 2026-11-22, whole sort, 32-bit pairs, 2048- vs 8192-key blocks: 262,144 keys 0.067 vs
 * 0.073 ms, 1M 0.105 vs 0.107, 2M 0.182 vs 0.178, 8M 0.550 vs 0.532.
 */
export function onesweepHistKeysPerThread(capacity: number): number {
  return capacity >= ONESWEEP_HIST_LARGE_CAPACITY ? 32 : 8;
}
export const ONESWEEP_HIST_LARGE_CAPACITY = 2_097_152;
/**
 * Copies of the histogram kernel's workgroup histograms: they spread the atomics of keys
 * with few distinct digits (splat depths). H200, random 32-bit keys, 4 keys in flight:
 * 8M pairs 0.555 ms with 1 copy, 0.559 with 2, 0.570 with 4: 2 keeps some relief for
 * skewed keys at little cost.
 */
export const ONESWEEP_HIST_COPIES = 2;
/** Default predecessors' look-back words read per poll (at most 4: a vec4 in WGSL). */
export const ONESWEEP_DEFAULT_LOOKBACK_BATCH = 4;
/** Default look-back patience: consecutive not-ready polls of one word before the fallback. */
export const ONESWEEP_DEFAULT_SPIN_LIMIT = 4096;
/** Bytes of one PassInfo (onesweep_common.wgsl): eight u32. */
export const ONESWEEP_PASS_INFO_BYTES = 32;
/** u32 entries of the globals buffer: 4 x 256 histogram bins, 4 tile counters, the done counter. */
export const ONESWEEP_GLOBALS_ENTRIES = ONESWEEP_MAX_PASSES * ONESWEEP_RADIX + ONESWEEP_MAX_PASSES + 1;
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
  /** STAGE_PAIRS: values staged in workgroup memory beside the keys (else after them, in the same array). */
  stagePairs: boolean;
  /** LOOKBACK_BATCH: predecessors' words read per look-back poll (1..4). */
  lookbackBatch: number;
  /** HIST_KEYS_PER_THREAD: keys per invocation of the histogram kernel. */
  histKeysPerThread: number;
}

export interface OnesweepKernels {
  readonly config: OnesweepKernelConfig;
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
 * stage for keys and maybe values, a per-digit array, scan scratch, a few words),
 * as Dawn counts them against maxComputeWorkgroupStorageSize.
 */
export function onesweepPassWorkgroupBytes(keysPerThread: number, rowMin: number, subgroups: boolean, stagePairs: boolean): number {
  const table = Math.max((ONESWEEP_WG_SIZE / rowMin) * (ONESWEEP_RADIX / 2), ONESWEEP_RADIX) * 4;
  const stage = ONESWEEP_WG_SIZE * keysPerThread * 4;
  const values = stagePairs ? stage : 4;
  const digits = ONESWEEP_RADIX * 4;
  const scan = subgroups ? (ONESWEEP_WG_SIZE / 4) * 8 : (ONESWEEP_WG_SIZE + ONESWEEP_WG_SIZE / 16) * 8;
  return table + stage + values + digits + scan + 64; // + tile id, stuck flags, alignment
}

const cache = new WeakMap<GPUDevice, Map<string, OnesweepKernels>>();

/** The kernels for `device` and `config`. */
export function getOnesweepKernels(device: GPUDevice, config: OnesweepKernelConfig): OnesweepKernels {
  let perDevice = cache.get(device);
  if (!perDevice) {
    perDevice = new Map();
    cache.set(device, perDevice);
  }
  const key = JSON.stringify(config);
  let kernels = perDevice.get(key);
  if (!kernels) {
    kernels = createKernels(device, config);
    perDevice.set(key, kernels);
  }
  return kernels;
}

function createKernels(device: GPUDevice, config: OnesweepKernelConfig): OnesweepKernels {
  const variant = `${config.subgroups ? 'subgroups' : 'portable'},kpt=${config.keysPerThread},rowMin=${config.rowMin},pairs=${config.stagePairs},lb=${config.lookbackBatch},hist=${config.histKeysPerThread}`;
  const C = GPUShaderStage.COMPUTE;
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: C, buffer: { type } });

  const prepareLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.prepareLayout',
    entries: [
      storage(0, 'read-only-storage'),
      { binding: 1, visibility: C, buffer: { type: 'uniform' } },
      storage(2, 'storage'),
      storage(3, 'storage'),
      storage(4, 'storage'),
    ],
  });
  const passLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.passLayout',
    entries: [
      { binding: 0, visibility: C, buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: ONESWEEP_PASS_INFO_BYTES } },
      { binding: 1, visibility: C, buffer: { type: 'uniform' } },
    ],
  });
  const histogramLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.histogramLayout',
    entries: [
      { binding: 0, visibility: C, buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: ONESWEEP_PASS_INFO_BYTES } },
      storage(1, 'read-only-storage'),
      { binding: 2, visibility: C, buffer: { type: 'uniform' } },
      storage(3, 'storage'),
    ],
  });
  const dataLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.dataLayout',
    entries: [storage(0, 'read-only-storage'), storage(1, 'read-only-storage'), storage(2, 'storage'), storage(3, 'storage')],
  });
  const lookbackLayout = device.createBindGroupLayout({
    label: 'OnesweepSorter.lookbackLayout',
    entries: [storage(0, 'storage'), storage(1, 'storage')],
  });
  const passPipelineLayout = device.createPipelineLayout({
    label: 'OnesweepSorter.passPipelineLayout',
    bindGroupLayouts: [passLayout, dataLayout, lookbackLayout],
  });

  const constants: Record<string, number> = {
    WG_SIZE: ONESWEEP_WG_SIZE,
    HIST_KEYS_PER_THREAD: config.histKeysPerThread,
    HIST_COPIES: ONESWEEP_HIST_COPIES,
    ROW_MIN: config.rowMin,
    SG_WORDS: config.sgWords,
    LOOKBACK_BATCH: config.lookbackBatch,
    MAX_WORKGROUPS_PER_DIM: device.limits.maxComputeWorkgroupsPerDimension,
  };
  const head = `${config.subgroups ? subgroupsWgsl : portableWgsl}\nconst KEYS_PER_THREAD: u32 = ${config.keysPerThread}u;\nconst STAGE_PAIRS: bool = ${config.stagePairs};\n${commonWgsl}`;
  const pipeline = (name: string, code: string, layout: GPUPipelineLayout) =>
    device.createComputePipeline({
      label: `OnesweepSorter.${name}Pipeline(${variant})`,
      layout,
      compute: {
        module: device.createShaderModule({ label: `OnesweepSorter.${name}Module(${variant})`, code }),
        entryPoint: 'main',
        constants,
      },
    });

  return {
    config,
    prepareLayout,
    passLayout,
    histogramLayout,
    dataLayout,
    lookbackLayout,
    prepare: pipeline(
      'prepare',
      head + prepareWgsl,
      device.createPipelineLayout({ label: 'OnesweepSorter.preparePipelineLayout', bindGroupLayouts: [prepareLayout] }),
    ),
    histogram: pipeline(
      'histogram',
      head + histogramWgsl,
      device.createPipelineLayout({ label: 'OnesweepSorter.histogramPipelineLayout', bindGroupLayouts: [histogramLayout, dataLayout, lookbackLayout] }),
    ),
    pass: pipeline('pass', head + passWgsl, passPipelineLayout),
  };
}
