import { describe, expect, it } from 'vitest';
import { decodePathHash, type BenchmarkRow, type CameraPose } from '../renderer/api/index';
import { withPathEntry } from './page-hash';
import { KEYFRAME_SPACING_S, KeyframeList } from './path-panel';
import { plotSeries, tickStep } from './path-plot';
import { parseVideoSize, videoName } from './path-video';
import { decodeViewState, encodeViewHash } from './view-url';

const pose = (x: number): CameraPose => ({ eye: [x, -1, -6], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 });

describe('the Path folder (pure parts)', () => {
  it('keyframes: added after the last, moved (poses swap, times stay), retimed between neighbours, removed', () => {
    const list = new KeyframeList();
    list.add(pose(0));
    expect(list.path).toBeNull();
    list.add(pose(1));
    list.add(pose(2));
    expect(list.keyframes.map((k) => k.time)).toEqual([0, KEYFRAME_SPACING_S, 2 * KEYFRAME_SPACING_S]);
    expect(list.path!.keyframes).toHaveLength(3);
    expect(list.move(2, 1)).toBe(false);
    expect(list.move(2, -1)).toBe(true);
    expect(list.keyframes.map((k) => k.eye[0])).toEqual([0, 2, 1]);
    expect(list.keyframes.map((k) => k.time)).toEqual([0, 2, 4]);
    expect(list.retime(1, 0.5)).toBeNull();
    expect(list.retime(2, 0.4)).toMatch(/Keyframe 3: the time must be after 0.5 s/);
    expect(list.retime(0, 1)).toMatch(/Keyframe 1: the time must be before 0.5 s/);
    expect(list.retime(1, -1)).toMatch(/>= 0/);
    expect(list.keyframes.map((k) => k.time)).toEqual([0, 0.5, 4]);
    list.remove(1);
    expect(list.keyframes.map((k) => k.eye[0])).toEqual([0, 1]);
    // The path is a copy: editing it leaves the list alone.
    list.path!.keyframes[0]!.eye[0] = 9;
    expect(list.keyframes[0]!.eye[0]).toBe(0);
  });

  it('the hash: the view, its scene and the path side by side, each read back', () => {
    const list = new KeyframeList();
    list.add(pose(0));
    list.add(pose(3));
    const hash = withPathEntry(encodeViewHash(pose(1), 'default:2000'), list.path);
    expect(hash).toMatch(/^#cam=1,-1,-6,.*&scene=default%3A2000&path=0,0,-1,-6,0,0,0,0,-1,0;2,3,-1,-6,0,0,0$/);
    expect(decodeViewState(hash)).toEqual({ pose: pose(1), scene: 'default:2000' });
    expect(decodePathHash(hash)!.keyframes.map((k) => k.eye)).toEqual([pose(0).eye, pose(3).eye]);
    expect(withPathEntry('#cam=1', null)).toBe('#cam=1');
  });

  it('video size and file name', () => {
    expect(parseVideoSize(' 1280 x 720 ')).toEqual({ width: 1280, height: 720 });
    expect(parseVideoSize('160x120')).toEqual({ width: 160, height: 120 });
    expect(parseVideoSize('1281x720')).toMatch(/even/);
    expect(parseVideoSize('8x8')).toMatch(/16 to 4096/);
    expect(parseVideoSize('big')).toMatch(/WIDTHxHEIGHT/);
    expect(videoName('garden.ply', { width: 1280, height: 720, fps: 30, container: 'mp4' })).toBe('garden-path-1280x720-30fps.mp4');
  });

  it('the benchmark plot: a line per path row with its slowest frame, tick steps of 1, 2, 5', () => {
    const row = (strategy: string, totals: (number | undefined)[]): BenchmarkRow => ({
      strategy,
      draw: 'quads',
      scene: 's',
      splats: 1,
      visible: 1,
      frames: totals.length,
      stages: { project: null, sort: null, blend: null, draw: null, total: null },
      p95: { project: null, sort: null, blend: null, draw: null, total: null },
      outOfOrderFraction: 0,
      path: {
        name: 'orbit',
        fps: 2,
        duration: 1,
        frames: totals.map((total, i) => ({ time: i / 2, ...(total === undefined ? {} : { total }) })),
        slowestSecond: null,
      },
    });
    const series = plotSeries([row('radix16', [1, 3, 2]), row('cpu', [undefined, undefined, undefined])]);
    expect(series.map((s) => s.label)).toEqual(['radix16 quads', 'cpu quads']);
    expect(series[0]!.peak).toEqual({ t: 0.5, ms: 3 });
    expect(series[1]!.points).toEqual([]);
    expect(series[1]!.peak).toBeNull();
    expect([tickStep(10, 8), tickStep(4, 8), tickStep(0.9, 4), tickStep(37, 4)]).toEqual([2, 0.5, 0.5, 10]);
  });
});
