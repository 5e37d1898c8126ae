import { describe, expect, it } from 'vitest';
import { FrameStats, nearestRank, summarize } from './frame-stats';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('summarize', () => {
  it('odd count: the middle value is the median', () => {
    // sorted 1 3 5: p95 rank ceil(0.95 * 3) = 3 -> 5
    expect(summarize([5, 1, 3])).toEqual({ min: 1, median: 3, mean: 3, p95: 5, p99: 5, max: 5, count: 3 });
  });

  it('even count: the median is the mean of the two middle values', () => {
    // sorted 1 2 4 10: median (2 + 4) / 2 = 3, mean 17 / 4
    expect(summarize([10, 2, 4, 1])).toEqual({ min: 1, median: 3, mean: 4.25, p95: 10, p99: 10, max: 10, count: 4 });
  });

  it('nearest-rank percentiles of 1..20 and 1..100', () => {
    // n = 20: p95 rank 19, p99 rank ceil(19.8) = 20
    expect(summarize(range(1, 20))).toMatchObject({ median: 10.5, mean: 10.5, p95: 19, p99: 20 });
    // n = 100: p95 rank 95, p99 rank 99
    expect(summarize(range(1, 100).reverse())).toMatchObject({ min: 1, median: 50.5, p95: 95, p99: 99, max: 100 });
    // n = 21: p95 rank ceil(19.95) = 20
    expect(summarize(range(1, 21))!.p95).toBe(20);
  });

  it('one value is every figure', () => {
    expect(summarize([7.5])).toEqual({ min: 7.5, median: 7.5, mean: 7.5, p95: 7.5, p99: 7.5, max: 7.5, count: 1 });
  });

  it('skips values that are not finite; null when nothing is left', () => {
    expect(summarize([])).toBeNull();
    expect(summarize([NaN, Infinity])).toBeNull();
    expect(summarize([NaN, 2, Infinity, 4, -Infinity])).toEqual({ min: 2, median: 3, mean: 3, p95: 4, p99: 4, max: 4, count: 2 });
  });

  it('sorts numerically, not as strings', () => {
    expect(summarize([10, 9, 100])!.median).toBe(10);
  });

  it('nearestRank clamps to the first and last rank', () => {
    const s = [1, 2, 3];
    expect(nearestRank(s, 3, 0)).toBe(1);
    expect(nearestRank(s, 3, 100)).toBe(3);
    expect(nearestRank(s, 3, 50)).toBe(2); // ceil(1.5) = 2
  });
});

describe('FrameStats', () => {
  it('keeps the last `capacity` samples across a wrap-around, oldest first', () => {
    const stats = new FrameStats(3);
    for (let i = 1; i <= 5; i++) stats.push({ cpuMs: i, frameMs: 10 * i });
    expect(stats.size).toBe(3);
    expect(stats.samples()).toEqual([
      { cpuMs: 3, frameMs: 30 },
      { cpuMs: 4, frameMs: 40 },
      { cpuMs: 5, frameMs: 50 },
    ]);
    expect(stats.latest()).toEqual({ cpuMs: 5, frameMs: 50 });
    expect(stats.at(0)!.cpuMs).toBe(3);
    expect(stats.at(3)).toBeUndefined();
    expect(stats.values('frameMs')).toEqual([30, 40, 50]);
    expect(stats.value('cpuMs', 1)).toBe(4);
    const s = stats.summary();
    expect(s.cpuMs).toEqual({ min: 3, median: 4, mean: 4, p95: 5, p99: 5, max: 5, count: 3 });
    expect(s.frameMs!.median).toBe(40);
  });

  it('summarises a window that is not full yet', () => {
    const stats = new FrameStats(8);
    stats.push({ cpuMs: 2, frameMs: 16 });
    stats.push({ cpuMs: 4, frameMs: 17 });
    expect(stats.size).toBe(2);
    expect(stats.fieldSummary('cpuMs')).toEqual({ min: 2, median: 3, mean: 3, p95: 4, p99: 4, max: 4, count: 2 });
  });

  it('GPU fields are optional: absent fields are skipped, not read as 0', () => {
    const stats = new FrameStats(4);
    stats.push({ cpuMs: 1, frameMs: 16, project: 0.5, sort: 1, draw: 2, total: 3.75 });
    stats.push({ cpuMs: 2, frameMs: 17 });
    stats.push({ cpuMs: 3, frameMs: NaN, project: 1.5, total: 4.25 });
    const s = stats.summary();
    expect(s.project).toEqual({ min: 0.5, median: 1, mean: 1, p95: 1.5, p99: 1.5, max: 1.5, count: 2 });
    expect(s.sort!.count).toBe(1);
    expect(s.total!.median).toBe(4);
    expect(s.frameMs).toMatchObject({ median: 16.5, count: 2 });
    expect(stats.at(1)).toEqual({ cpuMs: 2, frameMs: 17 });
    expect('project' in stats.at(1)!).toBe(false);
  });

  it('a field no sample in the window has summarises to null', () => {
    const stats = new FrameStats(2);
    expect(stats.summary().cpuMs).toBeNull();
    stats.push({ cpuMs: 1, frameMs: 1, sort: 9 });
    stats.push({ cpuMs: 1, frameMs: 1 });
    stats.push({ cpuMs: 1, frameMs: 1 });
    // The sample with `sort` fell out of the window.
    expect(stats.summary().sort).toBeNull();
    expect(stats.summary().draw).toBeNull();
  });

  it('clear() empties the window', () => {
    const stats = new FrameStats(2);
    stats.push({ cpuMs: 1, frameMs: 2, total: 3 });
    stats.clear();
    expect(stats.size).toBe(0);
    expect(stats.latest()).toBeUndefined();
    expect(stats.summary().total).toBeNull();
    stats.push({ cpuMs: 5, frameMs: 6 });
    expect(stats.samples()).toEqual([{ cpuMs: 5, frameMs: 6 }]);
  });

  it("medianFrame: one frame's stages, which add up to its total (the stages' own medians need not)", () => {
    const stats = new FrameStats(4);
    // Each stage's median is another frame's: project 2, sort 5, draw 5 = 12, no frame's total.
    const frames = [
      { project: 1, sort: 9, draw: 2, total: 12.5 },
      { project: 2, sort: 5, draw: 9, total: 16 },
      { project: 9, sort: 1, draw: 5, total: 15 },
      { project: 5, sort: 2, draw: 1, total: 8 },
      { project: 3, sort: 4, draw: 6 }, // no GPU total: not a candidate
    ];
    expect(stats.medianFrame()).toBeUndefined();
    for (const f of frames) stats.push({ cpuMs: 1, frameMs: 16, ...f });
    // The window holds the last 4; of the three with a total (16, 15, 8) the median is 15.
    const m = stats.medianFrame()!;
    expect(m).toMatchObject(frames[2]!);
    expect(m.project! + m.sort! + m.draw!).toBe(m.total);
    stats.push({ cpuMs: 1, frameMs: 16, project: 1, sort: 1, draw: 1, total: 3 });
    // 15, 8, 3 (16 dropped): 8.
    expect(stats.medianFrame()!.total).toBe(8);
    stats.push({ cpuMs: 1, frameMs: 16, project: 1, sort: 1, draw: 1, total: 4 });
    expect(stats.medianFrame()!.total).toBe(4); // 8, 3, 4 (15 dropped)
    // An even count: the lower of the two middle frames.
    const even = new FrameStats(4);
    for (const total of [10, 40, 20, 30]) even.push({ cpuMs: 1, frameMs: 16, total });
    expect(even.medianFrame()!.total).toBe(20);
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new FrameStats(0)).toThrow(RangeError);
    expect(() => new FrameStats(2.5)).toThrow(RangeError);
  });
});
