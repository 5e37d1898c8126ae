/**
 * npm run bench:browser-load -- [--splats N] [--sh D] [--file PATH] [--query Q]
 *     [--size WxH] [--out PNG] [--timeout S] [--shot-timeout S] [--still] [--must-show] [--way-out] [--json FILE]
 *
 * Loads a big scene in headless Chromium (WebGPU on SwiftShader) the way a user
 * would, and prints what happened. The page (the Vite dev server, as the
 * end-to-end tests serve it: bench/browser.ts) opens `?splats=2000&sort=onesweep`
 * plus `--query` (e.g. `sh=1`, `draw=tiles`, `bindlimit=300`); once it draws, the
 * file is chosen in its file input. The file is `--file PATH`, or a generated PLY
 * of `--splats N` (default 1,000,000) at SH degree `--sh D` (default 3), written
 * once into the temp dir (bench/browser.ts syntheticPly).
 *
 * Printed: the adapter, the limits the page's device got next to the adapter's
 * own, the budget of the scene's count-sized buffers against them (for a
 * generated file), the worker load's time, the upload and swap's, the longest
 * main-thread task in each, the renderer process's peak RSS (and the GPU
 * process's) over the page before and as a ratio to the file, the outcome (shown,
 * or the page's one-line message), the HUD, the first frame's times, and a
 * screenshot PNG (`--out`, default test-output/browser-load-NAME.png).
 *
 * With `--way-out`, a scene the GPU budget refuses is reopened as a user would:
 * the panel's 'load SH degree' set to the degree the page's message suggests;
 * that load is measured and printed the same way.
 *
 * On SwiftShader a frame of millions of splats takes minutes, and the screenshot
 * waits for the frames in flight: it gives up after `--shot-timeout` (900 s) and
 * says so, without failing the run. `--still` stops the page's frames after the
 * new scene's first one, so that the screenshot shows that frame at once.
 *
 * Exit 0 when the scene is shown, or refused by the GPU budget with the page's
 * numbers (unless `--must-show`; with `--way-out`, only if shown at the lower
 * degree); 1 for any other end: a failed load, errors in
 * the page's console, a crashed page, a timeout. A program that prints figures,
 * not a test: docs/PERFORMANCE.md keeps them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import { checkBudget, formatBytes, type BudgetLimits } from '../renderer/frame/gpu-budget';
import type { DrawName } from '../renderer/draw/draw-strategies';
import { keptShDegree, parseShDegree } from '../scenes/load-options';
import type { ShDegree } from '../scenes/splat-cloud';
import {
  lastLoad,
  launchChromium,
  openViewer,
  readLoadWatch,
  rssSampler,
  startAppServer,
  syntheticPly,
  watchLoad,
  type LoadRecord,
  type LoadWatch,
  type RssSample,
} from './browser';
import { parseSize, runCli } from './cli';

const USAGE =
  'usage: npm run bench:browser-load -- [--splats N] [--sh D] [--file PATH] [--query Q] [--size WxH] [--out PNG] [--timeout S] [--shot-timeout S] [--still] [--must-show] [--way-out] [--json FILE]';

/** What the page's app exposes to this program (window.splatview). */
interface PageFacts {
  adapter: { vendor: string; architecture: string; device: string; description: string };
  device: Record<string, number>;
  adapterOwn: Record<string, number>;
  budgetLimits: BudgetLimits;
  draw: DrawName;
}

const LIMIT_NAMES = ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxStorageBuffersPerShaderStage', 'maxComputeWorkgroupStorageSize'];

async function pageFacts(page: Page): Promise<PageFacts> {
  return page.evaluate(async (names) => {
    const app = (window as unknown as { splatview: { device: GPUDevice; budgetLimits: BudgetLimits; draw: DrawName } }).splatview;
    const info = app.device.adapterInfo;
    const pick = (l: GPUSupportedLimits) => Object.fromEntries(names.map((n) => [n, (l as unknown as Record<string, number>)[n]!]));
    // A second adapter, to show the page's device got the adapter's own limits, not WebGPU's defaults.
    const own = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
    return {
      adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description },
      device: pick(app.device.limits),
      adapterOwn: own ? pick(own.limits) : {},
      budgetLimits: app.budgetLimits,
      draw: app.draw,
    };
  }, LIMIT_NAMES);
}

/** What the page's app records of a scene's first frame. */
interface FirstFrame {
  submittedAt: number | null;
  doneAt: number | null;
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      splats: { type: 'string', default: '1000000' },
      sh: { type: 'string', default: '3' },
      file: { type: 'string' },
      query: { type: 'string', default: '' },
      size: { type: 'string', default: '640x480' },
      out: { type: 'string' },
      timeout: { type: 'string', default: '1800' },
      'must-show': { type: 'boolean', default: false },
      'way-out': { type: 'boolean', default: false },
      'shot-timeout': { type: 'string', default: '900' },
      still: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const splats = Number(values.splats);
  if (!Number.isInteger(splats) || splats < 1) throw new Error(`--splats ${values.splats}: expected a whole number of splats; ${USAGE}`);
  const sh: ShDegree = parseShDegree(values.sh, '--sh');
  const timeoutMs = Number(values.timeout) * 1000;
  if (!(timeoutMs > 0)) throw new Error(`--timeout ${values.timeout}: expected seconds; ${USAGE}`);
  const shotTimeoutMs = Number(values['shot-timeout']) * 1000;
  if (!(shotTimeoutMs > 0)) throw new Error(`--shot-timeout ${values['shot-timeout']}: expected seconds; ${USAGE}`);
  const viewport = parseSize(values.size);
  const extra = values.query.replace(/^[?&]/, '');
  const query = `?splats=2000&sort=onesweep${extra ? `&${extra}` : ''}`;

  const file = values.file ?? syntheticPly(splats, sh, undefined, (line) => console.log(`browser-load: ${line}`));
  const size = fs.statSync(file).size;
  const name = path.basename(file);
  const out = values.out ?? path.resolve('test-output', `browser-load-${name.replace(/\.[^.]+$/, '')}${extra ? `-${extra.replace(/[^\w=.-]+/g, '_')}` : ''}.png`);
  // A generated file's count and degree are known: its budget is printed before the load.
  const known = values.file === undefined ? { count: splats, degree: sh } : null;

  console.log(`browser-load: ${name}, ${mb(size)}; page ${query}, ${viewport.width}x${viewport.height}; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores; ${mb(os.freemem())} free`);
  const server = await startAppServer(process.cwd());
  const browser = await launchChromium();
  let crashed = false;
  let exit = 0;
  try {
    const { page, log } = await openViewer(browser, server.base, query, viewport);
    page.on('crash', () => {
      crashed = true;
    });
    await page.waitForFunction(() => ((window as unknown as { splatview?: { framesRendered: number } }).splatview?.framesRendered ?? 0) >= 3, undefined, { timeout: 120_000 });
    const facts = await pageFacts(page);
    console.log(`adapter: ${[facts.adapter.vendor, facts.adapter.architecture, facts.adapter.device, facts.adapter.description].filter(Boolean).join(' / ')}`);
    for (const n of LIMIT_NAMES) {
      const dev = facts.device[n]!;
      const own = facts.adapterOwn[n];
      console.log(`  ${n}: device ${dev.toLocaleString('en-US')}${n.endsWith('Size') && n !== 'maxComputeWorkgroupStorageSize' ? ` (${formatBytes(dev)})` : ''}, adapter's own ${own?.toLocaleString('en-US') ?? '?'}`);
    }
    console.log(`  the page checks scenes against: maxStorageBufferBindingSize ${facts.budgetLimits.maxStorageBufferBindingSize.toLocaleString('en-US')}, maxBufferSize ${facts.budgetLimits.maxBufferSize.toLocaleString('en-US')}; draw ${facts.draw}`);
    if (known) {
      const degree = keptShDegree(known.degree, { maxShDegree: new URLSearchParams(query).has('sh') ? parseShDegree(new URLSearchParams(query).get('sh')!, '?sh=') : undefined });
      const check = checkBudget(known.count, degree, facts.draw, facts.budgetLimits);
      const paged = check.buffers.filter((b) => b.pages > 1);
      console.log(
        `budget: ${known.count.toLocaleString('en-US')} splats at SH ${degree}, ${facts.draw}: ${formatBytes(check.totalBytes)} of count-sized buffers; ` +
          `paged over ${formatBytes(check.binding.bytes)} bindings (${check.binding.limit}): ${paged.length ? paged.map((b) => `${b.name} ${b.pages}`).join(', ') : 'none'}; ` +
          `project pass ${check.stage.needed} of ${check.stage.allowed} storage buffers; ` +
          (check.fits ? 'fits' : check.over ? `over: ${check.over.name} ${formatBytes(check.over.bytes)} in one binding` : 'over: too many storage buffers'),
      );
    }

    if (values.still) await stillAfterFirstFrame(page);
    const first = await measureLoad(page, browser, size, timeoutMs, 'load', () => page.locator('#file').setInputFiles(file));
    const runs = [first];
    // The way out of a refusal, as a user takes it: the panel's 'load SH degree' reopens the refused file.
    const suggested = first.message ? /reload with SH degree (\d)/.exec(first.message)?.[1] : undefined;
    if (values['way-out'] && suggested !== undefined && !crashed) {
      console.log(`way out: the panel's 'load SH degree' set to ${suggested}`);
      runs.push(
        await measureLoad(page, browser, size, timeoutMs, `load at SH ${suggested}`, () =>
          page.locator('.lil-controller', { hasText: 'load SH degree' }).locator('select').selectOption({ label: suggested }, { force: true }).then(() => undefined),
        ),
      );
      console.log(`page address now: ${page.url().replace(server.base, '/')}`);
    }
    const last = runs.at(-1)!;

    let lit: number | null = null;
    if (!crashed) {
      const hud = await page.evaluate(() => document.getElementById('hud')?.textContent ?? '');
      console.log(`HUD: ${hud.replace(/\s*\n\s*/g, ' | ').trim()}`);
      fs.mkdirSync(path.dirname(out), { recursive: true });
      // A page screenshot (an element one waits for two equal frames, slow on SwiftShader).
      // It waits for the compositor, which waits for the GPU process: on SwiftShader, for the frames in flight.
      const shotStart = Date.now();
      try {
        const png = PNG.sync.read(await page.screenshot({ path: out, timeout: shotTimeoutMs }));
        lit = litFraction(png);
        console.log(`screenshot: ${out} (${(100 * lit).toFixed(1)}% of the central half lit; took ${s(Date.now() - shotStart)})`);
        // The canvas alone, panel and HUD hidden (on a small viewport the HUD covers much of the scene).
        const style = await page.addStyleTag({ content: '.lil-gui, #hud, #graph, #load, #message { visibility: hidden !important; }' });
        const box = await page.locator('canvas#view').boundingBox();
        const canvasOut = out.replace(/(\.png)?$/, '-canvas.png');
        if (box) {
          await page.screenshot({ path: canvasOut, clip: box, timeout: shotTimeoutMs });
          console.log(`screenshot of the canvas alone: ${canvasOut}`);
        }
        await style.evaluate((el) => (el as unknown as { remove(): void }).remove());
      } catch (e) {
        console.log(`screenshot: none, gave up after ${s(Date.now() - shotStart)} (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
      }
    }
    if (log.errors.length) console.log(`page errors: ${log.errors.join(' | ')}`);
    if (crashed) console.log('the page crashed');

    const refused = (r: LoadResult) => r.load.outcome === 'failed' && r.message !== null && /need .* the adapter allows /.test(r.message);
    const fine = !crashed && log.errors.length === 0 && runs.every((r) => r.load.outcome === 'shown' || (refused(r) && !values['must-show']));
    // With --way-out, a refusal must end in the scene shown at the lower degree.
    exit = fine && (!values['way-out'] || last.load.outcome === 'shown') ? 0 : 1;
    if (values.json) {
      fs.writeFileSync(
        values.json,
        JSON.stringify({ file: name, bytes: size, query, facts, runs, lit, errors: log.errors, crashed, loadAverage: os.loadavg(), date: new Date().toISOString() }, null, 1),
      );
    }
  } finally {
    await browser.close();
    await server.close();
  }
  if (exit !== 0) throw new Error('browser-load: the load did not end as expected (see above)');
}

/**
 * `--still`: the page's animation frames stop once a newly shown scene's first
 * frame is submitted (window.requestAnimationFrame wrapped before the load), so
 * that the GPU process, once that frame is done, is free to composite the
 * screenshot. On SwiftShader a frame of 6M splats takes minutes and the page
 * queues two: the screenshot would otherwise wait for those. The HUD then keeps
 * what it said at that frame (no fps, no GPU times).
 */
async function stillAfterFirstFrame(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { splatview: { sceneFirstFrameAt: number | null; loads: { outcome: string }[] } };
    const raf = window.requestAnimationFrame.bind(window);
    let still = false;
    window.requestAnimationFrame = (cb) =>
      raf((t) => {
        if (still) return;
        cb(t);
        if (w.splatview.loads.at(-1)?.outcome === 'shown' && w.splatview.sceneFirstFrameAt !== null) still = true;
      });
  });
}

/** What one load did (the JSON keeps it whole). */
interface LoadResult {
  label: string;
  load: LoadRecord;
  first: FirstFrame;
  message: string | null;
  rss: { before: number; load: number; all: number };
  gpuRss: { before: number; peak: number } | null;
  /** What ran long on the page's thread (ms from the load's start): long tasks, long animation frames. */
  longTasks: [number, number][];
  longFrames: LoadWatch['loaf'];
}

/**
 * Starts a load with `trigger` on a page drawing its scene, waits until it ends
 * (and, when shown, until the GPU finished the scene's first frame), and prints
 * its figures: times, long tasks, memory, outcome.
 */
async function measureLoad(page: Page, browser: Browser, size: number, timeoutMs: number, label: string, trigger: () => Promise<void>): Promise<LoadResult> {
  // The page before the load: watchers installed, memory sampled.
  await watchLoad(page);
  await new Promise((r) => setTimeout(r, 500));
  const memory = await rssSampler(browser);
  const loadsBefore = await page.evaluate(() => (window as unknown as { splatview: { loads: unknown[] } }).splatview.loads.length);
  const t0 = Date.now();
  await trigger();

  // Until the load ends (shown / failed / ...), with the bar's line every 15 s on stderr.
  const ticker = setInterval(() => {
    void page
      .evaluate(() => {
        const bar = document.getElementById('load');
        return bar && !bar.hidden ? (bar.textContent ?? '').replace(bar.querySelector('button')?.textContent ?? '', '') : '';
      })
      .then((t) => process.stderr.write(`  ${((Date.now() - t0) / 1000).toFixed(0)} s: ${t.trim() || '(no bar)'}\n`), () => undefined);
  }, 15_000);
  let load: LoadRecord;
  try {
    await page.waitForFunction(
      (n) => {
        const loads = (window as unknown as { splatview: { loads: { outcome: string }[] } }).splatview.loads;
        return loads.length > n && loads.at(-1)!.outcome !== 'loading';
      },
      loadsBefore,
      { timeout: timeoutMs, polling: 250 },
    );
    load = await lastLoad(page);
    if (load.outcome === 'shown') {
      // The first frame of the new scene, submitted and done on the GPU.
      await page.waitForFunction(() => (window as unknown as { splatview: { sceneFirstFrameDoneAt: number | null } }).splatview.sceneFirstFrameDoneAt !== null, undefined, {
        timeout: timeoutMs,
        polling: 250,
      });
    }
  } finally {
    clearInterval(ticker);
  }
  const endedAt = Date.now();
  await new Promise((r) => setTimeout(r, 1000));
  const { baseline, samples } = memory.stop();

  const origin = await page.evaluate(() => performance.timeOrigin);
  const first = await page.evaluate(() => {
    const a = (window as unknown as { splatview: { sceneFirstFrameAt: number | null; sceneFirstFrameDoneAt: number | null } }).splatview;
    return { submittedAt: a.sceneFirstFrameAt, doneAt: a.sceneFirstFrameDoneAt } satisfies FirstFrame;
  });
  const w = await readLoadWatch(page);
  const message = await page.evaluate(() => {
    const m = document.getElementById('message');
    return m && !m.hidden ? (m.textContent ?? '') : null;
  });

  // Times (the page's performance.now()).
  const ready = load.readyAt;
  const endOfSwap = load.shownAt ?? endedAt - origin;
  const longest = (from: number, to: number) =>
    Math.max(0, ...w.longTasks.filter((e) => e.start + e.duration > from && e.start < to).map((e) => Math.min(e.start + e.duration, to) - Math.max(e.start, from)));
  const count = (from: number, to: number) => w.longTasks.filter((e) => e.start + e.duration > from && e.start < to && e.duration > 50).length;
  const rafsIn = (from: number, to: number) => w.rafs.filter((t) => t >= from && t <= to).length;
  const peak = (key: 'rss' | 'gpu', until: number) => Math.max(baseline[key], ...samples.filter((x: RssSample) => x.t <= origin + until).map((x) => x[key]));

  console.log(`${label}: outcome ${load.outcome}${message ? ` — ${message}` : ''}`);
  if (ready !== null) {
    console.log(`  load (worker, file chosen -> arrays on the page): ${s(ready - load.startedAt)}; longest main-thread task ${longest(load.startedAt, ready).toFixed(0)} ms (${count(load.startedAt, ready)} over 50 ms); ${rafsIn(load.startedAt, ready)} animation frames`);
  }
  if (ready !== null && load.shownAt !== null) {
    console.log(`  upload + swap (GPU upload in slices, framing, swap): ${s(load.shownAt - ready)}; longest main-thread task ${longest(ready, load.shownAt).toFixed(0)} ms (${count(ready, load.shownAt)} over 50 ms); ${rafsIn(ready, load.shownAt)} animation frames`);
  } else if (ready !== null) {
    console.log(`  after the load until the page gave up: ${s(endOfSwap - ready)}; longest main-thread task ${longest(ready, endOfSwap).toFixed(0)} ms`);
  } else {
    // Ended before the cloud reached the page (refused from the header, failed, cancelled); seen within the 250 ms polling.
    console.log(`  ended before the cloud reached the page, ${s(endOfSwap - load.startedAt)} after the file was chosen; longest main-thread task ${longest(load.startedAt, endOfSwap).toFixed(0)} ms`);
  }
  if (load.shownAt !== null && first.submittedAt !== null) {
    console.log(`  first frame of the scene: submitted ${s(first.submittedAt - load.shownAt)} after the swap, done on the GPU ${first.doneAt !== null ? s(first.doneAt - load.shownAt) : '-'} after it; file chosen -> first frame done ${first.doneAt !== null ? s(first.doneAt - load.startedAt) : '-'}`);
  }
  const rss = { before: baseline.rss, load: ready !== null ? peak('rss', ready) : peak('rss', Infinity), all: peak('rss', Infinity) };
  console.log(
    `  renderer process RSS: before ${mb(rss.before)}, peak while loading ${mb(rss.load)} (+${((rss.load - rss.before) / size).toFixed(2)}x the file over the page before), ` +
      `peak through the first frame ${mb(rss.all)} (${(rss.all / size).toFixed(2)}x the file; +${((rss.all - rss.before) / size).toFixed(2)}x over the page before)`,
  );
  const gpuRss = baseline.gpu > 0 ? { before: baseline.gpu, peak: peak('gpu', Infinity) } : null;
  if (gpuRss) console.log(`  GPU process RSS: before ${mb(gpuRss.before)}, peak ${mb(gpuRss.peak)} (+${((gpuRss.peak - gpuRss.before) / size).toFixed(2)}x the file)`);
  else console.log('  GPU process RSS: - (CDP lists no GPU process)');
  return {
    label,
    load,
    first,
    message,
    rss,
    gpuRss,
    longTasks: w.longTasks.filter((e) => e.start + e.duration >= load.startedAt).map((e) => [Math.round(e.start - load.startedAt), Math.round(e.duration)]),
    longFrames: w.loaf.filter((e) => e.blocking > 0 && e.start + e.duration >= load.startedAt).map((e) => ({ ...e, start: Math.round(e.start - load.startedAt) })),
  };
}

/** Fraction of the central half's pixels brighter than the (black) background. */
function litFraction(png: PNG): number {
  let lit = 0, total = 0;
  for (let y = Math.floor(png.height * 0.25); y < png.height * 0.75; y++) {
    for (let x = Math.floor(png.width * 0.25); x < png.width * 0.75; x++) {
      const i = (y * png.width + x) * 4;
      total++;
      if (png.data[i]! + png.data[i + 1]! + png.data[i + 2]! > 30) lit++;
    }
  }
  return lit / total;
}

runCli(main);
