/**
 * The `cpu` strategy's sort: what the WebGL viewers do. A stable LSD radix sort of
 * u32 keys on the CPU that returns the permutation (the ids in key order), with
 * 16-bit digits so that 32-bit keys take two passes over the data. Buffers are
 * kept between calls: a frame-by-frame sort must not allocate.
 *
 * Kept apart from cpu-reference.ts on purpose: the reference that checks the GPU
 * sorters stays a plain independent implementation.
 */
export class CpuRadixSorter {
  private counts = new Uint32Array(1 << 16);
  private tmpKeys = new Uint32Array(0);
  private tmpIds = new Uint32Array(0);
  private keysA = new Uint32Array(0);

  /**
   * Sorts `keys[0..count)` ascending by their low `keyBits` bits; returns the ids
   * (indices into `keys`) in sorted order, written into `out` (grown if needed).
   */
  sortToOrder(keys: Uint32Array, count: number, keyBits: number, out?: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
    if (count > keys.length) throw new RangeError(`CpuRadixSorter: count ${count} > ${keys.length} keys`);
    const order = out && out.length >= count ? out : new Uint32Array(count);
    if (this.tmpKeys.length < count) {
      this.tmpKeys = new Uint32Array(count);
      this.tmpIds = new Uint32Array(count);
      this.keysA = new Uint32Array(count);
    }
    const mask = keyBits >= 32 ? 0xffffffff : ((1 << keyBits) - 1) >>> 0;
    let srcK = this.keysA;
    let srcI = order;
    for (let i = 0; i < count; i++) {
      srcK[i] = (keys[i] & mask) >>> 0;
      srcI[i] = i;
    }
    let dstK = this.tmpKeys;
    let dstI = this.tmpIds;
    const counts = this.counts;
    const passes = Math.ceil(Math.min(32, keyBits) / 16);
    for (let p = 0; p < passes; p++) {
      const shift = 16 * p;
      const bits = Math.min(16, keyBits - shift);
      const bins = 1 << bits;
      const dmask = bins - 1;
      counts.fill(0, 0, bins);
      for (let i = 0; i < count; i++) counts[(srcK[i] >>> shift) & dmask]++;
      let sum = 0;
      for (let d = 0; d < bins; d++) {
        const c = counts[d];
        counts[d] = sum;
        sum += c;
      }
      for (let i = 0; i < count; i++) {
        const k = srcK[i];
        const at = counts[(k >>> shift) & dmask]++;
        dstK[at] = k;
        dstI[at] = srcI[i];
      }
      [srcK, dstK] = [dstK, srcK];
      [srcI, dstI] = [dstI, srcI];
    }
    // An odd pass count leaves the result in the scratch ids.
    if (srcI !== order) order.set(srcI.subarray(0, count));
    return order;
  }
}

/** Sorts keys to an order off the calling thread where it can (a Worker in the browser). */
export interface CpuSortClient {
  /** Resolves with the ids in ascending key order. `keys` may be transferred (unusable afterwards). */
  sort(keys: Uint32Array, count: number, keyBits: number): Promise<Uint32Array>;
  /** True when the sort runs on another thread. */
  readonly offThread: boolean;
  destroy(): void;
}

/** Runs the sort on the calling thread (Node, tests, or where Workers are unavailable). */
export class InlineCpuSort implements CpuSortClient {
  readonly offThread = false;
  private readonly sorter = new CpuRadixSorter();
  sort(keys: Uint32Array, count: number, keyBits: number): Promise<Uint32Array> {
    return Promise.resolve(this.sorter.sortToOrder(keys, count, keyBits, new Uint32Array(count)));
  }
  destroy(): void {}
}

interface WorkerReply {
  id: number;
  order: Uint32Array;
}

/** Runs the sort in a module Web Worker (sort/cpu-sort.worker.ts); keys and order are transferred. */
export class WorkerCpuSort implements CpuSortClient {
  readonly offThread = true;
  private readonly worker: Worker;
  private next = 0;
  private readonly pending = new Map<number, (order: Uint32Array) => void>();

  constructor() {
    this.worker = new Worker(new URL('./cpu-sort.worker.ts', import.meta.url), { type: 'module', name: 'cpu-sort' });
    this.worker.onmessage = (e: MessageEvent<WorkerReply>) => {
      const done = this.pending.get(e.data.id);
      this.pending.delete(e.data.id);
      done?.(e.data.order);
    };
  }

  sort(keys: Uint32Array, count: number, keyBits: number): Promise<Uint32Array> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, keys, count, keyBits }, [keys.buffer]);
    });
  }

  destroy(): void {
    this.worker.terminate();
    this.pending.clear();
  }
}

/** A Worker-backed client in the browser, inline elsewhere. */
export function createCpuSortClient(): CpuSortClient {
  const inBrowser = typeof Worker !== 'undefined'; // Node has no global Worker
  return inBrowser ? new WorkerCpuSort() : new InlineCpuSort();
}
