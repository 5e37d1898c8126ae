/**
 * The radix4 compute pipelines, their shared bind group layouts, and the constants
 * the kernels are specialised with. Built once per device and variant, cached in a
 * WeakMap keyed by the device.
 *
 * A kernel module is `[workgroup primitives] + radix4_common.wgsl + <stage>.wgsl`: the
 * primitives are wg_scan_subgroups.wgsl (it starts with `enable subgroups;`) +
 * radix4_wg_subgroups.wgsl, or wg_scan_portable.wgsl + radix4_wg_portable.wgsl
 * (`struct WgIds`, `fn wgScan`, `fn wgSum4`); the scan stage is radix_scan.wgsl, shared
 * with radix16. The prepare
 * kernel uses no primitives. Nothing is templated: every number reaches WGSL as a
 * pipeline-overridable constant from RADIX4_CONSTANTS.
 */
import wgScanSubgroupsWgsl from '../shaders/sort/wg_scan_subgroups.wgsl?raw';
import wgScanPortableWgsl from '../shaders/sort/wg_scan_portable.wgsl?raw';
import wgSubgroupsWgsl from '../shaders/sort/radix4_wg_subgroups.wgsl?raw';
import wgPortableWgsl from '../shaders/sort/radix4_wg_portable.wgsl?raw';
import commonWgsl from '../shaders/sort/radix4_common.wgsl?raw';
import prepareWgsl from '../shaders/sort/radix4_prepare.wgsl?raw';
import countWgsl from '../shaders/sort/radix4_count.wgsl?raw';
import scanWgsl from '../shaders/sort/radix_scan.wgsl?raw';
import { createRadixLayouts, type RadixKernelSet } from './radix-common.ts';
import scatterWgsl from '../shaders/sort/radix4_scatter.wgsl?raw';

/** The one place the radix4 kernel sizes are set. */
export const RADIX4_CONSTANTS = {
  /** Invocations per workgroup (SwiftShader's maximum). */
  WG_SIZE: 256,
  /** Keys per invocation in count and scatter: CHUNK = 512 keys per workgroup. */
  KEYS_PER_THREAD: 2,
  /** Entries per invocation in the scan kernel: SCAN_BLOCK = 4096 entries per workgroup. */
  SCAN_ITEMS: 16,
} as const;

/**
 * Up to this many chunks (1024 x 512 = 524,288 keys of capacity) the scatter sums the raw
 * digit counts itself (every workgroup reads all 4 x chunks of them) instead of the scan
 * dispatches: one dispatch a pass instead of two or three, where dispatches dominate.
 */
export const RADIX4_BASES_FROM_COUNTS_MAX_CHUNKS = 1024;

/** Keys per workgroup chunk. The packed 10-bit digit counts need it below 1024. */
export const RADIX4_CHUNK = RADIX4_CONSTANTS.WG_SIZE * RADIX4_CONSTANTS.KEYS_PER_THREAD;
/** Entries one scan workgroup covers. */
export const RADIX4_SCAN_BLOCK = RADIX4_CONSTANTS.WG_SIZE * RADIX4_CONSTANTS.SCAN_ITEMS;
if (RADIX4_CHUNK >= 1024) throw new Error('radix4: CHUNK must stay below 1024 (10-bit packed counts)');

/** Bytes of one PassInfo (radix4_common.wgsl): four u32. */
export const RADIX4_PASS_INFO_BYTES = 16;

/** Levels the `levelOffset: vec4<u32>` of the kernels can describe: 3 scanned + the top total. */
export const RADIX4_MAX_SCAN_LEVELS = 3;

export interface Radix4Kernels extends RadixKernelSet {
  readonly subgroups: boolean;
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
  /** scatter after the scan dispatches. */
  readonly scatter: GPUComputePipeline;
  /** scatter that sums the raw counts itself (no scan dispatches). */
  readonly scatterFromCounts: GPUComputePipeline;
}

const cache = new WeakMap<GPUDevice, Map<boolean, Radix4Kernels>>();

/** The kernels for `device`, with subgroup operations or without. */
export function getRadix4Kernels(device: GPUDevice, subgroups: boolean): Radix4Kernels {
  let perDevice = cache.get(device);
  if (!perDevice) {
    perDevice = new Map();
    cache.set(device, perDevice);
  }
  let kernels = perDevice.get(subgroups);
  if (!kernels) {
    kernels = createKernels(device, subgroups);
    perDevice.set(subgroups, kernels);
  }
  return kernels;
}

function createKernels(device: GPUDevice, subgroups: boolean): Radix4Kernels {
  const variant = subgroups ? 'subgroups' : 'portable';
  const wg = subgroups ? wgScanSubgroupsWgsl + wgSubgroupsWgsl : wgScanPortableWgsl + wgPortableWgsl;
  const { prepareLayout, passLayout, dataLayout, countsLayout, passPipelineLayout, preparePipelineLayout } = createRadixLayouts(device, 'Radix4Sorter', RADIX4_PASS_INFO_BYTES);

  const constants: Record<string, number> = {
    ...RADIX4_CONSTANTS,
    MAX_WORKGROUPS_PER_DIM: device.limits.maxComputeWorkgroupsPerDimension,
  };
  const pipeline = (name: string, code: string, layout: GPUPipelineLayout, extra: Record<string, number> = {}) =>
    device.createComputePipeline({
      label: `Radix4Sorter.${name}Pipeline(${variant})`,
      layout,
      compute: {
        module: device.createShaderModule({ label: `Radix4Sorter.${name}Module(${variant})`, code }),
        entryPoint: 'main',
        constants: { ...constants, ...extra },
      },
    });

  const countCode = wg + commonWgsl + countWgsl;
  return {
    subgroups,
    prepareLayout,
    passLayout,
    dataLayout,
    countsLayout,
    prepare: pipeline(
      'prepare',
      commonWgsl + prepareWgsl,
      preparePipelineLayout,
    ),
    count: pipeline('count', countCode, passPipelineLayout),
    countCopy: pipeline('countCopy', countCode, passPipelineLayout, { COPY_INPUT: 1 }),
    scan: pipeline('scan', wg + commonWgsl + scanWgsl, passPipelineLayout),
    scatter: pipeline('scatter', wg + commonWgsl + scatterWgsl, passPipelineLayout),
    scatterFromCounts: pipeline('scatterFromCounts', wg + commonWgsl + scatterWgsl, passPipelineLayout, { BASES_FROM_COUNTS: 1 }),
  };
}
