/**
 * The buffers a program makes on a device: wraps device.createBuffer and each
 * buffer's destroy() to count the buffers and bytes alive, the bytes' peak and the
 * buffers ever created. WebGPU reports no memory use of its own; what the program
 * allocates is what it holds (textures and the driver's own overhead are not
 * counted). bench:frame prints the bytes; GPU tests check that what was made is freed.
 */
export interface GpuMemoryMeter {
  /** Bytes of buffers created and not destroyed. */
  readonly live: number;
  /** The most bytes alive at once since the last resetPeak(). */
  readonly peak: number;
  /** Buffers created and not destroyed. */
  readonly liveBuffers: number;
  /** Buffers created since the meter was attached. */
  readonly created: number;
  resetPeak(): void;
  /** Puts the device's own createBuffer back (buffers made before keep their counted destroy). */
  restore(): void;
}

export function meterGpuMemory(device: GPUDevice): GpuMemoryMeter {
  let live = 0;
  let peak = 0;
  let liveBuffers = 0;
  let created = 0;
  const create = device.createBuffer.bind(device);
  device.createBuffer = (descriptor: GPUBufferDescriptor): GPUBuffer => {
    const buffer = create(descriptor);
    const size = descriptor.size;
    live += size;
    peak = Math.max(peak, live);
    liveBuffers++;
    created++;
    const destroy = buffer.destroy.bind(buffer);
    let alive = true;
    buffer.destroy = () => {
      if (alive) {
        live -= size;
        liveBuffers--;
      }
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
    get liveBuffers() {
      return liveBuffers;
    },
    get created() {
      return created;
    },
    resetPeak() {
      peak = live;
    },
    restore() {
      device.createBuffer = create;
    },
  };
}

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
