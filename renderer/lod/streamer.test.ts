import { describe, expect, it } from 'vitest';
import { parseLodMeta, type LodMeta } from '../../scenes/lod-meta';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { selectLods, type LodLeafCounts } from './select';
import type { CompactDecode } from '../gpu-scene/compact-pack';
import { LodStreamer, type ChunkStore, type LoadedChunk } from './streamer';

/** n leaves along x (leaf i at x = 10 i), two levels: file i holds leaf i's level 0, file n + i its level 1. */
function lineOfLeaves(n: number, c0 = 100, c1 = 10): LodMeta {
  const filenames = Array.from({ length: 2 * n }, (_, f) => `${f < n ? 0 : 1}_${f % n}/meta.json`);
  const children = Array.from({ length: n }, (_, i) => ({
    bound: { min: [10 * i, 0, 0], max: [10 * i + 1, 1, 1] },
    lods: { 0: { file: i, offset: 0, count: c0 }, 1: { file: n + i, offset: 0, count: c1 } },
  }));
  const json = { version: 1, lodLevels: 2, counts: [n * c0, n * c1], filenames, tree: { bound: { min: [0, 0, 0], max: [10 * n, 1, 1] }, children } };
  return parseLodMeta(new TextEncoder().encode(JSON.stringify(json)), 'line');
}

const counts = (m: LodMeta): LodLeafCounts[] => m.leaves.map((l) => ({ bound: l.bound, counts: l.lods.map((r) => r?.count ?? 0) }));
const cloudOf = (count: number) => ({ count }) as SplatCloud;

/** A store that counts one byte a splat. */
class FakeStore implements ChunkStore {
  held = new Map<number, number>();
  get bytes() {
    return [...this.held.values()].reduce((a, b) => a + b, 0);
  }
  has(f: number) {
    return this.held.has(f);
  }
  add(f: number, c: LoadedChunk) {
    this.held.set(f, c.cloud.count);
  }
  packWith: CompactDecode | 'own' | null = null;
  remove(f: number) {
    this.held.delete(f);
  }
  bytesFor(n: number) {
    return n;
  }
}

/** Loads that settle when the test says, recording order and aborts. */
function manualLoader(meta: LodMeta) {
  const started: number[] = [];
  const aborted: number[] = [];
  const pending = new Map<number, { ok: () => void; fail: (e: unknown) => void }>();
  const packs: (CompactDecode | 'own' | null)[] = [];
  const load = (f: number, signal: AbortSignal, packWith: CompactDecode | 'own' | null) =>
    new Promise<LoadedChunk>((resolve, reject) => {
      started.push(f);
      packs.push(packWith);
      signal.addEventListener('abort', () => {
        aborted.push(f);
        reject(new Error('aborted'));
      });
      pending.set(f, { ok: () => resolve({ cloud: cloudOf(meta.files[f]!.splats), packed: null }), fail: reject });
    });
  return { load, started, aborted, pending, packs };
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const view = (x: number) => ({ eye: [x, 0.5, 0.5], viewProj: null, focalPx: 500 });

describe('LodStreamer', () => {
  it('loads nearest first, a leaf\'s coarsest level before its finer one, at most maxInFlight at once', async () => {
    const meta = lineOfLeaves(4);
    const store = new FakeStore();
    const { load, started, pending } = manualLoader(meta);
    const s = new LodStreamer(meta, store, load, { maxInFlight: 2 });
    const sel = selectLods(counts(meta), view(31), 1000);
    expect([...sel.levels]).toEqual([0, 0, 0, 0]);
    s.update(sel);
    // Coarse files (4..7) of the nearest leaves first: leaf 3 (x = 30), then leaf 2.
    expect(started).toEqual([7, 6]);
    expect(s.loading).toBe(2);
    pending.get(7)!.ok();
    await flush();
    expect(store.has(7)).toBe(true);
    s.update(sel);
    expect(started).toEqual([7, 6, 5]);
  });

  it('cancels a load no leaf wants any more', async () => {
    const meta = lineOfLeaves(4);
    const store = new FakeStore();
    const { load, aborted } = manualLoader(meta);
    const s = new LodStreamer(meta, store, load, { maxInFlight: 8 });
    s.update(selectLods(counts(meta), view(31), 1000));
    expect(s.loading).toBe(8);
    // A budget for the coarse levels only: the fine files' loads are dropped.
    s.update(selectLods(counts(meta), view(31), 40));
    expect(aborted.sort()).toEqual([0, 1, 2, 3]);
    expect(s.loading).toBe(4);
    expect(s.cancelled).toBe(4);
    await flush();
    expect(store.held.size).toBe(0);
  });

  it('evicts what is not wanted, least recently wanted first, to stay under the memory budget', async () => {
    const meta = lineOfLeaves(4);
    const store = new FakeStore();
    const { load, pending } = manualLoader(meta);
    const s = new LodStreamer(meta, store, load, { maxInFlight: 8, memoryBytes: 260 });
    const settle = async () => {
      for (const [f, p] of pending) {
        if (!store.has(f)) p.ok();
      }
      pending.clear();
      await flush();
    };
    // Near leaf 0: its fine file and every coarse file fit (100 + 40 bytes).
    const budget = 130;
    s.update(selectLods(counts(meta), view(-5), budget));
    await settle();
    expect([...store.held.keys()].sort((a, b) => a - b)).toEqual([0, 4, 5, 6, 7]);
    // Near leaf 3: its fine file is wanted; 0 is not, but fits beside it (240 <= 260).
    s.update(selectLods(counts(meta), view(36), budget));
    await settle();
    expect(store.has(3)).toBe(true);
    expect(store.has(0)).toBe(true);
    // Near leaf 1: 100 more bytes do not fit, 0 (wanted least recently) goes, 3 stays.
    s.update(selectLods(counts(meta), view(11), budget));
    expect(store.has(0)).toBe(false);
    await settle();
    expect(store.has(1) && store.has(3)).toBe(true);
    expect(store.bytes).toBeLessThanOrEqual(260);
  });

  it('does not start what would not fit the memory budget (starved), and does not retry a failed file', async () => {
    const meta = lineOfLeaves(2);
    const store = new FakeStore();
    const { load, started, pending } = manualLoader(meta);
    const errors: number[] = [];
    const s = new LodStreamer(meta, store, load, { memoryBytes: 120, onError: (f) => errors.push(f) });
    const sel = selectLods(counts(meta), view(0), 1000);
    s.update(sel);
    expect(started.sort()).toEqual([0, 2, 3]);
    expect(s.starved).toBe(1);
    pending.get(2)!.fail(new Error('bad file'));
    await flush();
    expect(errors).toEqual([2]);
    s.update(sel);
    expect(started.filter((f) => f === 2)).toHaveLength(1);
  });

  it("asks the loader to pack under the store's ranges once it has them (null before)", async () => {
    const meta = lineOfLeaves(4);
    const store = new FakeStore();
    const { load, pending, packs } = manualLoader(meta);
    const s = new LodStreamer(meta, store, load, { maxInFlight: 1 });
    s.update(selectLods(counts(meta), view(31), 1000));
    const ranges = { dcMin: [0, 0, 0], dcStep: [1, 1, 1], lsRange: [0, 1, 1], shRange: new Float32Array(48) } as CompactDecode;
    store.packWith = ranges;
    pending.get(7)!.ok();
    await flush();
    s.update(selectLods(counts(meta), view(31), 1000));
    expect(packs.length).toBeGreaterThanOrEqual(2);
    expect(packs[0]).toBeNull();
    expect(packs[1]).toBe(ranges);
  });

  it("'own': the first file loads alone, packed under its own ranges; once they are the store's, the rest load at once, packed under them", async () => {
    const meta = lineOfLeaves(4);
    const store = new FakeStore();
    store.packWith = 'own';
    const { load, started, pending, packs } = manualLoader(meta);
    const s = new LodStreamer(meta, store, load, { maxInFlight: 4 });
    const sel = selectLods(counts(meta), view(31), 1000);
    s.update(sel);
    s.update(sel);
    expect(started).toEqual([7]);
    expect(packs).toEqual(['own']);
    // The first file lands and fixes the store's ranges.
    const ranges = { dcMin: [0, 0, 0], dcStep: [1, 1, 1], lsRange: [0, 1, 1], shRange: new Float32Array(48) } as CompactDecode;
    store.packWith = ranges;
    pending.get(7)!.ok();
    await flush();
    s.update(sel);
    expect(started).toEqual([7, 6, 5, 4, 3]);
    expect(packs.slice(1)).toEqual([ranges, ranges, ranges, ranges]);
  });

  it("'own': a first load that fails lets the next file try", async () => {
    const meta = lineOfLeaves(2);
    const store = new FakeStore();
    store.packWith = 'own';
    const { load, started, pending } = manualLoader(meta);
    const s = new LodStreamer(meta, store, load, { maxInFlight: 4 });
    const sel = selectLods(counts(meta), view(11), 1000);
    s.update(sel);
    expect(started).toEqual([3]);
    pending.get(3)!.fail(new Error('bad file'));
    await flush();
    s.update(sel);
    expect(started).toEqual([3, 2]);
  });
});
