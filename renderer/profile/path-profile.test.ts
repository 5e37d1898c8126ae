import { describe, expect, it } from 'vitest';
import type { FrameSample } from './frame-stats';
import { CSV_COLUMNS, CSV_FRAME_COLUMNS, CSV_PATH_COLUMNS, formatTable, toCsv, toJson, type BenchmarkRow } from './benchmark-report';
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

  it('rows of a path flight: max per stage in the table, each row\'s slowest second, CSV with the per-frame table, JSON as the rows', () => {
    const times = [0, 0.5, 1, 1.5, 2];
    const samples = times.map((t) => (t >= 1 ? sample(0.5, 3, 1) : sample(0.5, 0.4, 1.2)));
    const { max, ...profile } = profilePath(samples, times, 2, 2);
    const row: BenchmarkRow = {
      strategy: 'radix16',
      draw: 'quads',
      scene: 's.ply',
      splats: 10,
      visible: 10,
      camera: 'path orbit, 2 s at 2 fps',
      frames: 5,
      stages: { project: 0.5, sort: 3, blend: null, draw: 1, total: 4.5 },
      p95: { project: 0.5, sort: 3, blend: null, draw: 1.2, total: 4.5 },
      max,
      outOfOrderFraction: 0,
      path: { name: 'orbit', ...profile },
    };
    const table = formatTable([row]);
    expect(table).toMatch(/total ms med \/ p95 \/ max/);
    expect(table).toMatch(/4\.500 \/ 4\.500 \/ 4\.500/);
    expect(table).toMatch(/radix16 quads: slowest second 1\.0-2\.0 s, 4\.500 ms median, stage sort/);
    const lines = toCsv([row]).trimEnd().split('\n');
    expect(lines[0]).toBe([...CSV_COLUMNS, ...CSV_PATH_COLUMNS].join(','));
    expect(lines[1]!.endsWith(',0.5,3,,1.2,4.5,orbit,2,2,1,2,4.5,sort')).toBe(true);
    expect(lines[2]).toBe('');
    expect(lines[3]).toBe(CSV_FRAME_COLUMNS.join(','));
    expect(lines.slice(4)).toHaveLength(5);
    expect(lines[6]).toBe('radix16,quads,2,1,0.5,3,,1,4.5');
    expect(JSON.parse(toJson([row]))[0].path.frames[2]).toEqual({ time: 1, project: 0.5, sort: 3, draw: 1, total: 4.5 });
    // Rows without a path keep the plain CSV.
    const { max: _m, path: _p, ...plain } = row;
    expect(toCsv([plain]).split('\n')[0]).toBe(CSV_COLUMNS.join(','));
  });
});
