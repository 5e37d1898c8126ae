/**
 * The radix16 compute pipelines, their shared bind group layouts, and the constants the
 * kernels are specialised with. Built once per device and variant, cached in a WeakMap
 * keyed by the device.
 *
 * A kernel module is `[workgroup primitives] + generated constants + radix16_common.wgsl
 * + <stage>.wgsl`: the primitives are wg_scan_subgroups.wgsl (it starts with `enable
 * subgroups;`) + radix16_wg_subgroups.wgsl, or wg_scan_portable.wgsl +
 * radix16_wg_portable.wgsl (`struct WgIds`, `struct WgUniform`, `fn wgScan`,
 * `fn wgAggregate`); the scan stage is radix_scan.wgsl, shared with radix4. The prepare kernel uses no primitives. Every size
 * reaches WGSL as a pipeline-overridable constant from RADIX16_CONSTANTS, except
 * KEYS_PER_THREAD: it sizes per-invocation arrays, which WGSL wants sized by a `const`,
 * so it is declared from the sorter's keysPerThread in a generated line (no placeholders).
 *
 * Pipelines are compiled on first use: `scan` runs only above 64 tiles of capacity
 * and `countCopy` only for odd pass counts; the scatter kernel alone takes seconds to
 * compile on SwiftShader (its zero-initialised workgroup memory).
 */
import wgScanSubgroupsWgsl from '../shaders/sort/wg_scan_subgroups.wgsl?raw';
import wgScanPortableWgsl from '../shaders/sort/wg_scan_portable.wgsl?raw';
import wgSubgroupsWgsl from '../shaders/sort/radix16_wg_subgroups.wgsl?raw';
import wgPortableWgsl from '../shaders/sort/radix16_wg_portable.wgsl?raw';
import commonWgsl from '../shaders/sort/radix16_common.wgsl?raw';
import prepareWgsl from '../shaders/sort/radix16_prepare.wgsl?raw';
import countWgsl from '../shaders/sort/radix16_count.wgsl?raw';
import scanWgsl from '../shaders/sort/radix_scan.wgsl?raw';
import { createRadixLayouts, type RadixKernelSet } from './radix-common.ts';
import scatterWgsl from '../shaders/sort/radix16_scatter.wgsl?raw';

/** The one place the radix16 kernel sizes are set (pipeline-overridable constants). */
export const RADIX16_CONSTANTS = {
  /** Invocations per workgroup (SwiftShader's maximum). */
  WG_SIZE: 256,
  /**
   * Entries per invocation in the scan kernel: SCAN_BLOCK = 1024 entries per workgroup.
   * Every scatter workgroup also reads and scans the top level (up to SCAN_BLOCK
   * entries) itself, so short blocks pay twice. H200, 32-bit pairs, median ms at
   * 262,144 / 1M / 8M / 16M: 4 items 0.125 / 0.186 / 0.864 / 1.598; 8 items
   * 0.104 / 0.200 / 0.926 / 1.711; 16 items 0.115 / 0.233 / 1.065 / 1.953; 32 items
   * 0.141 / 0.295 / 1.352 / 2.428.
   */
  SCAN_ITEMS: 4,
  /** Granule of the count layout's digit stride (radix16_common.wgsl, digitStrideFor). */
  STRIDE_ALIGN: 32,
} as const;

/** Entries per digit in the count buffers for `tiles` tiles: radix16_common.wgsl's digitStrideFor. */
export function radix16DigitStride(tiles: number): number {
  const { STRIDE_ALIGN, WG_SIZE, SCAN_ITEMS } = RADIX16_CONSTANTS;
  if (16 * tiles <= WG_SIZE * SCAN_ITEMS) return tiles;
  return STRIDE_ALIGN * (Math.ceil(tiles / STRIDE_ALIGN) | 1);
}

/**
 * Keys per invocation in count and scatter (a WGSL `const`, generated below), by kernel
 * variant. The portable scatter counts an invocation's digits in 4-bit fields, so at
 * most 15. Measured on an H200 (bench:sort, 32-bit pairs, 2026-11-22): subgroup kernels
 * 8 (2048-key tiles): 8M 1.104 ms against 1.199 at 6, 1.255 at 4, 1.175 at 10;
 * portable kernels 6 (1536-key tiles): 8M 1.65 ms against 2.09 at 4 and 2.33 at 8, when
 * they were the only kernels. On an H200 (Vulkan) two workgroups of ~24 KB of
 * workgroup memory already fill the ~64 KB an SM gets: tile size, workgroup memory and
 * registers trade against each other.
 */
export function radix16KeysPerThread(subgroups: boolean): number {
  return subgroups ? 8 : 6;
}
/** The largest default (the subgroup kernels'). */
export const RADIX16_KEYS_PER_THREAD = 8;

/** Keys per workgroup tile. The scatter's packed 16-bit tile counts need it below 65,536. */
export const RADIX16_TILE = RADIX16_CONSTANTS.WG_SIZE * RADIX16_KEYS_PER_THREAD;
/** Entries one scan workgroup covers. */
export const RADIX16_SCAN_BLOCK = RADIX16_CONSTANTS.WG_SIZE * RADIX16_CONSTANTS.SCAN_ITEMS;
/** Bins per pass: 4 bits. */
export const RADIX16_RADIX = 16;
if (RADIX16_KEYS_PER_THREAD > 15) throw new Error('radix16: KEYS_PER_THREAD must stay <= 15 (4-bit counters)');
if (RADIX16_TILE >= 65536) throw new Error('radix16: TILE must stay below 65,536 (16-bit packed counts)');
if (RADIX16_CONSTANTS.WG_SIZE % 32 !== 0) throw new Error('radix16: WG_SIZE must be a multiple of 32 (skewed workgroup arrays)');

/** Bytes of one PassInfo (radix16_common.wgsl): four u32. */
export const RADIX16_PASS_INFO_BYTES = 16;

/** Levels the `levelOffset: vec4<u32>` of the kernels can describe: 3 scanned + the top total. */
export const RADIX16_MAX_SCAN_LEVELS = 3;

/**
 * Subgroups per workgroup at most (WG_SIZE / the smallest subgroup size): it sizes the
 * subgroup ranking's (digit, subgroup) counts. Without adapterInfo, any size from 4.
 */
export function radix16MaxSubgroups(device: GPUDevice): number {
  const info = (device as { adapterInfo?: GPUAdapterInfo }).adapterInfo;
  return RADIX16_CONSTANTS.WG_SIZE / Math.max(4, info?.subgroupMinSize ?? 4);
}

/** Workgroup memory the scatter kernel declares (the largest of the kernels), in bytes. */
export function radix16WorkgroupBytes(subgroups: boolean, keysPerThread = RADIX16_KEYS_PER_THREAD, maxSubgroups = RADIX16_CONSTANTS.WG_SIZE / 4): number {
  const { WG_SIZE } = RADIX16_CONSTANTS;
  const skewed = (n: number) => n + n / 32;
  const words =
    (subgroups ? 1 : 2) * skewed(WG_SIZE * keysPerThread) + (subgroups ? 1 : 0) + // tileKeys, tileValues
    (subgroups ? Math.max(RADIX16_RADIX * maxSubgroups, WG_SIZE) : skewed(8 * WG_SIZE)) + // hist
    9 + 2 * RADIX16_RADIX + 2 * RADIX16_RADIX * RADIX16_RADIX + // rowStart, digitBase, digitShift, nextShare
    (subgroups ? WG_SIZE / 4 : 2 * WG_SIZE); // wgScan's buffer
  return 4 * words;
}

export interface Radix16Kernels extends RadixKernelSet {
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
  readonly scatter: GPUComputePipeline;
}

const cache = new WeakMap<GPUDevice, Map<string, Radix16Kernels>>();

/** The kernels for `device`, with subgroup operations or without. */
export function getRadix16Kernels(device: GPUDevice, subgroups: boolean, keysPerThread = RADIX16_KEYS_PER_THREAD): Radix16Kernels {
  let perDevice = cache.get(device);
  if (!perDevice) {
    perDevice = new Map();
    cache.set(device, perDevice);
  }
  const key = `${subgroups}/${keysPerThread}`;
  let kernels = perDevice.get(key);
  if (!kernels) {
    kernels = createKernels(device, subgroups, keysPerThread);
    perDevice.set(key, kernels);
  }
  return kernels;
}

function createKernels(device: GPUDevice, subgroups: boolean, keysPerThread: number): Radix16Kernels {
  const variant = subgroups ? 'subgroups' : 'portable';
  const wg = subgroups ? wgScanSubgroupsWgsl + wgSubgroupsWgsl : wgScanPortableWgsl + wgPortableWgsl;
  const generated = `// generated by sort/radix16-kernels.ts\nconst KEYS_PER_THREAD: u32 = ${keysPerThread}u;\n`;
  const { prepareLayout, passLayout, dataLayout, countsLayout, passPipelineLayout, preparePipelineLayout } = createRadixLayouts(device, 'Radix16Sorter', RADIX16_PASS_INFO_BYTES);

  const constants: Record<string, number> = {
    ...RADIX16_CONSTANTS,
    MAX_WORKGROUPS_PER_DIM: device.limits.maxComputeWorkgroupsPerDimension,
  };
  const pipeline = (name: string, code: string, layout: GPUPipelineLayout, extra: Record<string, number> = {}) =>
    device.createComputePipeline({
      label: `Radix16Sorter.${name}Pipeline(${variant})`,
      layout,
      compute: {
        module: device.createShaderModule({ label: `Radix16Sorter.${name}Module(${variant})`, code }),
        entryPoint: 'main',
        constants: { ...constants, ...extra },
      },
    });

  // The scatter calls wgScan more than once (wg_scan_*.wgsl).
  const REUSABLE = { WG_SCAN_REUSABLE: 1 };
  const head = wg + generated + commonWgsl;
  const built = new Map<string, GPUComputePipeline>();
  const lazy = (name: string, make: () => GPUComputePipeline) => () => {
    let p = built.get(name);
    if (!p) {
      p = make();
      built.set(name, p);
    }
    return p;
  };
  const getPrepare = lazy('prepare', () =>
    pipeline(
      'prepare',
      generated + commonWgsl + prepareWgsl,
      preparePipelineLayout,
    ),
  );
  const getCount = lazy('count', () => pipeline('count', head + countWgsl, passPipelineLayout, REUSABLE));
  const getCountCopy = lazy('countCopy', () => pipeline('countCopy', head + countWgsl, passPipelineLayout, { ...REUSABLE, COPY_INPUT: 1 }));
  const getScan = lazy('scan', () => pipeline('scan', head + scanWgsl, passPipelineLayout, REUSABLE));
  // Subgroup modules rank in registers (SG_RANK, radix16_wg_subgroups.wgsl's rank16).
  const scatterConstants = subgroups ? { ...REUSABLE, SG_RANK: 1, MAX_SUBGROUPS: radix16MaxSubgroups(device) } : REUSABLE;
  const getScatter = lazy('scatter', () => pipeline('scatter', head + scatterWgsl, passPipelineLayout, scatterConstants));
  return {
    subgroups,
    prepareLayout,
    passLayout,
    dataLayout,
    countsLayout,
    get prepare() { return getPrepare(); },
    get count() { return getCount(); },
    get countCopy() { return getCountCopy(); },
    get scan() { return getScan(); },
    get scatter() { return getScatter(); },
  };
}
