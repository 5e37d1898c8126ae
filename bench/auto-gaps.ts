/**
 * npm run bench:auto-gaps -- [--runs N] [--size WxH] [--query Q] [--trace FILE] [--timeout S]
 *
 * How smoothly the page keeps presenting while `auto` measures (issue 19: no gap
 * between animation frames over twice the frame's own time). Opens the viewer
 * without parameters (the default scene, sort and draw auto; `--query` adds to it)
 * in headless Chromium (WebGPU on SwiftShader) in a fresh browser context each run
 * (no stored picks: every run measures), at `--size` (default 320x240, as the
 * end-to-end test), and records every animation frame and every completed frame
 * (the viewer's framesCompleted) from the page's first frame on, through the sort
 * trial (until its note says "fastest exact sort") and the draw trial (until the
 * draw's pick), then 3 s of the page's normal frames.
 *
 * Printed a run and a phase: the longest gap between animation frames, the median
 * interval between completed frames (the frame's own time on this adapter), their
 * ratio, and the phase's length; then the worst ratio over the runs. The draw
 * trial's longest gap (between animation frames or completed frames) is set against
 * the page's normal frame: the median interval between completed frames in the 3 s
 * after it (issue 34: no trial frame over twice the page's frame). `--trace FILE`
 * writes a Chrome trace of the last run (GPU process and Dawn categories, plus the
 * gaps over 1.5 frames as user-timing measures): open it in Perfetto to see what
 * the GPU process ran in a gap. The production build, served by `vite preview`.
 *
 * A program that prints figures, not a test; docs/PERFORMANCE.md keeps them.
 */
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { launchChromium, startAppServer } from './browser';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    size: { type: 'string', default: '320x240' },
    query: { type: 'string', default: '' },
    trace: { type: 'string' },
    timeout: { type: 'string', default: '300' },
  },
});
const runs = Math.max(1, Number(args.runs));
const [width, height] = args.size.split('x').map(Number) as [number, number];
const timeoutMs = Number(args.timeout) * 1000;

interface Phase {
  longestGap: number;
  /** The longest interval between completed frames starting in the phase (the last may end after it). */
  longestDone: number;
  frameMs: number;
  ms: number;
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] ?? NaN;

/** Gaps between the animation frames, and intervals of completed frames, from `from` to `to` (page ms). */
function phase(raf: number[], done: [number, number][], from: number, to: number): Phase {
  const gaps: number[] = [];
  for (let i = 1; i < raf.length; i++) if (raf[i - 1]! >= from && raf[i]! <= to) gaps.push(raf[i]! - raf[i - 1]!);
  const intervals: number[] = [];
  let longestDone = 0;
  for (let i = 1; i < done.length; i++) {
    const [start, end] = [done[i - 1]![0], done[i]![0]];
    if (start >= from && start <= to) longestDone = Math.max(longestDone, end - start);
    if (start >= from && end <= to) intervals.push(end - start);
  }
  return { longestGap: Math.max(0, ...gaps), longestDone, frameMs: median(intervals), ms: to - from };
}

type Win = Window & {
  raf: number[];
  done: [number, number][];
  splatview?: { framesCompleted: number; strategyNote: string; drawChoice: unknown; sceneFirstFrameDoneAt: number | null };
};

async function record(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as Win;
    w.raf = [];
    w.done = [];
    const tick = (t: number) => {
      const prev = w.raf.at(-1);
      w.raf.push(t);
      const n = w.splatview?.framesCompleted ?? 0;
      if (!w.done.length || w.done.at(-1)![1] !== n) w.done.push([t, n]);
      // Long gaps as user-timing measures, for a trace (--trace).
      const frame = w.done.length > 2 ? (w.done.at(-1)![0] - w.done[0]![0]) / (w.done.length - 1) : Infinity;
      if (prev !== undefined && t - prev > 1.5 * frame) performance.measure(`gap ${Math.round(t - prev)} ms`, { start: prev, end: t });
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

const server = await startAppServer(process.cwd(), { built: true });
const browser = await launchChromium();
let worst = 0;
try {
  for (let r = 0; r < runs; r++) {
    const page = await browser.newPage({ viewport: { width, height } });
    const tracing = args.trace && r === runs - 1;
    if (tracing) {
      await browser.startTracing(page, {
        path: args.trace,
        categories: ['gpu', 'gpu.dawn', 'disabled-by-default-gpu.dawn', 'gpu.service', 'blink.user_timing', 'toplevel', 'viz'],
      });
    }
    await page.goto(server.base + (args.query ? `?${args.query}` : ''));
    await record(page);
    await page.waitForFunction(() => /fastest exact sort/.test((window as unknown as Win).splatview?.strategyNote ?? ''), undefined, { timeout: timeoutMs });
    const sortEnd = await page.evaluate(() => performance.now());
    await page.waitForFunction(() => (window as unknown as Win).splatview?.drawChoice != null, undefined, { timeout: timeoutMs });
    const drawEnd = await page.evaluate(() => performance.now());
    // The page's normal frames after the trials (the picked draw): what a trial's gap is set against.
    await page.waitForTimeout(3000);
    const { raf, done, first, sortNote, drawNote } = await page.evaluate(() => {
      const x = window as unknown as Win;
      return {
        raf: x.raf,
        done: x.done,
        first: x.splatview?.sceneFirstFrameDoneAt ?? 0,
        sortNote: document.querySelector('.sv-note')?.textContent ?? '',
        drawNote: document.querySelector('.sv-draw-note')?.textContent ?? '',
      };
    });
    if (tracing) await browser.stopTracing();
    await page.close();
    console.log(`run ${r + 1}: first frame done at ${first.toFixed(0)} ms; ${sortNote} | ${drawNote}`);
    const sort = phase(raf, done, first, sortEnd);
    const sortRatio = sort.longestGap / sort.frameMs;
    console.log(`  sort trial: ${(sort.ms / 1000).toFixed(1)} s, longest gap between animation frames ${sort.longestGap.toFixed(0)} ms, completed frames every ${sort.frameMs.toFixed(0)} ms (median): ${sortRatio.toFixed(2)}x`);
    // The draw trial against the page's normal frame (issue 34: no trial frame over twice it): the median interval
    // between completed frames in the 3 s after the trials, with the draw they picked.
    const draw = phase(raf, done, sortEnd, drawEnd);
    const normal = phase(raf, done, drawEnd, drawEnd + 3000).frameMs;
    const longestDone = draw.longestDone;
    const drawRatio = Math.max(draw.longestGap, longestDone) / normal;
    console.log(
      `  draw trial: ${(draw.ms / 1000).toFixed(1)} s, longest gap between animation frames ${draw.longestGap.toFixed(0)} ms, between completed frames ${longestDone.toFixed(0)} ms; ` +
        `the page's frame after it ${normal.toFixed(0)} ms (median interval of completed frames): ${drawRatio.toFixed(2)}x`,
    );
    worst = Math.max(worst, sortRatio, Number.isFinite(drawRatio) ? drawRatio : Infinity);
  }
  console.log(`worst over ${runs} run(s): ${worst.toFixed(2)}x a frame${args.trace ? `; trace of the last run: ${args.trace}` : ''}`);
} finally {
  await browser.close();
  await server.close();
}
