/**
 * npm run bench:newcomer -- [--size WxH] [--json PATH] [--timeout S] [--built]
 *
 * The newcomer's walk of issue 34, timed: the page as `npm run dev` serves it (the Vite
 * dev server, bench/browser.ts) in headless Chromium (WebGPU on SwiftShader), without
 * parameters, as the README's first command opens it, then what a new user does next:
 *
 *   1. the default scene: its first frame, and auto settling its sort and draw (the
 *      longest gap between animation frames meanwhile, after the first frame apart from
 *      the page's start before it);
 *   2. six formats chosen in the file input, one after the other: a float PLY (SH 3),
 *      PlayCanvas's compressed PLY, and splat-transform's .sog, meta.json + .webp,
 *      .glb and .spz of the PLY (written at run time, never committed): each one's
 *      count and the time from the choice to its first frame;
 *   3. issue 34's item 4: a 111-splat file opened while biker (152,746) draws;
 *   4. every sort and both draws switched through the viewer, each to its next frame;
 *   5. three bad files (a PLY header claiming 2e9 rows in 5.9 KB, an empty file, a
 *      .glb whose buffer lies apart): the time to the page's one line, which is printed.
 *
 * `--built`: the production build (`vite build`, `vite preview`) instead, as a deployed page
 * meets a user: the dev server transforms each module on its first request, and every
 * load's new worker asks for its modules again (seconds each on 2 busy cores).
 *
 * Needs ../shared/scenes. Printed: one line a step (and `--json`). A program that
 * prints figures, not a test: the closing notes and docs/PERFORMANCE.md keep them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { glbWithExternalBuffer, shortPly } from './bad-files';
import { launchChromium, openViewer, startAppServer } from './browser';
import { parseSize, runCli } from './cli';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '1280x720' },
    json: { type: 'string' },
    timeout: { type: 'string', default: '600' },
    built: { type: 'boolean', default: false },
  },
});
const size = parseSize(args.size);
const timeout = Number(args.timeout) * 1000;
const root = process.cwd();
const scenes = path.resolve(root, '../shared/scenes');

interface Step {
  step: string;
  ms: number;
  detail: string;
}
const steps: Step[] = [];
const t00 = Date.now();
function record(step: string, ms: number, detail = ''): void {
  steps.push({ step, ms, detail });
  console.log(`[${((Date.now() - t00) / 1000).toFixed(0).padStart(4)} s] ${step.padEnd(44)} ${(ms / 1000).toFixed(1).padStart(6)} s  ${detail}`);
}

interface Win {
  splatview: {
    framesRendered: number;
    sceneFirstFrameAt: number | null;
    sceneFirstFrameDoneAt: number | null;
    viewer: {
      scene: { name: string; splats: number } | null;
      strategies: { name: string }[];
      strategy: string;
      draw: string;
      strategyNote: string;
      drawChoice: unknown;
      setSort(n: string): boolean;
      setDraw(n: string): boolean;
    };
  };
  /** [the animation frame's time, the gap before it] */
  gaps?: [number, number][];
  gapsOn?: boolean;
}

const hud = (page: Page) => page.evaluate(() => document.querySelector('#hud')?.textContent ?? '');

/** Until the scene `name` of `count` splats is on screen with splats visible. */
async function waitShown(page: Page, name: string, count: number): Promise<void> {
  await page.waitForFunction(
    ([n, c]) => {
      const text = document.querySelector('#hud')?.textContent ?? '';
      const v = (window as unknown as Win).splatview.viewer;
      return document.title.startsWith(n as string) && v.scene?.splats === c && /\(([1-9][\d,]*) visible\)/.test(text);
    },
    [name, count] as const,
    { timeout },
  );
}

async function frames(page: Page, n: number): Promise<void> {
  const start = await page.evaluate(() => (window as unknown as Win).splatview.framesRendered);
  await page.waitForFunction((s) => (window as unknown as Win).splatview.framesRendered >= s, start + n, { timeout });
}

/** Converts `src` with splat-transform (the devDependency's binary) to `out` in `dir`. */
function convert(dir: string, src: string, out: string): void {
  execFileSync(path.join(root, 'node_modules/.bin/splat-transform'), ['-q', '-w', '-g', 'cpu', src, out], { cwd: dir, stdio: 'pipe' });
}

async function main(): Promise<void> {
  if (!fs.existsSync(scenes)) throw new Error(`needs the shared scenes at ${scenes}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-walk-'));
  const room = path.join(scenes, 'inria_sh3_tile_1971.ply');
  for (const out of ['room.sog', 'room.glb', 'room.spz']) convert(dir, room, out);
  fs.mkdirSync(path.join(dir, 'room'));
  convert(dir, room, path.join('room', 'meta.json'));

  const server = await startAppServer(root, { built: args.built });
  const browser = await launchChromium();
  try {
    const opened = Date.now();
    const { page, log } = await openViewer(browser, server.base, '', size);
    // 1. The default scene and auto.
    await page.evaluate(() => {
      const w = window as unknown as Win;
      w.gaps = [];
      w.gapsOn = true;
      let last = performance.now();
      const tick = (t: number) => {
        w.gaps!.push([t, t - last]);
        last = t;
        if (w.gapsOn) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    await page.waitForFunction(() => (window as unknown as Win).splatview?.sceneFirstFrameAt != null, undefined, { timeout });
    record('default scene: first frame', Date.now() - opened, (await hud(page)).split('\n')[0] ?? '');
    await page.waitForFunction(() => {
      const v = (window as unknown as Win).splatview.viewer;
      return /fastest exact sort/.test(v.strategyNote) && v.drawChoice != null;
    }, undefined, { timeout });
    const { gaps, firstDone } = await page.evaluate(() => {
      const w = window as unknown as Win;
      w.gapsOn = false;
      return { gaps: w.gaps!, firstDone: w.splatview.sceneFirstFrameDoneAt ?? 0 };
    });
    // The page's start (pipelines compiled, the scene generated: before its first frame
    // completed) apart from auto's trials after it.
    const sorted = gaps.map(([, g]) => g).sort((a, b) => a - b);
    const trialGaps = gaps.filter(([t, g]) => t - g >= firstDone).map(([, g]) => g);
    const startGap = Math.max(0, ...gaps.filter(([t, g]) => t - g < firstDone).map(([, g]) => g));
    const v0 = await page.evaluate(() => {
      const v = (window as unknown as Win).splatview.viewer;
      return `${v.strategy} / ${v.draw}`;
    });
    record('auto: sort and draw chosen', Date.now() - opened, `${v0}; longest gap ${Math.max(0, ...trialGaps).toFixed(0)} ms after the first frame (before it ${startGap.toFixed(0)} ms), median ${sorted[sorted.length >> 1]!.toFixed(0)} ms`);

    // 2. Six formats.
    const webps = fs.readdirSync(path.join(dir, 'room')).filter((f) => f.endsWith('.webp')).map((f) => path.join(dir, 'room', f));
    const formats: [string, string[], string, number][] = [
      ['float PLY (SH 3)', [room], 'inria_sh3_tile_1971.ply', 1971],
      ['compressed PLY', [path.join(scenes, 'guitar.compressed.ply')], 'guitar.compressed.ply', 90854],
      ['.sog', [path.join(dir, 'room.sog')], 'room.sog', 1971],
      ['meta.json + .webp', [...webps, path.join(dir, 'room', 'meta.json')], 'meta.json', 1971],
      ['.glb', [path.join(dir, 'room.glb')], 'room.glb', 1971],
      ['.spz', [path.join(dir, 'room.spz')], 'room.spz', 1971],
    ];
    for (const [what, files, name, count] of formats) {
      const t0 = Date.now();
      await page.locator('#file').setInputFiles(files);
      await waitShown(page, name, count);
      record(`open ${what}`, Date.now() - t0, `${count.toLocaleString('en-US')} splats shown`);
    }

    // 3. A small file while a bigger one draws.
    await page.locator('#file').setInputFiles(path.join(scenes, 'biker.compressed.ply'));
    await waitShown(page, 'biker.compressed.ply', 152746);
    await frames(page, 2);
    const t3 = Date.now();
    await page.locator('#file').setInputFiles(path.join(scenes, 'inria_sh3_tile_111.ply'));
    await waitShown(page, 'inria_sh3_tile_111.ply', 111);
    record('111 splats opened while biker draws', Date.now() - t3, '(item 4: was 17-20 s)');

    // 4. Every sort and both draws, on the 1,971-splat scene.
    await page.locator('#file').setInputFiles(room);
    await waitShown(page, 'inria_sh3_tile_1971.ply', 1971);
    const strategies = await page.evaluate(() => (window as unknown as Win).splatview.viewer.strategies.map((s) => s.name));
    for (const draw of ['quads', 'tiles']) {
      for (const s of strategies) {
        const t0 = Date.now();
        const ok = await page.evaluate(([d, n]) => {
          const v = (window as unknown as Win).splatview.viewer;
          return v.setSort(n) && v.setDraw(d);
        }, [draw, s] as const);
        if (!ok) {
          record(`switch to ${draw} + ${s}`, Date.now() - t0, `refused: ${await page.evaluate(() => document.getElementById('message')?.textContent ?? '')}`);
          continue;
        }
        await frames(page, 2);
        // The HUD's figures of the new work (they read "-" until it has its own).
        await page.waitForFunction(() => /^gpu [\d.]+ ms/m.test(document.querySelector('#hud')?.textContent ?? ''), undefined, { timeout });
        record(`switch to ${draw} + ${s}`, Date.now() - t0, (await hud(page)).split('\n').find((l) => l.startsWith('gpu')) ?? '');
      }
    }

    // 5. Bad files: the time to the page's one line, over the quads draw again (a tiles frame of this view takes
    // seconds on SwiftShader, and the page paints its line with its next frame).
    await page.evaluate(() => {
      const v = (window as unknown as Win).splatview.viewer;
      v.setDraw('quads');
      v.setSort('radix16');
    });
    await frames(page, 2);
    for (const [name, bytes] of [['claims-2e9.ply', shortPly(2e9, 5900)], ['empty.ply', Buffer.alloc(0)], ['scene.glb', glbWithExternalBuffer()]] as const) {
      const t0 = Date.now();
      await page.locator('#file').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: bytes });
      await page.waitForFunction((n) => (document.getElementById('message')?.textContent ?? '').startsWith(`${n}:`), name, { timeout, polling: 50 });
      record(`bad file ${name}`, Date.now() - t0, await page.evaluate(() => document.getElementById('message')!.textContent!));
    }
    const still = await page.evaluate(() => (window as unknown as Win).splatview.viewer.scene?.name);
    record('the scene after the bad files', 0, `${still} still shown; console errors: ${log.errors.length}`);
  } finally {
    await browser.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (args.json) fs.writeFileSync(args.json, JSON.stringify({ date: new Date().toISOString(), size: args.size, steps }, null, 2));
}

runCli(main);
