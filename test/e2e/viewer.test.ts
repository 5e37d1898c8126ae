/**
 * End to end in headless Chromium (Debian's chromium, WebGPU on SwiftShader): the
 * page renders the generated default scene, opens a real scene through the file
 * input, and keeps it when a bad file is opened; no WebGPU errors, no console errors.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '../../renderer/pipeline/frame-stages';
import { psnr } from '../reference/raster';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';

const CHROMIUM = '/usr/bin/chromium';
// WebGPU headless needs SwiftShader through Vulkan and ANGLE (../shared/docs/GPU.md).
const FLAGS = [
  '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-angle=swiftshader',
  '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic', '--disable-dev-shm-usage',
];
const OUT = path.resolve(__dirname, '../../test-output');

let server: ViteDevServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: run scripts/install-test-deps.sh (as root)`);
  server = await createServer({ root: path.resolve(__dirname, '../..'), logLevel: 'error', server: { port: 0, host: '127.0.0.1' } });
  await server.listen();
  const addr = server.httpServer?.address();
  if (!addr || typeof addr === 'string') throw new Error('vite dev server has no address');
  base = `http://127.0.0.1:${addr.port}/`;
  // playwright gives every launch a fresh, temporary user-data-dir.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  fs.mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface PageLog {
  errors: string[];
}

async function openViewer(query: string, viewport = { width: 480, height: 360 }): Promise<{ page: Page; log: PageLog }> {
  const page = await browser.newPage({ viewport });
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

async function waitFrames(page: Page, n: number): Promise<void> {
  await page.waitForFunction(
    (target) => ((window as unknown as { splatview?: { framesRendered: number } }).splatview?.framesRendered ?? 0) >= target,
    n,
    { timeout: 120_000 },
  );
}

/** Fraction of pixels in the central box that differ from the black background. */
async function litFraction(page: Page, file: string): Promise<number> {
  // A page screenshot: an element screenshot waits for two equal animation frames,
  // which a page drawing slowly on SwiftShader may take long to give.
  const buf = await page.screenshot({ path: path.join(OUT, file) });
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

describe('viewer page (headless Chromium, SwiftShader WebGPU)', () => {
  it('renders the default scene, opens a real scene, and survives a bad file', async () => {
    const { page, log } = await openViewer('?splats=3000');
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

  it('benchmark mode flies every strategy and exports JSON with every stage', async () => {
    const { page, log } = await openViewer('?splats=2000');
    await waitFrames(page, 3);
    const frames = page.locator('.lil-controller', { hasText: 'frames each' }).locator('input');
    await frames.fill('10');
    await frames.press('Enter');
    await page.locator('button', { hasText: 'Run benchmark' }).click();
    await page.waitForSelector('#bench:not([hidden])', { timeout: 240_000 });
    const table = await page.locator('#bench pre').textContent();
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#bench button', { hasText: 'Download JSON' }).click()]);
    const file = path.join(OUT, 'e2e-benchmark.json');
    await download.saveAs(file);
    const rows = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;
    const strategies = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.lil-title'))
        .find((t) => t.textContent === 'Benchmark')!
        .parentElement!.querySelectorAll('.lil-controller.boolean .lil-name'),
    ).then(() => page.evaluate(() => (window as unknown as { splatview: { lastBenchmark: { strategy: string }[] } }).splatview.lastBenchmark.map((r) => r.strategy)));
    console.log(table);
    expect(rows.map((r) => r.strategy)).toEqual(strategies);
    expect(strategies).toContain('radix4');
    expect(strategies).toContain('cpu');
    for (const row of rows) {
      expect(row.frames).toBe(10);
      expect(row.splats).toBe(2000);
      expect(typeof row.outOfOrderFraction).toBe('number');
      for (const key of ['stages', 'p95'] as const) {
        const stages = row[key] as Record<string, number | null>;
        expect(Object.keys(stages).sort()).toEqual([...STAGE_NAMES, 'total'].sort());
        for (const v of Object.values(stages)) expect(v === null || (typeof v === 'number' && v >= 0)).toBe(true);
      }
    }
    // An exact GPU sort draws in order; the CPU sort is a frame late while the camera flies.
    const radix4 = rows.find((r) => r.strategy === 'radix4')!;
    expect(radix4.outOfOrderFraction).toBe(0);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('switching the draw strategy (GUI "draw: quads | tiles", ?draw=) shows the same picture', async () => {
    // Small: a tiles frame sorts its (tile, depth) pairs on SwiftShader, about a second here.
    const { page, log } = await openViewer('?splats=1000&draw=quads', { width: 320, height: 240 });
    await waitFrames(page, 3);
    const hud = () => page.locator('#hud').textContent();
    await page.waitForFunction(() => document.getElementById('hud')!.textContent!.includes('draw quads'), undefined, { timeout: 60_000 });
    const quads = await canvasPixels(page, 'e2e-draw-quads.png');
    const drawSelect = page.locator('.lil-controller.lil-option', { has: page.locator('.lil-name', { hasText: /^draw$/ }) }).locator('select');
    await drawSelect.selectOption('tiles');
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
