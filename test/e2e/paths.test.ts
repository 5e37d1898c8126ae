/**
 * Camera paths on the page (issue 35), in headless Chromium (SwiftShader WebGPU)
 * against the built page, as a user makes one: three keyframes recorded with K (the
 * camera moved by keys, then by a view typed into the hash), retimed in their fields,
 * played (the camera moves along the path, `pathend` arrives), exported as a short
 * video (rendered offscreen frame by frame, WebCodecs, muxed by mediabunny: its
 * container, duration and frame count read back with mediabunny here), the page
 * alive meanwhile (animation frames keep coming), and the path back after a reload
 * from the URL hash. Beside them, placed objects (issue 32) as a user handles them in
 * the panel's Objects folder: added, moved by a field and by the gizmo, hidden,
 * cropped with a face handle, exported, removed; the loaded scene selected as an object
 * (viewer.sceneObject) and moved by a field.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input } from 'mediabunny';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openViewer, startAppServer, type PageLog } from '../../bench/browser';

let server: { base: string; close: () => Promise<void> };
let browser: Browser;
const OUT = path.resolve(__dirname, '../../test-output');

beforeAll(async () => {
  server = await startAppServer(path.resolve(__dirname, '../..'), { built: true });
  browser = await launchChromium();
  fs.mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface PagePath {
  keyframes: { time: number; eye: number[]; target: number[]; fovyDeg: number }[];
}
interface PageApp {
  framesRendered: number;
  sceneFirstFrameAt: number | null;
  view: { eye: number[]; target: number[]; fovyDeg: number };
  viewer: EventTarget & { path: PagePath | null; playing: boolean };
  pathUi: { list: { keyframes: PagePath['keyframes'] }; lastVideo: { blob: Blob; container: string; codec: string; frames: number; duration: number } | null };
}

function app<T>(page: Page, f: (a: PageApp) => T): Promise<T> {
  return page.evaluate(`(${f.toString()})(window.splatview)`) as Promise<T>;
}

/** Until the scene is on screen and `n` frames are drawn. */
async function waitFrames(page: Page, n: number): Promise<void> {
  await page.waitForFunction(
    (target) => {
      const v = (window as unknown as { splatview?: PageApp }).splatview;
      return (v?.framesRendered ?? 0) >= target && v?.sceneFirstFrameAt != null;
    },
    n,
    { timeout: 120_000 },
  );
}

const far = (a: number[], b: number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!) > 1e-3;

/** The panel's control named exactly `name` (lil-gui: its row). */
const control = (page: Page, name: string) => page.locator('.lil-controller', { has: page.locator('.lil-name', { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) });

describe('camera paths on the page', () => {
  it('records 3 keyframes with K, retimes and plays them, exports a video, and keeps the path through a reload', async () => {
    let log: PageLog;
    let page: Page;
    // 800 px wide: the panel starts open (it is collapsed under 640).
    ({ page, log } = await openViewer(browser, server.base, '?splats=1000&sort=cpu&draw=quads', { width: 800, height: 450 }));
    await waitFrames(page, 2);

    // Keyframe 1: the first view. Keyframe 2: after flying right with D. Keyframe 3: a view typed into the hash.
    await page.keyboard.press('k');
    const first = await app(page, (a) => a.view);
    await page.keyboard.down('d');
    await page.waitForFunction((eye) => {
      const v = (window as unknown as { splatview: PageApp }).splatview.view.eye;
      return Math.hypot(v[0]! - eye[0]!, v[1]! - eye[1]!, v[2]! - eye[2]!) > 0.5;
    }, first.eye, { timeout: 30_000 });
    await page.keyboard.up('d');
    await page.keyboard.press('k');
    await page.evaluate(() => (location.hash = '#cam=3,-1.5,-4,0,0,0,0,-1,0,50'));
    await page.waitForFunction(() => (window as unknown as { splatview: PageApp }).splatview.view.fovyDeg === 50, undefined, { timeout: 30_000 });
    await page.keyboard.press('k');
    const keys = await app(page, (a) => a.pathUi.list.keyframes);
    expect(keys.map((k) => k.time)).toEqual([0, 2, 4]);
    expect(far(keys[0]!.eye, keys[1]!.eye)).toBe(true);
    keys[2]!.eye.forEach((x, c) => expect(x).toBeCloseTo([3, -1.5, -4][c]!, 9));
    expect(keys[2]!.fovyDeg).toBe(50);

    // Retimed in the fields: 0, 0.5, 1 s (the path's duration follows).
    for (const [i, t] of [[1, '0.5'], [2, '1']] as const) {
      const field = page.locator(`.sv-path-list input[data-key="${i}"]`);
      await field.fill(t);
      await field.dispatchEvent('change');
    }
    expect(await app(page, (a) => a.viewer.path!.keyframes.map((k) => k.time))).toEqual([0, 0.5, 1]);

    // Play: the camera flies from keyframe 1 to keyframe 3, pathend arrives.
    await page.evaluate(() => {
      const w = window as unknown as { splatview: PageApp; flight: { eyes: number[][]; ended: Promise<number> } };
      const eyes: number[][] = [];
      w.splatview.viewer.addEventListener('pathframe', (e) => eyes.push([...(e as CustomEvent<{ pose: { eye: number[] } }>).detail.pose.eye]));
      w.flight = { eyes, ended: new Promise((r) => w.splatview.viewer.addEventListener('pathend', (e) => r((e as CustomEvent<{ time: number }>).detail.time), { once: true })) };
    });
    await control(page, 'Play').locator('button').click();
    const endTime = await page.evaluate(() => (window as unknown as { flight: { ended: Promise<number> } }).flight.ended);
    expect(endTime).toBe(1);
    const eyes = await page.evaluate(() => (window as unknown as { flight: { eyes: number[][] } }).flight.eyes);
    expect(eyes.length).toBeGreaterThanOrEqual(3);
    expect(eyes[0]!.map((x, c) => x - keys[0]!.eye[c]!).every((d) => Math.abs(d) < 1e-6)).toBe(true);
    expect(new Set(eyes.map((e) => e.join())).size).toBeGreaterThanOrEqual(3); // it moved
    const end = await app(page, (a) => ({ eye: a.view.eye, playing: a.viewer.playing }));
    expect(end.playing).toBe(false);
    end.eye.forEach((x, c) => expect(x).toBeCloseTo([3, -1.5, -4][c]!, 6));

    // A video: 1 s at 10 fps, 160x120. The page stays alive: the longest gap between its animation frames meanwhile.
    await control(page, 'size (WxH)').locator('input').fill('160x120');
    const fps = control(page, 'fps').locator('input');
    await fps.fill('10');
    await fps.press('Enter');
    await page.evaluate(() => {
      const w = window as unknown as { gaps: { max: number; on: boolean } };
      w.gaps = { max: 0, on: true };
      let last = performance.now();
      const tick = (t: number) => {
        w.gaps.max = Math.max(w.gaps.max, t - last);
        last = t;
        if (w.gaps.on) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const download = page.waitForEvent('download', { timeout: 120_000 });
    const t0 = Date.now();
    await control(page, 'Export video…').locator('button').click();
    const file = await download;
    const exportMs = Date.now() - t0;
    const maxGap = await page.evaluate(() => {
      const w = window as unknown as { gaps: { max: number; on: boolean } };
      w.gaps.on = false;
      return w.gaps.max;
    });
    const video = await app(page, (a) => a.pathUi.lastVideo && { container: a.pathUi.lastVideo.container, codec: a.pathUi.lastVideo.codec, frames: a.pathUi.lastVideo.frames });
    console.log(`video: ${video?.container} ${video?.codec}, ${video?.frames} frames in ${exportMs} ms; longest gap between animation frames ${maxGap.toFixed(0)} ms`);
    expect(video).not.toBeNull();
    expect(file.suggestedFilename()).toMatch(new RegExp(`-path-160x120-10fps\\.${video!.container}$`));
    expect(maxGap).toBeLessThan(1000);
    const bytes = Buffer.from(await page.evaluate(async () => Array.from(new Uint8Array(await (window as unknown as { splatview: PageApp }).splatview.pathUi.lastVideo!.blob.arrayBuffer()))));
    // The container's magic: MP4's 'ftyp' box, or WebM's EBML header.
    if (video!.container === 'mp4') expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    else expect([...bytes.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    // Read back: 11 frames (0, 0.1, .. 1.0 s), each 0.1 s long, 160x120.
    const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
    expect(await input.getMimeType()).toMatch(video!.container === 'mp4' ? /^video\/mp4/ : /^video\/webm/);
    const track = (await input.getPrimaryVideoTrack())!;
    expect([track.displayWidth, track.displayHeight]).toEqual([160, 120]);
    let packets = 0;
    for await (const _ of new EncodedPacketSink(track).packets()) packets++;
    expect(packets).toBe(11);
    expect(await input.computeDuration()).toBeCloseTo(1.1, 2);

    // The path is in the hash: a reload brings it back (rounded as the hash keeps it).
    await page.waitForFunction(() => location.hash.includes('&path='), undefined, { timeout: 30_000 });
    await page.reload();
    await waitFrames(page, 2);
    const back = await app(page, (a) => a.viewer.path?.keyframes ?? null);
    expect(back?.map((k) => k.time)).toEqual([0, 0.5, 1]);
    back!.forEach((k, i) => k.eye.forEach((x, c) => expect(x).toBeCloseTo(keys[i]!.eye[c]!, 2)));
    expect(await page.locator('.sv-path-list input').count()).toBe(3);
    expect(log.errors).toEqual([]);
    await page.close();
  });
});

// Beside the paths (this file's server and browser): the panel's Objects folder and its overlay (app/object-panel.ts).
describe('objects on the page', () => {
  it('adds a scene as an object in the panel (issue 32), moves it by a field and the gizmo, hides it, crops it with a face handle, exports it, removes it; moves the loaded scene', async () => {
    const t0 = Date.now();
    // A GPU sort: the HUD's visible count is the project pass's, which the crop culls (the cpu sort counts every splat).
    const { page, log } = await openViewer(browser, server.base, '?splats=1000&sort=radix16&draw=quads', { width: 800, height: 450 });
    await waitFrames(page, 2);
    const obj = () => app(page, (a) => {
      const o = (a as unknown as { viewer: { objects: { transform: { position: number[] }; crop: { min: number[]; max: number[] } | null; localBounds: { min: number[]; max: number[] }; visible: boolean }[] } }).viewer.objects[0];
      return o ? { position: o.transform.position, crop: o.crop, bounds: o.localBounds, visible: o.visible } : null;
    });
    /** Until the HUD's visible splats are within [lo, hi] (it follows the frames a few times a second). */
    const visibleUntil = (lo: number, hi = lo) => page.waitForFunction(([a, b]) => {
      const m = /\(([\d,]+) visible\)/.exec(document.querySelector('#hud')?.textContent ?? '');
      const n = m ? Number(m[1]!.replace(/,/g, '')) : -1;
      return n >= a! && n <= b!;
    }, [lo, hi], { timeout: 30_000 });
    const dragBy = async (selector: string, dx: number, dy: number) => {
      const box = (await page.locator(selector).boundingBox())!;
      const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x + dx / 2, y + dy / 2);
      await page.mouse.move(x + dx, y + dy);
      await page.mouse.up();
    };

    // Added from the scene list beside the loaded scene, at the identity, selected.
    await control(page, 'scene to add').locator('select').selectOption({ label: 'default:1000' });
    await control(page, 'Add as object').locator('button').click();
    await page.waitForFunction(() => (window as unknown as { splatview: { viewer: { objects: unknown[] } } }).splatview.viewer.objects.length === 1, undefined, { timeout: 30_000 });
    await visibleUntil(2000);
    expect((await obj())!.position).toEqual([0, 0, 0]);
    const view = await app(page, (a) => a.view);

    // A field: position z.
    const z = control(page, 'position z').locator('input');
    await z.fill('0.5');
    await z.press('Enter');
    expect((await obj())!.position).toEqual([0, 0, 0.5]);

    // The gizmo: the x arrow dragged 60 px along its screen direction moves x only; the camera stays.
    await dragBy('circle[data-handle=axis-x]', 60, 0);
    await page.screenshot({ path: path.join(OUT, 'e2e-objects-gizmo.png') });
    const moved = (await obj())!.position;
    expect(moved[0]).toBeGreaterThan(0.5);
    expect(moved.slice(1)).toEqual([0, 0.5]);
    expect(await app(page, (a) => a.view)).toEqual(view);
    expect(await control(page, 'position x').locator('input').inputValue()).toBe(String(Math.round(moved[0]! * 1e4) / 1e4));

    // Hidden: the loaded scene's splats alone are drawn.
    await control(page, 'visible').locator('input').click();
    expect((await obj())!.visible).toBe(false);
    await visibleUntil(1000);
    await control(page, 'visible').locator('input').click();

    // Shown again, then crop mode: the x-min face dragged inward along x (the arrow's screen direction) crops
    // the object (the count below is reached only with the object shown and cropped).
    await control(page, 'crop mode').locator('input').click();
    await dragBy('[data-handle=face-x-min]', 120, 0);
    const cropped = (await obj())!;
    expect(cropped.crop).not.toBeNull();
    expect(cropped.crop!.min[0]).toBeGreaterThan(cropped.bounds.min[0]! + 0.5);
    expect(cropped.crop!.max).toEqual(cropped.bounds.max);
    await page.screenshot({ path: path.join(OUT, 'e2e-objects-cropped.png') });
    await visibleUntil(1001, 1899);
    expect(await app(page, (a) => a.view)).toEqual(view);

    // Export PLY: a download of what the crop keeps.
    const download = page.waitForEvent('download', { timeout: 30_000 });
    await control(page, 'Export PLY').locator('button').click();
    const ply = await download;
    expect(ply.suggestedFilename()).toBe('default-1000.ply');
    const header = fs.readFileSync((await ply.path())!).subarray(0, 200).toString('latin1');
    const kept = Number(/element vertex (\d+)/.exec(header)?.[1]);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(1000);

    // Removed: the loaded scene alone again, nothing selected.
    await control(page, 'Remove').locator('button').click();
    expect(await obj()).toBeNull();
    expect(await page.locator('circle[data-handle=axis-x]').isVisible()).toBe(false);

    // The loaded scene is an object too (viewer.sceneObject): selected in the list, moved by a field, gizmo shown.
    const selected = control(page, 'selected').locator('select');
    expect(await selected.locator('option').nth(1).textContent()).toMatch(/^scene: [^(]+$/);
    await selected.selectOption({ index: 1 });
    await z.fill('0.25');
    await z.press('Enter');
    expect(await app(page, (a) => (a as unknown as { viewer: { sceneObject: { transform: { position: number[] } } } }).viewer.sceneObject.transform.position)).toEqual([0, 0, 0.25]);
    expect(await page.locator('circle[data-handle=axis-x]').isVisible()).toBe(true);
    expect(log.errors).toEqual([]);
    console.log(`objects on the page: ${Date.now() - t0} ms`);
    await page.close();
  });
});
