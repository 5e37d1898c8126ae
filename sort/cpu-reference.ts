/**
 * The CPU reference for the GPU sorters: a stable sort of u32 key/value pairs by the
 * low `keyBits` bits of the key (an LSD counting sort, 8 bits a pass), a checker that
 * compares a sorter's output with it, and the seeded generator the tests and bench:sort
 * draw keys from. Bits above keyBits are ignored by the order and kept in the output,
 * as the GPU sorters do.
 */

/** The mask of the low `keyBits` bits (1..32). */
export function keyMask(keyBits: number): number {
  return keyBits >= 32 ? 0xffffffff : (1 << keyBits) - 1 >>> 0;
}

/** Sorts pairs ascending by `key & keyMask(keyBits)`, stable. Returns new arrays. */
export function cpuSortPairs(
  keys: Uint32Array,
  values: Uint32Array,
  keyBits = 32,
): { keys: Uint32Array; values: Uint32Array } {
  if (keys.length !== values.length) throw new RangeError('cpuSortPairs: keys and values differ in length');
  const n = keys.length;
  const mask = keyMask(keyBits);
  let k = Uint32Array.from(keys);
  let v = Uint32Array.from(values);
  let k2 = new Uint32Array(n);
  let v2 = new Uint32Array(n);
  const counts = new Uint32Array(256);
  for (let shift = 0; shift < keyBits; shift += 8) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((k[i]! & mask) >>> shift) & 0xff]!++;
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const dst = counts[((k[i]! & mask) >>> shift) & 0xff]!++;
      k2[dst] = k[i]!;
      v2[dst] = v[i]!;
    }
    [k, k2] = [k2, k];
    [v, v2] = [v2, v];
  }
  return { keys: k, values: v };
}

export interface SortCheck {
  ok: boolean;
  /** First index where the output differs from the reference, or -1. */
  firstMismatch: number;
  /** One line for logs and assertion messages. */
  message: string;
}

/**
 * Checks a sorter's output against the stable CPU reference: with stability the
 * expected output is unique, so keys and values must match exactly.
 */
export function checkSortedPairs(
  inputKeys: Uint32Array,
  inputValues: Uint32Array,
  outKeys: Uint32Array,
  outValues: Uint32Array,
  keyBits = 32,
): SortCheck {
  const n = inputKeys.length;
  if (outKeys.length < n || outValues.length < n) {
    return { ok: false, firstMismatch: 0, message: `output holds ${Math.min(outKeys.length, outValues.length)} pairs, expected ${n}` };
  }
  const ref = cpuSortPairs(inputKeys, inputValues, keyBits);
  for (let i = 0; i < n; i++) {
    if (outKeys[i] !== ref.keys[i] || outValues[i] !== ref.values[i]) {
      return {
        ok: false,
        firstMismatch: i,
        message: `pair ${i} of ${n}: got (key ${outKeys[i]}, value ${outValues[i]}), expected (key ${ref.keys[i]}, value ${ref.values[i]})`,
      };
    }
  }
  return { ok: true, firstMismatch: -1, message: `${n} pairs sorted and stable` };
}

/** A seeded generator of u32 values (mulberry32): the same keys on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
