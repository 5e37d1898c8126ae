import { describe, expect, it } from 'vitest';
import { PairBudget } from './pair-budget';

const count = (needed: number, kept: number, wrapped = false) => ({ needed, kept, wrapped, visible: 1 });

describe('PairBudget', () => {
  it('keeps its buffers while a frame fits', () => {
    const b = new PairBudget(1000, 1e6);
    expect(b.observe(count(1000, 1000))).toBeNull();
    expect(b.status).toMatchObject({ capacity: 1000, overflowed: false, capped: false, grows: 0 });
  });

  it('grows to 1.25x the need (whole KiB of pairs) after a frame that lost pairs, and says it lost them', () => {
    const b = new PairBudget(1000, 1e6);
    expect(b.observe(count(4000, 1000))).toBe(5120);
    expect(b.status).toMatchObject({ capacity: 5120, overflowed: true, capped: false, grows: 1 });
    // A late report from before the growth asks for no more than it has now.
    expect(b.observe(count(3000, 1000))).toBeNull();
    expect(b.observe(count(4000, 4000))).toBeNull();
    expect(b.status.overflowed).toBe(false);
  });

  it('stops at the device limit and stays capped while frames need more', () => {
    const b = new PairBudget(100, 300);
    expect(b.observe(count(1000, 100))).toBe(300);
    expect(b.observe(count(1000, 300))).toBeNull();
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
});
