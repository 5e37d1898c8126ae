import { describe, expect, it } from 'vitest';
import { LiveFigures, RefreshGate } from './live-figures';

describe('LiveFigures: figures of what is on screen now', () => {
  it('counts only frames of the current epoch, and forgets on change', () => {
    const f = new LiveFigures();
    f.submitted(0);
    f.submitted(1);
    f.change(); // a new scene opened while frames 0 and 1 were in flight
    f.submitted(2);
    f.reported(0, { cpuMs: 1, frameMs: 16, total: 274.7 });
    f.reported(1, { cpuMs: 1, frameMs: 16, total: 274.7 });
    expect(f.stats.fieldSummary('total')).toBeNull(); // "-", not the old scene's 274.7
    f.reported(2, { cpuMs: 1, frameMs: 16, total: 35_706 });
    expect(f.stats.fieldSummary('total')?.median).toBe(35_706);
  });

  it('FPS comes from completions of the scene on screen: a setting\'s change keeps it, a new scene starts it over', () => {
    const f = new LiveFigures();
    for (let i = 0; i < 5; i++) f.submitted(i);
    for (let i = 0; i < 5; i++) f.completed(i, i * 16);
    expect(f.fps.rate(70)).toBeCloseTo(62.5, 3);
    f.change(); // a setting: the same scene's frames complete on
    expect(f.fps.rate(70)).toBeCloseTo(62.5, 3);
    expect(f.stats.fieldSummary('total')).toBeNull();
    f.sceneChanged();
    expect(f.fps.rate(80)).toBeNull();
    f.completed(4, 90); // an old frame completing late does not count
    f.submitted(5);
    f.submitted(6);
    f.completed(5, 5000);
    f.completed(6, 10_500);
    expect(f.fps.rate(10_600)).toBeCloseTo(1000 / 5500, 6);
  });

  it('a frame reported before it completes still counts (the order differs by platform)', () => {
    const f = new LiveFigures();
    for (let i = 0; i < 3; i++) {
      f.submitted(i);
      f.reported(i, { cpuMs: 1, frameMs: 16, total: 5 });
      f.completed(i, i * 20);
      f.counted(i, 100 + i);
    }
    expect(f.fps.count).toBe(3);
    expect(f.fps.rate(40)).toBeCloseTo(50, 6);
    expect(f.visible).toBe(102);
  });

  it('one rule at every frame time: 4-5.6 s frames and 6.5 s frames both have a rate, through settings changes', () => {
    for (const ms of [4000, 5600, 6500]) {
      const f = new LiveFigures();
      f.submitted(0);
      f.completed(0, ms);
      f.change(); // e.g. auto's trial switching the draw between the two frames
      f.submitted(1);
      f.completed(1, 2 * ms);
      expect(f.fps.rate(2 * ms + 10)).toBeCloseTo(1000 / ms, 6);
    }
  });

  it('the visible count of an older frame is ignored after a change', () => {
    const f = new LiveFigures();
    f.submitted(0);
    f.change();
    f.counted(0, 60_000);
    expect(f.visible).toBeNull();
    f.submitted(1);
    f.counted(1, 2_000);
    expect(f.visible).toBe(2_000);
  });
});

describe('RefreshGate: the page shows a change within 250 ms', () => {
  it('refreshes at once after a change, and at least every interval otherwise', () => {
    const g = new RefreshGate(200);
    expect(g.due(0)).toBe(true);
    expect(g.due(50)).toBe(false);
    g.invalidate();
    expect(g.due(51)).toBe(true); // the change: immediately, not after 10 frames
    expect(g.due(100)).toBe(false);
    expect(g.due(251)).toBe(true); // no change: still within 250 ms
  });

  it('at any polling rate >= 20 Hz, no figure is older than 250 ms', () => {
    const g = new RefreshGate(200);
    let last = 0;
    let worst = 0;
    for (let t = 0; t < 10_000; t += 47) {
      if (g.due(t)) {
        worst = Math.max(worst, t - last);
        last = t;
      }
    }
    expect(worst).toBeLessThanOrEqual(250);
  });
});
