/**
 * The scaffolding every GPU sorter shares: the capacity check, the scratch buffers (a
 * keys and a values buffer of the sorter's own) and the other buffers it owns and frees,
 * the job binding cache, the one compute pass a sort records, and the factory that lists
 * a strategy. A sorter adds its kernels, its pass sequence and its job bindings.
 */
import { compileAhead, deviceShortfall, type DeviceNeeds } from './kernel-kit.ts';
import { type CountWindow, JobCache, jobCountWindow, passTimestampWrites } from './sort-job.ts';
import type { GpuSorter, SorterFactory, SortJob, SortTimestamps } from './types.ts';

/** Throws unless `pairs` (default: the capacity) fit this device's buffers; `capacity` must be a positive integer. */
export function checkCapacity(label: string, device: GPUDevice, capacity: number, pairs = capacity): void {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`${label}: capacity must be a positive integer, got ${capacity}`);
  }
  const maxBytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  if (pairs * 4 > maxBytes) {
    const what = pairs === capacity ? `capacity ${capacity} needs` : `capacity ${capacity} pads to ${pairs} pairs,`;
    throw new RangeError(`${label}: ${what} ${pairs * 4} bytes per buffer; this device binds at most ${maxBytes}`);
  }
}

/** What a sorter makes for a job: its prepare uniform and its bind groups. */
export interface JobMade<B> {
  info: GPUBuffer;
  bindings: B;
}

export abstract class SorterBase<B> implements GpuSorter {
  readonly name: string;
  readonly capacity: number;

  protected readonly device: GPUDevice;
  /** The class name, for labels and errors ('Radix4Sorter'). */
  protected readonly label: string;
  /** The sorter's own keys and values (scratch), `scratchPairs` each. */
  protected readonly keysB: GPUBuffer;
  protected readonly valuesB: GPUBuffer;
  private readonly owned: GPUBuffer[] = [];
  private readonly jobs = new JobCache<B>();

  protected constructor(device: GPUDevice, label: string, name: string, capacity: number, scratchPairs = capacity) {
    this.device = device;
    this.label = label;
    this.name = name;
    this.capacity = capacity;
    this.keysB = this.buffer('keysB', scratchPairs * 4, GPUBufferUsage.STORAGE);
    this.valuesB = this.buffer('valuesB', scratchPairs * 4, GPUBufferUsage.STORAGE);
  }

  abstract encode(encoder: GPUCommandEncoder, job: SortJob, timestamps?: SortTimestamps): void;

  destroy(): void {
    for (const b of this.owned) b.destroy();
    this.jobs.clear();
  }

  /** A buffer the sorter owns (freed by destroy), labelled `${label}.${member}`. */
  protected buffer(member: string, size: number, usage: GPUBufferUsageFlags): GPUBuffer {
    return this.own(this.device.createBuffer({ label: `${this.label}.${member}`, size, usage }));
  }

  /** Takes `buffer` into the sorter's keeping (freed by destroy). */
  protected own(buffer: GPUBuffer): GPUBuffer {
    this.owned.push(buffer);
    return buffer;
  }

  /** The sort's one compute pass, with the caller's timestamps around it. */
  protected beginPass(encoder: GPUCommandEncoder, timestamps: SortTimestamps | undefined): GPUComputePassEncoder {
    return encoder.beginComputePass({ label: `${this.label}.computePass`, timestampWrites: passTimestampWrites(timestamps) });
  }

  /**
   * The bindings of `job`, made by `make` (given where the job's count is) the first
   * time the job's buffers and count offset are seen; `byKeyBits`: per key width too.
   * Checks the job against the capacity first (RangeError naming the bad field).
   */
  protected jobBindings(job: SortJob, make: (window: CountWindow) => JobMade<B>, byKeyBits = false): B {
    const entry = this.jobs.get(job, () => {
      const window = jobCountWindow(this.label, this.device, job, this.capacity);
      const made = make(window);
      return {
        keys: job.keys,
        values: job.values,
        count: job.count,
        countOffset: window.countOffset,
        ...(byKeyBits ? { keyBits: job.keyBits } : {}),
        info: made.info,
        bindings: made.bindings,
      };
    });
    return entry.bindings;
  }
}

/** How a strategy is listed: everything of a SorterFactory but `supported`, from `needs`. */
export interface FactorySpec {
  name: string;
  description: string;
  stable: boolean;
  /** What the kernels need of `device`, or why they cannot run there (one line). */
  needs(device: GPUDevice): DeviceNeeds | string;
  create(device: GPUDevice, capacity: number): GpuSorter;
}

/** A SorterFactory whose `supported` and `unsupportedReason` follow `spec.needs`. */
export function sorterFactory(spec: FactorySpec): SorterFactory {
  const unsupportedReason = (device: GPUDevice): string | undefined => {
    const needs = spec.needs(device);
    return typeof needs === 'string' ? needs : deviceShortfall(device, needs);
  };
  return {
    name: spec.name,
    description: spec.description,
    stable: spec.stable,
    supported: (device) => unsupportedReason(device) === undefined,
    unsupportedReason,
    create: (device, capacity) => spec.create(device, capacity),
    // A sorter made and destroyed while its pipelines start compiling (it never encodes).
    compileAhead: (device, capacity) => compileAhead(device, () => spec.create(device, capacity).destroy()),
  };
}
