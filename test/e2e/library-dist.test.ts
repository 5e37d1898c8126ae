/**
 * The built library as a host page meets it, not at the site root (issue 34): one
 * build of the library (vite.lib.config.ts, as `npm run build:lib`), then
 *  1. dist-lib/ copied into a subfolder of a plain static server (sub/lib/), and a
 *     page in sub/ that imports ./lib/index.js (createViewer) or ./lib/element.js
 *     (<splat-view>): the scene loads through the loader's worker and the cpu sort's
 *     worker (both found beside the module that starts them, new URL('assets/…',
 *     import.meta.url)), the `load` event comes, frames are drawn; `(await el.ready)`
 *     has its scene (docs/API.md: ready settles when the scene is shown);
 *  2. the project packed with `npm pack` (package.json's `files` and `exports` as a
 *     user installs them) and the tarball extracted into node_modules/splatview of a
 *     plain page folder: the page imports 'splatview' through an import map made from
 *     the package's own `exports`. Extracted with tar, not `npm install`: npm would
 *     fetch the package's listed dependencies from the registry (this machine has no
 *     network, and they are bundled into dist-lib anyway); what npm install puts in
 *     node_modules/splatview is exactly the tarball's package/ folder.
 * Also: `scripts/lib-size.mjs --doc` writes the sizes between docs/API.md's markers.
 * Every HTTP error (a worker at the site root: 404) and console error fails the test.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bench/browser';
import { generateDefaultScene } from '../../scenes/generate';
import { writeSplatPly } from '../../scenes/write-ply';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';

const REPO = path.resolve(__dirname, '../..');
/** The static server's root: nothing of the repository is served, only what the test puts here. */
const ROOT = path.join(REPO, 'test-output', 'lib-dist');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-lib-'));
const BUILD = path.join(TMP, 'dist-lib');

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
};

let server: http.Server;
let base: string;
let browser: Browser;
/** The scene every page loads: a real one when the shared scenes are here, else a generated PLY. */
let sceneBytes: Buffer;
let sceneSplats: number;

/** A plain static file server of ROOT (no SPA fallback: a missing file is a 404). */
function serve(): Promise<void> {
  server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (rel === '/favicon.ico') {
      res.writeHead(204).end(); // the browser asks; no page here has one
      return;
    }
    const file = path.join(ROOT, rel.endsWith('/') ? `${rel}index.html` : rel);
    if (!file.startsWith(ROOT) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  // One build for both cases, into a folder of its own (the checkout's dist-lib/ is left alone).
  await build({ root: REPO, configFile: path.join(REPO, 'vite.lib.config.ts'), logLevel: 'error', build: { outDir: BUILD, emptyOutDir: true, sourcemap: false } });
  fs.rmSync(ROOT, { recursive: true, force: true });
  fs.mkdirSync(ROOT, { recursive: true });
  if (haveSharedScenes()) {
    sceneBytes = fs.readFileSync(sharedScene('inria_sh3_tile_6831.ply'));
    sceneSplats = 6831;
  } else {
    sceneBytes = Buffer.from(writeSplatPly(generateDefaultScene(3000)));
    sceneSplats = 3000;
  }
  await serve();
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
  fs.rmSync(TMP, { recursive: true, force: true });
});

/** Opens `url`, collecting console errors, uncaught exceptions and HTTP errors. */
async function open(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 400, height: 300 } });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('response', (r) => r.status() >= 400 && errors.push(`HTTP ${r.status()} ${r.url()}`));
  await page.goto(url);
  return { page, errors };
}

/** Fraction of lit pixels in the middle of a page screenshot. */
async function litFraction(page: Page, file: string): Promise<number> {
  const png = PNG.sync.read(await page.screenshot({ path: path.join(REPO, 'test-output', file), timeout: 120_000 }));
  let lit = 0;
  let total = 0;
  for (let y = Math.floor(png.height * 0.2); y < png.height * 0.8; y++) {
    for (let x = Math.floor(png.width * 0.2); x < png.width * 0.8; x++) {
      const i = (y * png.width + x) * 4;
      total++;
      if (png.data[i]! + png.data[i + 1]! + png.data[i + 2]! > 30) lit++;
    }
  }
  return lit / total;
}

/**
 * A page that makes a viewer with `createViewer` from `importFrom` on the scene beside
 * it, and records what a host sees: the load event, then frames after it.
 */
function viewerPage(importFrom: string, importMap?: Record<string, string>): string {
  return `<!doctype html><meta charset="utf-8">
<style>html,body{margin:0;height:100%;background:#000}canvas{width:100%;height:100%;display:block}</style>
${importMap ? `<script type="importmap">${JSON.stringify({ imports: importMap })}</script>` : ''}
<canvas></canvas>
<script type="module">
  import { createViewer } from '${importFrom}';
  const seen = (window.seen = { load: null, framesAfterLoad: 0, error: null });
  try {
    // The cpu sort: its worker is the library's second one (assets/cpu-sort.worker-….js).
    const viewer = await createViewer(document.querySelector('canvas'), { scene: 'scene.ply', sort: 'cpu', draw: 'quads' });
    viewer.addEventListener('load', (e) => (seen.load = e.detail));
    viewer.addEventListener('error', (e) => (seen.error = String(e.detail.error && e.detail.error.message)));
    viewer.addEventListener('frame', () => seen.load && seen.framesAfterLoad++);
  } catch (e) {
    seen.error = String(e && e.message);
  }
</script>`;
}

interface Seen {
  load: { name: string; splats: number } | null;
  framesAfterLoad: number;
  error: string | null;
}

/** Waits for the scene's load event and a few frames after it; the scene must be drawn. */
async function expectLoadedAndDrawn(page: Page, errors: string[], shot: string): Promise<void> {
  await page.waitForFunction(() => {
    const s = (window as unknown as { seen?: Seen }).seen;
    return s !== undefined && (s.error !== null || s.framesAfterLoad >= 3);
  }, undefined, { timeout: 120_000 });
  const seen = await page.evaluate(() => (window as unknown as { seen: Seen }).seen);
  expect(seen.error).toBeNull();
  expect(seen.load).toEqual(expect.objectContaining({ name: 'scene.ply', splats: sceneSplats }));
  expect(await litFraction(page, shot)).toBeGreaterThan(0.02);
  expect(errors).toEqual([]);
}

describe('the built library away from the site root (issue 34)', () => {
  it('dist-lib copied into a subfolder: a page there imports ./lib/index.js, loads a scene and draws it', async () => {
    const sub = path.join(ROOT, 'sub');
    fs.cpSync(BUILD, path.join(sub, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(sub, 'scene.ply'), sceneBytes);
    fs.writeFileSync(path.join(sub, 'index.html'), viewerPage('./lib/index.js'));
    const { page, errors } = await open(`${base}sub/index.html`);
    try {
      await expectLoadedAndDrawn(page, errors, 'lib-dist-subfolder.png');
    } finally {
      await page.close();
    }
  });

  it('<splat-view> from ./lib/element.js: (await el.ready) has the scene, after its load event', async () => {
    const sub = path.join(ROOT, 'sub');
    if (!fs.existsSync(path.join(sub, 'lib'))) fs.cpSync(BUILD, path.join(sub, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(sub, 'scene.ply'), sceneBytes);
    fs.writeFileSync(
      path.join(sub, 'element.html'),
      `<!doctype html><meta charset="utf-8"><style>body{margin:0;background:#000}</style>
<splat-view src="scene.ply" sort="cpu" draw="quads" style="width:400px;height:300px"></splat-view>
<script type="module">
  import './lib/element.js';
  const el = document.querySelector('splat-view');
  const order = [];
  el.addEventListener('load', () => order.push('load'));
  el.ready.then((viewer) => {
    order.push('ready');
    window.readyScene = viewer.scene;
    window.order = order;
  }, (e) => (window.readyError = String(e && e.message)));
</script>`,
    );
    const { page, errors } = await open(`${base}sub/element.html`);
    try {
      await page.waitForFunction(() => 'readyScene' in window || 'readyError' in window, undefined, { timeout: 120_000 });
      const r = await page.evaluate(() => {
        const w = window as unknown as { readyScene: unknown; readyError?: string; order: string[] };
        return { scene: w.readyScene, error: w.readyError ?? null, order: w.order };
      });
      expect(r.error).toBeNull();
      expect(r.scene).toEqual({ name: 'scene.ply', splats: sceneSplats, shDegree: expect.any(Number), bounds: { min: expect.any(Array), max: expect.any(Array) } });
      expect(r.order).toEqual(['load', 'ready']);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('`npm pack`, the tarball extracted into node_modules/splatview of a plain page: import "splatview" loads a scene', async () => {
    // The package as npm packs it: package.json (its `files` and `exports`), README, and the build as dist-lib/.
    const stage = path.join(TMP, 'package');
    fs.mkdirSync(stage, { recursive: true });
    for (const f of ['package.json', 'README.md']) fs.copyFileSync(path.join(REPO, f), path.join(stage, f));
    fs.cpSync(BUILD, path.join(stage, 'dist-lib'), { recursive: true });
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', TMP, '--ignore-scripts'], { cwd: stage, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
    const tarball = path.join(TMP, packed[0]!.filename);
    expect(packed[0]!.files.map((f) => f.path)).toEqual(expect.arrayContaining(['package.json', 'dist-lib/index.js', 'dist-lib/element.js']));

    const plain = path.join(ROOT, 'plain');
    const into = path.join(plain, 'node_modules', 'splatview');
    fs.mkdirSync(into, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
    // The import map a bundler would resolve from the package's own `exports`.
    const pkg = JSON.parse(fs.readFileSync(path.join(into, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> };
    const map = Object.fromEntries(Object.entries(pkg.exports).map(([key, v]) => [key === '.' ? 'splatview' : `splatview/${key.slice(2)}`, `./node_modules/splatview/${v.import.replace(/^\.\//, '')}`]));
    for (const target of Object.values(map)) expect(fs.existsSync(path.join(plain, target))).toBe(true);
    fs.writeFileSync(path.join(plain, 'scene.ply'), sceneBytes);
    fs.writeFileSync(path.join(plain, 'index.html'), viewerPage('splatview', map));
    const { page, errors } = await open(`${base}plain/index.html`);
    try {
      await expectLoadedAndDrawn(page, errors, 'lib-dist-npm-pack.png');
    } finally {
      await page.close();
    }
  });

  it('scripts/lib-size.mjs --doc writes the sizes between docs/API.md\'s markers', () => {
    const doc = path.join(TMP, 'API.md');
    fs.copyFileSync(path.join(REPO, 'docs/API.md'), doc);
    execFileSync('node', [path.join(REPO, 'scripts/lib-size.mjs'), '--doc', doc], { env: { ...process.env, LIB_DIR: BUILD }, encoding: 'utf8' });
    const text = fs.readFileSync(doc, 'utf8');
    const block = text.slice(text.indexOf('<!-- lib-size: start -->'), text.indexOf('<!-- lib-size: end -->'));
    expect(block).toMatch(/\| `index\.js` and its static imports \(\d+ files\) \| [\d.]+ KiB \|/);
    expect(block).toMatch(/\| on demand: the scene loader's worker: with the first scene file or URL \| [\d.]+ KiB \|/);
  });
});
