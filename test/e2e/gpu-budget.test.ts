/**
 * End to end (headless Chromium, SwiftShader WebGPU): a scene whose pages under the
 * GPU's per-binding limit (lowered with ?bindlimit=MB, so that a small real scene is
 * paged) are more storage buffers than a shader stage binds is refused with the
 * numbers and the way out, the scene on screen stays, and the panel's 'load SH
 * degree' control reopens the refused scene with fewer bands (fewer pages).
 */
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startAppServer } from '../../bench/browser';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';

let server: { base: string; close: () => Promise<void> };
let browser: Browser;
let base: string;

beforeAll(async () => {
  server = await startAppServer(path.resolve(__dirname, '../..'), { built: true });
  base = server.base;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('GPU budget in the page', () => {
  it.runIf(haveSharedScenes())('refuses a scene of more pages than a stage binds, keeps the scene on screen, reopens it at the lower SH degree', async () => {
    const page = await browser.newPage({ viewport: { width: 320, height: 240 } }); // small: a tiles frame on SwiftShader grows with the pixels
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const hudText = () => page.evaluate(() => document.querySelector('#hud')?.textContent ?? '');
    const message = () => page.evaluate(() => {
      const m = document.querySelector('#message') as HTMLElement;
      return m.hidden ? null : m.textContent;
    });

    // The tiles draw, 200 KB a binding, SwiftShader's 10 storage buffers a stage, the full layout (?precision=full):
    // default:3000 (SH3: 288 KB of SH in 2 pages) binds 8 and fits; inria_sh3_tile_6831 needs its SH3 (656 KB) in 4
    // pages, its covariances and tile records (219 KB each) in 2: 12, over; at SH2 (383 KB, 2 pages) 10, it fits.
    await page.goto(`${base}?bindlimit=0.2&splats=3000&draw=tiles&precision=full`);
    await page.waitForFunction(() => /3,000 splats/.test(document.querySelector('#hud')?.textContent ?? ''), null, { timeout: 120_000 });

    await page.setInputFiles('#file', sharedScene('inria_sh3_tile_6831.ply'));
    await page.waitForFunction(() => /SH degree/.test((document.querySelector('#message') as HTMLElement).textContent ?? ''), null, { timeout: 120_000 });
    expect(await message()).toBe(
      'inria_sh3_tile_6831.ply: 6,831 splats of SH degree 3 need 12 storage buffers in one shader stage (SH in 4 pages, covariances in 2 pages, tile records in 2 pages of at most 200 KB), ' +
        'the adapter allows 10 (maxStorageBuffersPerShaderStage): reload with SH degree 2 (?sh=2, or Scene › load SH degree); the scene on screen stays',
    );
    // Refused from the header's count, before the body was parsed: the cloud never reached the page.
    const refusedLoad = await page.evaluate(() => (window as unknown as { splatview: { loads: { outcome: string; readyAt: number | null }[] } }).splatview.loads.at(-1)!);
    expect(refusedLoad).toMatchObject({ outcome: 'failed', readyAt: null });
    // The scene on screen stays, and keeps drawing.
    await page.waitForTimeout(1000);
    expect(await hudText()).toMatch(/default:3000\s+3,000 splats/);

    // The way out: the panel's load SH degree reopens the refused scene with SH degree 2 (its SH in two pages), and
    // the link carries ?sh=2.
    await page.locator('.lil-controller', { hasText: 'load SH degree' }).locator('select').selectOption({ label: '2' }, { force: true });
    await page.waitForFunction(() => /6,831 splats/.test(document.querySelector('#hud')?.textContent ?? ''), null, { timeout: 120_000 });
    expect(await message()).toBeNull();
    expect(new URL(page.url()).searchParams.get('sh')).toBe('2');
    // The panel says how the arrays are paged.
    const figure = (name: string) => page.locator('.lil-controller', { has: page.locator('.lil-name', { hasText: new RegExp(`^${name}$`) }) }).locator('input').inputValue();
    await page.waitForFunction(() => {
      const c = [...document.querySelectorAll('.lil-controller')].find((e) => e.querySelector('.lil-name')?.textContent === 'GPU memory');
      return /104 B a splat/.test((c?.querySelector('input') as HTMLInputElement | null)?.value ?? '');
    }, null, { timeout: 10_000 });
    expect(await figure('GPU memory')).toMatch(/^[\d.]+ MiB \(104 B a splat, full\)$/);
    expect(await figure('paged buffers')).toBe('covariances 2, SH 2');    expect(errors).toEqual([]);
    await page.close();
  });
});
