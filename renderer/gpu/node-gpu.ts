/**
 * WebGPU in Node through the `webgpu` package (Dawn). Shared by the headless
 * programs in bench/ and by the GPU tests.
 *
 * Driver choice: by default Dawn picks the first Vulkan adapter it finds (on
 * the CPU machines that is lavapipe, on the GPU machine the NVIDIA driver).
 * `SPLAT_GPU=swiftshader` points the Vulkan loader at the SwiftShader ICD that
 * Debian's chromium package ships, so a test can run on both CPU drivers.
 */
import { create, globals } from 'webgpu';
import fs from 'node:fs';
import { deviceRequirements } from './requirements';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export type NodeDriver = 'default' | 'swiftshader';

/** Thrown when no WebGPU adapter can be had: tests fail loudly on it, never skip. */
export class NoAdapterError extends Error {
  override name = 'NoAdapterError';
}

declare global {
  // Dawn aborts the process if the GPU object is collected while a device lives:
  // it is pinned here for the life of the process.
  // eslint-disable-next-line no-var
  var __dawnGpu: GPU | undefined;
  // eslint-disable-next-line no-var
  var __dawnDriver: NodeDriver | undefined;
}

// GPUBufferUsage, GPUShaderStage, ... as globals, as in a browser.
Object.assign(globalThis, globals);

function gpuFor(driver: NodeDriver, dawnToggles: string[]): GPU {
  if (globalThis.__dawnGpu) {
    if (globalThis.__dawnDriver !== driver) {
      throw new Error(`node-gpu: this process already uses the ${globalThis.__dawnDriver} driver; one driver per process`);
    }
    return globalThis.__dawnGpu;
  }
  if (driver === 'swiftshader') {
    if (!fs.existsSync(SWIFTSHADER_ICD)) {
      throw new NoAdapterError(`SwiftShader ICD not found at ${SWIFTSHADER_ICD} (install Debian's chromium: scripts/install-test-deps.sh)`);
    }
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    process.env.VK_DRIVER_FILES = SWIFTSHADER_ICD;
  }
  globalThis.__dawnGpu = create(dawnToggles);
  globalThis.__dawnDriver = driver;
  return globalThis.__dawnGpu;
}

/** Dawn rounds timestamps to ~65 us unless told otherwise. */
const BENCH_TOGGLES = ['disable-dawn-features=timestamp_quantization'];

function driverFromEnv(): NodeDriver {
  return process.env.SPLAT_GPU === 'swiftshader' ? 'swiftshader' : 'default';
}

/**
 * The process's Dawn GPU object (pinned, created with the same toggles as
 * createNodeGpu), for programs that open their own adapter and device, e.g.
 * bench/playcanvas-frame.ts hands it to PlayCanvas as `navigator.gpu`.
 */
export function nodeGpuObject(driver: NodeDriver = driverFromEnv()): GPU {
  return gpuFor(driver, BENCH_TOGGLES);
}

export interface NodeGpu {
  device: GPUDevice;
  adapter: GPUAdapter;
  info: GPUAdapterInfo;
  /** One line naming the adapter, for logs and benchmark tables. */
  description: string;
}

export interface NodeGpuOptions {
  driver?: NodeDriver;
  /** Ask for timestamp queries (benchmarks) when the adapter has them. */
  timestamps?: boolean;
}

/** Creates a device with the features and limits of requirements.ts. */
export async function createNodeGpu(opts: NodeGpuOptions = {}): Promise<NodeGpu> {
  const driver: NodeDriver = opts.driver ?? driverFromEnv();
  const gpu = gpuFor(driver, BENCH_TOGGLES);
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) {
    throw new NoAdapterError(
      `No WebGPU adapter found (driver: ${driver}). Install a Vulkan driver Dawn accepts: bash scripts/install-test-deps.sh`,
    );
  }
  const { requiredFeatures, requiredLimits } = deviceRequirements(adapter, { timestamps: opts.timestamps === true });
  const device = await adapter.requestDevice({ requiredFeatures, requiredLimits, label: 'node-gpu.device' });
  const info = adapter.info;
  const sg = requiredFeatures.includes('subgroups') ? ` subgroups ${info.subgroupMinSize}..${info.subgroupMaxSize}` : ' no subgroups';
  const description = `${info.vendor || '?'} / ${info.architecture || '?'} (${info.description || info.device || 'unknown'})${sg}`;
  return { device, adapter, info, description };
}

/** Reads a GPU buffer back into a new ArrayBuffer (test and bench helper). */
export async function readBuffer(device: GPUDevice, src: GPUBuffer, byteLength = src.size, srcOffset = 0): Promise<ArrayBuffer> {
  const staging = device.createBuffer({ label: 'readBuffer.staging', size: byteLength, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const enc = device.createCommandEncoder({ label: 'readBuffer.encoder' });
  enc.copyBufferToBuffer(src, srcOffset, staging, 0, byteLength);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = staging.getMappedRange().slice(0);
  staging.unmap();
  staging.destroy();
  return out;
}
