import { describe, expect, it } from 'vitest';
import type { FrameSample } from './frame-stats';
import { formatMax, formatSlowestSecond, profilePath } from './path-profile';

const sample = (project: number, sort: number, draw: number, blend?: number): FrameSample => ({
  cpuMs: NaN,
  frameMs: NaN,
  project,
  sort,
  draw,
  ...(blend !== undefined ? { blend } : {}),
  total: project + sort + draw + (blend ?? 0),
});

describe('path profile', () => {
  it('max per stage, per-frame times against path time, the slowest second and its dominant stage', () => {
    // 4 s at 2 fps: 9 frames at 0, 0.5, .., 4. Second 2-3 is slow, by its sort.
    const times = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4];
    const samples = times.map((t) => (t >= 2 && t < 3 ? sample(0.5, 3, 1) : sample(0.5, 0.4, 1.2)));
    const p = profilePath(samples, times, 2, 4);
    expect(p.max).toEqual({ project: 0.5, sort: 3, blend: null, draw: 1.2, total: 4.5 });
    expect(p.frames).toHaveLength(9);
    expect(p.frames[4]).toEqual({ time: 2, project: 0.5, sort: 3, draw: 1, total: 4.5 });
    expect(p.slowestSecond).toEqual({ from: 2, to: 3, medianMs: 4.5, stage: 'sort', stageMs: 3, frames: 2 });
    expect(formatSlowestSecond(p.slowestSecond)).toBe('slowest second: 2.0-3.0 s, 4.5 ms median, stage sort');
    expect(formatMax(p.max)).toBe('max ms: project 0.500, sort 3.0, draw 1.2, total 4.5');
  });

  it('the frame at the last keyframe time joins the last second; a short last second ends at the duration', () => {
    const times = [0, 1, 2, 2.5];
    const samples = [sample(0.1, 0.1, 0.1), sample(0.1, 0.1, 0.1), sample(0.1, 0.1, 0.1, 2), sample(0.1, 0.1, 0.1, 2)];
    const p = profilePath(samples, times, 2, 2.5);
    expect(p.slowestSecond).toMatchObject({ from: 2, to: 2.5, stage: 'blend', frames: 2 });
    expect(formatSlowestSecond(p.slowestSecond)).toBe('slowest second: 2.0-2.5 s, 2.3 ms median, stage blend');
    const whole = profilePath([sample(1, 1, 1), sample(1, 1, 1), sample(2, 1, 1)], [0, 0.5, 1], 2, 1);
    expect(whole.slowestSecond).toMatchObject({ from: 0, to: 1, frames: 3, stage: 'project' });
  });

  it('frames without GPU times: no slowest second, stages null', () => {
    const p = profilePath([{ cpuMs: 1, frameMs: NaN }], [0], 1, 1);
    expect(p.slowestSecond).toBeNull();
    expect(p.max.total).toBeNull();
    expect(formatSlowestSecond(null)).toBe('slowest second: - (no frame timed)');
    expect(() => profilePath([], [0], 1, 1)).toThrow(RangeError);
  });
});
