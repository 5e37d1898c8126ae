import { describe, expect, it } from 'vitest';
import { CompletedFrameRate, formatFps } from './fps';

describe('CompletedFrameRate (FPS from completed GPU frames)', () => {
  it('is unknown before two frames completed', () => {
    const r = new CompletedFrameRate();
    expect(r.rate(0)).toBeNull();
    r.complete(100);
    expect(r.rate(200)).toBeNull();
  });

  it('counts completions, not submissions: 60 Hz completions give 60 fps', () => {
    const r = new CompletedFrameRate();
    for (let i = 0; i <= 120; i++) r.complete(i * (1000 / 60));
    expect(r.rate(2000)).toBeCloseTo(60, 6);
  });

  it('a GPU that finishes a frame every 5.5 s reads 0.18 fps, whatever the callback rate', () => {
    const r = new CompletedFrameRate();
    // The page submits/animates at 60 Hz but only these frames complete.
    for (const t of [0, 5500, 11000, 16500]) r.complete(t);
    expect(r.rate(16_600)).toBeCloseTo(1000 / 5500, 6);
    expect(formatFps(r.rate(16_600))).toBe('0.18');
  });

  it('falls while nothing completes instead of repeating the last rate', () => {
    const r = new CompletedFrameRate();
    for (let i = 0; i <= 60; i++) r.complete(i * 10); // 100 fps until t = 600
    expect(r.rate(605)).toBeCloseTo(100, 6);
    expect(r.rate(600 + 4000)).toBeCloseTo(0.25, 6); // 4 s with no frame: at most 1 / 4 s
  });

  it('takes the rate over the window only (a slow start does not drag it down)', () => {
    const r = new CompletedFrameRate(1000);
    r.complete(0);
    r.complete(3000); // a 3 s first frame (shader compilation)
    for (let i = 1; i <= 100; i++) r.complete(3000 + i * 10);
    expect(r.rate(4000)).toBeCloseTo(100, 6);
  });

  it('clear() forgets the previous scene', () => {
    const r = new CompletedFrameRate();
    for (let i = 0; i < 10; i++) r.complete(i * 10);
    r.clear();
    expect(r.rate(100)).toBeNull();
    expect(r.count).toBe(0);
  });

  it('ignores times that go backwards or are not finite', () => {
    const r = new CompletedFrameRate();
    r.complete(100);
    r.complete(50);
    r.complete(NaN);
    expect(r.count).toBe(1);
  });

  it('formats for display', () => {
    expect(formatFps(null)).toBe('-');
    expect(formatFps(0.1818)).toBe('0.18');
    expect(formatFps(22.84)).toBe('22.8');
    expect(formatFps(144.2)).toBe('144');
  });
});
