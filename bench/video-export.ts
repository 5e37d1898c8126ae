/**
 * npm run bench:video -- [--size WxH] [--fps N] [--seconds S] [--json PATH] [--timeout S] [--during-auto]
 *
 * The page's video export of a camera path (issue 35's video target; app/path-video.ts),
 * timed as a user meets it: the built page (`vite preview`) in headless Chromium
 * (WebGPU on SwiftShader), the default scene (once `auto` has chosen its sort and
 * draw: an export overlapping those trials saw 5-10 s gaps before auto held them
 * during an export; `--during-auto` starts the export at once to check that), a 4-keyframe path of `--seconds`
 * (default 10) set through the URL hash (`#path=`: the first view turned 0, 30, 60 and
 * 90 degrees round its target about its up, keyframes at 0, S/3, 2S/3, S), then the
 * Path folder's *Export video…* at `--size` (default 1280x720) and `--fps` (default 30),
 * filled in and clicked as in test/e2e/paths.test.ts.
 *
 * Printed (and written to `--json`): the container (its magic: MP4's `ftyp`, WebM's
 * EBML header), the codec, the duration and frame count read back by mediabunny in
 * the page (its demuxer, bundled here with esbuild and added to the page as a script:
 * the page itself loads only the muxer), the export's wall time (the click to the
 * download), and the longest gap between animation frames meanwhile (the page's
 * requestAnimationFrame timestamps). The page's rule (docs/PATHS.md, pathFrames) is
 * floor(S x fps) + 1 frames, 0 to S inclusive, each 1 / fps long: 10 s at 30 fps is
 * 301 frames, 10.033 s.
 *
 * A program that prints figures, not a test.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import type { Page } from 'playwright-core';
import { launchChromium, openViewer, startAppServer } from './browser';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '1280x720' },
    fps: { type: 'string', default: '30' },
    seconds: { type: 'string', default: '10' },
    json: { type: 'string' },
    timeout: { type: 'string', default: '3600' },
    'during-auto': { type: 'boolean', default: false },
  },
});
const sizeMatch = /^(\d+)x(\d+)$/.exec(args.size);
const fps = Number(args.fps);
const seconds = Number(args.seconds);
if (!sizeMatch || !(Number.isInteger(fps) && fps >= 1) || !(seconds > 0)) {
  console.error('usage: npm run bench:video -- [--size WxH] [--fps N] [--seconds S] [--json PATH] [--timeout S]');
  process.exit(2);
}
const [width, height] = [Number(sizeMatch[1]), Number(sizeMatch[2])];
const timeoutMs = Number(args.timeout) * 1000;

type Vec3 = [number, number, number];
interface PageApp {
  framesRendered: number;
  sceneFirstFrameAt: number | null;
  view: { eye: Vec3; target: Vec3; up: Vec3; fovyDeg: number };
  viewer: { path: { keyframes: { time: number }[] } | null; scene: { name: string } | null };
  pathUi: { lastVideo: { blob: Blob; container: string; codec: string; frames: number; duration: number; width: number; height: number } | null };
}
interface Readback {
  magic: string;
  mime: string;
  codec: string | null;
  codecString: string | null;
  width: number;
  height: number;
  packets: number;
  duration: number;
  bytes: number;
}
type Win = Window & {
  splatview: PageApp;
  rafs: number[];
  /** The export's progress (frames done / total) at each animation frame. */
  done: number[];
  rafOn: boolean;
  mediabunnyRead: typeof import('mediabunny');
};

/** `v` turned by `deg` degrees about the unit axis `k` (Rodrigues). */
function rotate(v: Vec3, k: Vec3, deg: number): Vec3 {
  const a = (deg * Math.PI) / 180;
  const [c, s] = [Math.cos(a), Math.sin(a)];
  const dot = v[0] * k[0] + v[1] * k[1] + v[2] * k[2];
  const cross: Vec3 = [k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]];
  return [0, 1, 2].map((i) => v[i]! * c + cross[i]! * s + k[i]! * dot * (1 - c)) as Vec3;
}

/** The hash's `path=` entry (docs/PATHS.md): 4 keyframes turning the view round its target. */
function pathHash(view: PageApp['view'], duration: number): string {
  const n = Math.hypot(...view.up);
  const up = view.up.map((x) => x / n) as Vec3;
  const rel = view.eye.map((x, i) => x - view.target[i]!) as Vec3;
  const f = (x: number) => Number(x.toFixed(5));
  const keys = [0, 1, 2, 3].map((k) => {
    const eye = rotate(rel, up, 30 * k).map((x, i) => f(x + view.target[i]!));
    const time = Number(((duration * k) / 3).toFixed(3));
    const head = [time, ...eye, ...view.target.map(f)];
    // Up and fovy on the first keyframe only (the hash keeps them until they change).
    return (k === 0 ? [...head, ...up.map(f), f(view.fovyDeg)] : head).join(',');
  });
  return `path=${keys.join(';')}`;
}

/** The demuxing half of mediabunny as a script for the page (globalThis.mediabunnyRead). */
async function mediabunnyScript(): Promise<string> {
  const out = await esbuild.build({
    stdin: { contents: "export { Input, BufferSource, ALL_FORMATS, EncodedPacketSink } from 'mediabunny';", resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    format: 'iife',
    globalName: 'mediabunnyRead',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  return out.outputFiles[0]!.text;
}

/** The page's Path-folder control named exactly `name` (lil-gui: its row). */
const control = (page: Page, name: string) =>
  page.locator('.lil-controller', { has: page.locator('.lil-name', { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) });

const t00 = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - t00) / 1000).toFixed(0).padStart(4)} s] ${line}`);
const script = await mediabunnyScript();
log('building the page (vite build) and serving it');
const server = await startAppServer(process.cwd(), { built: true });
const browser = await launchChromium();
try {
  // 800 px wide: the panel starts open (collapsed under 640), as in test/e2e/paths.test.ts.
  const { page, log: pageLog } = await openViewer(browser, server.base, '', { width: 800, height: 450 });
  await page.waitForFunction(() => {
    const v = (window as unknown as Win).splatview;
    return (v?.framesRendered ?? 0) >= 2 && v?.sceneFirstFrameAt != null;
  }, undefined, { timeout: 300_000 });
  // The page's `auto` measures its sort and draw first (bench/auto-gaps.ts): the export starts after, alone, unless
  // --during-auto (auto holds its trials while the video's frames are rendered: app/path-video.ts).
  if (!args['during-auto']) {
    await page.waitForFunction(() => {
      const v = (window as unknown as Win).splatview as unknown as { strategyNote: string; drawChoice: unknown };
      return /fastest exact sort/.test(v.strategyNote ?? '') && v.drawChoice != null;
    }, undefined, { timeout: 300_000 });
    log('the page is up and auto has chosen its sort and draw');
  } else log('the page is up; exporting while auto has yet to choose (--during-auto)');
  const scene = await page.evaluate(() => (window as unknown as Win).splatview.viewer.scene?.name ?? '?');
  const view = await page.evaluate(() => {
    const v = (window as unknown as Win).splatview.view;
    return { eye: [...v.eye], target: [...v.target], up: [...v.up], fovyDeg: v.fovyDeg } as PageApp['view'];
  });
  const hash = pathHash(view, seconds);
  await page.evaluate((h) => (location.hash = `#${h}`), hash);
  await page.waitForFunction((n) => (window as unknown as Win).splatview.viewer.path?.keyframes.length === n, 4, { timeout: 60_000 });
  const times = await page.evaluate(() => (window as unknown as Win).splatview.viewer.path!.keyframes.map((k) => k.time));
  log(`scene ${scene}; path of 4 keyframes at ${times.join(', ')} s (#${hash})`);

  await control(page, 'size (WxH)').locator('input').fill(`${width}x${height}`);
  const fpsField = control(page, 'fps').locator('input');
  await fpsField.fill(String(fps));
  await fpsField.press('Enter');
  await page.addScriptTag({ content: script });

  // Every animation frame's timestamp from the click on.
  await page.evaluate(() => {
    const w = window as unknown as Win;
    w.rafs = [performance.now()];
    w.done = [0];
    w.rafOn = true;
    const bars = [...document.querySelectorAll('progress')];
    const tick = (t: number) => {
      w.rafs.push(t);
      w.done.push(Math.max(0, ...bars.map((b) => b.value)));
      if (w.rafOn) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const download = page.waitForEvent('download', { timeout: timeoutMs });
  const t0 = Date.now();
  log(`exporting ${width}x${height} at ${fps} fps`);
  await control(page, 'Export video…').locator('button').click();
  const progress = setInterval(() => {
    page
      .evaluate(() => Math.max(0, ...[...document.querySelectorAll('progress')].map((b) => b.value)))
      .then((v) => log(`  ${(v * 100).toFixed(0)}% of the frames`))
      .catch(() => undefined);
  }, 30_000);
  let file;
  try {
    file = await download;
  } finally {
    clearInterval(progress);
  }
  const wallMs = Date.now() - t0;
  const { rafs, done } = await page.evaluate(() => {
    const w = window as unknown as Win;
    w.rafOn = false;
    w.rafs.push(performance.now());
    w.done.push(1);
    return { rafs: w.rafs, done: w.done };
  });
  // Every gap: its length, when it began (ms after the click), the share of frames done then.
  const gaps = rafs.slice(1).map((t, i) => ({ ms: t - rafs[i]!, at: rafs[i]! - rafs[0]!, done: done[i]! }));
  const top = [...gaps].sort((a, b) => b.ms - a.ms).slice(0, 5);
  const longestGap = top[0]?.ms ?? 0;
  const gapAt = top[0]?.at ?? 0;
  const exported = await page.evaluate(() => {
    const v = (window as unknown as Win).splatview.pathUi.lastVideo;
    return v && { container: v.container, codec: v.codec, frames: v.frames, duration: v.duration, width: v.width, height: v.height };
  });
  if (!exported) throw new Error(`no video came out; page errors: ${pageLog.errors.join(' | ') || 'none'}`);

  // Read back in the page, by mediabunny's demuxer.
  const back: Readback = await page.evaluate(async () => {
    const w = window as unknown as Win;
    const mb = w.mediabunnyRead;
    const blob = w.splatview.pathUi.lastVideo!.blob;
    const buf = await blob.arrayBuffer();
    const head = new Uint8Array(buf, 0, 12);
    const magic =
      String.fromCharCode(...head.subarray(4, 8)) === 'ftyp' ? 'MP4 ftyp' : head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3 ? 'WebM EBML' : `unknown (${[...head].join(' ')})`;
    const input = new mb.Input({ source: new mb.BufferSource(buf), formats: mb.ALL_FORMATS });
    const track = (await input.getPrimaryVideoTrack())!;
    let packets = 0;
    for await (const _ of new mb.EncodedPacketSink(track).packets()) packets++;
    return {
      magic,
      mime: await input.getMimeType(),
      codec: track.codec,
      codecString: await track.getCodecParameterString(),
      width: track.displayWidth,
      height: track.displayHeight,
      packets,
      duration: await input.computeDuration(),
      bytes: buf.byteLength,
    };
  });
  const expectFrames = Math.floor(seconds * fps + 1e-9) + 1;
  const frameS = 1 / fps;
  const result = {
    scene,
    path: { keyframes: times, hash: `#${hash}` },
    size: `${width}x${height}`,
    fps,
    seconds,
    file: file.suggestedFilename(),
    container: back.magic,
    mime: back.mime,
    codec: { encoder: exported.codec, readBack: back.codec, readBackString: back.codecString },
    readBack: { width: back.width, height: back.height, frames: back.packets, duration: back.duration, bytes: back.bytes },
    page: { frames: exported.frames, duration: exported.duration },
    expected: { frames: expectFrames, duration: expectFrames / fps },
    wallMs,
    msPerFrame: wallMs / back.packets,
    longestGapMs: longestGap,
    longestGapAtMs: gapAt,
    longestGaps: top.map((g) => ({ ms: Math.round(g.ms), atMs: Math.round(g.at), framesDone: Math.round(g.done * back.packets) })),
    gapsOver250ms: gaps.filter((g) => g.ms > 250).length,
    animationFrames: rafs.length - 2,
    pageErrors: pageLog.errors,
  };
  log(`file ${result.file}: ${back.magic}, ${back.mime}, codec ${exported.codec} (read back: ${back.codec}, ${back.codecString}), ${(back.bytes / 1e6).toFixed(2)} MB`);
  log(`read back: ${back.width}x${back.height}, ${back.packets} frames, ${back.duration.toFixed(4)} s (the page's rule: ${expectFrames} frames, ${(expectFrames / fps).toFixed(4)} s; ${seconds} s +- 1 frame is ${(seconds - frameS).toFixed(4)}..${(seconds + frameS).toFixed(4)} s)`);
  log(`export wall time ${(wallMs / 1000).toFixed(1)} s (${result.msPerFrame.toFixed(0)} ms a frame); longest gap between animation frames ${longestGap.toFixed(0)} ms (at ${(gapAt / 1000).toFixed(1)} s), ${result.animationFrames} animation frames, ${result.gapsOver250ms} gaps over 250 ms`);
  log(`longest gaps: ${result.longestGaps.map((g) => `${g.ms} ms at ${(g.atMs / 1000).toFixed(1)} s (frame ${g.framesDone})`).join(', ')}`);
  if (pageLog.errors.length) log(`page errors: ${pageLog.errors.join(' | ')}`);
  if (args.json) {
    fs.writeFileSync(args.json, JSON.stringify(result, null, 2) + '\n');
    log(`wrote ${args.json}`);
  }
  await page.close();
} finally {
  await browser.close();
  await server.close();
}
