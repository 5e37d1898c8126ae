/**
 * The radix4 compute pipelines, their shared bind group layouts, and the constants
 * the kernels are specialised with. Built once per device and variant (DeviceCache).
 *
 * A kernel module is sortModule([workgroup primitives, radix4_common.wgsl, <stage>.wgsl]),
 * with radix_bindings.wgsl (bind groups 0 and 1) before the count and scatter stages:
 * the sort prelude first, then the primitives, wg_scan_subgroups.wgsl +
 * radix4_wg_subgroups.wgsl or wg_scan_portable.wgsl + radix4_wg_portable.wgsl
 * (`struct WgIds`, `fn wgScan`, `fn wgSum4`); the scan stage is radix_scan.wgsl, shared
 * with radix16. The prepare kernel uses no primitives. Nothing is templated: every
 * number reaches WGSL as a pipeline-overridable constant from RADIX4_CONSTANTS.
 */
import wgScanSubgroupsWgsl from '../shaders/sort/wg_scan_subgroups.wgsl?raw';
import wgScanPortableWgsl from '../shaders/sort/wg_scan_portable.wgsl?raw';
import wgSubgroupsWgsl from '../shaders/sort/radix4_wg_subgroups.wgsl?raw';
import wgPortableWgsl from '../shaders/sort/radix4_wg_portable.wgsl?raw';
import commonWgsl from '../shaders/sort/radix4_common.wgsl?raw';
import prepareWgsl from '../shaders/sort/radix4_prepare.wgsl?raw';
import countWgsl from '../shaders/sort/radix4_count.wgsl?raw';
import scanWgsl from '../shaders/sort/radix_scan.wgsl?raw';
import scatterWgsl from '../shaders/sort/radix4_scatter.wgsl?raw';
import bindingsWgsl from '../shaders/sort/radix_bindings.wgsl?raw';
import { DeviceCache, pipelineMaker, sortModule, wgslStruct } from './kernel-kit.ts';
import { createRadixLayouts, type RadixKernelSet } from './radix-common.ts';

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

export interface Radix4Kernels extends RadixKernelSet {
  readonly subgroups: boolean;
  /** scatter after the scan dispatches. */
  readonly scatter: GPUComputePipeline;
  /** scatter that sums the raw counts itself (no scan dispatches). */
  readonly scatterFromCounts: GPUComputePipeline;
}

const cache = new DeviceCache<Radix4Kernels>();

/** The kernels for `device`, with subgroup operations or without. */
export function getRadix4Kernels(device: GPUDevice, subgroups: boolean): Radix4Kernels {
  return cache.get(device, String(subgroups), () => createKernels(device, subgroups));
}

function createKernels(device: GPUDevice, subgroups: boolean): Radix4Kernels {
  const wg = subgroups ? [wgScanSubgroupsWgsl, wgSubgroupsWgsl] : [wgScanPortableWgsl, wgPortableWgsl];
  const passInfo = wgslStruct(commonWgsl, 'PassInfo');
  const { prepareLayout, passLayout, dataLayout, countsLayout, passPipelineLayout, preparePipelineLayout } = createRadixLayouts(device, 'Radix4Sorter', passInfo.size);
  const pipeline = pipelineMaker(device, 'Radix4Sorter', subgroups ? 'subgroups' : 'portable', RADIX4_CONSTANTS);
  const countCode = sortModule([...wg, commonWgsl, bindingsWgsl, countWgsl]);
  const scatterCode = sortModule([...wg, commonWgsl, bindingsWgsl, scatterWgsl]);
  return {
    subgroups,
    passInfo,
    prepareInfo: wgslStruct(commonWgsl + prepareWgsl, 'PrepareInfo'),
    params: wgslStruct(commonWgsl, 'Params'),
    prepareLayout,
    passLayout,
    dataLayout,
    countsLayout,
    prepare: pipeline('prepare', sortModule([commonWgsl, prepareWgsl]), preparePipelineLayout),
    count: pipeline('count', countCode, passPipelineLayout),
    countCopy: pipeline('countCopy', countCode, passPipelineLayout, { COPY_INPUT: 1 }),
    scan: pipeline('scan', sortModule([...wg, commonWgsl, scanWgsl]), passPipelineLayout),
    scatter: pipeline('scatter', scatterCode, passPipelineLayout),
    scatterFromCounts: pipeline('scatterFromCounts', scatterCode, passPipelineLayout, { BASES_FROM_COUNTS: 1 }),
  };
}
