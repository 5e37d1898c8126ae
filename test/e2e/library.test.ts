/**
 * The library in headless Chromium (SwiftShader WebGPU), one browser for every
 * case: the three-line page of <splat-view> shows a scene and its src attribute
 * loads another; two viewers sharing one device draw two scenes at once; the
 * events come in order (progress..., load, frame); an aborted load rejects with
 * SceneLoadCancelled and keeps the scene; destroy() of one viewer gives back
 * every buffer it made (counted by wrapping the device's createBuffer and each
 * buffer's destroy) while the other draws on; examples/three.html's three.js mesh is
 * partly in front of the splats and partly behind them (Viewer.drawOver).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openViewer, startAppServer, type PageLog } from '../../bench/browser';
import { generateDefaultScene } from '../../scenes/generate';
import { writeSplatPly } from '../../scenes/write-ply';

const OUT = path.resolve(__dirname, '../../test-output');

let server: { base: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  server = await startAppServer(path.resolve(__dirname, '../..'));
  browser = await launchChromium();
  fs.mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A small PLY served at /e2e-lib/NAME, after `delayMs`. */
async function routePly(page: Page, name: string, splats: number, delayMs = 0): Promise<void> {
  const body = Buffer.from(writeSplatPly(generateDefaultScene(splats)));
  await page.route(`**/e2e-lib/${name}`, async (route) => {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    await route.fulfill({ body, contentType: 'application/octet-stream' }).catch(() => undefined);
  });
}

/** Fraction of lit pixels (not the background) in a box of a page screenshot. */
function litFraction(png: PNG, x0: number, x1: number, y0: number, y1: number): number {
  let lit = 0;
  let total = 0;
  for (let y = Math.floor(png.height * y0); y < png.height * y1; y++) {
    for (let x = Math.floor(png.width * x0); x < png.width * x1; x++) {
      const i = (y * png.width + x) * 4;
      total++;
      if (png.data[i]! + png.data[i + 1]! + png.data[i + 2]! > 60) lit++;
    }
  }
  return lit / total;
}

async function shot(page: Page, file: string): Promise<PNG> {
  const buf = await page.screenshot({ path: path.join(OUT, file), timeout: 120_000 });
  return PNG.sync.read(buf);
}

describe('the library in Chromium', () => {
  it('<splat-view>: three lines of HTML show a scene; a new src loads', async () => {
    const { page, log } = await openViewer(browser, server.base, 'examples/embed.html', { width: 400, height: 300 }, (p) => routePly(p, 'small.ply', 3000));
    try {
      await page.waitForFunction(() => (document.querySelector('splat-view')?.viewer?.framesCompleted ?? 0) >= 2 && document.querySelector('splat-view')!.viewer!.scene !== null, undefined, { timeout: 120_000 });
      expect(await page.evaluate(() => document.querySelector('splat-view')!.viewer!.scene!.name)).toBe('default:20000');
      expect(litFraction(await shot(page, 'library-element.png'), 0.25, 0.75, 0.2, 0.7)).toBeGreaterThan(0.05);
      // A live attribute: a new src loads that scene.
      const loaded = page.evaluate(
        () => new Promise<string>((resolve) => document.querySelector('splat-view')!.addEventListener('load', (e) => resolve((e as CustomEvent<{ name: string }>).detail.name), { once: true })),
      );
      await page.evaluate(() => document.querySelector('splat-view')!.setAttribute('src', '/e2e-lib/small.ply'));
      expect(await loaded).toBe('small.ply');
      expect(await page.evaluate(() => document.querySelector('splat-view')!.viewer!.scene!.splats)).toBe(3000);
      // draw and sort switch live.
      await page.evaluate(() => {
        const el = document.querySelector('splat-view')!;
        el.setAttribute('draw', 'quads');
        el.setAttribute('sort', 'radix16');
      });
      expect(await page.evaluate(() => [document.querySelector('splat-view')!.viewer!.draw, document.querySelector('splat-view')!.viewer!.strategy])).toEqual(['quads', 'radix16']);
      expect(log.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('two viewers on one device draw at once; events in order; an aborted load keeps the scene; destroy() frees one viewer\'s buffers', async () => {
    const log: PageLog = { errors: [] };
    const page = await browser.newPage({ viewport: { width: 480, height: 240 } });
    page.on('console', (m) => m.type() === 'error' && log.errors.push(m.text()));
    page.on('pageerror', (e) => log.errors.push(e.message));
    await routePly(page, 'a.ply', 4000);
    await routePly(page, 'slow.ply', 4000, 3000);
    await page.route('**/e2e-lib/blank.html', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body:
          '<!doctype html><style>body{margin:0;display:flex}canvas{width:50vw;height:100vh;display:block}</style><canvas id="a"></canvas><canvas id="b"></canvas>' +
          // The library's entry as the dev server serves it (a host would import 'splatview').
          '<script type="module">import * as api from "/renderer/api/index.ts"; window.splatviewApi = api;</script>',
      }),
    );
    try {
      await page.goto(`${server.base}e2e-lib/blank.html`);
      await page.waitForFunction(() => 'splatviewApi' in window, undefined, { timeout: 60_000 });
      const counts = await page.evaluate(async () => {
        const api = (window as unknown as { splatviewApi: typeof import('../../renderer/api/index') }).splatviewApi;
        const adapter = await navigator.gpu.requestAdapter();
        const device = await adapter!.requestDevice();
        // Every buffer of the device, live until destroyed.
        const live = new Set<GPUBuffer>();
        const create = device.createBuffer.bind(device);
        device.createBuffer = (d: GPUBufferDescriptor) => {
          const b = create(d);
          live.add(b);
          const destroy = b.destroy.bind(b);
          b.destroy = () => {
            live.delete(b);
            destroy();
          };
          return b;
        };
        const w = window as unknown as Record<string, unknown>;
        w.live = () => live.size;
        const l0 = live.size;
        // Viewer B first, alone, on a URL: its events from the start (progress..., load, then frames).
        const b = await api.createViewer(document.getElementById('b') as HTMLCanvasElement, { device, scene: '/e2e-lib/a.ply', sort: 'radix16', draw: 'quads', background: '#203040' });
        const events: string[] = [];
        for (const type of ['progress', 'load', 'frame', 'error']) b.addEventListener(type, () => events.at(-1) !== type && events.push(type));
        const frames = (v: { addEventListener: EventTarget['addEventListener'] }, n: number) =>
          new Promise<void>((resolve) => {
            let k = 0;
            v.addEventListener('frame', function f() {
              if (++k >= n) resolve();
              else v.addEventListener('frame', f, { once: true });
            }, { once: true });
          });
        await b.ready;
        await frames(b, 2);
        const order = [...events];
        const lb = live.size - l0;
        // An aborted load: rejects with SceneLoadCancelled, B keeps a.ply.
        const abort = new AbortController();
        const slow = b.load('/e2e-lib/slow.ply', { signal: abort.signal });
        setTimeout(() => abort.abort(), 200);
        const aborted = await slow.then(() => 'loaded', (e: Error) => e.name);
        const keptScene = b.scene?.name;
        await frames(b, 1);
        const lbAfterAbort = live.size - l0;
        // Viewer A on the same device: both draw.
        const a = await api.createViewer(document.getElementById('a') as HTMLCanvasElement, { device, scene: { generate: 'default:3000' }, sort: 'radix16', draw: 'quads' });
        await a.ready;
        await Promise.all([frames(a, 2), frames(b, 2)]);
        w.viewers = { a, b };
        return { l0, lb, lbAfterAbort, both: live.size - l0, order, aborted, keptScene, sameDevice: a.device === b.device };
      });
      expect(counts.order[0]).toBe('progress');
      expect(counts.order.slice(counts.order.indexOf('load'))).toEqual(['load', 'frame']);
      expect(counts.order.filter((e) => e !== 'progress')).toEqual(['load', 'frame']);
      expect(counts.aborted).toBe('SceneLoadCancelled');
      expect(counts.keptScene).toBe('a.ply');
      expect(counts.lbAfterAbort).toBe(counts.lb);
      expect(counts.sameDevice).toBe(true);
      expect(counts.both).toBeGreaterThan(counts.lb);
      // Both canvases lit at once: A (left) and B (right).
      const png = await shot(page, 'library-two-viewers.png');
      expect(litFraction(png, 0.1, 0.4, 0.2, 0.8)).toBeGreaterThan(0.03);
      expect(litFraction(png, 0.6, 0.9, 0.2, 0.8)).toBeGreaterThan(0.03);

      // destroy() of A: its buffers all destroyed; B draws on with its own.
      const after = await page.evaluate(async () => {
        const w = window as unknown as { live: () => number; viewers: Record<'a' | 'b', { destroy(): void; framesCompleted: number; framesRendered: number }> };
        const { a, b } = w.viewers;
        const aFrames = a.framesRendered;
        a.destroy();
        const liveNow = w.live();
        const bFrames = b.framesCompleted;
        await new Promise((r) => setTimeout(r, 1500));
        return { liveNow, bDrew: b.framesCompleted - bFrames, aDrew: a.framesRendered - aFrames };
      });
      expect(after.liveNow).toBe(counts.l0 + counts.lb);
      expect(after.bDrew).toBeGreaterThan(0);
      expect(after.aDrew).toBe(0);
      const png2 = await shot(page, 'library-one-destroyed.png');
      expect(litFraction(png2, 0.6, 0.9, 0.2, 0.8)).toBeGreaterThan(0.03);
      expect(log.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('examples/three.html: a three.js mesh (WebGPURenderer on the viewer\'s device) inside a splat scene, each hiding the other (Viewer.drawOver)', async () => {
    const { page, log } = await openViewer(browser, server.base, 'examples/three.html?still&draw=quads&scene=generate:default:3000', { width: 320, height: 240 });
    try {
      await page.waitForFunction(() => 'demo' in window, undefined, { timeout: 120_000 });
      // The same still view three ways: the mesh alone, the splats alone, both.
      const views: Record<string, PNG> = {};
      for (const [name, parts] of [['mesh', { mesh: true, splats: false }], ['splats', { mesh: false, splats: true }], ['both', { mesh: true, splats: true }]] as const) {
        await page.evaluate(async (p) => {
          const demo = (window as unknown as { demo: { render(p: unknown): void; viewer: { device: GPUDevice } } }).demo;
          demo.render(p);
          await demo.viewer.device.queue.onSubmittedWorkDone();
        }, parts);
        views[name] = await shot(page, `library-three-${name}.png`);
      }
      // Of the mesh's pixels: those where it shows in front of the splats, and those where splats cover it.
      const { mesh, splats, both } = views as Record<'mesh' | 'splats' | 'both', PNG>;
      const diff = (a: PNG, b: PNG, i: number) => Math.abs(a.data[i]! - b.data[i]!) + Math.abs(a.data[i + 1]! - b.data[i + 1]!) + Math.abs(a.data[i + 2]! - b.data[i + 2]!);
      let meshPx = 0, front = 0, behind = 0;
      for (let i = 0; i < both.data.length; i += 4) {
        if (mesh.data[i]! + mesh.data[i + 1]! + mesh.data[i + 2]! <= 60) continue;
        meshPx++;
        if (diff(both, mesh, i) < 30) front++;
        else if (diff(both, splats, i) < 30) behind++;
      }
      console.log(`three.html: of the box's ${meshPx} pixels, ${((100 * front) / meshPx).toFixed(0)}% in front of the splats, ${((100 * behind) / meshPx).toFixed(0)}% behind them`);
      expect(meshPx).toBeGreaterThan(500);
      expect(front / meshPx).toBeGreaterThan(0.2);
      expect(behind / meshPx).toBeGreaterThan(0.05);
      expect(log.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
