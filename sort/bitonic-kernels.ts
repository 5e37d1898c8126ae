/**
 * The bitonic compute pipelines, their shared bind group layouts, and the constants the
 * kernels are specialised with. Built once per device and local size, cached in a
 * WeakMap keyed by the device. A kernel module is `bitonic_common.wgsl +
 * bitonic_<stage>.wgsl`; every size reaches WGSL as a pipeline-overridable constant.
 */
import commonWgsl from '../shaders/sort/bitonic_common.wgsl?raw';
import prepareWgsl from '../shaders/sort/bitonic_prepare.wgsl?raw';
import localWgsl from '../shaders/sort/bitonic_local.wgsl?raw';
import mergeGlobalWgsl from '../shaders/sort/bitonic_merge_global.wgsl?raw';

/** The one place the bitonic kernel sizes are set (LOCAL_SIZE comes from the sorter). */
export const BITONIC_CONSTANTS = {
  /** Invocations per workgroup (SwiftShader's maximum). */
  WG_SIZE: 256,
} as const;

/** The largest chunk sorted in workgroup memory: 4096 pairs = 32 KiB. */
export const BITONIC_MAX_LOCAL_SIZE = 4096;

/** Bytes of one StepInfo (bitonic_common.wgsl): four u32. */
export const BITONIC_STEP_INFO_BYTES = 16;

/** The local size a device affords: the largest power of two whose pairs fit its workgroup memory. */
export function bitonicLocalSize(device: GPUDevice): number {
  let size = BITONIC_MAX_LOCAL_SIZE;
  while (size > 2 * BITONIC_CONSTANTS.WG_SIZE && size * 8 > device.limits.maxComputeWorkgroupStorageSize) size /= 2;
  return size;
}

export interface BitonicKernels {
  readonly localSize: number;
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

const cache = new WeakMap<GPUDevice, Map<number, BitonicKernels>>();

/** The kernels for `device` sorting chunks of `localSize` pairs in workgroup memory. */
export function getBitonicKernels(device: GPUDevice, localSize: number): BitonicKernels {
  let perDevice = cache.get(device);
  if (!perDevice) {
    perDevice = new Map();
    cache.set(device, perDevice);
  }
  let kernels = perDevice.get(localSize);
  if (!kernels) {
    kernels = createKernels(device, localSize);
    perDevice.set(localSize, kernels);
  }
  return kernels;
}

function createKernels(device: GPUDevice, localSize: number): BitonicKernels {
  const C = GPUShaderStage.COMPUTE;
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: C, buffer: { type } });
  const prepareLayout = device.createBindGroupLayout({
    label: 'BitonicSorter.prepareLayout',
    entries: [storage(0, 'read-only-storage'), { binding: 1, visibility: C, buffer: { type: 'uniform' } }, storage(2, 'storage')],
  });
  const stepLayout = device.createBindGroupLayout({
    label: 'BitonicSorter.stepLayout',
    entries: [
      { binding: 0, visibility: C, buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: BITONIC_STEP_INFO_BYTES } },
      { binding: 1, visibility: C, buffer: { type: 'uniform' } },
    ],
  });
  const dataLayout = device.createBindGroupLayout({
    label: 'BitonicSorter.dataLayout',
    entries: [0, 1, 2, 3].map((b) => storage(b, 'storage')),
  });
  const stepPipelineLayout = device.createPipelineLayout({
    label: 'BitonicSorter.stepPipelineLayout',
    bindGroupLayouts: [stepLayout, dataLayout],
  });
  const constants: Record<string, number> = {
    ...BITONIC_CONSTANTS,
    LOCAL_SIZE: localSize,
    MAX_WORKGROUPS_PER_DIM: device.limits.maxComputeWorkgroupsPerDimension,
  };
  const pipeline = (name: string, code: string, layout: GPUPipelineLayout) =>
    device.createComputePipeline({
      label: `BitonicSorter.${name}Pipeline(${localSize})`,
      layout,
      compute: {
        module: device.createShaderModule({ label: `BitonicSorter.${name}Module`, code: commonWgsl + code }),
        entryPoint: 'main',
        constants,
      },
    });
  return {
    localSize,
    prepareLayout,
    stepLayout,
    dataLayout,
    prepare: pipeline(
      'prepare',
      prepareWgsl,
      device.createPipelineLayout({ label: 'BitonicSorter.preparePipelineLayout', bindGroupLayouts: [prepareLayout] }),
    ),
    local: pipeline('local', localWgsl, stepPipelineLayout),
    mergeGlobal: pipeline('mergeGlobal', mergeGlobalWgsl, stepPipelineLayout),
  };
}
