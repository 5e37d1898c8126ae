import { describe, expect, it } from 'vitest';
import { adapterKey, AutoPicks, countBucket, isPickOf, type KeyValueStore } from './auto-picks';

function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

const valid = isPickOf(['radix4', 'radix16', 'onesweep']);
const pick = (name: string, ms = 1) => ({ name, ms, reason: `${name}: fastest`, ranked: [{ name, ms }] });

describe('AutoPicks: no new trial for a scene size measured on this adapter', () => {
  it('sizes within a factor of sqrt(2) share a bucket; 2x apart do not', () => {
    expect(countBucket(1_000_000)).toBe(countBucket(1_100_000));
    expect(countBucket(60_000)).not.toBe(countBucket(120_000));
    expect(countBucket(0)).toBe(0);
  });

  it('remembers by size, in memory and across visits (the store)', () => {
    const store = memoryStore();
    const a = new AutoPicks('sort', 'swiftshader', valid, store);
    expect(a.get(60_000)).toBeUndefined();
    a.set(60_000, pick('radix16'));
    expect(a.get(61_000)?.name).toBe('radix16');
    expect(a.get(1_000_000)).toBeUndefined();
    // The next visit reads it back.
    const b = new AutoPicks('sort', 'swiftshader', valid, store);
    expect(b.get(60_000)).toEqual(pick('radix16'));
    // Another adapter, or the draw's picks, are kept apart.
    expect(new AutoPicks('sort', 'h100', valid, store).get(60_000)).toBeUndefined();
    expect(new AutoPicks('draw', 'swiftshader', valid, store).get(60_000)).toBeUndefined();
    b.clear();
    expect(new AutoPicks('sort', 'swiftshader', valid, store).get(60_000)).toBeUndefined();
  });

  it('nearest: the pick at the nearest measured size (a tie to the larger), with that size', () => {
    const a = new AutoPicks('sort', 'swiftshader', valid);
    expect(a.nearest(60_000)).toBeUndefined();
    a.set(10_000, pick('radix16'));
    a.set(1_000_000, pick('onesweep'));
    expect(a.nearest(60_000)?.value.name).toBe('radix16'); // 6x from 10,000, 17x from 1,000,000
    expect(a.nearest(400_000)?.value.name).toBe('onesweep');
    const b = new AutoPicks('sort', 'swiftshader', valid);
    b.set(10_000, pick('radix16')); // bucket 27
    b.set(160_000, pick('onesweep')); // bucket 35
    expect(countBucket(46_341)).toBe(31);
    expect(b.nearest(46_341)?.value.name).toBe('onesweep'); // 4 buckets either way: the larger
    const n = a.nearest(12_000)!;
    expect(n.count / 10_000).toBeGreaterThan(Math.SQRT1_2);
    expect(n.count / 10_000).toBeLessThan(Math.SQRT2);
  });

  it('ignores stored values of the wrong shape or of strategies this page lacks, and a store that throws', () => {
    const store = memoryStore();
    const a = new AutoPicks('sort', 'x', valid, store);
    a.set(1000, pick('radix4'));
    const key = [...store.data.keys()][0]!;
    const saved = JSON.parse(store.data.get(key)!);
    store.data.set(key, JSON.stringify({ ...saved, 40: pick('gone-sort'), 41: { name: 'radix4' }, x: pick('radix4') }));
    const b = new AutoPicks('sort', 'x', valid, store);
    expect(b.get(1000)?.name).toBe('radix4');
    expect(b.get(2 ** 20)).toBeUndefined(); // bucket 40
    expect(b.get(2 ** 20.5)).toBeUndefined(); // bucket 41
    store.data.set(key, 'not json');
    expect(new AutoPicks('sort', 'x', valid, store).get(1000)).toBeUndefined();
    const broken: KeyValueStore = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('full');
      },
    };
    const c = new AutoPicks('sort', 'x', valid, broken);
    c.set(1000, pick('radix4'));
    expect(c.get(1000)?.name).toBe('radix4'); // kept for the visit
  });

  it('adapterKey: one key per adapter identity', () => {
    expect(adapterKey({ vendor: 'google', architecture: 'swiftshader', description: '' })).toBe('google|swiftshader||');
    expect(adapterKey({})).toBe('|||');
  });
});
