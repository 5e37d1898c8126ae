/**
 * Drives the viewer page in headless Chromium (Debian's chromium, WebGPU on
 * SwiftShader) the way a user would: the app served by a Vite dev server, a page
 * opened on it, a file chosen in its file input. Shared by the end-to-end tests
 * (test/e2e) and the browser benchmark (bench/browser-load.ts); nothing here
 * asserts anything.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build, createServer, preview } from 'vite';
import { generateSynthetic } from '../scenes/generate';
import { withShDegree } from '../scenes/load-options';
import type { ShDegree } from '../scenes/splat-cloud';
import { splatPlyChunks } from '../scenes/write-ply';

export const CHROMIUM = '/usr/bin/chromium';
/** WebGPU headless needs SwiftShader through Vulkan and ANGLE (../shared/docs/GPU.md). */
export const CHROMIUM_FLAGS = [
  '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-angle=swiftshader',
  '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic', '--disable-dev-shm-usage',
];

/**
 * Serves the app of the repository at `root` on a free local port; `base` ends with '/'.
 * `built`: the production build (`vite build` into a temporary folder, or the e2e run's
 * one build named by SPLATVIEW_BUILT_DIR, then `vite preview`), as a user's deployed page: a page opens in ~0.3 s instead of the dev
 * server's ~1 s of module requests (SwiftShader, 2 cores: ~0.7 s saved at every page
 * opened). Without it, the dev server, which also serves the sources themselves
 * (e.g. `/renderer/api/index.ts`, examples/).
 */
export async function startAppServer(root: string, opts: { built?: boolean } = {}): Promise<{ base: string; close: () => Promise<void> }> {
  if (opts.built) {
    // A build made for the whole run (the e2e project's global setup: test/e2e/global-setup.ts), else one of our own.
    const shared = process.env.SPLATVIEW_BUILT_DIR;
    const reuse = shared !== undefined && fs.existsSync(path.join(shared, 'index.html'));
    const outDir = reuse ? shared : fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-build-'));
    if (!reuse) await build({ root, logLevel: 'error', build: { outDir, emptyOutDir: true } });
    const server = await preview({ root, logLevel: 'error', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
    const addr = server.httpServer.address();
    const close = async () => {
      await server.close();
      if (!reuse) fs.rmSync(outDir, { recursive: true, force: true });
    };
    if (!addr || typeof addr === 'string') {
      await close();
      throw new Error('vite preview server has no address');
    }
    return { base: `http://127.0.0.1:${addr.port}/`, close };
  }
  const server = await createServer({ root, logLevel: 'error', server: { port: 0, host: '127.0.0.1' } });
  await server.listen();
  const addr = server.httpServer?.address();
  if (!addr || typeof addr === 'string') {
    await server.close();
    throw new Error('vite dev server has no address');
  }
  return { base: `http://127.0.0.1:${addr.port}/`, close: () => server.close() };
}

/** Headless Chromium with WebGPU on SwiftShader; playwright gives every launch a fresh, temporary user-data-dir. */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: run scripts/install-test-deps.sh (as root)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/** What went wrong in a page: console errors, uncaught exceptions, HTTP errors. */
export interface PageLog {
  errors: string[];
}

/**
 * Opens the viewer at `base + query` in a new page (`before` runs first, e.g. to
 * route requests), collecting its errors. Throws if the page says it has no WebGPU.
 */
export async function openViewer(
  browser: Browser,
  base: string,
  query: string,
  viewport = { width: 480, height: 360 },
  before?: (page: Page) => Promise<void>,
): Promise<{ page: Page; log: PageLog }> {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  if (before) await before(page);
  const log: PageLog = { errors: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') log.errors.push(m.text());
  });
  page.on('pageerror', (e) => log.errors.push(e.message));
  page.on('response', (r) => {
    if (r.status() >= 400) log.errors.push(`HTTP ${r.status()} ${r.url()}`);
  });
  await page.goto(base + query);
  const noGpu = await page.locator('#no-webgpu').count();
  if (noGpu) throw new Error(`page says no WebGPU: ${await page.locator('#no-webgpu').textContent()}`);
  return { page, log };
}

/** "1m" for 1,000,000, "250k" for 250,000, else the count. */
function countLabel(n: number): string {
  if (n % 1_000_000 === 0) return `${n / 1_000_000}m`;
  if (n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}

/**
 * A generated PLY of `count` splats (`writeSplatPly(generateSynthetic(count, 3))`,
 * cut to `shDegree`) in `dir` (the temp dir by default), made once and reused by
 * later runs: `synthetic-1m-sh3.ply` for 1M SH3. Written in pieces to `NAME.part`,
 * then renamed, so that a half-written file never sits under the name and the
 * file's bytes are never whole in memory (6M SH3: 1.5 GB) next to the cloud.
 */
export function syntheticPly(
  count: number,
  shDegree: ShDegree = 3,
  dir = path.join(os.tmpdir(), 'splatview-e2e'),
  log: (line: string) => void = console.log,
): string {
  const file = path.join(dir, `synthetic-${countLabel(count)}-sh${shDegree}.ply`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const cloud = withShDegree(generateSynthetic(count, 3), { maxShDegree: shDegree });
  const fd = fs.openSync(`${file}.part`, 'w');
  let bytes = 0;
  try {
    for (const piece of splatPlyChunks(cloud)) {
      for (let at = 0; at < piece.length; ) at += fs.writeSync(fd, piece, at);
      bytes += piece.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(`${file}.part`, file);
  log(`wrote ${file} (${(bytes / 1e6).toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return file;
}

/** The resident memory of a process, in bytes (Linux /proc), or 0 once it is gone. */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * The time a thread has spent on a CPU and waiting for one, in ms (Linux
 * /proc/PID/task/TID/schedstat), or null when it cannot be read.
 */
export function schedMs(pid: number, tid: number): { onCpu: number; waiting: number } | null {
  try {
    const [onCpu, waiting] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return onCpu === undefined || waiting === undefined ? null : { onCpu: onCpu / 1e6, waiting: waiting / 1e6 };
  } catch {
    return null;
  }
}

/** One sample of the browser's processes. */
export interface RssSample {
  /** Date.now() */
  t: number;
  /** Resident memory of the largest renderer process (the page's), bytes. */
  rss: number;
  /** Resident memory of the GPU process, bytes (0 when CDP lists none). */
  gpu: number;
  /** Each renderer process's main thread (tid = pid): ms on a CPU and waiting for one so far, by pid. */
  sched: Map<number, { onCpu: number; waiting: number } | null>;
}

/**
 * Samples, from Node every 20 ms, the resident memory of the browser's renderer
 * processes (the page, its workers included, lives in one: the largest is
 * reported) and of its GPU process (which, on SwiftShader, holds the "GPU"
 * buffers in its own memory). The ids come from CDP's SystemInfo.getProcessInfo;
 * `gpu` is 0 when CDP lists no GPU process. Also the scheduler's account of each
 * renderer's main thread (the page's thread): how long it ran and how long it
 * waited for a CPU, which tells a long task of ours from one the scheduler
 * stretched on an overloaded machine. `pagePid`: the renderer that grew most.
 */
export async function rssSampler(browser: Browser): Promise<{ stop: () => { baseline: RssSample; samples: RssSample[]; pagePid: number } }> {
  const cdp = await browser.newBrowserCDPSession();
  const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
  await cdp.detach();
  const of = (type: string) => info.processInfo.filter((p) => p.type.toLowerCase() === type).map((p) => p.id);
  const renderers = of('renderer');
  const gpus = of('gpu');
  if (renderers.length === 0) throw new Error('CDP lists no renderer process');
  const max = (pids: number[]) => (pids.length ? Math.max(...pids.map((p) => rssBytes(p))) : 0);
  const sample = (): RssSample => ({ t: Date.now(), rss: max(renderers), gpu: max(gpus), sched: new Map(renderers.map((p) => [p, schedMs(p, p)])) });
  const baseline = sample();
  // Wall-clock times, to set against the page's (performance.timeOrigin + now). The baseline is the first: a
  // task starting before the interval's first sample (20 ms on, or later on a busy event loop) has one before it.
  const samples: RssSample[] = [baseline];
  const timer = setInterval(() => samples.push(sample()), 20);
  return {
    stop: () => {
      clearInterval(timer);
      samples.push(sample());
      const pagePid = renderers.reduce((a, b) => (rssBytes(b) > rssBytes(a) ? b : a));
      return { baseline, samples, pagePid };
    },
  };
}

/** A worker load as the page records it (ViewerApp.loads): performance.now() times. */
export interface LoadRecord {
  name: string;
  startedAt: number;
  readyAt: number | null;
  shownAt: number | null;
  /** How long the task that switched to the new scene took (ms), once shown. */
  switchMs?: number | null;
  outcome: string;
}

/** The page's last worker load. */
export async function lastLoad(page: Page): Promise<LoadRecord> {
  return page.evaluate(() => (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.at(-1)!);
}

/** What the page records while a load runs ({@link watchLoad}, installed before the load starts). */
export interface LoadWatch {
  longTasks: { start: number; duration: number }[];
  rafs: number[];
  bars: { t: number; hidden: boolean; text: string; value: number | null }[];
  /** Chromium's long-animation-frame entries: what ran in the long frames. */
  loaf: { start: number; duration: number; blocking: number; scripts: string[]; scriptMs: number }[];
}

/** Installs the page's load watch (window.loadWatch): long tasks, animation frames, the loading bar's states. */
export async function watchLoad(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w: LoadWatch = { longTasks: [], rafs: [], bars: [], loaf: [] };
    (window as unknown as { loadWatch: LoadWatch }).loadWatch = w;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask' });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as { startTime: number; duration: number; blockingDuration: number; scripts: { invoker: string; sourceFunctionName: string; sourceURL: string; duration: number }[] }[]) {
        w.loaf.push({
          start: Math.round(e.startTime),
          duration: Math.round(e.duration),
          blocking: Math.round(e.blockingDuration),
          scripts: e.scripts.map((x) => `${x.invoker} ${x.sourceFunctionName}@${x.sourceURL.split('/').pop()} ${Math.round(x.duration)}ms`),
          scriptMs: e.scripts.reduce((a, x) => a + x.duration, 0),
        });
      }
    }).observe({ type: 'long-animation-frame' });
    const tick = (t: number) => {
      w.rafs.push(t);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const load = document.getElementById('load')!;
    new MutationObserver(() => {
      const bar = load.querySelector('progress');
      w.bars.push({ t: performance.now(), hidden: load.hidden, text: load.textContent ?? '', value: bar?.hasAttribute('value') ? bar.value : null });
    }).observe(load, { childList: true, characterData: true, subtree: true, attributes: true });
  });
}

/** Reads the page's load watch. */
export async function readLoadWatch(page: Page): Promise<LoadWatch> {
  return page.evaluate(() => (window as unknown as { loadWatch: LoadWatch }).loadWatch);
}

/**
 * The most CPU time the page's main thread can have spent in a task from `from` to
 * `to` (Date.now() ms): its time on a CPU between the samples just outside them
 * (an upper bound: other tasks in those few ms count too), and the wall time of
 * that window. Null when the scheduler's figures cannot be read.
 */
function cpuInTask(samples: RssSample[], pid: number, from: number, to: number): { onCpu: number; waiting: number; window: number } | null {
  const before = samples.filter((s) => s.t <= from).at(-1);
  const after = samples.find((s) => s.t >= to);
  const a = before?.sched.get(pid);
  const b = after?.sched.get(pid);
  if (!before || !after || !a || !b) return null;
  return { onCpu: b.onCpu - a.onCpu, waiting: b.waiting - a.waiting, window: after.t - before.t };
}

/** A long task with what the page thread's scheduler figures say of it ({@link cpuInTask}). */
export interface TaskTime {
  /** performance.now() of the page. */
  start: number;
  duration: number;
  /** Time on a CPU over the sampled window around the task (an upper bound for the task's own). */
  onCpu: number;
  /** Time waiting, runnable, for a CPU over that window. */
  waiting: number;
  window: number;
  /** At least this much of the task was on a CPU: onCpu less the window's time outside the task. */
  ownCpu: number;
  /** At least this much of the task was not waiting for a CPU (its work, and anything it blocked on): its wall time less all the window's waiting. */
  notWaiting: number;
  /** The window is at most 100 ms wider than the task: the figures are the task's, not also its neighbours' (the Node sampler did not stall). */
  bounded: boolean;
}

/**
 * The page's long tasks held to `limit` ms of their own: a task's wall time on a busy
 * machine also holds the time its thread waited, runnable, for a CPU. From the page
 * thread's schedstat over a window of samples around each task (RssSample, every 20
 * ms), a task is over when it provably took more than `limit` ms on a CPU (`ownCpu`)
 * or provably more than `limit` ms not waiting for one (`notWaiting`: its work and
 * anything it blocked on, e.g. a synchronous wait for the GPU process). Tasks that are
 * not `bounded` cannot be told apart from their neighbours: measured, not judged.
 */
export function tasksOverOwnTime(
  tasks: readonly { start: number; duration: number }[],
  samples: RssSample[],
  pid: number,
  origin: number,
  limit = 50,
): { measured: TaskTime[]; over: TaskTime[]; unreadable: number } {
  const measured: TaskTime[] = [];
  let unreadable = 0;
  for (const t of tasks) {
    const c = cpuInTask(samples, pid, origin + t.start, origin + t.start + t.duration);
    if (!c) unreadable++;
    else measured.push({ start: t.start, duration: t.duration, ...c, ownCpu: c.onCpu - (c.window - t.duration), notWaiting: t.duration - c.waiting, bounded: c.window <= t.duration + 100 });
  }
  const over = measured.filter((t) => t.bounded && (t.ownCpu > limit || t.notWaiting > limit));
  return { measured, over, unreadable };
}
