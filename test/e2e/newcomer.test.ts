/**
 * The page as a newcomer meets it (issue 34), in headless Chromium (SwiftShader
 * WebGPU) against the built page:
 *  - a file the page cannot open gets one line the user can act on, its long form
 *    behind a 'details' toggle: a header that claims more splats than the file holds
 *    is said to be short (not too big for the GPU), a file of no scene format says
 *    what it starts like, a .glb whose data lies apart says to open the .gltf with its .bin;
 *  - figures that agree: no FPS while the first scene is generated (nothing is
 *    drawn), a host sort's time apart from the GPU stages, and the figures kept
 *    through a failed load and a double-click (the work did not change);
 *  - without WebGPU (Chromium with --disable-webgpu; an adapter that does not
 *    answer) the page says what to do next and links a screenshot of the viewer;
 *  - the layout at 480, 639, 640 and 800 px: the panel starts collapsed under 640
 *    only, the HUD never runs under the open panel, and a message neither covers
 *    the panel's title nor the middle of a phone's view (screenshots in test-output/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { glbWithExternalBuffer, shortPly } from '../../bench/bad-files';
import { CHROMIUM, CHROMIUM_FLAGS, launchChromium, openViewer as openViewerIn, startAppServer, type PageLog } from '../../bench/browser';

const OUT = path.resolve(__dirname, '../../test-output');

let server: { base: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  server = await startAppServer(path.resolve(__dirname, '../..'), { built: true });
  browser = await launchChromium();
  fs.mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

let pages: Page[] = [];
beforeEach(() => {
  pages = [];
});
afterEach(async () => {
  for (const p of pages) if (!p.isClosed()) await p.close();
});

// The cpu sort and the quads draw: the quickest to start on SwiftShader (no GPU sort's pipelines to compile), no auto trial.
function openViewer(query: string, viewport = { width: 480, height: 360 }, before?: (page: Page) => Promise<void>): Promise<{ page: Page; log: PageLog }> {
  return openViewerIn(browser, server.base, query, viewport, async (page) => {
    pages.push(page);
    await before?.(page);
  });
}

const hud = (page: Page) => page.evaluate(() => document.querySelector('#hud')?.textContent ?? '');
/** The HUD's GPU line has figures (not "gpu -"). */
const GPU_FIGURES = /^gpu [\d.]+ ms \(/m;

async function waitFigures(page: Page): Promise<void> {
  await page.waitForFunction((src) => new RegExp(src, 'm').test(document.querySelector('#hud')?.textContent ?? '') && /\(([1-9][\d,]*) visible\)/.test(document.querySelector('#hud')?.textContent ?? ''), GPU_FIGURES.source, { timeout: 120_000 });
}

/** Opens `file` through the page's file input and waits for the message line to name it. */
async function openBadFile(page: Page, name: string, buffer: Buffer): Promise<{ text: string; details: string | null }> {
  await page.locator('#file').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
  await page.waitForFunction((n) => !document.getElementById('message')!.hidden && (document.getElementById('message')!.textContent ?? '').startsWith(`${n}:`), name, { timeout: 60_000 });
  return page.evaluate(() => {
    const more = document.getElementById('message-details') as HTMLDetailsElement;
    return { text: document.getElementById('message')!.textContent ?? '', details: more.hidden ? null : (more.querySelector('pre')?.textContent ?? '') };
  });
}

/** Whether two boxes overlap. */
function overlap(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('the page as a newcomer meets it (issue 34)', () => {
  it('a file the page cannot open: one line to act on, the long form behind "details"; the figures stay', async () => {
    const { page, log } = await openViewer('?splats=1000&sort=cpu&draw=quads');
    await waitFigures(page);
    // The cpu sort's time is named apart: the GPU stages add up to the GPU total.
    const figures = await hud(page);
    expect(figures).toMatch(/^gpu [\d.]+ ms \(project [^/]+ \/ draw [\d.]+\)  · sort \(CPU worker\) [\d.]+ ms$/m);
    expect(figures).not.toMatch(/\/ sort /);

    // A header that claims 2e9 splats in 5.9 KB: a short file, before any word about the GPU.
    const big = await openBadFile(page, 'big.ply', shortPly(2_000_000_000, 5900));
    expect(big.text).toBe('big.ply: truncated: the header declares 2,000,000,000 splats, at least 28 GB, but the file is 5.9 KB: it is cut short, or its header is wrong');
    expect(big.text).not.toMatch(/storage buffer/);
    // The work did not change: the figures stay (no "-" after a failed load).
    expect(await hud(page)).toMatch(GPU_FIGURES);

    // A file of no scene format: what it starts like; the signatures it was checked for behind the toggle.
    const jpeg = await openBadFile(page, 'photo.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1]));
    expect(jpeg.text).toBe('photo.jpg: not a splat scene: it starts like a JPEG image');
    expect(jpeg.details).toMatch(/unknown-format: not a scene file we read: no PLY/);
    const toggle = page.locator('#message-details');
    expect(await toggle.locator('pre').isVisible()).toBe(false); // closed until asked
    await toggle.locator('summary').click();
    expect(await toggle.locator('pre').isVisible()).toBe(true);
    await page.screenshot({ path: path.join(OUT, 'e2e-message-details.png'), timeout: 120_000 });
    expect((await openBadFile(page, 'empty.splat', Buffer.alloc(0))).text).toBe('empty.splat: not a splat scene: the file is empty (0 bytes)');
    // A .glb whose data lies in a separate file: what to open, not an API to call.
    const glb = await openBadFile(page, 'scene.glb', glbWithExternalBuffer());
    expect(glb.text).toMatch(/^scene\.glb: .*open the \.gltf together with its \.bin \(choose both files at once, or drop their folder\)$/);
    expect(glb.text).not.toMatch(/loadGltfFiles/);

    // Still the default scene, its figures kept; a double-click (a refocus) keeps them too.
    expect(await page.title()).toMatch(/^default:1000/);
    await page.mouse.dblclick(240, 180);
    for (let i = 0; i < 5; i++) {
      expect(await hud(page)).toMatch(GPU_FIGURES);
      await page.waitForTimeout(200);
    }
    expect(log.errors).toEqual([]);
  });

  it('no FPS while the first scene is generated: nothing is drawn yet', async () => {
    const { page, log } = await openViewer('?splats=1000&sort=cpu&draw=quads', undefined, async (p) => {
      await p.addInitScript(() => {
        const seen: string[] = ((window as unknown as { hudSeen: string[] }).hudSeen = []);
        document.addEventListener('DOMContentLoaded', () => {
          const el = document.getElementById('hud')!;
          new MutationObserver(() => seen.push(el.textContent ?? '')).observe(el, { childList: true, characterData: true, subtree: true });
        });
      });
    });
    await waitFigures(page);
    const seen = await page.evaluate(() => (window as unknown as { hudSeen: string[] }).hudSeen);
    const before = seen.filter((t) => /^-  - splats/m.test(t));
    expect(before.length).toBeGreaterThan(0);
    for (const t of before) expect(t).toMatch(/^- fps/m);
    expect(log.errors).toEqual([]);
  });

  it('without WebGPU the page says what to do next, with a screenshot of the viewer', async () => {
    // Chromium launched with WebGPU off (--disable-webgpu): navigator.gpu is there, no adapter answers.
    const bare = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS.filter((f) => f !== '--enable-unsafe-webgpu'), '--disable-webgpu'] });
    try {
      const page = await bare.newPage({ viewport: { width: 800, height: 600 } });
      await page.goto(server.base);
      await page.waitForSelector('#no-webgpu', { timeout: 30_000 });
      const text = (await page.locator('#no-webgpu').textContent()) ?? '';
      expect(text).toMatch(/WebGPU/);
      expect(text).toMatch(/What to do next/);
      expect(text).toMatch(/hardware acceleration/);
      expect(text).toMatch(/chrome:\/\/gpu/);
      // The screenshot it links is part of the built page.
      const href = await page.locator('#no-webgpu a').getAttribute('href');
      expect(href).toBeTruthy();
      const shot = await page.request.get(new URL(href!, page.url()).href);
      expect(shot.status()).toBe(200);
      expect(shot.headers()['content-type']).toMatch(/^image\/png/);
      await page.screenshot({ path: path.join(OUT, 'e2e-no-webgpu-800.png') });
    } finally {
      await bare.close();
    }
    // A browser with no navigator.gpu at all: which browsers and versions have it.
    const page = await browser.newPage({ viewport: { width: 480, height: 700 } });
    pages.push(page);
    await page.addInitScript(() => {
      Object.defineProperty(navigator, 'gpu', { value: undefined, configurable: true });
    });
    await page.goto(server.base);
    await page.waitForSelector('#no-webgpu', { timeout: 30_000 });
    const text = (await page.locator('#no-webgpu').textContent()) ?? '';
    expect(await page.locator('#no-webgpu h1').textContent()).toMatch(/draws with WebGPU, and this browser does not offer it/);
    expect(text).toMatch(/Chrome or Edge 113 or later/);
    expect(text).toMatch(/Safari 26 or later/);
    expect(text).toMatch(/Firefox 141 or later/);
    expect(text).toMatch(/chrome:\/\/gpu/);
    expect(await page.locator('#no-webgpu a').count()).toBe(1);
    await page.screenshot({ path: path.join(OUT, 'e2e-no-webgpu-480.png') });
  });

  it('layout at 480, 639, 640 and 800 px: the panel collapsed under 640 only, the HUD clear of the panel, a message clear of the panel and the view', async () => {
    for (const width of [480, 639, 640, 800]) {
      const { page, log } = await openViewer('?splats=1000&sort=cpu&draw=quads', { width, height: 600 });
      await waitFigures(page);
      const root = page.locator('.lil-gui.lil-root');
      const closed = await root.evaluate((el) => el.classList.contains('lil-closed'));
      expect(closed, `${width} px: the panel starts ${closed ? 'collapsed' : 'open'}`).toBe(width < 640);
      if (width === 639) {
        await page.close();
        continue;
      }
      const panel = (await root.boundingBox())!;
      const title = (await page.locator('.lil-gui.lil-root > .lil-title').boundingBox())!;
      // A refused choice: its line.
      await page.evaluate(() => (window as unknown as { splatview: { viewer: { setDraw(n: string): boolean } } }).splatview.viewer.setDraw('tiles'));
      await page.waitForFunction(() => !document.getElementById('message')!.hidden, undefined, { timeout: 30_000 });
      const message = (await page.locator('#message').boundingBox())!;
      const hudBox = (await page.locator('#hud').boundingBox())!;
      await page.screenshot({ path: path.join(OUT, `e2e-layout-${width}.png`), timeout: 120_000 });
      // The panel's title (its way in) is never under the message.
      expect(overlap(message, title), `${width} px: the message covers the panel's title`).toBe(false);
      if (!closed) {
        // Open panel: the message and the HUD lie left of it.
        expect(message.x + message.width, `${width} px: the message runs under the panel`).toBeLessThanOrEqual(panel.x);
        expect(hudBox.x + hudBox.width, `${width} px: the HUD runs under the panel`).toBeLessThanOrEqual(panel.x);
      } else {
        // A phone: the message at the bottom, off the middle of the view, a small part of it.
        expect(message.y, `${width} px: the message covers the middle of the view`).toBeGreaterThan(600 * 0.7);
        expect(message.height).toBeLessThan(600 * 0.2);
      }
      expect(log.errors).toEqual([]);
      await page.close();
    }
  });
});
