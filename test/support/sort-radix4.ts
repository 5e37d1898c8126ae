/** Helpers of the radix4 GPU tests (lavapipe and SwiftShader projects). */
import { expect } from 'vitest';
import { readBuffer } from '../../renderer/gpu/node-gpu';
import { checkSortedPairs, seededRandom } from '../../sort/cpu-reference';
import { Radix4Sorter, type Radix4Options } from '../../sort/radix4';
import { sortBufferUsage } from '../../sort/types';
import { withValidation } from './gpu';

export type KeyShape = 'equal' | 'sorted' | 'reversed' | 'random' | 'depths';

/** Keys of a shape, seeded; `capacity` keys of which the first `count` are live. */
export interface ShapedKeys {
  shape: KeyShape;
  keys: Uint32Array<ArrayBuffer>;
  count: number;
}

export function shapedKeys(shape: KeyShape, capacity: number, count: number): ShapedKeys {
  const next = seededRandom(capacity * 31 + count);
  const keys = new Uint32Array(capacity);
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  for (let i = 0; i < capacity; i++) {
    switch (shape) {
      case 'equal': keys[i] = 0x9e3779b9; break;
      case 'sorted': keys[i] = Math.floor((i * 0xffffffff) / capacity) >>> 0; break;
      case 'reversed': keys[i] = Math.floor(((capacity - i) * 0xffffffff) / capacity) >>> 0; break;
      case 'random': keys[i] = next(); break;
      case 'depths':
        // Splat view depths in 1..41 quantised to 1/64: many exact duplicates, many near
        // ones; as the viewer keys them, far first: 0xFFFFFFFF - float bits.
        f32[0] = 1 + Math.floor((next() / 2 ** 32) * 40 * 64) / 64;
        keys[i] = (0xffffffff - u32[0]!) >>> 0;
        break;
    }
  }
  return { shape, keys, count };
}

export interface Radix4Case {
  keys: ShapedKeys;
  keyBits?: number;
  options?: Radix4Options;
  /** Byte offset of the count in its buffer (default 4). */
  countOffset?: number;
  /** The count written on the GPU, if not keys.count (above the capacity: clamped). */
  liveCount?: number;
  /** Sort the same job this many times (the input is rewritten in between). */
  repeat?: number;
}

/**
 * Sorts one case on the GPU inside a validation scope, checks the first count pairs
 * against the CPU reference (stable: exact keys and values) and the rest untouched,
 * and frees every buffer.
 */
export async function runRadix4(device: GPUDevice, c: Radix4Case): Promise<void> {
  const { keys, count } = c.keys;
  const capacity = keys.length;
  const keyBits = c.keyBits ?? 32;
  const countOffset = c.countOffset ?? 4;
  const label = `${c.keys.shape} capacity=${capacity} count=${count} keyBits=${keyBits} ${JSON.stringify(c.options ?? {})}`;
  // Keys wider than keyBits carry random high bits that the sort must ignore.
  const values = Uint32Array.from({ length: capacity }, (_, i) => i);
  await withValidation(device, async () => {
    const sorter = new Radix4Sorter(device, capacity, c.options);
    const usage = sortBufferUsage();
    const keyBuffer = device.createBuffer({ label: 'test.keys', size: capacity * 4, usage });
    const valueBuffer = device.createBuffer({ label: 'test.values', size: capacity * 4, usage });
    const countBuffer = device.createBuffer({ label: 'test.count', size: countOffset + 64, usage });
    try {
      const counts = new Uint32Array(countOffset / 4 + 16).fill(0xdeadbeef);
      counts[countOffset / 4] = c.liveCount ?? count;
      device.queue.writeBuffer(countBuffer, 0, counts);
      for (let r = 0; r < (c.repeat ?? 1); r++) {
        device.queue.writeBuffer(keyBuffer, 0, keys);
        device.queue.writeBuffer(valueBuffer, 0, values);
        const encoder = device.createCommandEncoder({ label: 'test.encoder' });
        sorter.encode(encoder, { keys: keyBuffer, values: valueBuffer, count: countBuffer, countOffset, keyBits });
        device.queue.submit([encoder.finish()]);
        const outKeys = new Uint32Array(await readBuffer(device, keyBuffer));
        const outValues = new Uint32Array(await readBuffer(device, valueBuffer));
        const live = Math.min(c.liveCount ?? count, capacity);
        const check = checkSortedPairs(keys.subarray(0, live), values.subarray(0, live), outKeys, outValues, keyBits);
        expect(check.ok, `${label}: ${check.message}`).toBe(true);
        const restKeys = outKeys.subarray(live).every((k, i) => k === keys[live + i]);
        const restValues = outValues.subarray(live).every((v, i) => v === live + i);
        expect(restKeys && restValues, `${label}: pairs past the live count were modified`).toBe(true);
      }
    } finally {
      sorter.destroy();
      for (const b of [keyBuffer, valueBuffer, countBuffer]) b.destroy();
    }
  });
}
