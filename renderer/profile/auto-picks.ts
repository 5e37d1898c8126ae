/**
 * What `auto` (the sort's and the draw's) picked, by adapter and scene size, so
 * that a scene of a size measured already is not measured again: not after the
 * next scene, not after a cancelled load, not on the next visit (kept in a
 * key-value store: the page's localStorage). Sizes within a factor of sqrt(2) share
 * a pick (countBucket): the timings of 1.0M and 1.1M splats rank the same way.
 * Pure apart from the store it is given; no DOM.
 */

/** The part of Storage used here (localStorage has it; tests pass a Map-backed one). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** What the adapter is, as the page knows it (GPUAdapterInfo's fields). */
export interface AdapterIdentity {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
}

/** One key per adapter: its vendor, architecture, device and description. */
export function adapterKey(info: AdapterIdentity): string {
  return [info.vendor, info.architecture, info.device, info.description].map((s) => (s ?? '').trim()).join('|');
}

/** Scene sizes in the same bucket share a pick: buckets a factor of sqrt(2) wide. */
export function countBucket(count: number): number {
  if (!(count >= 1)) return 0;
  return Math.round(2 * Math.log2(count));
}

/** Bumped when what is stored changes shape: older entries are then ignored. */
const VERSION = 1;

/**
 * Picks of one kind ('sort' or 'draw') for one adapter, by scene size: in memory,
 * and in `store` when given (read once, written on every new pick). A stored value
 * that `valid` rejects (an older build's, a strategy this page no longer has) is
 * ignored. A store that throws (storage full, disabled) is treated as absent.
 */
export class AutoPicks<T> {
  private readonly picks = new Map<number, T>();
  private readonly key: string;

  constructor(
    kind: string,
    adapter: string,
    private readonly valid: (v: unknown) => v is T,
    private readonly store: KeyValueStore | null = null,
  ) {
    this.key = `splatview.auto.${kind}.v${VERSION}.${adapter}`;
    let saved: unknown = null;
    try {
      const text = store?.getItem(this.key);
      saved = text ? JSON.parse(text) : null;
    } catch {
      saved = null;
    }
    if (saved && typeof saved === 'object') {
      for (const [bucket, value] of Object.entries(saved as Record<string, unknown>)) {
        const b = Number(bucket);
        if (Number.isInteger(b) && this.valid(value)) this.picks.set(b, value);
      }
    }
  }

  /** The pick for a scene of `count` splats (or one of about its size), if any. */
  get(count: number): T | undefined {
    return this.picks.get(countBucket(count));
  }

  /**
   * The pick of the measured size nearest `count` (in buckets; a tie goes to the larger
   * size), with that size (about: the bucket's middle), or undefined when nothing was
   * measured on this adapter. A start for a size not measured yet, not a pick for it.
   */
  nearest(count: number): { count: number; value: T } | undefined {
    const want = countBucket(count);
    let best: number | null = null;
    for (const b of this.picks.keys()) {
      if (best === null || Math.abs(b - want) < Math.abs(best - want) || (Math.abs(b - want) === Math.abs(best - want) && b > best)) best = b;
    }
    return best === null ? undefined : { count: Math.round(2 ** (best / 2)), value: this.picks.get(best)! };
  }

  set(count: number, value: T): void {
    this.picks.set(countBucket(count), value);
    if (!this.store) return;
    try {
      this.store.setItem(this.key, JSON.stringify(Object.fromEntries(this.picks)));
    } catch {
      // Storage full or disabled: the pick stays for this visit.
    }
  }

  /** Forgets every pick (memory and store): e.g. the user asked to measure again. */
  clear(): void {
    this.picks.clear();
    try {
      this.store?.setItem(this.key, '{}');
    } catch {
      // as in set
    }
  }
}

/** What both autos' picks hold (auto-strategy.ts AutoChoice, auto-draw.ts DrawChoice). */
export interface PickShape {
  name: string;
  ms: number;
  reason: string;
  ranked: { name: string; ms: number }[];
}

/** Whether `v` has the shape of a pick (name, ms, reason, ranked), its name among `names`. */
export function isPickOf<T extends PickShape = PickShape>(names: readonly string[]): (v: unknown) => v is T {
  return (v: unknown): v is T => {
    if (!v || typeof v !== 'object') return false;
    const o = v as Record<string, unknown>;
    return (
      typeof o.name === 'string' &&
      names.includes(o.name) &&
      typeof o.ms === 'number' &&
      typeof o.reason === 'string' &&
      Array.isArray(o.ranked) &&
      o.ranked.every((r: unknown) => !!r && typeof r === 'object' && typeof (r as { name?: unknown }).name === 'string' && typeof (r as { ms?: unknown }).ms === 'number')
    );
  };
}
