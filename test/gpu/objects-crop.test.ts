/**
 * Cropping and exporting placed objects (issue 32).
 *
 * 1. A crop box (SplatRenderer.setObjectCrop: in the object's own frame, in its entry of
 *    the object table, tested by the project passes of both draws) draws as the cloud
 *    cropped on the CPU (scenes/crop.ts cropCloud), transformed and merged: one object
 *    (its own scene) and two (an assembly), both draws, full and compact, a GPU sort and
 *    the CPU sort; setting or clearing a crop writes the object table only.
 * 2. exportObject (scenes/export.ts) of a cropped, rotated, scaled object, as PLY,
 *    loads back (scenes/load.ts) with the cropped set's count and draws as the placed
 *    object does.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer, type FrameCamera } from '../../renderer/frame/splat-renderer';
import type { ScenePrecision } from '../../renderer/gpu-scene/scene-precision';
import { checkCrop, cropCloud, type SplatCrop } from '../../scenes/crop';
import { exportObject } from '../../scenes/export';
import { generateSynthetic } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { makeTransform, transformCloud, transformPoint } from '../../scenes/transform';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { mergeClouds, placedAt, robustCentre, robustRadius } from '../support/placed-clouds';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { rgbOf } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const W = 128;
const H = 96;
const SETTINGS = { shDegree: 3, splatScale: 1, cull: true, keyBits: 32, background: [0.1, 0.1, 0.12] as [number, number, number] };
const MIN_PSNR = 45;
const PRECISIONS: ScenePrecision[] = ['full', 'compact'];
const TURN = [0.82, 0.31, -0.42, 0.25];




/** A box through the middle of `c`'s robust bounds: `keep` of its extent along x, from `side` ('low' or 'high'), open along the others but y, half of which it keeps. */
function slab(c: SplatCloud, keep: number, side: 'low' | 'high'): SplatCrop {
  const b = robustBounds(c.positions);
  const x = b.min[0] + keep * (b.max[0] - b.min[0]);
  const y = (b.min[1] + b.max[1]) / 2;
  return side === 'low' ? checkCrop({ min: [-Infinity, -Infinity, -Infinity], max: [x, y + 0.25 * (b.max[1] - b.min[1]), Infinity] }) : checkCrop({ min: [b.max[0] - keep * (b.max[0] - b.min[0]), y - 0.3 * (b.max[1] - b.min[1]), -Infinity], max: [Infinity, Infinity, Infinity] });
}


async function picture(r: SplatRenderer, cam: FrameCamera): Promise<Uint8Array> {
  return (await renderOffscreen(r, cam, SETTINGS)).rgba;
}

/** The picture once settled: the CPU sort's order arrives a frame late. */
async function settled(r: SplatRenderer, cam: FrameCamera): Promise<Uint8Array> {
  const first = await picture(r, cam);
  return (await r.settle()) ? picture(r, cam) : first;
}

describe.runIf(haveSharedScenes())('placed objects: crop and export', () => {
  const load = async (name: string) => loadScene(fs.readFileSync(sharedScene(name)), name);

  it('a crop draws as the CPU-cropped cloud: one object and two, both draws, full and compact, a GPU sort and the CPU sort', async () => {
    const { device } = ctx.gpu;
    const a = await load('inria_sh3_tile_1971.ply');
    const b = generateSynthetic(4000);
    const ta = makeTransform({ rotation: [0.99, 0.05, 0.1, -0.03], translation: [0.05, -0.02, 0.03], scale: 1.3 });
    const tb = placedAt(b, transformPoint(ta, robustCentre(a)), TURN, (1.1 * robustRadius(a)) / robustRadius(b));
    const cropA = slab(a, 0.6, 'low');
    const cropB = slab(b, 0.5, 'high');
    const pa = transformCloud(a, ta);
    const [ca, cb] = [transformCloud(cropCloud(a, cropA), ta), transformCloud(cropCloud(b, cropB), tb)];
    expect(ca.count).toBeGreaterThan(0.2 * a.count);
    expect(ca.count).toBeLessThan(0.8 * a.count);
    expect(cb.count).toBeLessThan(0.8 * b.count);
    const all = mergeClouds('all', pa, transformCloud(b, tb));
    const pose = fitPose(robustBounds(all.positions), upVector('-y'), 60, W / H);
    const cam = frameCamera(pose, W, H, all.bounds);
    const figures: string[] = [];
    const queue = device.queue;
    const writeBuffer = queue.writeBuffer.bind(queue);
    let written: string[] = [];
    for (const precision of PRECISIONS) {
      for (const [draw, strategy] of [['quads', 'radix4'], ['quads', 'cpu'], ['tiles', 'radix4']] as const) {
        await withValidation(device, async () => {
          const ref = new SplatRenderer(device, 'rgba8unorm', strategy, draw);
          ref.precision = precision;
          const r = new SplatRenderer(device, 'rgba8unorm', strategy, draw);
          r.precision = precision;
          const check = async (what: string, want: SplatCloud) => {
            ref.setScene(want);
            const got = await settled(r, cam);
            const expected = await settled(ref, cam);
            const p = psnr(rgbOf(got), rgbOf(expected));
            figures.push(`${precision} ${draw}/${strategy} ${what} ${p.toFixed(1)} dB`);
            if (p < MIN_PSNR) {
              writeTestPng(`crop-${precision}-${draw}-${strategy}-got.png`, got, W, H);
              writeTestPng(`crop-${precision}-${draw}-${strategy}-want.png`, expected, W, H);
            }
            expect(p, `${precision} ${draw}/${strategy} ${what}`).toBeGreaterThanOrEqual(MIN_PSNR);
          };
          r.setScene(a);
          const ha = r.objects[0]!.handle;
          r.setObjectTransform(ha, ta);
          const uncropped = await settled(r, cam);
          // Setting a crop writes the object table and nothing else.
          written = [];
          queue.writeBuffer = ((buffer: GPUBuffer, ...rest: unknown[]) => {
            written.push(buffer.label);
            return (writeBuffer as (...args: unknown[]) => void)(buffer, ...rest);
          }) as GPUQueue['writeBuffer'];
          try {
            r.setObjectCrop(ha, cropA);
            expect(written).toEqual([]);
            await picture(r, cam);
          } finally {
            queue.writeBuffer = writeBuffer;
          }
          expect(written.filter((l) => l.startsWith('GpuScene.'))).toEqual([]);
          expect(written).toContain('ObjectTable.buffer');
          expect(r.objects[0]!.crop).toEqual(cropA);
          // The crop shows: a picture far from the uncropped one.
          expect(psnr(rgbOf(await settled(r, cam)), rgbOf(uncropped))).toBeLessThan(30);
          await check('one object cropped', ca);
          const hb = r.addObject(b, tb);
          r.setObjectCrop(hb, cropB);
          await check('two objects, both cropped', mergeClouds('ab', ca, cb));
          r.setObjectCrop(ha, null);
          await check('two objects, the second cropped', mergeClouds('ab', pa, cb));
          r.destroy();
          ref.destroy();
        });
      }
    }
    console.log(`crop vs the CPU-cropped cloud: ${figures.join('; ')}`);
  });

  it('export(ply) of a cropped, rotated, scaled object loads back with the cropped count and draws as the placed object', async () => {
    const { device } = ctx.gpu;
    const a = await load('inria_sh3_tile_1971.ply');
    const crop = slab(a, 0.55, 'high');
    const t = makeTransform({ rotation: TURN, translation: [3, -1, 2], scale: 1.5 });
    const bytes = exportObject(a, t, crop, 'ply');
    const back = await loadScene(bytes, 'exported.ply');
    const count = cropCloud(a, crop).count;
    expect(back.count).toBe(count);
    expect(count).toBeLessThan(0.8 * a.count);
    const placed = transformCloud(a, t);
    const pose = fitPose(robustBounds(placed.positions), upVector('-y'), 60, W / H);
    const cam = frameCamera(pose, W, H, placed.bounds);
    const figures: string[] = [];
    for (const precision of PRECISIONS) {
      for (const draw of ['quads', 'tiles'] as const) {
        await withValidation(device, async () => {
          const r = new SplatRenderer(device, 'rgba8unorm', 'radix4', draw);
          r.precision = precision;
          const h = r.addObject(a, t);
          r.setObjectCrop(h, crop);
          const got = await picture(r, cam);
          r.setScene(back);
          const want = await picture(r, cam);
          r.destroy();
          const p = psnr(rgbOf(got), rgbOf(want));
          figures.push(`${precision} ${draw} ${p.toFixed(1)} dB`);
          if (p < MIN_PSNR) {
            writeTestPng(`export-${precision}-${draw}-placed.png`, got, W, H);
            writeTestPng(`export-${precision}-${draw}-exported.png`, want, W, H);
          }
          expect(p, `${precision} ${draw}`).toBeGreaterThanOrEqual(MIN_PSNR);
        });
      }
    }
    console.log(`export(ply) of ${count} of ${a.count} splats, loaded back, vs the placed object: ${figures.join('; ')}`);
  });
});
