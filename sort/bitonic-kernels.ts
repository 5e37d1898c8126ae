/**
 * The bitonic compute pipelines, their shared bind group layouts, and the constants the
 * kernels are specialised with. Built once per device and local size (DeviceCache). A
 * kernel module is sortModule([bitonic_common.wgsl, bitonic_<stage>.wgsl]); every size
 * reaches WGSL as a pipeline-overridable constant.
 */
import commonWgsl from '../shaders/sort/bitonic_common.wgsl?raw';
import prepareWgsl from '../shaders/sort/bitonic_prepare.wgsl?raw';
import localWgsl from '../shaders/sort/bitonic_local.wgsl?raw';
import mergeGlobalWgsl from '../shaders/sort/bitonic_merge_global.wgsl?raw';
import { DeviceCache, isSwiftShader, layoutEntry, pipelineMaker, sortModule, wgslStruct, type WgslStruct } from './kernel-kit.ts';

/** The one place the bitonic kernel sizes are set (LOCAL_SIZE comes from the sorter). */
export const BITONIC_CONSTANTS = {
  /** Invocations per workgroup (SwiftShader's maximum). */
  WG_SIZE: 256,
} as const;

/** The largest chunk sorted in workgroup memory: 4096 pairs = 32 KiB. */
export const BITONIC_MAX_LOCAL_SIZE = 4096;

/**
 * The local size on SwiftShader, whose compile grows with workgroup memory (kernel-kit.ts
 * isSwiftShader): local kernel 3.7 s at 4096 pairs, 1.6 s at 2048, 0.7 s at 1024; a
 * sort of 10,000 keys 91 / 91 / 155 ms, of 100,000 1.06 / 1.33 / 1.57 s (2-core
 * machine, 2026-11-28).
 */
export const BITONIC_SWIFTSHADER_LOCAL_SIZE = 2048;

/** The local size a device affords: the largest power of two whose pairs fit its workgroup memory. */
export function bitonicLocalSize(device: GPUDevice): number {
  let size = isSwiftShader(device) ? BITONIC_SWIFTSHADER_LOCAL_SIZE : BITONIC_MAX_LOCAL_SIZE;
  while (size > 2 * BITONIC_CONSTANTS.WG_SIZE && size * 8 > device.limits.maxComputeWorkgroupStorageSize) size /= 2;
  return size;
}

export interface BitonicKernels {
  readonly localSize: number;
  /** StepInfo (bitonic_common.wgsl): one per dispatch after prepare. */
  readonly stepInfo: WgslStruct;
  /** PrepareInfo (bitonic_prepare.wgsl): one per job. */
  readonly prepareInfo: WgslStruct;
  /** Params (bitonic_common.wgsl), written by the prepare kernel. */
  readonly params: WgslStruct;
  /** prepare: count (read), info (uniform), params (write). */
  readonly prepareLayout: GPUBindGroupLayout;
  /** group 0 of the network kernels: stepInfo (uniform, dynamic offset), params (uniform). */
  readonly stepLayout: GPUBindGroupLayout;
  /** group 1: jobKeys, jobValues, keys, values (scratch), all read-write. */
  readonly dataLayout: GPUBindGroupLayout;
  readonly prepare: GPUComputePipeline;
  /** The chunk-local steps: the local sort (blockSize == localSize) or a stage's tail. */
  readonly local: GPUComputePipeline;
  readonly mergeGlobal: GPUComputePipeline;
}

const cache = new DeviceCache<BitonicKernels>();

/** The kernels for `device` sorting chunks of `localSize` pairs in workgroup memory. */
export function getBitonicKernels(device: GPUDevice, localSize: number): BitonicKernels {
  return cache.get(device, String(localSize), () => createKernels(device, localSize));
}

function createKernels(device: GPUDevice, localSize: number): BitonicKernels {
  const { storage, read, uniform, dynamicUniform } = layoutEntry;
  const stepInfo = wgslStruct(commonWgsl, 'StepInfo');
  const prepareLayout = device.createBindGroupLayout({
    label: 'BitonicSorter.prepareLayout',
    entries: [read(0), uniform(1), storage(2)],
  });
  const stepLayout = device.createBindGroupLayout({
    label: 'BitonicSorter.stepLayout',
    entries: [dynamicUniform(0, stepInfo.size), uniform(1)],
  });
  const dataLayout = device.createBindGroupLayout({
    label: 'BitonicSorter.dataLayout',
    entries: [0, 1, 2, 3].map(storage),
  });
  const stepPipelineLayout = device.createPipelineLayout({
    label: 'BitonicSorter.stepPipelineLayout',
    bindGroupLayouts: [stepLayout, dataLayout],
  });
  const pipeline = pipelineMaker(device, 'BitonicSorter', String(localSize), { ...BITONIC_CONSTANTS, LOCAL_SIZE: localSize });
  const module = (stage: string) => sortModule([commonWgsl, stage]);
  return {
    localSize,
    stepInfo,
    prepareInfo: wgslStruct(commonWgsl + prepareWgsl, 'PrepareInfo'),
    params: wgslStruct(commonWgsl, 'Params'),
    prepareLayout,
    stepLayout,
    dataLayout,
    prepare: pipeline(
      'prepare',
      module(prepareWgsl),
      device.createPipelineLayout({ label: 'BitonicSorter.preparePipelineLayout', bindGroupLayouts: [prepareLayout] }),
    ),
    local: pipeline('local', module(localWgsl), stepPipelineLayout),
    mergeGlobal: pipeline('mergeGlobal', module(mergeGlobalWgsl), stepPipelineLayout),
  };
}
