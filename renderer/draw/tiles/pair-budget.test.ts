import { describe, expect, it } from 'vitest';
import { PairBudget, SHRINK_AFTER } from './pair-budget';

const count = (needed: number, kept: number, wrapped = false) => ({ needed, kept, wrapped, visible: 1 });
const fallback = (needed: number, visible: number) => ({ needed, kept: visible, wrapped: false, visible, fallback: true });

describe('PairBudget', () => {
  it('keeps its buffers while a frame fits', () => {
    const b = new PairBudget(1000, 1e6);
    expect(b.observe(count(1000, 1000))).toBeNull();
    expect(b.status).toMatchObject({ capacity: 1000, overflowed: false, capped: false, grows: 0 });
  });

  it('grows to 1.25x the need (whole KiB of pairs) after a fallback frame, and says the frame overflowed', () => {
    const b = new PairBudget(1000, 1e6);
    expect(b.observe(fallback(4000, 300))).toBe(5120);
    expect(b.status).toMatchObject({ capacity: 5120, overflowed: true, capped: false, grows: 1 });
    // A late report from before the growth asks for no more than it has now.
    expect(b.observe(fallback(3000, 300))).toBeNull();
    expect(b.observe(count(4000, 4000))).toBeNull();
    expect(b.status.overflowed).toBe(false);
  });

  it('stops at the device limit and stays capped while frames need more', () => {
    const b = new PairBudget(100, 300);
    expect(b.observe(fallback(1000, 50))).toBe(300);
    expect(b.observe(fallback(1000, 50))).toBeNull();
    expect(b.status).toMatchObject({ capacity: 300, overflowed: true, capped: true });
    expect(b.observe(count(250, 250))).toBeNull();
    expect(b.status).toMatchObject({ overflowed: false, capped: false });
  });

  it('a count that wrapped past 2^32 asks for the limit', () => {
    const b = new PairBudget(100, 5000);
    expect(b.observe(count(7, 100, true))).toBe(5000);
    expect(b.status).toMatchObject({ overflowed: true, capped: true });
  });

  it('a lower limit (what a sorter holds) caps the capacity and what a frame may ask', () => {
    const b = new PairBudget(1000, 1e6);
    b.limit(600);
    expect([b.capacity, b.max]).toEqual([600, 600]);
    expect(b.observe(count(5000, 600))).toBeNull();
    expect(b.status).toMatchObject({ capacity: 600, capped: true });
  });

  it('the initial capacity is clamped to 1..max', () => {
    expect(new PairBudget(0, 10).capacity).toBe(1);
    expect(new PairBudget(50, 10).capacity).toBe(10);
    expect(() => new PairBudget(1, 0)).toThrow(RangeError);
  });

  it('shrinks to 1.5x the largest recent need after SHRINK_AFTER read-backs under a quarter of the capacity, never under the initial capacity', () => {
    const b = new PairBudget(4096, 1e7);
    expect(b.observe(fallback(800_000, 9000))).toBe(1_000_448);
    // One read-back short of the run: no change; a need over a quarter restarts the run.
    for (let i = 0; i < SHRINK_AFTER - 1; i++) expect(b.observe(count(100_000 + i, 100_000 + i))).toBeNull();
    expect(b.observe(count(300_000, 300_000))).toBeNull();
    for (let i = 0; i < SHRINK_AFTER - 1; i++) expect(b.observe(count(100_000, 100_000))).toBeNull();
    expect(b.observe(count(120_000, 120_000))).toBe(180_224);
    expect(b.status).toMatchObject({ capacity: 180_224, grows: 1, shrinks: 1, overflowed: false });
    // Down to the floor at most.
    for (let i = 0; i < SHRINK_AFTER - 1; i++) expect(b.observe(count(10, 10))).toBeNull();
    expect(b.observe(count(10, 10))).toBe(4096);
    for (let i = 0; i < 2 * SHRINK_AFTER; i++) expect(b.observe(count(10, 10))).toBeNull();
    expect(b.capacity).toBe(4096);
  });
});
