/**
 * End to end in headless Chromium (Debian's chromium, WebGPU on SwiftShader): the
 * page renders the generated default scene, opens a real scene through the file
 * input, and keeps it when a bad file is opened; no WebGPU errors, no console errors.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  lastLoad,
  launchChromium,
  openViewer as openViewerIn,
  readLoadWatch,
  tasksOverOwnTime,
  rssSampler,
  startAppServer,
  syntheticPly,
  watchLoad,
  type LoadRecord,
  type PageLog,
} from '../../bench/browser';
import type { DrawChoice } from '../../renderer/profile/auto-draw';
import { STAGE_NAMES } from '../../renderer/stage/frame-stages';
import { psnr } from '../reference/raster';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';

const OUT = path.resolve(__dirname, '../../test-output');

let server: { base: string; close: () => Promise<void> };
let browser: Browser;
let base: string;

beforeAll(async () => {
  server = await startAppServer(path.resolve(__dirname, '../..'), { built: true });
  base = server.base;
  browser = await launchChromium();
  fs.mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The pages the running test opened: closed after it even when it fails (a page left drawing on SwiftShader slows every later test). */
let testPages: Page[] | null = null;
beforeEach(() => {
  testPages = [];
});
afterEach(async () => {
  const pages = testPages ?? [];
  testPages = null;
  for (const p of pages) if (!p.isClosed()) await p.close();
});

// Tests that are not about `auto` name their sort and draw (?sort=radix16&draw=quads):
// auto's trials cost minutes on SwiftShader and hold frames back, and the quads draw is
// the faster one there at these sizes (the tiles blend's 256-thread workgroups wait at
// barriers on a CPU). Tests of the page's conveniences (the HUD, the hash, the
// screenshot, picking, the phone layout) sort on the CPU (?sort=cpu): a GPU sort's
// pipelines take SwiftShader seconds to compile in every new page (first frame of 2,000
// splats at 4.3 s with onesweep, 1.2 s with cpu; radix16, the GPU sort named here,
// compiles in ~0.6 s there), and the sorts have tests of their own.
function openViewer(query: string, viewport?: { width: number; height: number }, before?: (page: Page) => Promise<void>): Promise<{ page: Page; log: PageLog }> {
  return openViewerIn(browser, base, query, viewport, async (page) => {
    testPages?.push(page);
    await before?.(page);
  });
}

/**
 * Until the HUD counts visible splats: with ?sort=cpu a new scene's quads draw nothing
 * until the worker's first order arrives (cpu-depth-sort.ts), which on a busy machine
 * comes frames after the first (a screenshot then was black once in CI).
 */
async function waitDrawn(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const m = /\(([\d,]+) visible\)/.exec(document.querySelector('#hud')?.textContent ?? '');
      return m !== null && Number(m[1]!.replace(/,/g, '')) > 0;
    },
    undefined,
    { timeout: 120_000 },
  );
}

/**
 * Until the page has drawn `n` frames and a scene is on screen (its first frame drawn):
 * the first frames of a page can come before its scene (a busy SwiftShader makes the
 * scene late), and a view read then is the start-up camera's, not the scene's framing.
 */
async function waitFrames(page: Page, n: number): Promise<void> {
  await page.waitForFunction(
    (target) => {
      const v = (window as unknown as { splatview?: { framesRendered: number; sceneFirstFrameAt: number | null } }).splatview;
      return (v?.framesRendered ?? 0) >= target && v?.sceneFirstFrameAt != null;
    },
    n,
    { timeout: 120_000 },
  );
}

/** Fraction of pixels in the central box that differ from the black background. */
async function litFraction(page: Page, file: string): Promise<number> {
  // A page screenshot: an element screenshot waits for two equal animation frames,
  // which a page drawing slowly on SwiftShader may take long to give.
  // Long timeout: while auto times the sorts, SwiftShader's GPU process is busy for seconds.
  const buf = await page.screenshot({ path: path.join(OUT, file), timeout: 120_000 });
  const png = PNG.sync.read(buf);
  let lit = 0, total = 0;
  for (let y = Math.floor(png.height * 0.25); y < png.height * 0.75; y++) {
    for (let x = Math.floor(png.width * 0.25); x < png.width * 0.75; x++) {
      const i = (y * png.width + x) * 4;
      total++;
      if (png.data[i] + png.data[i + 1] + png.data[i + 2] > 30) lit++;
    }
  }
  return lit / total;
}

/** The canvas alone (panel and HUD hidden) as rgb floats of its central half, for comparing two draws. */
async function canvasPixels(page: Page, file: string): Promise<Float32Array> {
  const style = await page.addStyleTag({ content: '.lil-gui, #hud, #graph { visibility: hidden !important; }' });
  // A page screenshot clipped to the canvas (an element screenshot waits for two equal
  // animation frames, see litFraction).
  const box = await page.locator('canvas#view').boundingBox();
  if (!box) throw new Error('the canvas has no box');
  const buf = await page.screenshot({ path: path.join(OUT, file), clip: box, timeout: 120_000 });
  await style.evaluate((el) => (el as unknown as { remove(): void }).remove());
  const png = PNG.sync.read(buf);
  const out: number[] = [];
  for (let y = Math.floor(png.height * 0.25); y < png.height * 0.75; y++) {
    for (let x = Math.floor(png.width * 0.25); x < png.width * 0.75; x++) {
      const i = (y * png.width + x) * 4;
      out.push(png.data[i] / 255, png.data[i + 1] / 255, png.data[i + 2] / 255);
    }
  }
  return new Float32Array(out);
}

/** What the tests read of window.splatview. */
interface AppView {
  framesRendered: number;
  framesCompleted: number;
  scenesShown: string[];
  sceneFirstFrameAt: number | null;
  strategy: string;
  strategyNote: string;
  /** The draw in use, the line under the panel's draw control, and the draw's auto pick once measured. */
  draw: string;
  drawNote: string;
  drawChoice: Pick<DrawChoice, 'name' | 'ms' | 'ranked' | 'trialFrames'> | null;
  view: { eye: number[]; target: number[]; up: number[]; fovyDeg: number };
  /** 0 for the first device, one more for each lost device replaced. */
  deviceGeneration: number;
}

async function app<T>(page: Page, fn: (a: AppView) => T): Promise<T> {
  return page.evaluate(`(${fn.toString()})(window.splatview)`) as Promise<T>;
}

/** Serves the shared scenes under /e2e-scenes/ (vite serves nothing outside the repository). */
async function routeScenes(page: Page): Promise<void> {
  await page.route((url) => url.pathname.startsWith('/e2e-scenes/'), (route) => {
    const name = decodeURIComponent(new URL(route.request().url()).pathname.split('/').pop()!);
    void route.fulfill({ status: 200, contentType: 'application/octet-stream', body: fs.readFileSync(sharedScene(name)) });
  });
}

/** A tiny binary 3DGS PLY of SH degree 0: n splats on a line, opaque, grey. */
function tinyPly(n: number): Buffer {
  const props = ['x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3'];
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${n}\n${props.map((p) => `property float ${p}`).join('\n')}\nend_header\n`;
  const body = Buffer.alloc(n * props.length * 4);
  for (let i = 0; i < n; i++) {
    const v = [i * 0.1, 0, 0, 0, 0, 0, 4, -3, -3, -3, 1, 0, 0, 0];
    v.forEach((x, k) => body.writeFloatLE(x, (i * props.length + k) * 4));
  }
  return Buffer.concat([Buffer.from(header, 'ascii'), body]);
}

const near = (a: number[], b: number[], tol = 1e-3) => a.every((v, i) => Math.abs(v - b[i]) <= tol * Math.max(1, Math.abs(b[i])));

describe('viewer page: figures, views, auto, conveniences (issue 11)', () => {
  it('the HUD names a newly opened scene within 250 ms of its first frame, with no figure of the old one', async () => {
    const { page, log } = await openViewer('?splats=2000&sort=cpu&draw=quads');
    await waitFrames(page, 2);
    await page.evaluate(() => {
      const w = window as unknown as { hudLog: { t: number; text: string }[] };
      w.hudLog = [];
      new MutationObserver(() => w.hudLog.push({ t: performance.now(), text: document.getElementById('hud')!.textContent ?? '' })).observe(
        document.getElementById('hud')!,
        { childList: true, characterData: true, subtree: true },
      );
    });
    // An SH0 scene first: the SH slider must then follow the SH3 scene up to 3.
    await page.locator('#file').setInputFiles({ name: 'tiny-sh0.ply', mimeType: 'application/octet-stream', buffer: tinyPly(20) });
    await page.waitForFunction(() => document.title.startsWith('tiny-sh0.ply'), undefined, { timeout: 60_000 });
    expect(await page.locator('.lil-controller', { hasText: 'SH degree' }).locator('input').inputValue()).toBe('0');
    await page.locator('#file').setInputFiles(sharedScene('inria_sh3_tile_1971.ply'));
    await page.waitForFunction(() => (window as unknown as { splatview: AppView }).splatview.sceneFirstFrameAt !== null && document.title.startsWith('inria'), undefined, { timeout: 120_000 });
    const firstFrame = (await app(page, (a) => a.sceneFirstFrameAt))!;
    const hudLog = await page.evaluate(() => (window as unknown as { hudLog: { t: number; text: string }[] }).hudLog);
    // The scene line (the loading line before it names the file too, while the old scene is up).
    const named = hudLog.find((h) => /^inria_sh3_tile_1971\.ply\s+[\d,]+ splats/m.test(h.text));
    expect(named).toBeDefined();
    expect(named!.t - firstFrame).toBeLessThanOrEqual(250);
    // The first HUD naming the new scene shows its count, and "-" for what is not measured yet.
    expect(named!.text).not.toMatch(/2,000 splats|tiny-sh0|20 splats/);
    expect(named!.text).toMatch(/- fps/);
    // The SH slider shows the new scene's degree (3), not the old setting.
    expect(await page.locator('.lil-controller', { hasText: 'SH degree' }).locator('input').inputValue()).toBe('3');
    // The scene list keeps the file next to the generated scenes.
    const options = await page.locator('.lil-controller', { hasText: /^scene/ }).locator('select option').allTextContents();
    expect(options).toContain('inria_sh3_tile_1971.ply');
    expect(options).toContain('tiny-sh0.ply');
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('a hash with FOV 45 restores FOV 45, and a view saved for another scene is not applied', async () => {
    const { page, log } = await openViewer('?splats=2000&sort=cpu&draw=quads#cam=0.5,-1,-6,0,0,0,0,-1,0,45&scene=default%3A2000');
    await waitFrames(page, 2);
    // The hash's view applies once its scene is on screen (the first scene loads
    // asynchronously): wait for it rather than for a number of frames (a loaded
    // machine's frames can come first), then check all of it.
    await page.waitForFunction(() => (window as unknown as { splatview: { view: { fovyDeg: number } } }).splatview.view.fovyDeg === 45, undefined, { timeout: 30_000 }).catch(() => undefined);
    const v = await app(page, (a) => a.view);
    expect(v.fovyDeg).toBe(45);
    expect(near(v.eye, [0.5, -1, -6])).toBe(true);
    expect(await page.locator('.lil-controller', { hasText: 'field of view' }).locator('input').inputValue()).toBe('45');
    await page.waitForFunction(() => location.hash.includes(',45&scene=default%3A2000'), undefined, { timeout: 30_000 });
    await page.close();

    const other = await openViewer('?splats=2000&sort=cpu&draw=quads#cam=0.5,-1,-6,0,0,0,0,-1,0,45&scene=file%3Agarden.ply');
    await waitFrames(other.page, 2);
    const w = await app(other.page, (a) => a.view);
    expect(near(w.eye, [0.5, -1, -6])).toBe(false);
    expect(w.fovyDeg).toBe(60);
    expect(log.errors.concat(other.log.errors)).toEqual([]);
    await other.page.close();
  });

  it('editing the hash moves the camera, and back / forward move it again', async () => {
    const { page, log } = await openViewer('?splats=2000&sort=cpu&draw=quads');
    await waitFrames(page, 2);
    await page.waitForFunction(() => location.hash.startsWith('#cam='), undefined, { timeout: 30_000 });
    const start = await app(page, (a) => a.view);
    await page.evaluate(() => {
      location.hash = '#cam=3,-1,-4,0,0,0,0,-1,0,50&scene=default%3A2000';
    });
    await page.waitForFunction(() => Math.abs((window as unknown as { splatview: AppView }).splatview.view.eye[0] - 3) < 1e-3, undefined, { timeout: 30_000 });
    expect((await app(page, (a) => a.view)).fovyDeg).toBe(50);
    await page.goBack();
    await page.waitForFunction(() => Math.abs((window as unknown as { splatview: AppView }).splatview.view.eye[0] - 3) > 0.5, undefined, { timeout: 30_000 });
    const back = await app(page, (a) => a.view);
    expect(near(back.eye, start.eye, 1e-2)).toBe(true);
    await page.goForward();
    await page.waitForFunction(() => Math.abs((window as unknown as { splatview: AppView }).splatview.view.eye[0] - 3) < 1e-3, undefined, { timeout: 30_000 });
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('a ?scene= link loads that scene first and never shows the default scene', async () => {
    const { page, log } = await openViewer('?scene=/e2e-scenes/inria_sh3_tile_1971.ply&sort=cpu&draw=quads', undefined, async (p) => {
      await routeScenes(p);
      await p.addInitScript(() => {
        const w = window as unknown as { hudTexts: string[] };
        w.hudTexts = [];
        document.addEventListener('DOMContentLoaded', () =>
          new MutationObserver(() => w.hudTexts.push(document.getElementById('hud')!.textContent ?? '')).observe(document.getElementById('hud')!, {
            childList: true,
            characterData: true,
            subtree: true,
          }),
        );
      });
    });
    await page.waitForFunction(() => document.title.startsWith('inria_sh3_tile_1971.ply'), undefined, { timeout: 120_000 });
    await waitFrames(page, 2);
    expect(await app(page, (a) => a.scenesShown)).toEqual(['/e2e-scenes/inria_sh3_tile_1971.ply']);
    const texts = await page.evaluate(() => (window as unknown as { hudTexts: string[] }).hudTexts);
    expect(texts.some((t) => /^default/m.test(t))).toBe(false);
    expect(await litFraction(page, 'e2e-scene-link.png')).toBeGreaterThan(0.02);
    // The hash names the scene: the link alone reopens it.
    await page.waitForFunction(() => location.hash.includes('&scene=%2Fe2e-scenes%2Finria_sh3_tile_1971.ply'), undefined, { timeout: 30_000 });
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('the screenshot downloads a PNG of the view (P), and 2x through an offscreen render (Shift+P)', async () => {
    const { page, log } = await openViewer('?splats=2000&sort=cpu&draw=quads');
    await waitFrames(page, 3);
    await waitDrawn(page);
    const [one] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), page.keyboard.press('p')]);
    const f1 = path.join(OUT, 'e2e-screenshot.png');
    await one.saveAs(f1);
    expect(one.suggestedFilename()).toMatch(/^splatview-default-2000-.*\.png$/);
    const png = PNG.sync.read(fs.readFileSync(f1));
    expect([png.width, png.height]).toEqual([480, 360]);
    let lit = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data[i] + png.data[i + 1] + png.data[i + 2] > 30) lit++;
    expect(lit / (png.width * png.height)).toBeGreaterThan(0.05);

    const [two] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), page.keyboard.press('Shift+P')]);
    const f2 = path.join(OUT, 'e2e-screenshot-2x.png');
    await two.saveAs(f2);
    const png2 = PNG.sync.read(fs.readFileSync(f2));
    expect([png2.width, png2.height]).toEqual([960, 720]);
    let lit2 = 0;
    for (let i = 0; i < png2.data.length; i += 4) if (png2.data[i] + png2.data[i + 1] + png2.data[i + 2] > 30) lit2++;
    expect(Math.abs(lit2 / (png2.width * png2.height) - lit / (png.width * png.height))).toBeLessThan(0.05);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('double-click focuses the splat under the cursor: the eye stays, the pivot moves to it', async () => {
    const { page, log } = await openViewer('?splats=2000&sort=cpu&draw=quads');
    await waitFrames(page, 3);
    await waitDrawn(page);
    const before = await app(page, (a) => a.view);
    // Below the centre: the ground disc in front of the knot (where its opacity passes 0.5: Viewer.pick's surface).
    await page.mouse.dblclick(240, 225);
    // focusOn glides (damped): wait until it has arrived, the target moved and the eye back in place.
    await page.waitForFunction(
      (b) => {
        const v = (window as unknown as { splatview: AppView }).splatview.view;
        const moved = Math.hypot(...v.target.map((x, i) => x - b.target[i]));
        const eye = Math.hypot(...v.eye.map((x, i) => x - b.eye[i]));
        return moved > 0.05 && eye < 1e-3 * Math.max(1, Math.hypot(...b.eye));
      },
      before,
      { timeout: 60_000 },
    );
    const after = await app(page, (a) => a.view);
    expect(near(after.eye, before.eye, 1e-2)).toBe(true);
    // The ground (y = 0 in the default scene's frame) is what lies under that pixel.
    expect(Math.abs(after.target[1])).toBeLessThan(0.3);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('the ruler: two clicks measure the picked points, a real length sets the scale, the hash brings it back, Esc leaves', async () => {
    const { page, log } = await openViewer('?splats=2000&sort=cpu&draw=quads');
    await waitFrames(page, 3);
    await waitDrawn(page);
    type RulerView = { ruler: { points: number[][]; measuring: boolean; scale: number | null; clicks: number }; viewer: { view: unknown; pick(x: number, y: number): Promise<{ point: number[] } | null> } };
    const ruler = <T,>(fn: (a: RulerView) => T) => page.evaluate(`(${fn.toString()})(window.splatview)`) as Promise<T>;
    // The panel starts collapsed in a small window: open it, then its Measure folder.
    const measure = page.locator('.lil-title', { hasText: 'Measure' });
    const panel = page.locator('.lil-title', { hasText: 'splatview' });
    const collapsed = !(await measure.isVisible());
    if (collapsed) await panel.click();
    await measure.click();
    await page.locator('.lil-controller', { hasText: 'Measure (click two points)' }).locator('button').click();
    expect(await ruler((a) => a.ruler.measuring)).toBe(true);
    // The panel covers the right of a small window: out of the way while clicking the scene.
    if (collapsed) await panel.click();
    // Two points of the ground disc in front of the knot (the double-click test's ground), where its opacity passes 0.5.
    const box = (await page.locator('canvas#view').boundingBox())!;
    const clicks: [number, number][] = [[200, 225], [280, 225]];
    for (const [k, [x, y]] of clicks.entries()) {
      // Once the panel's closing has left the point to the canvas.
      await page.waitForFunction(([px, py]) => document.elementFromPoint(px!, py!)?.id === 'view', [box.x + x, box.y + y], { timeout: 10_000 });
      await page.mouse.click(box.x + x, box.y + y);
      await page.waitForFunction((n) => (window as unknown as { splatview: RulerView }).splatview.ruler.clicks === n, k + 1, { timeout: 30_000 });
      expect(await ruler((a) => [a.ruler.points.length, a.viewer.view]), `click ${k + 1} at (${x}, ${y})`).toEqual([k + 1, expect.anything()]);
    }
    const label = page.locator('#ruler-label');
    const shown = Number((await label.textContent())!.split(' ')[0]);
    // The distance of the two points the viewer picks there (the camera has not moved).
    const picked = await page.evaluate(async (pts) => {
      const v = (window as unknown as { splatview: RulerView }).splatview.viewer;
      return Promise.all(pts.map(([x, y]) => v.pick(x, y).then((p) => p?.point ?? null)));
    }, clicks);
    expect(picked.every((p) => p !== null)).toBe(true);
    const d = Math.hypot(...[0, 1, 2].map((k) => picked[1]![k]! - picked[0]![k]!));
    expect(d).toBeGreaterThan(0.05);
    // Shown to 4 significant digits.
    expect(Math.abs(shown - d)).toBeLessThanOrEqual(0.5 * 10 ** (Math.floor(Math.log10(d)) - 3) + 1e-6);
    expect(await label.textContent()).toMatch(/ units$/);
    // A known length: 2 m for this measurement.
    if (collapsed) await panel.click();
    const length = page.locator('.lil-controller', { hasText: 'real length' }).locator('input');
    await length.fill('2');
    await length.press('Enter');
    await expect.poll(() => label.textContent(), { timeout: 10_000 }).toBe('2.000 m');
    if (collapsed) {
      await panel.click();
      await measure.waitFor({ state: 'hidden' });
    }
    await page.screenshot({ path: path.join(OUT, 'ruler.png') });
    await page.waitForFunction(() => /&ruler=[^&]+,m$/.test(location.hash), undefined, { timeout: 30_000 });
    const before = await ruler((a) => a.ruler.points);
    // Esc leaves measure mode: a click orbits nothing and places nothing.
    await page.keyboard.press('Escape');
    expect(await ruler((a) => a.ruler.measuring)).toBe(false);
    await page.mouse.click(box.x + 240, box.y + 200);
    expect(await ruler((a) => a.ruler.points.length)).toBe(2);
    // An orbit: the points stay on the scene (drawn where the camera on screen sees them).
    await page.mouse.move(box.x + 100, box.y + 100);
    await page.mouse.down();
    await page.mouse.move(box.x + 160, box.y + 110, { steps: 4 });
    await page.mouse.up();
    await page.waitForTimeout(500);
    const stuck = await page.evaluate(() => {
      const a = (window as unknown as { splatview: { ruler: { points: number[][] }; viewer: { project(p: number[]): { x: number; y: number } | null } } }).splatview;
      const dot = document.querySelector('#ruler-overlay circle[data-point="0"]')!;
      const at = a.viewer.project(a.ruler.points[0]!)!;
      return Math.hypot(Number(dot.getAttribute('cx')) - at.x, Number(dot.getAttribute('cy')) - at.y);
    });
    expect(stuck).toBeLessThan(1);

    // The link again: the ruler is back, with its scale, where it was.
    await page.reload();
    await waitFrames(page, 2);
    await page.waitForFunction(() => (window as unknown as { splatview: RulerView }).splatview.ruler.points.length === 2, undefined, { timeout: 30_000 });
    const after = await ruler((a) => a.ruler.points);
    after.forEach((p, i) => p.forEach((x, k) => expect(Math.abs(x - before[i]![k]!)).toBeLessThanOrEqual(2e-4 * d)));
    await expect.poll(() => label.textContent(), { timeout: 10_000 }).toBe('2.000 m');
    expect(await label.isVisible()).toBe(true);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('Shift+F toggles fullscreen; a hash with up +y sets the up-axis control', async () => {
    const { page, log } = await openViewer('?splats=2000&sort=cpu&draw=quads#cam=0,1,-6,0,0,0,0,1,0,50');
    await waitFrames(page, 1);
    expect(await page.locator('.lil-controller', { hasText: 'up axis' }).locator('select').evaluate((el) => (el as HTMLSelectElement).selectedOptions[0].textContent)).toBe('+y up');
    // The link's up is an explicit choice, over the scene's detected one (issue 34).
    await page.waitForFunction(() => [...document.querySelectorAll('.sv-up-note')].some((e) => e.textContent === 'up: +y (link)'), undefined, { timeout: 20_000 });
    await page.locator('#view').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Shift+F');
    await page.waitForFunction(() => document.fullscreenElement !== null, undefined, { timeout: 20_000 });
    await page.keyboard.press('Shift+F');
    await page.waitForFunction(() => document.fullscreenElement === null, undefined, { timeout: 20_000 });
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('on a 390x844 phone the panel starts collapsed, with touch-sized controls', async () => {
    const { page, log } = await openViewer('?splats=2000&sort=cpu&draw=quads', { width: 390, height: 844 });
    await waitFrames(page, 1);
    const root = page.locator('.lil-gui.lil-root');
    expect(await root.evaluate((el) => el.classList.contains('lil-closed'))).toBe(true);
    const box = (await root.boundingBox())!;
    expect(box.width * box.height).toBeLessThan(0.1 * 390 * 844);
    expect((await page.locator('.lil-gui.lil-root > .lil-title').boundingBox())!.height).toBeGreaterThanOrEqual(40);
    await page.screenshot({ path: path.join(OUT, 'e2e-phone.png'), timeout: 120_000 });
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it("the user's explicit strategy wins over auto and is remembered across a reload", async () => {
    // The sort's auto (no ?sort=); the draw named, so that no draw trial compiles the tiles draw.
    const { page, log } = await openViewer('?splats=2000&draw=quads');
    await waitFrames(page, 1);
    if (await page.locator('.lil-gui.lil-root.lil-closed').count()) await page.locator('.lil-gui.lil-root > .lil-title').click();
    await page.locator('.lil-controller', { hasText: 'strategy' }).locator('select').selectOption('radix16');
    await page.waitForFunction(() => (window as unknown as { splatview: AppView }).splatview.strategy === 'radix16', undefined, { timeout: 60_000 });
    expect(await page.locator('.sv-note').textContent()).toMatch(/^radix16: your choice/);
    await page.reload();
    await waitFrames(page, 2);
    expect(await app(page, (a) => a.strategy)).toBe('radix16');
    expect(await page.locator('.sv-note').textContent()).toMatch(/^radix16: your choice/);
    expect(await page.locator('#hud').textContent()).toMatch(/sort radix16\n|sort radix16$/m);
    // The sort is not auto's (the draw order's own "(auto)" may follow the draw name).
    expect(await page.locator('#hud').textContent()).not.toMatch(/sort \S+ \(auto\)/);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('the page without parameters: auto measures the sorts (not radix4) and then the draws, and says which and why', async () => {
    // No parameters at all: the default scene (on SwiftShader, a software adapter, 10,000 splats
    // rather than 60,000), the default sort and draw (both auto).
    // A small window: the draw trial's frames on SwiftShader cost by the pixel.
    const { page, log } = await openViewer('', { width: 320, height: 240 });
    // Animation frames and completed frames while auto measures (the gaps between frames, issue 19).
    await page.evaluate(() => {
      const w = window as unknown as { rafLog: number[]; splatview: { framesCompleted: number }; doneLog: [number, number][] };
      w.rafLog = [];
      w.doneLog = [];
      const tick = (t: number) => {
        w.rafLog.push(t);
        const n = w.splatview?.framesCompleted ?? 0;
        if (!w.doneLog.length || w.doneLog.at(-1)![1] !== n) w.doneLog.push([t, n]);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    // Until measured the draw is quads, the faster on software GPUs (tiles on others), said so under the draw control.
    await waitFrames(page, 1);
    expect(await app(page, (a) => a.draw)).toBe('quads');
    expect(await page.locator('.sv-draw-note').textContent()).toMatch(/^auto: quads until measured \(the faster on software GPUs\)/);
    await page.waitForFunction(() => /fastest exact sort/.test((window as unknown as { splatview?: AppView }).splatview?.strategyNote ?? ''), undefined, {
      timeout: 280_000,
    });
    const strategy = await app(page, (a) => a.strategy);
    const note = await page.locator('.sv-note').textContent();
    console.log(`auto on SwiftShader: ${note}`);
    const rafs = await page.evaluate(() => (window as unknown as { rafLog: number[] }).rafLog);
    const gaps = rafs.slice(1).map((t, i) => t - rafs[i]!);
    const done = await page.evaluate(() => (window as unknown as { doneLog: [number, number][] }).doneLog);
    const frameGaps = done.slice(1).map(([t], i) => t - done[i]![0]);
    const med = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] ?? 0;
    console.log(`sort trial: ${rafs.length} animation frames, the longest gap ${Math.max(...gaps).toFixed(0)} ms; completed frames every ${med(frameGaps).toFixed(0)} ms (median), longest ${Math.max(...frameGaps).toFixed(0)} ms; gaps over 1 s: ${JSON.stringify(gaps.filter((g) => g > 1000).map(Math.round))}`);
    // The page's start (its first frame: pipelines compiled, the scene generated) apart from the trial's frames after it.
    const firstDone = await page.evaluate(() => (window as unknown as { splatview: { sceneFirstFrameDoneAt: number | null } }).splatview.sceneFirstFrameDoneAt ?? 0);
    const after = gaps.filter((_, i) => rafs[i]! >= firstDone);
    const doneAfter = frameGaps.filter((_, i) => done[i]![0] >= firstDone);
    console.log(
      `after the first frame (done at ${firstDone.toFixed(0)} ms): longest gap ${Math.max(0, ...after).toFixed(0)} ms, completed frames every ${med(doneAfter).toFixed(0)} ms (median); ` +
        `gaps over twice that: ${JSON.stringify(after.filter((g) => g > 2 * med(doneAfter)).map(Math.round))}`,
    );
    expect(strategy).not.toBe('radix4');
    expect(note).toMatch(new RegExp(`^${strategy}: fastest exact sort`));
    // Auto never times radix4 (auto-strategy.ts NEVER_TIMED): its compile stalls the page; the note says so (issue 34).
    expect(note).toMatch(/; radix4 is not timed: the required reference sort, slowest on every adapter measured/);
    expect((note ?? '').replace(/; radix4 is not timed: [^;(]*/, '')).not.toMatch(/radix4/);
    expect(await page.locator('#hud').textContent()).toMatch(new RegExp(`sort ${strategy} \\(auto\\)`));
    expect(await page.locator('#hud').textContent()).toMatch(/Software GPU/);
    // Then the draws, over the page's own frames, with the sort auto picked.
    await page.waitForFunction(() => (window as unknown as { splatview?: AppView }).splatview?.drawChoice != null, undefined, { timeout: 280_000 });
    const choice = (await app(page, (a) => a.drawChoice))!;
    const drawNote = await page.locator('.sv-draw-note').textContent();
    console.log(`draw auto on SwiftShader: ${drawNote}`);
    {
      // The draw trial's frames: the gaps after the sort's pick (its first switch of draw compiles the other draw's pipelines).
      const all = await page.evaluate(() => (window as unknown as { rafLog: number[] }).rafLog);
      const from = rafs.length - 1;
      const g = all.slice(from + 1).map((t, i) => t - all[from + i]!);
      console.log(`draw trial: ${g.length} animation frames, the longest gap ${Math.max(0, ...g).toFixed(0)} ms; gaps over 1 s: ${JSON.stringify(g.filter((x) => x > 1000).map(Math.round))}`);
    }
    // The draw not on screen (tiles) is first drawn in windows of the view offscreen, and at full size only where its
    // frame is estimated within the page's (issue 34): ranked by its measured figure, or after quads by its estimate.
    const other = choice.name === 'tiles' ? 'quads' : 'tiles';
    const figure = `[\\d.,]+ ms`;
    const otherFigure = `(${figure}|~${figure} \\(estimated from \\d+ windows of \\d+x\\d+ px at full resolution, ±${figure}; not drawn whole, so not picked\\))`;
    expect(drawNote).toMatch(
      new RegExp(
        `^auto: ${choice.name}, ${figure} vs ${other} ${otherFigure} measured on this adapter \\((GPU timestamps of whole frames|wall clock of whole frames run alone, submit to done), 10,000 splats at \\d+x\\d+ px\\)$`,
      ),
    );
    expect(choice.ranked.map((r) => r.name)).toEqual([choice.name, other]);
    // No trial frame over twice the page's frame (issue 34: tiles frames of 7.7-8.7 s on SwiftShader at full size).
    const tf = choice.trialFrames!;
    console.log(`draw trial's frames: ${tf.count} ran alone, the longest ${tf.longestMs.toFixed(0)} ms (${tf.longest}), the page's frame ${tf.pageMs.toFixed(0)} ms`);
    expect(tf.count).toBeGreaterThan(2);
    expect(tf.longestMs).toBeLessThanOrEqual(2 * tf.pageMs);
    expect(await app(page, (a) => a.scenesShown)).toEqual(['default:10000']);
    expect(await app(page, (a) => a.draw)).toBe(choice.name);
    // The HUD names the draw in use.
    expect(await page.locator('#hud').textContent()).toMatch(new RegExp(`draw ${choice.name} \\(auto\\)`));
    expect(log.errors).toEqual([]);
    await page.close();
  });
});

describe('viewer page (headless Chromium, SwiftShader WebGPU)', () => {
  it('renders the default scene, opens a real scene, and survives a bad file', async () => {
    const { page, log } = await openViewer('?splats=3000&sort=radix16&draw=quads');
    await waitFrames(page, 3);
    const lit = await litFraction(page, 'e2e-default.png');
    expect(lit).toBeGreaterThan(0.05);

    if (haveSharedScenes()) {
      const before = await page.evaluate(() => (window as unknown as { splatview: { framesRendered: number } }).splatview.framesRendered);
      await page.locator('#file').setInputFiles(sharedScene('inria_sh3_tile_1971.ply'));
      await page.waitForFunction(() => document.title.startsWith('inria_sh3_tile_1971.ply'), undefined, { timeout: 60_000 });
      await waitFrames(page, before + 3);
      expect(await litFraction(page, 'e2e-inria-1971.png')).toBeGreaterThan(0.02);

      // A file that is not a splat PLY: one line names the problem, the scene stays.
      await page.locator('#file').setInputFiles({ name: 'broken.ply', mimeType: 'application/octet-stream', buffer: Buffer.from('this is not a ply file') });
      await page.waitForFunction(() => !document.getElementById('message')!.hidden && document.getElementById('message')!.textContent!.includes('broken.ply'), undefined, { timeout: 30_000 });
      const msg = await page.locator('#message').textContent();
      expect(msg).toMatch(/broken\.ply/);
      expect(await page.title()).toMatch(/^inria_sh3_tile_1971\.ply/);
    }
    // Scene load failures are reported with console.warn, not as errors.
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('benchmark mode flies the selected strategies under the ticked draw and exports JSON and CSV with every stage', async () => {
    // radix16 and cpu (a host sort) under the quads draw ticked; the others unticked (each compiles its kernels on
    // SwiftShader). The tiles draw ticked too would fly radix16 again at ~0.4 s a frame here (10 s more): which draw
    // takes which strategy is app/page-benchmark.test.ts's; the flights under each draw are the viewer's benchmark.
    const { page, log } = await openViewer('?splats=1000&sort=radix16&draw=quads', { width: 320, height: 240 });
    await waitFrames(page, 3);
    // 320 px wide is a narrow screen: the panel starts collapsed; open it as a user would.
    if (await page.locator('.lil-gui.lil-root.lil-closed').count()) await page.locator('.lil-gui.lil-root > .lil-title').click();
    const benchTitle = page.locator('.lil-title', { hasText: /^Benchmark$/ });
    const benchFolder = benchTitle.locator('xpath=..');
    if ((await benchTitle.getAttribute('aria-expanded')) === 'false') await benchTitle.click();
    const box = (name: string) => benchFolder.locator('.lil-controller.lil-boolean', { has: page.locator('.lil-name', { hasText: new RegExp(`^${name}$`) }) }).locator('input');
    const all = await page.evaluate(() => (window as unknown as { splatview: { viewer: { strategies: { name: string }[] } } }).splatview.viewer.strategies.map((x) => x.name));
    for (const name of all) if (!['radix16', 'cpu'].includes(name)) await box(name).uncheck();
    await box('draw: quads').check();
    const frames = benchFolder.locator('.lil-controller', { hasText: 'frames each' }).locator('input');
    await frames.fill('10');
    await frames.press('Enter');
    await page.locator('button', { hasText: 'Run benchmark' }).click();
    await page.waitForSelector('#bench:not([hidden])', { timeout: 240_000 });
    const table = await page.locator('#bench pre').textContent();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#bench button', { hasText: 'Download JSON' }).click()]);
    const file = path.join(OUT, 'e2e-benchmark.json');
    await download.saveAs(file);
    const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;
    console.log(table);
    expect(rows.map((r) => `${r.strategy}/${r.draw}`)).toEqual(['radix16/quads', 'cpu/quads']);
    // The draw setting given back after the flights.
    expect(await page.evaluate(() => (window as unknown as { splatview: { viewer: { draw: string } } }).splatview.viewer.draw)).toBe('quads');
    for (const row of rows) {
      expect(row.frames).toBe(10);
      expect(row.splats).toBe(1000);
      // Where and how it was measured, in every row (issue 11): the file stands alone.
      expect(row.resolution).toBe('320x240');
      expect(row.keyBits).toBe(32);
      expect(row.adapter).toMatch(/swiftshader/i);
      expect(Date.now() - Date.parse(row.date as string)).toBeLessThan(3_600_000);
      // The raster floor and the drawn order's probe are the quads draw's.
      if (row.draw === 'quads') expect(typeof row.rasterFloorMs).toBe('number');
      if (row.draw === 'quads') expect(typeof row.outOfOrderFraction).toBe('number');
      for (const key of ['stages', 'p95'] as const) {
        const stages = row[key] as Record<string, number | null>;
        expect(Object.keys(stages).sort()).toEqual([...STAGE_NAMES, 'total'].sort());
        for (const v of Object.values(stages)) expect(v === null || (typeof v === 'number' && v >= 0)).toBe(true);
      }
    }
    // An exact GPU sort draws in order; the CPU sort is a frame late while the camera flies.
    const radix16 = rows.find((r) => r.strategy === 'radix16' && r.draw === 'quads')!;
    expect(radix16.outOfOrderFraction).toBe(0);
    // The CSV has every column filled for a GPU strategy (SwiftShader's timestamps read here).
    const [csv] = await Promise.all([page.waitForEvent('download'), page.locator('#bench button', { hasText: 'Download CSV' }).click()]);
    const csvFile = path.join(OUT, 'e2e-benchmark.csv');
    await csv.saveAs(csvFile);
    const [header, ...lines] = fs.readFileSync(csvFile, 'utf8').trim().split('\n');
    expect(header.split(',')).toEqual(expect.arrayContaining(['raster_floor_ms', 'adapter', 'resolution', 'key_bits', 'date']));
    const radix16Line = lines.find((l) => l.startsWith('radix16,quads,'))!;
    expect(lines.filter((l) => /^(radix16|cpu),quads,/.test(l))).toHaveLength(2);
    // Every column but the tiles draw's own stages (this run draws quads).
    const columns = header.split(',');
    const empty = radix16Line.split(',').flatMap((c, i) => (c === '' ? [columns[i]] : []));
    expect(empty.filter((c) => !/^blend_/.test(c))).toEqual([]);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('switching the quads draw order (GUI "draw order", ?order=) shows the same picture', async () => {
    const { page, log } = await openViewer('?splats=1000&sort=radix16&draw=quads&order=back-to-front', { width: 320, height: 240 });
    await waitFrames(page, 3);
    await page.waitForFunction(() => document.getElementById('hud')!.textContent!.includes('draw quads back-to-front'), undefined, { timeout: 60_000 });
    const b2f = await canvasPixels(page, 'e2e-order-b2f.png');
    const orderSelect = page.locator('.lil-controller.lil-option', { has: page.locator('.lil-name', { hasText: /^draw order$/ }) }).locator('select');
    await orderSelect.selectOption('front-to-back', { force: true });
    await page.waitForFunction(() => document.getElementById('hud')!.textContent!.includes('draw quads front-to-back'), undefined, { timeout: 60_000 });
    const frames = await page.evaluate(() => (window as unknown as { splatview: { framesRendered: number } }).splatview.framesRendered);
    await waitFrames(page, frames + 3);
    const f2b = await canvasPixels(page, 'e2e-order-f2b.png');
    const p = psnr(f2b, b2f);
    console.log(`e2e: front to back vs back to front in Chromium ${p.toFixed(1)} dB`);
    expect(p).toBeGreaterThan(40);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('?precision=full draws the picture of the compact default (issue 17: >= 45 dB)', async () => {
    // The page's parameter, one page a precision, the quads draw (both draws' compact vs full pictures on every
    // real scene are test/gpu/precision.test.ts's).
    const shots = new Map<string, Float32Array>();
    for (const precision of ['', '&precision=full']) {
      const { page, log } = await openViewer(`?splats=1000&draw=quads&sort=radix16${precision}`, { width: 320, height: 240 });
      await page.waitForFunction(() => document.getElementById('hud')!.textContent!.includes('draw quads'), undefined, { timeout: 60_000 });
      await waitFrames(page, 3);
      shots.set(precision, await canvasPixels(page, `e2e-precision-quads${precision ? '-full' : ''}.png`));
      expect(log.errors).toEqual([]);
      await page.close();
    }
    const p = psnr(shots.get('')!, shots.get('&precision=full')!);
    console.log(`e2e: quads, compact vs ?precision=full in Chromium ${p.toFixed(1)} dB`);
    expect(p).toBeGreaterThanOrEqual(45);
  });

  it('switching the draw strategy (GUI "draw: quads | tiles", ?draw=) shows the same picture', async () => {
    // Small: a tiles frame sorts its (tile, depth) pairs on SwiftShader, about a second here.
    const { page, log } = await openViewer('?splats=1000&sort=radix16&draw=quads', { width: 320, height: 240 });
    await waitFrames(page, 3);
    const hud = () => page.locator('#hud').textContent();
    await page.waitForFunction(() => document.getElementById('hud')!.textContent!.includes('draw quads'), undefined, { timeout: 60_000 });
    // ?draw=quads wins over the draw's auto: no trial, the panel says so.
    expect(await page.locator('.sv-draw-note').textContent()).toBe('quads: chosen by the link (?draw=)');
    expect(await page.locator('#hud').textContent()).not.toMatch(/draw quads \(auto\)/);
    const quads = await canvasPixels(page, 'e2e-draw-quads.png');
    const drawSelect = page.locator('.lil-controller.lil-option', { has: page.locator('.lil-name', { hasText: /^draw$/ }) }).locator('select');
    // At 320 px the panel starts collapsed (narrow screens); the control still works.
    await drawSelect.selectOption('tiles', { force: true });
    await page.waitForFunction(() => document.getElementById('hud')!.textContent!.includes('draw tiles'), undefined, { timeout: 60_000 });
    const frames = await page.evaluate(() => (window as unknown as { splatview: { framesRendered: number } }).splatview.framesRendered);
    await waitFrames(page, frames + 3);
    const tiles = await canvasPixels(page, 'e2e-draw-tiles.png');
    const p = psnr(tiles, quads);
    console.log(`e2e: tiles vs quads in Chromium ${p.toFixed(1)} dB (${await hud()})`);
    expect(p).toBeGreaterThan(40);
    // The choice is remembered: a reload without ?draw= comes back drawing tiles.
    await page.goto(base + '?splats=1000');
    await page.waitForFunction(() => document.getElementById('hud')?.textContent?.includes('draw tiles'), undefined, { timeout: 60_000 });
    expect(await drawSelect.inputValue()).toBe('tiles'); // the panel shows the remembered choice
    expect(await page.locator('.sv-draw-note').textContent()).toMatch(/^tiles: your choice \(remembered/);
    // The panel's auto goes back to measuring.
    await drawSelect.selectOption({ label: 'auto (fastest measured)' }, { force: true });
    await page.waitForFunction(() => /^auto: /.test(document.querySelector('.sv-draw-note')?.textContent ?? ''), undefined, { timeout: 60_000 });
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('a refused sort or draw choice says what to change, the panel shows what runs, and the line leaves once a later action succeeds (issue 19)', async () => {
    // Explicit sort and draw: no auto trial to wait for.
    const { page, log } = await openViewer('?splats=1000&sort=radix16&draw=tiles');
    await waitFrames(page, 1);
    if (await page.locator('.lil-gui.lil-root.lil-closed').count()) await page.locator('.lil-gui.lil-root > .lil-title').click();
    const sortSelect = page.locator('.lil-controller.lil-option', { has: page.locator('.lil-name', { hasText: /^strategy$/ }) }).locator('select');
    const drawSelect = page.locator('.lil-controller.lil-option', { has: page.locator('.lil-name', { hasText: /^draw$/ }) }).locator('select');
    const message = page.locator('#message');
    // Sort 'cpu' under tiles: refused, saying what to change; the select shows what still runs.
    await sortSelect.selectOption({ label: 'cpu (lags a frame)' }); // lil-gui's options: the label is the value
    await page.waitForFunction(() => !document.getElementById('message')!.hidden, undefined, { timeout: 30_000 });
    expect(await message.textContent()).toBe("sort 'cpu' sorts on the host and draw 'tiles' needs a GPU sort: choose draw 'quads' first; still sorting with radix16");
    expect(await sortSelect.inputValue()).toBe('radix16');
    expect(await app(page, (a) => a.strategy)).toBe('radix16');
    // Doing what it says: the draw goes to quads, the line leaves; then cpu is taken.
    await drawSelect.selectOption('quads');
    await page.waitForFunction(() => document.getElementById('message')!.hidden, undefined, { timeout: 30_000 });
    await sortSelect.selectOption({ label: 'cpu (lags a frame)' }); // lil-gui's options: the label is the value
    await page.waitForFunction(() => (window as unknown as { splatview: AppView }).splatview.strategy === 'cpu', undefined, { timeout: 30_000 });
    expect(await message.isHidden()).toBe(true);
    // Tiles under cpu: refused, naming the GPU sorts; the draw select stays on quads.
    await drawSelect.selectOption('tiles');
    await page.waitForFunction(() => !document.getElementById('message')!.hidden, undefined, { timeout: 30_000 });
    expect(await message.textContent()).toMatch(/^draw 'tiles' needs a GPU sort \([^)]+\) and sort 'cpu' sorts on the host: choose (it|one of them) first; still drawing quads$/);
    expect(await drawSelect.inputValue()).toBe('quads');
    expect(await app(page, (a) => a.draw)).toBe('quads');
    // A later, unrelated action that succeeds (the splat scale): the line leaves.
    const scale = page.locator('.lil-controller', { has: page.locator('.lil-name', { hasText: /^splat scale$/ }) }).locator('input').first();
    await scale.fill('0.9');
    await scale.press('Enter');
    await page.waitForFunction(() => document.getElementById('message')!.hidden, undefined, { timeout: 30_000 });
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('survives a lost GPU device: a new device draws the same scene, settings and view (issue 17)', async () => {
    // Explicit sort and draw: no auto trial (seconds on SwiftShader) to wait for.
    const hash = '#cam=0.6,-1.2,-5,0.1,0,0,0,-1,0,50&scene=default%3A2000';
    // A URL that never answers: a load in flight when the device is lost (second part).
    let stalled!: () => void;
    const hit = new Promise<void>((resolve) => (stalled = resolve));
    const { page, log } = await openViewer(`?splats=2000&sort=radix16&draw=quads${hash}`, { width: 320, height: 240 }, async (p) => {
      await p.route((url) => url.pathname.startsWith('/e2e-stall/'), () => stalled());
    });
    await waitFrames(page, 3);
    await page.waitForFunction(() => (window as unknown as { splatview: AppView }).splatview.framesCompleted >= 3, undefined, { timeout: 60_000 });
    // The page writes the hash from the pose every 500 ms, and only when its own spelling
    // differs (here it need not: a wait for a change took its whole 30 s timeout): past one
    // write, the hash is the page's.
    await page.waitForTimeout(700);
    const t0 = performance.now();
    const step = (what: string) => console.log(`e2e: device loss: ${what} at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const before = await app(page, (a) => ({ generation: a.deviceGeneration, view: a.view, strategy: a.strategy, draw: a.draw }));
    const hashBefore = await page.evaluate(() => location.hash);
    expect(before.generation).toBe(0);
    expect(near(before.view.eye, [0.6, -1.2, -5])).toBe(true);
    const shotBefore = await canvasPixels(page, 'e2e-device-lost-before.png');
    // Every line the message box shows from now on.
    await page.evaluate(() => {
      const w = window as unknown as { messageLog: string[] };
      w.messageLog = [];
      const el = document.getElementById('message')!;
      new MutationObserver(() => w.messageLog.push(el.textContent ?? '')).observe(el, { childList: true, characterData: true, subtree: true });
    });
    // A loss the page did not cause: destroy() from outside, as a driver reset would end it.
    await page.evaluate(() => (window as unknown as { splatview: { device: GPUDevice } }).splatview.device.destroy());
    await page.waitForFunction(() => (window as unknown as { splatview: AppView }).splatview.deviceGeneration === 1, undefined, { timeout: 60_000 });
    step('recovered');
    const completed = await app(page, (a) => a.framesCompleted);
    await page.waitForFunction((n) => (window as unknown as { splatview: AppView }).splatview.framesCompleted >= n + 3, completed, { timeout: 60_000 });
    const messages = await page.evaluate(() => (window as unknown as { messageLog: string[] }).messageLog);
    console.log(`e2e: device loss messages: ${JSON.stringify(messages)}`);
    expect(messages[0]).toMatch(/^The GPU device was lost \(destroyed.*\): recovering…$/);
    expect(messages.at(-1)).toMatch(/^The GPU device was lost \(destroyed.*\): recovered$/);
    const after = await app(page, (a) => ({ generation: a.deviceGeneration, view: a.view, strategy: a.strategy, draw: a.draw, scenes: a.scenesShown }));
    expect(after.strategy).toBe(before.strategy);
    expect(after.draw).toBe(before.draw);
    expect(after.view).toEqual(before.view);
    expect(after.scenes).toEqual(['default:2000']); // the kept cloud, not a reload
    // The hash stays (written again after 500 ms: still the same view).
    await page.waitForTimeout(700);
    expect(await page.evaluate(() => location.hash)).toBe(hashBefore);
    // The canvas alone: the message box (the recovered line) lies over it.
    await page.addStyleTag({ content: '#message { visibility: hidden !important; }' });
    const shotAfter = await canvasPixels(page, 'e2e-device-lost-after.png');
    const p = psnr(shotAfter, shotBefore);
    console.log(`e2e: after the device loss vs before ${p.toFixed(1)} dB`);
    expect(p).toBeGreaterThan(50);
    expect(await app(page, (a) => a.deviceGeneration)).toBe(1);

    // Lost again while a scene loads: the load ends saying why, the page recovers with the scene it had.
    await page.evaluate(() => void (window as unknown as { splatview: { openUrl(u: string): Promise<boolean> } }).splatview.openUrl('/e2e-stall/stalled.ply'));
    // The worker's request reached the route (bounded: a hang here would only show as the test's timeout).
    await Promise.race([hit, new Promise((_, reject) => setTimeout(() => reject(new Error('the stalled URL was never requested')), 60_000))]);
    await page.evaluate(() => (window as unknown as { splatview: { device: GPUDevice } }).splatview.device.destroy());
    await page.waitForFunction(() => (window as unknown as { splatview: AppView }).splatview.deviceGeneration === 2, undefined, { timeout: 60_000 });
    step('recovered during a load');
    const loads = await page.evaluate(() => (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.map((l) => `${l.name} ${l.outcome}`));
    expect(loads).toEqual(['stalled.ply failed']);
    const lines = await page.evaluate(() => (window as unknown as { messageLog: string[] }).messageLog);
    console.log(`e2e: device lost during a load: ${JSON.stringify(lines.slice(2))}`);
    expect(lines.at(-1)).toBe(
      'The GPU device was lost (destroyed: Device was destroyed): recovered; stalled.ply: not loaded: the GPU device was lost during the load; default:2000 stays on screen',
    );
    const done = await app(page, (a) => a.framesCompleted);
    await page.waitForFunction((n) => (window as unknown as { splatview: AppView }).splatview.framesCompleted >= n + 3, done, { timeout: 60_000 });
    expect(await app(page, (a) => a.scenesShown)).toEqual(['default:2000']);
    expect(await app(page, (a) => a.view)).toEqual(before.view);
    const shotAgain = await canvasPixels(page, 'e2e-device-lost-during-load.png');
    expect(psnr(shotAgain, shotBefore)).toBeGreaterThan(50);

    // Lost once more, and no adapter comes: said once, a bounded number of tries, no more frames.
    const seen = lines.length;
    await page.evaluate(() => {
      navigator.gpu.requestAdapter = async () => null;
      (window as unknown as { splatview: { device: GPUDevice } }).splatview.device.destroy();
    });
    await page.waitForFunction(() => /: reload the page$/.test(document.getElementById('message')!.textContent ?? ''), undefined, { timeout: 30_000 });
    step('gave up');
    const rendered = await app(page, (a) => a.framesRendered);
    // Recovery has no timers (recovery.ts): a further attempt or frame would come within a second.
    await page.waitForTimeout(1000);
    const last = (await page.evaluate(() => (window as unknown as { messageLog: string[] }).messageLog)).slice(seen);
    console.log(`e2e: no new device: ${JSON.stringify(last)}`);
    expect(last).toHaveLength(2);
    expect(last[0]).toMatch(/: recovering…$/);
    expect(last[1]).toMatch(/^The GPU device was lost \(destroyed: Device was destroyed\); no new GPU device after 3 attempts: WebGPU is present but no GPU adapter is available .*: reload the page$/);
    expect(await app(page, (a) => [a.deviceGeneration, a.framesRendered])).toEqual([2, rendered]);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('shows a clear message when WebGPU is missing', async () => {
    const page = await browser.newPage();
    await page.addInitScript(() => {
      Object.defineProperty(navigator, 'gpu', { value: undefined, configurable: true });
    });
    await page.goto(base);
    await page.waitForSelector('#no-webgpu', { timeout: 30_000 });
    expect(await page.locator('#no-webgpu').textContent()).toMatch(/WebGPU/);
    await page.close();
  });
});

/** A generated 1M-splat SH3 PLY (~248 MB) in a temp dir, made once and reused by later runs. */
function bigScene(): string {
  return syntheticPly(1_000_000, 3, undefined, (line) => console.log(`e2e: ${line}`));
}

/** A tiny SH0 PLY whose first `bad` splats have a NaN x (dropped by the loader). */
function plyWithNaN(n: number, bad: number): Buffer {
  const buf = tinyPly(n);
  const headerEnd = buf.indexOf('end_header\n') + 'end_header\n'.length;
  for (let i = 0; i < bad; i++) buf.writeFloatLE(NaN, headerEnd + i * 14 * 4);
  return buf;
}

describe('scene loading in a worker (issue 10)', () => {
  // One page for both tests (starting a page on SwiftShader is the slowest part): the failures
  // first, then the large load, which leaves a 1M-splat scene drawing.
  let page: Page;
  let log: PageLog;
  beforeAll(async () => {
    // A chosen sort: auto would time every sort once a scene is up (minutes on SwiftShader for 1M splats).
    // draw=quads: the loads' figures were taken under quads, without the draw's auto trial at each new splat count.
    ({ page, log } = await openViewer('?splats=2000&sort=radix16&draw=quads', { width: 320, height: 240 }, async (p) => {
      await p.route((url) => url.pathname.startsWith('/e2e-missing/'), (route) => void route.fulfill({ status: 404, body: 'no such scene' }));
    }));
    await waitFrames(page, 3);
  });
  afterAll(async () => {
    await page?.close();
  });

  it('Cancel, a file that breaks mid-stream and a URL that fails each keep the scene on screen; the next load works', async () => {
    const file = bigScene();
    const loads = () => page.evaluate(() => (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.map((l) => l.outcome));

    // Cancel as soon as the bar shows decoded splats (in the page: no round trip to race the load).
    await page.evaluate(() => {
      const load = document.getElementById('load')!;
      const obs = new MutationObserver(() => {
        if (!load.hidden && / [\d,]+ splats/.test(load.textContent ?? '')) {
          obs.disconnect();
          load.querySelector('button')!.click();
        }
      });
      obs.observe(load, { childList: true, characterData: true, subtree: true, attributes: true });
    });
    await page.locator('#file').setInputFiles(file);
    await page.waitForFunction(() => (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.at(-1)?.outcome === 'cancelled', undefined, { timeout: 120_000 });
    expect(await page.locator('#load').isHidden()).toBe(true);
    expect(await page.locator('#message').textContent()).toBe('synthetic-1m-sh3.ply: loading cancelled; default:2000 stays on screen');
    expect(await page.title()).toMatch(/^default:2000/);

    // A valid header and 5,000 rows declared, the file cut after 3,999 and a half: the error
    // comes from the worker mid-stream, after progress.
    const whole = tinyPly(5000);
    const cut = whole.subarray(0, whole.length - 1000 * 14 * 4 - 28);
    await page.locator('#file').setInputFiles({ name: 'cut.ply', mimeType: 'application/octet-stream', buffer: cut });
    await page.waitForFunction(() => (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.at(-1)?.outcome === 'failed', undefined, { timeout: 60_000 });
    expect(await page.locator('#message').textContent()).toMatch(/^cut\.ply: truncated: header declares 5000 vertices of 56 bytes but the file ends at byte \d+ after 3999 whole rows$/);
    expect(await page.locator('#message').isVisible()).toBe(true);
    expect(await page.locator('#load').isHidden()).toBe(true);
    expect(await page.title()).toMatch(/^default:2000/);

    // A URL (as ?scene= opens it) that answers 404: the worker's fetch fails with a typed one-line error.
    const opened = await page.evaluate(() => (window as unknown as { splatview: { openUrl(u: string): Promise<boolean> } }).splatview.openUrl('/e2e-missing/gone.ply'));
    expect(opened).toBe(false);
    expect(await page.locator('#message').textContent()).toMatch(/^gone\.ply: read-failed: HTTP 404 .*\/e2e-missing\/gone\.ply$/);
    expect(await loads()).toEqual(['cancelled', 'failed', 'failed']);
    expect(await app(page, (a) => a.scenesShown)).toEqual(['default:2000']);
    const frames = await app(page, (a) => a.framesRendered);
    await waitFrames(page, frames + 3);
    expect(await litFraction(page, 'e2e-after-failed-loads.png')).toBeGreaterThan(0.05);

    // A new worker serves the next load; splats with a NaN position are dropped, and the HUD says so.
    await page.locator('#file').setInputFiles({ name: 'nan.ply', mimeType: 'application/octet-stream', buffer: plyWithNaN(20, 3) });
    await page.waitForFunction(() => document.title.startsWith('nan.ply'), undefined, { timeout: 60_000 });
    await page.waitForFunction(() => document.getElementById('hud')!.textContent!.includes('3 splats dropped: non-finite values'), undefined, { timeout: 30_000 });
    expect(await page.locator('#hud').textContent()).toMatch(/nan\.ply\s+17 splats/);
    // The 404 is the test's own (the page logs the failed request); nothing else went wrong.
    expect(log.errors.filter((e) => !/404/.test(e))).toEqual([]);
  });

  it('Cancel works while the scene goes to the GPU (the upload, issue 19): the upload stops, the scene on screen stays', async () => {
    const file = bigScene();
    const shownBefore = await app(page, (a) => a.scenesShown);
    const titleBefore = await page.title();
    // The page's log so far holds the earlier tests' own errors (their 404): only this test's count.
    const errorsBefore = log.errors.length;
    // Cancel once the bar says how much is uploaded; note whether the button was enabled then.
    await page.evaluate(() => {
      const w = window as unknown as { cancelWasEnabled: boolean | null };
      w.cancelWasEnabled = null;
      const load = document.getElementById('load')!;
      const obs = new MutationObserver(() => {
        if (!load.hidden && /% uploaded/.test(load.textContent ?? '')) {
          obs.disconnect();
          const button = load.querySelector('button')!;
          w.cancelWasEnabled = !button.disabled;
          button.click();
        }
      });
      obs.observe(load, { childList: true, characterData: true, subtree: true, attributes: true });
    });
    await page.locator('#file').setInputFiles(file);
    await page.waitForFunction(() => (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.at(-1)?.outcome === 'cancelled', undefined, { timeout: 240_000 });
    expect(await page.evaluate(() => (window as unknown as { cancelWasEnabled: boolean | null }).cancelWasEnabled)).toBe(true);
    const load = await lastLoad(page);
    expect(load.readyAt).not.toBeNull(); // cancelled after the worker's part: during the upload
    expect(await page.locator('#load').isHidden()).toBe(true);
    expect(await page.locator('#message').textContent()).toMatch(/^synthetic-1m-sh3\.ply: loading cancelled; .+ stays on screen$/);
    expect(await page.title()).toBe(titleBefore);
    expect(await app(page, (a) => a.scenesShown)).toEqual(shownBefore);
    const frames = await app(page, (a) => a.framesRendered);
    await waitFrames(page, frames + 3);
    expect(log.errors.slice(errorsBefore)).toEqual([]);
  });

  it.skipIf(!haveSharedScenes())('SOG in the worker: an unbundled folder (meta.json + .webp chosen together), then a bundled .sog; a missing texture is named and the scene stays', async () => {
    // Written at test time by splat-transform from the shared PLY (never committed).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-e2e-sog-'));
    try {
      // The devDependency's own binary (npx from a temporary folder would look the name up in the registry).
      const cli = path.resolve(__dirname, '../../node_modules/.bin/splat-transform');
      const run = (out: string) => execFileSync(cli, ['-q', '-w', '-g', 'cpu', sharedScene('inria_sh3_tile_1971.ply'), out], { cwd: dir, stdio: 'pipe' });
      run('room.sog');
      fs.mkdirSync(path.join(dir, 'room'));
      run(path.join('room', 'meta.json'));
      const shown = () => app(page, (a) => a.scenesShown);
      const webps = fs.readdirSync(path.join(dir, 'room')).filter((f) => f.endsWith('.webp')).map((f) => path.join(dir, 'room', f));

      // Unbundled: every file at once through the file input (multiple); meta.json is picked as the scene.
      await page.locator('#file').setInputFiles([...webps, path.join(dir, 'room', 'meta.json')]);
      await page.waitForFunction(() => document.title.startsWith('meta.json'), undefined, { timeout: 60_000 });
      await page.waitForFunction(() => /meta\.json\s+1,971 splats/.test(document.getElementById('hud')!.textContent!), undefined, { timeout: 30_000 });

      // Bundled .sog: its textures decoded in the worker by the browser's decoder.
      let frames = await app(page, (a) => a.framesRendered);
      await page.locator('#file').setInputFiles(path.join(dir, 'room.sog'));
      await page.waitForFunction(() => document.title.startsWith('room.sog'), undefined, { timeout: 60_000 });
      await page.waitForFunction(() => /room\.sog\s+1,971 splats/.test(document.getElementById('hud')!.textContent!), undefined, { timeout: 30_000 });
      await waitFrames(page, frames + 3);
      expect(await litFraction(page, 'e2e-sog.png')).toBeGreaterThan(0.02);

      // meta.json without quats.webp: one typed line naming the missing file; room.sog stays.
      await page.locator('#file').setInputFiles([...webps.filter((f) => !f.endsWith('quats.webp')), path.join(dir, 'room', 'meta.json')]);
      await page.waitForFunction(() => (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.at(-1)?.outcome === 'failed', undefined, { timeout: 60_000 });
      expect(await page.locator('#message').textContent()).toMatch(/^meta\.json: read-failed: reading 'quats\.webp' \(quats\.files\[0\]\) failed: it is not among the 7 files opened with meta\.json$/);
      expect(await page.title()).toMatch(/^room\.sog/);
      expect((await shown()).slice(-2)).toEqual(['file:meta.json', 'file:room.sog']);
      frames = await app(page, (a) => a.framesRendered);
      await waitFrames(page, frames + 3);
      expect(log.errors.filter((e) => !/404/.test(e))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a 1M-splat SH3 file loads in the worker with a progress bar while the page keeps drawing (long tasks, frames, memory measured)', async () => {
    const t0 = Date.now();
    const phase = (what: string) => process.env.SPLAT_E2E_TRACE && console.log(`e2e phase: ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const file = bigScene();
    phase('scene file ready');
    const size = fs.statSync(file).size;
    await waitFrames(page, (await app(page, (a) => a.framesRendered)) + 2);
    phase('page drawing');
    await watchLoad(page);
    await new Promise((r) => setTimeout(r, 500)); // rAF gaps before the load, for comparison
    const framesBefore = await app(page, (a) => a.framesRendered);
    // The page's own frame loop: frames it submitted, sampled every 100 ms with the time.
    await page.evaluate(() => {
      const w = window as unknown as { frameLog: [number, number][]; splatview: { framesRendered: number } };
      w.frameLog = [];
      setInterval(() => w.frameLog.push([performance.now(), w.splatview.framesRendered]), 100);
    });
    const memory = await rssSampler(browser);
    await page.locator('#file').setInputFiles(file);
    await page.waitForFunction(() => {
      const l = (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.at(-1);
      return l !== undefined && l.readyAt !== null;
    }, undefined, { timeout: 240_000 });
    await page.waitForFunction(() => (window as unknown as { splatview: { loads: LoadRecord[] } }).splatview.loads.at(-1)!.outcome !== 'loading', undefined, { timeout: 240_000 });
    await new Promise((r) => setTimeout(r, 1000));
    const { baseline: before, samples, pagePid } = memory.stop();
    const baseline = before.rss;
    phase('scene shown');
    const load = await lastLoad(page);
    const origin = await page.evaluate(() => performance.timeOrigin);
    const peakUntil = (t: number) => Math.max(baseline, ...samples.filter((s) => s.t <= origin + t).map((s) => s.rss));
    const mem = { baseline, ready: peakUntil(load.readyAt!), peak: peakUntil(Infinity) };
    expect(load.outcome).toBe('shown');
    expect(await page.title()).toMatch(/^synthetic-1m-sh3\.ply/);
    const w = await readLoadWatch(page);
    const frameLog = await page.evaluate(() => (window as unknown as { frameLog: [number, number][] }).frameLog);
    const inLoad = frameLog.filter(([t]) => t >= load.startedAt && t <= load.readyAt!);
    const framesDrawnDuring = inLoad.length ? inLoad.at(-1)![1] - inLoad[0]![1] : 0;
    const framesDuring = await page.evaluate(
      ([from, to]) => (window as unknown as { loadWatch: { rafs: number[] } }).loadWatch.rafs.filter((t) => t >= from && t <= to).length,
      [load.startedAt, load.readyAt!],
    );

    // (1) Progress: the bar showed bytes of the total and a growing splat count.
    const shown = w.bars.filter((b) => !b.hidden && /Loading synthetic-1m-sh3\.ply: \d+ \/ 248 MB · [\d,]+ splats/.test(b.text));
    const splats = shown.map((b) => Number(/([\d,]+) splats/.exec(b.text)![1]!.replace(/,/g, '')));
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(splats.at(-1)).toBeGreaterThan(splats[0]!);
    expect(shown.some((b) => b.value !== null && b.value > 0 && b.value < 1)).toBe(true);
    // While the page sets the scene up on the GPU (tasks of a few ms, for seconds on SwiftShader), the bar says so.
    expect(w.bars.some((b) => !b.hidden && b.text.startsWith('Preparing synthetic-1m-sh3.ply for the GPU: 1,000,000 splats'))).toBe(true);
    // ... and how much of it is uploaded, the bar following (a 6M scene uploads for minutes on SwiftShader).
    const uploading = w.bars.filter((b) => !b.hidden && /^Preparing synthetic-1m-sh3\.ply for the GPU: 1,000,000 splats · \d+% uploaded/.test(b.text));
    const shares = uploading.map((b) => Number(/(\d+)% uploaded/.exec(b.text)![1]));
    expect(shares.length).toBeGreaterThanOrEqual(2);
    expect(shares.every((v, i) => i === 0 || v >= shares[i - 1]!)).toBe(true);
    expect(shares.at(-1)).toBeGreaterThan(shares[0]!);
    expect(uploading.some((b) => b.value !== null && b.value > 0 && b.value < 1)).toBe(true);
    expect(await page.locator('#load').isHidden()).toBe(true);

    // (2) Frames keep coming: no main-thread task over 50 ms while the worker loads.
    // The task that hands the cloud over also sets the new scene up (the swap): its part up to
    // readyAt counts for the load, the rest for the swap.
    const loadTasks = w.longTasks
      .filter((e) => e.start + e.duration >= load.startedAt && e.start <= load.readyAt!)
      .map((e) => ({ start: e.start, duration: Math.min(e.start + e.duration, load.readyAt!) - e.start }))
      .filter((e) => e.duration > 50);
    // The swap: the GPU upload in slices, the new scene's sort and draw state, its first view,
    // the switch, and the new scene's first frames (the second the test waits after it).
    const swapEnd = load.shownAt! + 1000;
    const swapTasks = w.longTasks
      .filter((e) => e.start + e.duration > load.readyAt! && e.start <= swapEnd)
      .map((e) => ({ start: e.start, duration: e.start + e.duration - Math.max(e.start, load.readyAt!) }))
      .filter((e) => e.duration > 50);
    const gaps = (from: number, to: number) => {
      const r = w.rafs.filter((t) => t >= from && t <= to);
      return r.slice(1).map((t, i) => t - r[i]!);
    };
    const maxOf = (v: number[]) => (v.length ? Math.max(...v) : 0);
    const loadGap = maxOf(gaps(load.startedAt, load.readyAt!));
    if (process.env.SPLAT_E2E_TRACE) console.log('long tasks (ms from the load start, duration):', JSON.stringify(w.longTasks.map((e) => [Math.round(e.start - load.startedAt), Math.round(e.duration)])), 'ready at', Math.round(load.readyAt! - load.startedAt), 'shown at', Math.round(load.shownAt! - load.startedAt));
    if (process.env.SPLAT_E2E_TRACE) console.log('long animation frames (ms from the load start):', JSON.stringify(w.loaf.filter((l) => l.blocking > 0).map((l) => ({ ...l, start: Math.round(l.start - load.startedAt) }))));
    const rafTimeline = w.rafs.filter((t) => t >= load.startedAt - 500 && t <= load.shownAt! + 500).map((t) => Math.round(t - load.startedAt));
    if (process.env.SPLAT_E2E_TRACE) console.log('rAF times (ms from the load start):', JSON.stringify(rafTimeline));
    if (process.env.SPLAT_E2E_TRACE) console.log('RSS (ms from the load start, MB):', JSON.stringify(samples.filter((_, i) => i % 10 === 0).map((s) => [s.t - origin - load.startedAt, Math.round(s.rss / 1e6)])));
    const beforeGap = maxOf(gaps(load.startedAt - 500, load.startedAt));
    const ms = (v: number) => v.toFixed(0);
    const mb = (v: number) => (v / 1e6).toFixed(0);
    console.log(
      `e2e worker load: ${(size / 1e6).toFixed(0)} MB, 1M SH3; worker load ${ms(load.readyAt! - load.startedAt)} ms, ` +
        `${framesDuring} animation frames (${framesDrawnDuring} drawn by the page) during it; longest main-thread task ${ms(maxOf(loadTasks.map((e) => e.duration)))} ms ` +
        `(${loadTasks.length} over 50 ms); longest rAF gap ${ms(loadGap)} ms (before the load ${ms(beforeGap)} ms); ` +
        `swap (GPU upload, framing) ${ms(load.shownAt! - load.readyAt!)} ms, the switch ${ms(load.switchMs!)} ms, longest task in it and the second after ${ms(maxOf(swapTasks.map((e) => e.duration)))} ms ` +
        `(${swapTasks.length} over 50 ms); ` +
        `renderer RSS before ${mb(mem.baseline)} MB, peak while loading ${mb(mem.ready)} MB (+${((mem.ready - mem.baseline) / size).toFixed(2)}x the file), ` +
        `peak with the swap ${mb(mem.peak)} MB (${(mem.peak / size).toFixed(2)}x the file, +${((mem.peak - mem.baseline) / size).toFixed(2)}x over the page before)`,
    );
    // On a machine with more runnable threads than cores (this 2-core one: SwiftShader's GPU
    // process, the worker and the page; whole-machine stalls of a second were seen when shared)
    // the scheduler stretches 5-10 ms tasks past 50 ms at random: the asserts below hold each
    // task to its own time, not its wall time (only the switch's own timing uses the load).
    const overloaded = os.loadavg()[0]! > os.cpus().length;
    const busy = loadTasks.reduce((a, e) => a + e.duration, 0) / (load.readyAt! - load.startedAt);
    const swapBusy = swapTasks.reduce((a, e) => a + e.duration, 0) / (swapEnd - load.readyAt!);
    console.log(
      `e2e worker load: load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores; long tasks ${(100 * busy).toFixed(0)}% of the load, ` +
        `${(100 * swapBusy).toFixed(0)}% of the swap`,
    );
    // What the page's thread did in each long task: its time on a CPU (at most), the rest it
    // waited for one (runnable, while other processes ran) or slept. The target: no task over
    // 50 ms. SwiftShader draws this page's frames on the same 2 cores, so a task's wall time
    // also holds the time its thread waited, runnable, for a CPU: each long task is held to
    // what it provably spent of its own (bench/browser.ts tasksOverOwnTime).
    const judged = tasksOverOwnTime([...loadTasks, ...swapTasks], samples, pagePid, origin);
    console.log(
      `e2e worker load: long tasks (ms from the load start: wall ms / on a CPU at most / waiting for a CPU, in a window of ms): ` +
        (judged.measured.map((e) => `${ms(e.start - load.startedAt)}: ${ms(e.duration)} / ${ms(e.onCpu)} / ${ms(e.waiting)} in ${ms(e.window)}`).join(', ') || 'none'),
    );
    expect(judged.unreadable, 'the scheduler figures (/proc/PID/task/TID/schedstat) cannot be read').toBe(0);
    expect(judged.over.map((e) => ({ start: Math.round(e.start - load.startedAt), wall: Math.round(e.duration), onCpu: Math.round(e.onCpu), waiting: Math.round(e.waiting), window: Math.round(e.window) }))).toEqual([]);
    // And long tasks fill under 20% of the load and of the swap: a parse on this thread would
    // fill the whole load with one long task; an upload or framing in one task, the whole swap.
    expect(busy).toBeLessThan(0.2);
    expect(swapBusy).toBeLessThan(0.2);
    // The switch itself only swaps references (everything else was made before it), timed in the page.
    if (!overloaded) expect(load.switchMs!).toBeLessThanOrEqual(50);
    // Frames keep coming (the page's own frame loop too), and the new scene is drawn.
    expect(framesDuring).toBeGreaterThanOrEqual(2);
    expect(framesDrawnDuring).toBeGreaterThanOrEqual(2);
    expect((await app(page, (a) => a.framesRendered)) > framesBefore).toBe(true);
    // The worker holds the final arrays (0.95x the file) and one reused 1 MB read buffer, never
    // the whole file: +1.02-1.03x here (docs/PERFORMANCE.md; with a fresh chunk per read, +1.3-1.75x
    // before the collector took them); reading the whole file first would add 1x on top.
    expect(mem.ready - mem.baseline).toBeLessThanOrEqual(1.5 * size);
    expect(mem.peak - mem.baseline).toBeLessThanOrEqual(1.5 * size);
    expect(log.errors.filter((e) => !/404/.test(e))).toEqual([]);
    phase('done');
  });
});
