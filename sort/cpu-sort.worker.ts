/// <reference lib="webworker" />
/** The `cpu` strategy's worker: sorts keys to an order with CpuRadixSorter and transfers it back. */
import { CpuRadixSorter } from './cpu-sort';

const sorter = new CpuRadixSorter();

self.onmessage = (e: MessageEvent<{ id: number; keys: Uint32Array; count: number; keyBits: number }>) => {
  const { id, keys, count, keyBits } = e.data;
  const order = sorter.sortToOrder(keys, count, keyBits, new Uint32Array(count));
  (self as unknown as DedicatedWorkerGlobalScope).postMessage({ id, order }, [order.buffer]);
};
