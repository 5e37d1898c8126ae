/**
 * GPU memory of the benchmark's own buffers: wraps device.createBuffer and each
 * buffer's destroy() to count the bytes alive and their peak. WebGPU reports no
 * memory use of its own; what the program allocates is what it holds (textures and
 * the driver's own overhead are not counted).
 */
export interface GpuMemoryMeter {
  /** Bytes of buffers created and not destroyed. */
  readonly live: number;
  /** The most bytes alive at once since the last resetPeak(). */
  readonly peak: number;
  resetPeak(): void;
}

export function meterGpuMemory(device: GPUDevice): GpuMemoryMeter {
  let live = 0;
  let peak = 0;
  const create = device.createBuffer.bind(device);
  device.createBuffer = (descriptor: GPUBufferDescriptor): GPUBuffer => {
    const buffer = create(descriptor);
    const size = descriptor.size;
    live += size;
    peak = Math.max(peak, live);
    const destroy = buffer.destroy.bind(buffer);
    let alive = true;
    buffer.destroy = () => {
      if (alive) live -= size;
      alive = false;
      destroy();
    };
    return buffer;
  };
  return {
    get live() {
      return live;
    },
    get peak() {
      return peak;
    },
    resetPeak() {
      peak = live;
    },
  };
}

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
