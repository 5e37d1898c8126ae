/**
 * The radix16 compute pipelines, their shared bind group layouts, and the constants the
 * kernels are specialised with. Built once per device and variant (DeviceCache).
 *
 * A kernel module is sortModule([workgroup primitives, radix16_common.wgsl, <stage>.wgsl],
 * generated constants), with radix_bindings.wgsl (bind groups 0 and 1) before the count
 * and scatter stages: the sort prelude first, then the primitives,
 * wg_scan_subgroups.wgsl + radix16_wg_subgroups.wgsl or wg_scan_portable.wgsl +
 * radix16_wg_portable.wgsl (`struct WgIds`, `struct WgUniform`, `fn wgScan`,
 * `fn wgAggregate`); the scan stage is radix_scan.wgsl, shared with radix4. The prepare
 * kernel uses no primitives. Every size reaches WGSL as a pipeline-overridable constant
 * from RADIX16_CONSTANTS, except RADIX16_CONSTS (generated `const` lines): RADIX, which
 * the host sizes the count buffers with too, and KEYS_PER_THREAD, which sizes
 * per-invocation arrays (WGSL wants a `const` there).
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
import scatterWgsl from '../shaders/sort/radix16_scatter.wgsl?raw';
import bindingsWgsl from '../shaders/sort/radix_bindings.wgsl?raw';
import { DeviceCache, isSwiftShader, lazy, pipelineMaker, sortModule, wgslStruct } from './kernel-kit.ts';
import { createRadixLayouts, type RadixKernelSet } from './radix-common.ts';

/** Bins per pass (4 bits): a generated WGSL `const` (RADIX) and the host's count layout. */
export const RADIX16_RADIX = 16;

/** The one place the radix16 kernel sizes are set (pipeline-overridable constants). */
export const RADIX16_CONSTANTS = {
  /** Invocations per workgroup (SwiftShader's maximum). */
  WG_SIZE: 256,
  /**
   * Entries per invocation in the scan kernel: SCAN_BLOCK = 1024 entries per workgroup.
   * Every scatter workgroup also reads and scans the top level (up to SCAN_BLOCK
   * entries) itself, so short blocks pay twice (measured: docs/PERFORMANCE.md, "radix16
   * scan block").
   */
  SCAN_ITEMS: 4,
  /** Granule of the count layout's digit stride (radix16_common.wgsl, digitStrideFor). */
  STRIDE_ALIGN: 32,
} as const;

/** Entries per digit in the count buffers for `tiles` tiles: radix16_common.wgsl's digitStrideFor. */
export function radix16DigitStride(tiles: number): number {
  const { STRIDE_ALIGN, WG_SIZE, SCAN_ITEMS } = RADIX16_CONSTANTS;
  if (RADIX16_RADIX * tiles <= WG_SIZE * SCAN_ITEMS) return tiles;
  return STRIDE_ALIGN * (Math.ceil(tiles / STRIDE_ALIGN) | 1);
}

/**
 * Keys per invocation in count and scatter (a generated WGSL `const`), by kernel
 * variant: 8 (2048-key tiles) with subgroups, 6 (1536-key tiles) portable. The portable
 * scatter counts an invocation's digits in 4-bit fields, so at most 15. Tile size,
 * workgroup memory and registers trade against each other (measured:
 * docs/PERFORMANCE.md, "radix16 keys a thread").
 */
export function radix16KeysPerThread(subgroups: boolean): number {
  return subgroups ? 8 : 6;
}
/** Entries one scan workgroup covers. */
export const RADIX16_SCAN_BLOCK = RADIX16_CONSTANTS.WG_SIZE * RADIX16_CONSTANTS.SCAN_ITEMS;

/**
 * Invocations per workgroup on SwiftShader: an eighth of RADIX16_CONSTANTS.WG_SIZE,
 * with SCAN_ITEMS to match (the same SCAN_BLOCK: the count layout is unchanged), and
 * tiles of 256 keys. Its compile of a kernel grows with the workgroup memory declared
 * (kernel-kit.ts isSwiftShader), and the scatter's tile, its (digit, subgroup) counts
 * (4-lane subgroups there: 64 of them at 256 invocations) and wgScan's buffer all scale
 * with the workgroup (3,754 -> 954 words); its sorts are faster too, since it runs a
 * workgroup's invocations on one CPU thread and a barrier costs by the invocation
 * (measured: docs/PERFORMANCE.md, "SwiftShader's compiles").
 */
export const RADIX16_SWIFTSHADER_WG_SIZE = 32;

/** The invocations per workgroup the radix16 kernels take on `device` (wgSize: a forced size, tests). */
export function radix16WgSize(device: GPUDevice, wgSize?: number): number {
  const size = wgSize ?? (isSwiftShader(device) ? RADIX16_SWIFTSHADER_WG_SIZE : RADIX16_CONSTANTS.WG_SIZE);
  if (!RADIX16_WG_SIZES.includes(size)) throw new RangeError(`radix16: wgSize must be one of ${RADIX16_WG_SIZES.join(', ')}, got ${size}`);
  return size;
}

/** The workgroup sizes the kernels support: multiples of 32 (skewed arrays) dividing SCAN_BLOCK. */
export const RADIX16_WG_SIZES: readonly number[] = [32, 64, 128, 256];

for (const kpt of [radix16KeysPerThread(true), radix16KeysPerThread(false)]) {
  if (kpt > 15) throw new Error('radix16: KEYS_PER_THREAD must stay <= 15 (4-bit counters)');
  // The scatter's packed 16-bit tile counts.
  if (RADIX16_CONSTANTS.WG_SIZE * kpt >= 65536) throw new Error('radix16: TILE must stay below 65,536 (16-bit packed counts)');
}
for (const wg of RADIX16_WG_SIZES) {
  if (wg % 32 !== 0) throw new Error('radix16: WG_SIZE must be a multiple of 32 (skewed workgroup arrays)');
  if (RADIX16_SCAN_BLOCK % wg !== 0 || wg < RADIX16_RADIX) throw new Error('radix16: WG_SIZE must divide SCAN_BLOCK and cover the radix');
}

/**
 * Subgroups per workgroup at most (WG_SIZE / the smallest subgroup size): it sizes the
 * subgroup ranking's (digit, subgroup) counts. Without adapterInfo, any size from 4.
 */
export function radix16MaxSubgroups(device: GPUDevice, wgSize: number): number {
  const info = (device as { adapterInfo?: GPUAdapterInfo }).adapterInfo;
  return wgSize / Math.max(4, info?.subgroupMinSize ?? 4);
}

/** Workgroup memory the scatter kernel declares (the largest of the kernels), in bytes. */
export function radix16WorkgroupBytes(subgroups: boolean, maxSubgroups?: number, WG_SIZE: number = RADIX16_CONSTANTS.WG_SIZE): number {
  maxSubgroups ??= WG_SIZE / 4;
  const keysPerThread = radix16KeysPerThread(subgroups);
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
  readonly keysPerThread: number;
  /** Invocations per workgroup (radix16WgSize): a tile is wgSize * keysPerThread keys. */
  readonly wgSize: number;
  readonly scatter: GPUComputePipeline;
}

const cache = new DeviceCache<Radix16Kernels>();

/** The kernels for `device`, with subgroup operations or without. */
export function getRadix16Kernels(device: GPUDevice, subgroups: boolean, wgSize: number): Radix16Kernels {
  return cache.get(device, `${subgroups},${wgSize}`, () => createKernels(device, subgroups, wgSize));
}

function createKernels(device: GPUDevice, subgroups: boolean, wgSize: number): Radix16Kernels {
  const keysPerThread = radix16KeysPerThread(subgroups);
  const consts = { RADIX: RADIX16_RADIX, KEYS_PER_THREAD: keysPerThread };
  const wg = subgroups ? [wgScanSubgroupsWgsl, wgSubgroupsWgsl] : [wgScanPortableWgsl, wgPortableWgsl];
  const passInfo = wgslStruct(commonWgsl, 'PassInfo');
  const { prepareLayout, passLayout, dataLayout, countsLayout, passPipelineLayout, preparePipelineLayout } = createRadixLayouts(device, 'Radix16Sorter', passInfo.size);
  const scanItems = RADIX16_SCAN_BLOCK / wgSize; // SCAN_BLOCK fixed: the count layout is the same
  const variant = (subgroups ? 'subgroups' : 'portable') + (wgSize === RADIX16_CONSTANTS.WG_SIZE ? '' : `,wg=${wgSize}`);
  const pipeline = pipelineMaker(device, 'Radix16Sorter', variant, { ...RADIX16_CONSTANTS, WG_SIZE: wgSize, SCAN_ITEMS: scanItems });
  const module = (...stage: string[]) => sortModule([...wg, commonWgsl, ...stage], consts);

  // The scatter calls wgScan more than once (wg_scan_*.wgsl).
  const REUSABLE = { WG_SCAN_REUSABLE: 1 };
  const getPrepare = lazy(() => pipeline('prepare', sortModule([commonWgsl, prepareWgsl], consts), preparePipelineLayout));
  const getCount = lazy(() => pipeline('count', module(bindingsWgsl, countWgsl), passPipelineLayout, REUSABLE));
  const getCountCopy = lazy(() => pipeline('countCopy', module(bindingsWgsl, countWgsl), passPipelineLayout, { ...REUSABLE, COPY_INPUT: 1 }));
  const getScan = lazy(() => pipeline('scan', module(scanWgsl), passPipelineLayout, REUSABLE));
  // Subgroup modules rank in registers (SG_RANK, radix16_wg_subgroups.wgsl's rank16).
  const scatterConstants = subgroups ? { ...REUSABLE, SG_RANK: 1, MAX_SUBGROUPS: radix16MaxSubgroups(device, wgSize) } : REUSABLE;
  const getScatter = lazy(() => pipeline('scatter', module(bindingsWgsl, scatterWgsl), passPipelineLayout, scatterConstants));
  return {
    subgroups,
    keysPerThread,
    wgSize,
    passInfo,
    prepareInfo: wgslStruct(commonWgsl + prepareWgsl, 'PrepareInfo'),
    params: wgslStruct(commonWgsl, 'Params'),
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
