/**
 * Draw strategies in the renderer: `quads` and `tiles` switched live on one
 * SplatRenderer give the same picture (and the CPU reference's), switching frees
 * what the other draw held, and `tiles` refuses a host sort strategy; a scene
 * prepared while another draws (prepareScene / adoptScene) changes nothing until
 * the switch.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector, type CameraPose } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { generateDefaultScene } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { listSorters } from '../../sort/registry';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { referenceRgb, rgbOf, trackAllocations } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const settings = { shDegree: 3, splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0] as [number, number, number] };

async function bothDraws(cloud: SplatCloud, pose: CameraPose, w: number, h: number, format: GPUTextureFormat = 'rgba8unorm', extra: { minContribution?: number } = {}) {
  const { device } = ctx.gpu;
  const s = { ...settings, ...extra };
  return withValidation(device, async () => {
    const renderer = new SplatRenderer(device, format, 'radix4');
    renderer.setScene(cloud);
    const cam = frameCamera(pose, w, h, cloud.bounds);
    const quads = await renderOffscreen(renderer, cam, s);
    renderer.setDraw('tiles');
    expect(renderer.draw).toBe('tiles');
    const tiles = await renderOffscreen(renderer, cam, s);
    renderer.setDraw('quads');
    const again = await renderOffscreen(renderer, cam, s);
    renderer.destroy();
    return { quads: quads.rgba, tiles: tiles.rgba, again: again.rgba };
  });
}

describe('draw strategies: quads and tiles on one renderer', () => {
  it.runIf(haveSharedScenes())('real scene inria_sh3_tile_6831 (SH3), 160x120: same picture both ways, and the reference', async () => {
    const bytes = fs.readFileSync(sharedScene('inria_sh3_tile_6831.ply'));
    const cloud = await loadScene(bytes, 'inria_sh3_tile_6831.ply');
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 160 / 120);
    const { quads, tiles, again } = await bothDraws(cloud, pose, 160, 120);
    writeTestPng('draws-6831-quads.png', quads, 160, 120);
    writeTestPng('draws-6831-tiles.png', tiles, 160, 120);
    const ref = referenceRgb(cloud, pose, 160, 120, settings);
    const pQt = psnr(rgbOf(quads), rgbOf(tiles));
    const pT = psnr(rgbOf(tiles), ref.rgb);
    const pQ = psnr(rgbOf(quads), ref.rgb);
    console.log(`inria6831: tiles vs quads ${pQt.toFixed(1)} dB; vs reference: tiles ${pT.toFixed(1)} dB, quads ${pQ.toFixed(1)} dB`);
    expect(pQt).toBeGreaterThan(40);
    expect(pT).toBeGreaterThan(40);
    expect(Buffer.from(again).equals(Buffer.from(quads))).toBe(true); // back to quads: the same image as before
  });

  it('generated scene onto a bgra8unorm target (the canvas format): same picture both ways', async () => {
    const cloud = generateDefaultScene(4000);
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 128 / 80);
    const { quads, tiles } = await bothDraws(cloud, pose, 128, 80, 'bgra8unorm');
    const p = psnr(rgbOf(quads), rgbOf(tiles));
    console.log(`default4000 bgra8unorm: tiles vs quads ${p.toFixed(1)} dB`);
    expect(p).toBeGreaterThan(40);
  });

  it('the contribution cull drops the same splats in both draws (and changes the picture)', async () => {
    const cloud = generateDefaultScene(4000);
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 128 / 80);
    const off = await bothDraws(cloud, pose, 128, 80);
    const culled = await bothDraws(cloud, pose, 128, 80, 'rgba8unorm', { minContribution: 2 });
    const p = psnr(rgbOf(culled.quads), rgbOf(culled.tiles));
    const cost = psnr(rgbOf(culled.quads), rgbOf(off.quads));
    console.log(`default4000, cull under 2 px: tiles vs quads ${p.toFixed(1)} dB; culled vs not ${cost.toFixed(1)} dB`);
    expect(p).toBeGreaterThan(40);
    expect(cost).toBeLessThan(p - 3);
  });

  it('switching draws and sorters frees what the other held: no GPU buffer or texture left behind', async () => {
    const { device } = ctx.gpu;
    const cloud = generateDefaultScene(1500);
    const pose = fitPose(robustBounds(cloud.positions), upVector('-y'), 60, 1);
    const cam = frameCamera(pose, 64, 64, cloud.bounds);
    const track = trackAllocations(device);
    try {
      await withValidation(device, async () => {
        const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'quads', { initialPairs: 256 });
        renderer.setScene(cloud);
        await renderOffscreen(renderer, cam, settings);
        const baseline = track.live().sort();
        for (let round = 0; round < 2; round++) {
          renderer.setDraw('tiles');
          await renderOffscreen(renderer, cam, settings);
          expect(renderer.tileStatus!.grows).toBeGreaterThan(0); // grew from 256 pairs (and freed the old buffers)
          for (const f of listSorters(device)) {
            renderer.setStrategy(f.name);
            await renderOffscreen(renderer, cam, settings);
          }
          renderer.setStrategy('radix4');
          renderer.setDraw('quads');
          expect(renderer.tileStatus).toBeNull();
          await renderOffscreen(renderer, cam, settings);
          expect(track.live().sort()).toEqual(baseline);
        }
        renderer.destroy();
      });
      expect(track.live()).toEqual([]);
    } finally {
      track.stop();
    }
  });

  it("a scene prepared while another draws (the page's load): the one on screen draws the same until the switch, then the new one as setScene draws it; nothing leaks", async () => {
    const { device } = ctx.gpu;
    const shown = generateDefaultScene(1500);
    const next = generateDefaultScene(2500);
    const pose = fitPose(robustBounds(next.positions), upVector('-y'), 60, 1);
    const camShown = frameCamera(pose, 64, 64, shown.bounds);
    const camNext = frameCamera(pose, 64, 64, next.bounds);
    const track = trackAllocations(device);
    try {
      await withValidation(device, async () => {
        const reference = new SplatRenderer(device, 'rgba8unorm', 'radix4');
        reference.setScene(next);
        const expected = (await renderOffscreen(reference, camNext, settings)).rgba;
        reference.setDraw('tiles');
        const expectedTiles = (await renderOffscreen(reference, camNext, settings)).rgba;
        reference.destroy();

        const renderer = new SplatRenderer(device, 'rgba8unorm', 'radix4');
        renderer.setScene(shown);
        const before = (await renderOffscreen(renderer, camShown, settings)).rgba;
        const baseline = track.live().sort();
        let pauses = 0;
        const prepared = await renderer.prepareScene(next, async () => void pauses++);
        expect(pauses).toBeGreaterThanOrEqual(2); // between the upload, the sort buffers and the draw state
        expect(prepared.cloud).toBe(next);
        expect(renderer.cloud).toBe(shown);
        expect(Buffer.from((await renderOffscreen(renderer, camShown, settings)).rgba).equals(Buffer.from(before))).toBe(true);
        renderer.adoptScene(prepared);
        expect(renderer.cloud).toBe(next);
        expect(Buffer.from((await renderOffscreen(renderer, camNext, settings)).rgba).equals(Buffer.from(expected))).toBe(true);

        // Dropped (a newer load superseded it): everything it held is freed.
        const dropped = await renderer.prepareScene(shown, async () => undefined);
        dropped.destroy();
        // Prepared for quads, the draw switched to tiles before the switch: built again for tiles.
        const again = await renderer.prepareScene(next, async () => undefined);
        renderer.setDraw('tiles');
        renderer.adoptScene(again);
        expect(renderer.tileStatus).not.toBeNull();
        expect(Buffer.from((await renderOffscreen(renderer, camNext, settings)).rgba).equals(Buffer.from(expectedTiles))).toBe(true);
        renderer.setDraw('quads');
        await renderOffscreen(renderer, camNext, settings);
        // One scene's worth again, as before the switch: the old scene and the dropped one freed.
        expect(track.live().sort()).toEqual(baseline);
        renderer.destroy();
      });
      expect(track.live()).toEqual([]);
    } finally {
      track.stop();
    }
  });

  it('an empty scene drawn with tiles is the background', async () => {
    const { device } = ctx.gpu;
    const empty: SplatCloud = {
      count: 0, shDegree: 0, positions: new Float32Array(0), scales: new Float32Array(0), rotations: new Float32Array(0),
      opacities: new Float32Array(0), sh: new Float32Array(0), bounds: { min: [0, 0, 0], max: [0, 0, 0] },
      source: { name: 'empty', format: 'generated' },
    };
    const img = await withValidation(device, async () => {
      const renderer = new SplatRenderer(device, 'rgba8unorm', 'onesweep', 'tiles');
      renderer.setScene(empty);
      const pose: CameraPose = { eye: [0, 0, -3], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 };
      const out = await renderOffscreen(renderer, frameCamera(pose, 24, 16, empty.bounds), { ...settings, background: [1, 0, 0] });
      expect(renderer.tileStatus!.last).toMatchObject({ needed: 0, visible: 0 });
      renderer.destroy();
      return out.rgba;
    });
    for (let i = 0; i < img.length; i += 4) expect([img[i], img[i + 1], img[i + 2]]).toEqual([255, 0, 0]);
  });

  it('tiles sorts on the GPU: a host sort strategy is refused both ways, changing nothing', () => {
    const { device } = ctx.gpu;
    const renderer = new SplatRenderer(device, 'rgba8unorm', 'cpu');
    expect(() => renderer.setDraw('tiles')).toThrow(/sorts on the host/);
    expect(renderer.draw).toBe('quads');
    renderer.setStrategy('radix4');
    renderer.setDraw('tiles');
    expect(() => renderer.setStrategy('cpu')).toThrow(/sorts on the host/);
    expect(renderer.strategy).toBe('radix4');
    expect(() => renderer.setDraw('points')).toThrow(/unknown draw strategy 'points'/);
    expect(() => new SplatRenderer(device, 'rgba8unorm', 'cpu', 'tiles')).toThrow(/sorts on the host/);
    renderer.destroy();
  });
});
