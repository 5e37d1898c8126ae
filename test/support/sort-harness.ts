/**
 * A generic GPU sort test harness, for any SorterFactory (radix16, bitonic, ...): seeded
 * key shapes, one case = one sort inside validation error scopes, checked against the CPU
 * reference, every buffer freed. Stable sorters must match the stable reference exactly
 * (keys and values = original indices, so stability is checked through the values);
 * unstable ones must output a permutation of the input pairs with keys ascending.
 * Either way the pairs past the live count must come back untouched.
 */
import { expect } from 'vitest';
import { readBuffer } from '../../renderer/gpu/node-gpu';
import { checkSortedPairs, keyMask, seededRandom } from '../../sort/cpu-reference';
import type { GpuSorter, SorterFactory } from '../../sort/types';
import { sortBufferUsage } from '../../sort/types';
import { withValidation } from './gpu';

export type SortKeyShape = 'equal' | 'sorted' | 'reversed' | 'random' | 'depths' | 'few';
export const SORT_KEY_SHAPES: readonly SortKeyShape[] = ['equal', 'sorted', 'reversed', 'random', 'depths', 'few'];

/**
 * `capacity` keys of a shape (seeded by shape and size). Every shape but 'equal' gets
 * random garbage above `keyBits`, which the sort must ignore and keep.
 */
export function makeSortKeys(shape: SortKeyShape, capacity: number, keyBits = 32, seed = 1): Uint32Array<ArrayBuffer> {
  const next = seededRandom(capacity * 977 + seed * 131 + SORT_KEY_SHAPES.indexOf(shape));
  const mask = keyMask(keyBits);
  const keys = new Uint32Array(capacity);
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  for (let i = 0; i < capacity; i++) {
    let k: number;
    switch (shape) {
      case 'equal': k = 0x9e3779b9; break;
      case 'sorted': k = Math.floor((i * mask) / capacity); break;
      case 'reversed': k = Math.floor(((capacity - i) * mask) / capacity); break;
      case 'random': k = next(); break;
      case 'few': k = next() % 5; break; // heavy duplicates: stability shows
      case 'depths':
        // Splat view depths in 1..41 quantised to 1/64 (many exact duplicates), keyed far
        // first as the viewer does: 0xFFFFFFFF - float bits, then cut to keyBits.
        f32[0] = 1 + Math.floor((next() / 2 ** 32) * 40 * 64) / 64;
        k = (0xffffffff - u32[0]!) >>> (32 - keyBits);
        break;
    }
    keys[i] = shape === 'equal' ? k : (((k & mask) | (next() & ~mask)) >>> 0);
  }
  return keys;
}

export interface SortCase {
  /** Keys (their length is the capacity of the buffers and the sorter). */
  keys: Uint32Array<ArrayBuffer>;
  /**
   * Values (default: the indices, so that the stable reference checks stability). Only
   * for unstable sorters: with other values the stable reference is no longer unique.
   */
  values?: Uint32Array<ArrayBuffer>;
  /** Live count written on the GPU (default: all keys; above the capacity: clamped). */
  count?: number;
  keyBits?: number;
  /** Byte offset of the count in its buffer (default 4). */
  countOffset?: number;
  /** Sort the same job this many times, rewriting the input in between (cached bindings). */
  repeat?: number;
  /** A label for failure messages. */
  label?: string;
}

/**
 * Checks an unstable sorter's output: keys ascending by `key & mask`, and the pairs a
 * permutation of the input pairs. Returns a message on failure, or undefined.
 */
export function checkPermutationSorted(
  inKeys: Uint32Array,
  inValues: Uint32Array,
  outKeys: Uint32Array,
  outValues: Uint32Array,
  keyBits: number,
): string | undefined {
  const n = inKeys.length;
  const mask = keyMask(keyBits);
  for (let i = 1; i < n; i++) {
    if (((outKeys[i - 1]! & mask) >>> 0) > ((outKeys[i]! & mask) >>> 0)) {
      return `keys out of order at ${i} of ${n}: ${outKeys[i - 1]} then ${outKeys[i]}`;
    }
  }
  const pairs = (k: Uint32Array, v: Uint32Array) => {
    const a = new BigUint64Array(n);
    for (let i = 0; i < n; i++) a[i] = (BigInt(k[i]!) << 32n) | BigInt(v[i]!);
    return a.sort();
  };
  const want = pairs(inKeys, inValues);
  const got = pairs(outKeys.subarray(0, n), outValues.subarray(0, n));
  for (let i = 0; i < n; i++) {
    if (want[i] !== got[i]) return `output is not a permutation of the input pairs (sorted pair ${i} of ${n} differs)`;
  }
  return undefined;
}

/**
 * Checks a sort's output against its input (see the module comment): the stable
 * reference exactly for a stable sorter, a sorted permutation otherwise, the pairs past
 * the `live` count untouched.
 */
export function expectSorted(
  stable: boolean,
  input: { keys: Uint32Array; values: Uint32Array; live: number; keyBits: number },
  outKeys: Uint32Array,
  outValues: Uint32Array,
  label: string,
): void {
  const { keys, values, live, keyBits } = input;
  const inKeys = keys.subarray(0, live);
  const inValues = values.subarray(0, live);
  if (stable) {
    const check = checkSortedPairs(inKeys, inValues, outKeys, outValues, keyBits);
    expect(check.ok, `${label}: ${check.message}`).toBe(true);
  } else {
    const problem = checkPermutationSorted(inKeys, inValues, outKeys, outValues, keyBits);
    expect(problem, `${label}: ${problem}`).toBeUndefined();
  }
  const restKeys = outKeys.subarray(live).every((k, i) => k === keys[live + i]);
  const restValues = outValues.subarray(live).every((v, i) => v === values[live + i]);
  expect(restKeys && restValues, `${label}: pairs past the live count were modified`).toBe(true);
}

/**
 * Sorts one case with `factory` on `device` inside validation scopes and checks it (see
 * the module comment). The sorter is created for the keys' length and destroyed after.
 */
export async function runSortCase(device: GPUDevice, factory: SorterFactory, c: SortCase): Promise<void> {
  const capacity = c.keys.length;
  const keyBits = c.keyBits ?? 32;
  const countOffset = c.countOffset ?? 4;
  const liveCount = c.count ?? capacity;
  const live = Math.min(liveCount, capacity);
  const label = `${factory.name} ${c.label ?? ''} capacity=${capacity} count=${liveCount} keyBits=${keyBits}`;
  const keys = c.keys;
  const values = c.values ?? Uint32Array.from({ length: capacity }, (_, i) => i);
  if (values.length !== capacity) throw new RangeError('runSortCase: keys and values differ in length');
  await withValidation(device, async () => {
    const usage = sortBufferUsage();
    let sorter: GpuSorter | undefined;
    const keyBuffer = device.createBuffer({ label: 'test.keys', size: capacity * 4, usage });
    const valueBuffer = device.createBuffer({ label: 'test.values', size: capacity * 4, usage });
    const countBuffer = device.createBuffer({ label: 'test.count', size: countOffset + 64, usage });
    try {
      sorter = factory.create(device, capacity);
      const counts = new Uint32Array(countOffset / 4 + 16).fill(0xdeadbeef);
      counts[countOffset / 4] = liveCount;
      device.queue.writeBuffer(countBuffer, 0, counts);
      for (let r = 0; r < (c.repeat ?? 1); r++) {
        device.queue.writeBuffer(keyBuffer, 0, keys);
        device.queue.writeBuffer(valueBuffer, 0, values);
        const encoder = device.createCommandEncoder({ label: 'test.encoder' });
        sorter.encode(encoder, { keys: keyBuffer, values: valueBuffer, count: countBuffer, countOffset, keyBits });
        device.queue.submit([encoder.finish()]);
        const outKeys = new Uint32Array(await readBuffer(device, keyBuffer));
        const outValues = new Uint32Array(await readBuffer(device, valueBuffer));
        expectSorted(factory.stable, { keys, values, live, keyBits }, outKeys, outValues, label);
      }
    } finally {
      sorter?.destroy();
      for (const b of [keyBuffer, valueBuffer, countBuffer]) b.destroy();
    }
  });
}

/**
 * Every sorter refuses a bad job on the CPU, before recording anything: keys or values
 * smaller than the capacity, keyBits outside 1..32, a count offset outside the count
 * buffer, and a capacity of 0.
 */
export function expectBadJobsRefused(device: GPUDevice, create: (capacity: number) => GpuSorter): void {
  const sorter = create(1024);
  const usage = GPUBufferUsage.STORAGE;
  const small = device.createBuffer({ label: 'badJobs.small', size: 1024, usage });
  const big = device.createBuffer({ label: 'badJobs.big', size: 4096, usage });
  const count = device.createBuffer({ label: 'badJobs.count', size: 16, usage });
  const enc = device.createCommandEncoder();
  try {
    expect(() => sorter.encode(enc, { keys: small, values: big, count, keyBits: 32 })).toThrow(/job.keys/);
    expect(() => sorter.encode(enc, { keys: big, values: small, count, keyBits: 32 })).toThrow(/job.values/);
    expect(() => sorter.encode(enc, { keys: big, values: big, count, keyBits: 0 })).toThrow(/keyBits/);
    expect(() => sorter.encode(enc, { keys: big, values: big, count, keyBits: 33 })).toThrow(/keyBits/);
    expect(() => sorter.encode(enc, { keys: big, values: big, count, countOffset: 16, keyBits: 32 })).toThrow(/countOffset/);
    expect(() => create(0)).toThrow(/capacity/);
  } finally {
    for (const b of [small, big, count]) b.destroy();
    sorter.destroy();
  }
}
