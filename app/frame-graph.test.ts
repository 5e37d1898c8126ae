import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { summarize } from '../renderer/profile/frame-stats';
import { figuresText, formatMs, FrameGraph, graphScale, niceScale, scaleTarget, STAGE_COLOURS, stackSample, tickLabel } from './frame-graph';

/** The tiles draw's stages, 0 in a quads frame's bar. */
const T0 = { blend: 0 };

describe('stackSample', () => {
  it("stacks the GPU stages and fills the rest of the frame time with 'other'", () => {
    expect(stackSample({ cpuMs: 2, frameMs: 16, project: 1, sort: 2, draw: 3, total: 6.5 })).toEqual({ project: 1, sort: 2, draw: 3, ...T0, other: 10, total: 16 });
  });

  it('without GPU times the whole frame is other', () => {
    expect(stackSample({ cpuMs: 2, frameMs: 16 })).toEqual({ project: 0, sort: 0, draw: 0, ...T0, other: 16, total: 16 });
  });

  it('GPU stages longer than the frame time: no other, a bar taller than the frame', () => {
    expect(stackSample({ cpuMs: 1, frameMs: 5, project: 2, sort: 2, draw: 3 })).toEqual({ project: 2, sort: 2, draw: 3, ...T0, other: 0, total: 7 });
  });

  it('a tiles frame stacks its own stages', () => {
    expect(stackSample({ cpuMs: 1, frameMs: 16, project: 1.5, sort: 2, blend: 4.25 })).toEqual({
      project: 1.5, sort: 2, draw: 0, blend: 4.25, other: 8.25, total: 16,
    });
  });

  it('falls back to the CPU time when the frame time is unknown; bad stage values count as 0', () => {
    expect(stackSample({ cpuMs: 3, frameMs: NaN, draw: 1 })).toEqual({ project: 0, sort: 0, draw: 1, ...T0, other: 2, total: 3 });
    expect(stackSample({ cpuMs: NaN, frameMs: NaN, project: -1, sort: NaN })).toEqual({ project: 0, sort: 0, draw: 0, ...T0, other: 0, total: 0 });
  });
});

describe('niceScale', () => {
  it('rounds the top up to a multiple of a 1 / 2 / 2.5 / 5 step', () => {
    expect(niceScale(17.3)).toEqual({ max: 20, step: 5, ticks: [0, 5, 10, 15, 20] });
    expect(niceScale(7)).toEqual({ max: 8, step: 2, ticks: [0, 2, 4, 6, 8] });
    expect(niceScale(3.2)).toEqual({ max: 4, step: 1, ticks: [0, 1, 2, 3, 4] });
    expect(niceScale(100)).toEqual({ max: 100, step: 25, ticks: [0, 25, 50, 75, 100] });
  });

  it('a top already on the step gains no tick', () => {
    expect(niceScale(20).ticks).toEqual([0, 5, 10, 15, 20]);
  });

  it('small values, free of float noise', () => {
    expect(niceScale(0.05)).toEqual({ max: 0.06, step: 0.02, ticks: [0, 0.02, 0.04, 0.06] });
    expect(niceScale(0.3).ticks).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it('no data (0, negative, NaN) gives the axis of 1', () => {
    for (const v of [0, -3, NaN, Infinity]) expect(niceScale(v)).toEqual({ max: 1, step: 0.25, ticks: [0, 0.25, 0.5, 0.75, 1] });
  });

  it('respects maxTicks', () => {
    expect(niceScale(17.3, 2)).toEqual({ max: 20, step: 10, ticks: [0, 10, 20] });
  });
});

describe('graphScale', () => {
  it('always covers the budget line', () => {
    expect(graphScale(3, 1000 / 60).max).toBe(20);
    expect(graphScale(40, 1000 / 60)).toEqual({ max: 40, step: 10, ticks: [0, 10, 20, 30, 40] });
  });
});

describe('labels', () => {
  it('tick labels carry the decimals the step needs', () => {
    expect(tickLabel(7.5, 2.5)).toBe('7.5');
    expect(tickLabel(0.04, 0.02)).toBe('0.04');
    expect(tickLabel(0.75, 0.25)).toBe('0.75');
    expect(tickLabel(10, 5)).toBe('10');
  });

  it('ms with about 3 significant digits', () => {
    expect(formatMs(0.0541)).toBe('0.054');
    expect(formatMs(1.234)).toBe('1.23');
    expect(formatMs(16.666)).toBe('16.7');
    expect(formatMs(123.4)).toBe('123');
    expect(formatMs(null)).toBe('-');
    expect(formatMs(NaN)).toBe('-');
  });

  it('min / median / p95 text', () => {
    expect(figuresText(summarize([3, 1, 2]))).toBe('min 1.00  med 2.00  p95 3.00 ms');
    expect(figuresText(null)).toBe('-');
  });
});

/** Just enough DOM for FrameGraph: a canvas whose 2D context records fillRect calls by colour. */
function fakeDom() {
  const rects: Array<{ fill: string; x: number; y: number; w: number; h: number }> = [];
  const counts = { clear: 0 };
  const state: Record<string | symbol, unknown> = {};
  const ctx = new Proxy(state, {
    get(target, key) {
      if (key in target) return target[key];
      if (key === 'measureText') return (text: string) => ({ width: text.length * 6 });
      if (key === 'fillRect') return (x: number, y: number, w: number, h: number) => rects.push({ fill: String(target.fillStyle), x, y, w, h });
      if (key === 'clearRect') return () => counts.clear++;
      return () => {};
    },
    set(target, key, value) {
      target[key] = value;
      return true;
    },
  });
  const canvas = { style: {} as Record<string, string>, width: 0, height: 0, className: '', getContext: () => ctx, remove: vi.fn() };
  const parent = {
    ownerDocument: { createElement: () => canvas, defaultView: { devicePixelRatio: 2 } },
    appendChild: vi.fn(),
  };
  return { parent: parent as unknown as HTMLElement, canvas, rects, counts };
}

describe('FrameGraph (fake DOM)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('appends a canvas sized for the device pixel ratio and draws once', () => {
    const dom = fakeDom();
    const g = new FrameGraph(dom.parent, { width: 300, height: 150, now: () => 0 });
    expect(dom.parent.appendChild).toHaveBeenCalledWith(dom.canvas);
    expect([dom.canvas.width, dom.canvas.height]).toEqual([600, 300]);
    expect(dom.canvas.style.width).toBe('300px');
    expect(dom.counts.clear).toBe(1);
    g.destroy();
    expect(dom.canvas.remove).toHaveBeenCalled();
  });

  it('redraws at most 30 times a second however often frames arrive', () => {
    const dom = fakeDom();
    let t = 0;
    const g = new FrameGraph(dom.parent, { now: () => t });
    expect(dom.counts.clear).toBe(1); // at t = 0
    // 100 frames over the next 30 ms: one redraw, when 1/30 s has passed since the last.
    for (let i = 0; i < 100; i++) {
      t = i * 0.3;
      g.push({ cpuMs: 1, frameMs: 16 });
      vi.advanceTimersByTime(0.3);
    }
    expect(dom.counts.clear).toBe(1);
    t = 34;
    vi.advanceTimersByTime(4);
    expect(dom.counts.clear).toBe(2);
    // A second of frames at 240 Hz: about 30 redraws.
    for (let i = 0; i < 240; i++) {
      t += 1000 / 240;
      g.push({ cpuMs: 1, frameMs: 1000 / 240 });
      vi.advanceTimersByTime(1000 / 240);
    }
    expect(dom.counts.clear - 2).toBeGreaterThanOrEqual(28);
    expect(dom.counts.clear - 2).toBeLessThanOrEqual(31);
    g.destroy();
  });

  it('draws one segment per stage and frame, in the stage colours', () => {
    const dom = fakeDom();
    const g = new FrameGraph(dom.parent, { now: () => 0 });
    for (let i = 0; i < 3; i++) g.push({ cpuMs: 1, frameMs: 16, project: 1, sort: 2, draw: 3, total: 6 });
    g.push({ cpuMs: 1, frameMs: 16 }); // no GPU times: only 'other'
    dom.rects.length = 0;
    g.draw();
    const count = (colour: string) => dom.rects.filter((r) => r.fill === colour).length;
    // One legend swatch each, plus the bars.
    expect(count(STAGE_COLOURS.project)).toBe(1 + 3);
    expect(count(STAGE_COLOURS.sort)).toBe(1 + 3);
    expect(count(STAGE_COLOURS.draw)).toBe(1 + 3);
    expect(count(STAGE_COLOURS.other)).toBe(1 + 4);
    // Stacked: each bar's sort segment sits right on top of its project segment.
    const project = dom.rects.filter((r) => r.fill === STAGE_COLOURS.project).slice(1);
    const sort = dom.rects.filter((r) => r.fill === STAGE_COLOURS.sort).slice(1);
    for (let i = 0; i < 3; i++) {
      expect(sort[i].x).toBe(project[i].x);
      expect(sort[i].y + sort[i].h).toBeCloseTo(project[i].y, 9);
      expect(sort[i].h).toBeCloseTo(2 * project[i].h, 9); // 2 ms over 1 ms
    }
    g.destroy();
  });

  it('hidden, it records but does not draw; shown again, it draws at once', () => {
    const dom = fakeDom();
    const g = new FrameGraph(dom.parent, { now: () => 1000 });
    g.setVisible(false);
    expect(dom.canvas.style.display).toBe('none');
    const before = dom.counts.clear;
    for (let i = 0; i < 10; i++) g.push({ cpuMs: 1, frameMs: 16 });
    vi.advanceTimersByTime(1000);
    expect(dom.counts.clear).toBe(before);
    expect(g.stats.size).toBe(10);
    g.setVisible(true);
    expect(dom.canvas.style.display).toBe('');
    expect(dom.counts.clear).toBe(before + 1);
    g.destroy();
  });

  it('destroy() cancels a pending redraw', () => {
    const dom = fakeDom();
    let t = 0;
    const g = new FrameGraph(dom.parent, { now: () => t });
    t = 1;
    g.push({ cpuMs: 1, frameMs: 16 });
    g.destroy();
    vi.advanceTimersByTime(100);
    expect(dom.counts.clear).toBe(1);
  });
});

describe('scaleTarget: the y axis follows the window p95, not one spike', () => {
  it('one 35 s warm-up frame among 20 ms frames does not set the scale', () => {
    const totals = [35_706, ...new Array(149).fill(20)];
    expect(scaleTarget(totals)).toBe(20);
    expect(graphScale(scaleTarget(totals), 1000 / 60).max).toBe(20);
  });
  it('a window of slow frames is scaled to them, and empty or bad input gives 0', () => {
    expect(scaleTarget([5000, 5500, 6000])).toBe(6000);
    expect(scaleTarget([])).toBe(0);
    expect(scaleTarget([NaN, -1])).toBe(0);
  });
});
