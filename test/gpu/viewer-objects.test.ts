/**
 * Placed objects through the library (issue 32): Viewer.add, SplatObject (transform,
 * visible, crop, bounds, splats, remove), Viewer.objects, Viewer.export, in Node on a
 * viewer that owns its device (navigator.gpu is Dawn's here), so that a lost device is
 * recovered from:
 *
 * - a scene loaded, two objects added beside it (one SH3, turned and scaled; one SH1):
 *   the picture is the one of the CPU-transformed clouds merged (a renderer of the test's
 *   own, the viewer's camera);
 * - moving one writes no scene byte (the queue's writes and the buffers made, counted);
 *   cropping one and hiding one draw as the CPU-cropped / merged clouds;
 * - export('ply') of the moved, cropped object loads back with the cropped count, where
 *   it was placed; 'spz' too;
 * - device.destroy(): the recovery brings the scene and both objects back where they
 *   were (the same picture on the new device; the hidden one stays hidden);
 * - remove() takes one out; load() replaces everything (the objects end).
 */
import { describe, expect, it } from 'vitest';
import { createViewer, SplatObject, type Viewer } from '../../renderer/api/index';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { cropCloud, checkCrop } from '../../scenes/crop';
import { generateDefaultScene, generateSynthetic } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import { withShDegree } from '../../scenes/load-options';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { makeTransform, transformCloud, transformMatrix } from '../../scenes/transform';
import { writeSplatPly } from '../../scenes/write-ply';
import { psnr } from '../reference/raster';
import { useGpu } from '../support/gpu';
import { boundsCentre as centre, mergeClouds, placedAt } from '../support/placed-clouds';
import { rgbOf } from '../support/tile-render';
import { cloudDraw, frames, installNavigatorGpu, until, viewerPictureCheck } from '../support/viewer-harness';

const ctx = useGpu();
const W = 128;
const H = 96;
const MIN_PSNR = 45;

describe('Viewer.add: placed objects through the library', () => {
  it('adds two objects, moves one (0 scene bytes), crops, hides, exports, survives a lost device with both back, removes; load() replaces them', async () => {
    // The viewer asks navigator.gpu for a device of its own (renderer/gpu/browser-device.ts): Dawn's, in Node.
    const restoreNavigator = installNavigatorGpu();
    const ref = new SplatRenderer(ctx.gpu.device, 'rgba8unorm', 'radix16', 'quads');
    ref.precision = 'compact';
    let viewer: Viewer | null = null;
    try {
      const sceneBytes = writeSplatPly(generateDefaultScene(3000));
      const bBytes = writeSplatPly(generateSynthetic(2000));
      const cBytes = writeSplatPly(withShDegree(generateDefaultScene(1500), { maxShDegree: 1 }));
      const [a, b, c] = await Promise.all([loadScene(sceneBytes, 'scene.ply'), loadScene(bBytes, 'b.ply'), loadScene(cBytes, 'c.ply')]);
      expect([a.shDegree, b.shDegree, c.shDegree]).toEqual([3, 3, 1]);
      const v = (viewer = await createViewer({ width: W, height: H }, { scene: sceneBytes.buffer as ArrayBuffer, sort: 'radix16', draw: 'quads', background: '#000000', controls: false }));
      await v.ready;
      expect(v.device).not.toBe(ctx.gpu.device);
      const r0 = Math.hypot(...[0, 1, 2].map((k) => a.bounds.max[k]! - a.bounds.min[k]!)) / 2;
      const TURN = [0.82, 0.31, -0.42, 0.25];
      const tb = placedAt(b, [centre(a)[0] + 0.3 * r0, centre(a)[1], centre(a)[2]], TURN, 0.6, centre);
      const tc = placedAt(c, [centre(a)[0] - 0.4 * r0, centre(a)[1] + 0.1 * r0, centre(a)[2]], [0.9, 0, 0.3, 0.1], 0.5, centre);

      const ob = await v.add(bBytes.buffer as ArrayBuffer, { name: 'b.ply', transform: { position: tb.translation, rotation: tb.rotation, scale: tb.scale } });
      // The matrix form: c placed by its 4x4.
      const oc = await v.add(cBytes.buffer as ArrayBuffer, { name: 'c.ply', transform: Array.from(transformMatrix(tc)) });
      expect(ob).toBeInstanceOf(SplatObject);
      expect(v.objects).toEqual([ob, oc]);
      expect([ob.splats, oc.splats, ob.name]).toEqual([2000, 1500, 'b.ply']);
      ob.transform.position.forEach((x, k) => expect(x).toBeCloseTo(tb.translation[k]!, 6));
      oc.transform.rotation.forEach((x, k) => expect(x).toBeCloseTo(tc.rotation[k]!, 5));
      expect(oc.transform.scale).toBeCloseTo(0.5, 6);
      // The whole group in view.
      const all = mergeClouds('all', a, transformCloud(b, tb), transformCloud(c, tc));
      v.setPose(fitPose(robustBounds(all.positions), upVector('-y'), 60, W / H));
      await frames(v, 3);

      const figures: string[] = [];
      /** The viewer's picture against the test's own renderer drawing `want` with the viewer's camera. */
      const check = async (what: string, want: SplatCloud): Promise<Uint8Array> => {
        await frames(v, 2);
        return viewerPictureCheck(v, ctx.gpu.device, {
          what,
          prefix: 'viewer-objects',
          minPsnr: MIN_PSNR,
          figures,
          draw: cloudDraw(ref, want),
        });
      };
      await check('scene + b + c', all);

      // Moving b: its object table entry only; no scene buffer written or made.
      const device = v.device;
      const queue = device.queue;
      const writeBuffer = queue.writeBuffer.bind(queue);
      const createBuffer = device.createBuffer.bind(device);
      const written: { label: string; bytes: number }[] = [];
      const made: string[] = [];
      queue.writeBuffer = ((buffer: GPUBuffer, offset: number, data: BufferSource, dataOffset?: number, size?: number) => {
        written.push({ label: buffer.label, bytes: size ?? (data as ArrayBuffer).byteLength });
        return writeBuffer(buffer, offset, data, dataOffset, size);
      }) as GPUQueue['writeBuffer'];
      device.createBuffer = (d: GPUBufferDescriptor) => {
        made.push(d.label ?? '');
        return createBuffer(d);
      };
      const tb2 = makeTransform({ rotation: TURN, scale: 0.7, translation: [tb.translation[0] - 0.2 * r0, tb.translation[1] + 0.1 * r0, tb.translation[2]] });
      try {
        ob.transform = { position: tb2.translation, scale: 0.7 }; // the rotation kept
        await frames(v, 3);
      } finally {
        queue.writeBuffer = writeBuffer;
        device.createBuffer = createBuffer;
      }
      const sceneBytesWritten = written.filter((w) => w.label.startsWith('GpuScene.')).reduce((s, w) => s + w.bytes, 0);
      expect(sceneBytesWritten).toBe(0);
      expect(made.filter((l) => l.startsWith('GpuScene.'))).toEqual([]);
      expect(written.some((w) => w.label === 'ObjectTable.buffer')).toBe(true);
      ob.transform.rotation.forEach((x, k) => expect(x).toBeCloseTo(tb2.rotation[k]!, 6));
      await check('b moved', mergeClouds('moved', a, transformCloud(b, tb2), transformCloud(c, tc)));

      // Cropping b (its own frame), then hiding c.
      const crop = checkCrop({ min: [b.bounds.min[0], -Infinity, -Infinity], max: [centre(b)[0], Infinity, Infinity] });
      ob.crop = crop;
      expect(ob.crop).toEqual({ min: crop.min, max: crop.max });
      const cb = transformCloud(cropCloud(b, crop), tb2);
      expect(cb.count).toBeLessThan(0.8 * b.count);
      await check('b cropped', mergeClouds('cropped', a, cb, transformCloud(c, tc)));
      oc.visible = false;
      await check('c hidden', mergeClouds('hidden', a, cb));
      // Bounds as placed, within the crop.
      for (let k = 0; k < 3; k++) {
        expect(ob.bounds.min[k]!).toBeLessThanOrEqual(cb.bounds.min[k]! + 1e-4);
        expect(ob.bounds.max[k]!).toBeGreaterThanOrEqual(cb.bounds.max[k]! - 1e-4);
      }

      // Export: the crop applied, the transform baked in.
      for (const format of ['ply', 'spz'] as const) {
        const blob = await v.export(ob, format);
        const back = await loadScene(new Uint8Array(await blob.arrayBuffer()), `b.${format}`);
        expect(back.count, format).toBe(cb.count);
        let worst = 0;
        for (let i = 0; i < cb.positions.length; i++) worst = Math.max(worst, Math.abs(back.positions[i]! - cb.positions[i]!));
        expect(worst, format).toBeLessThan(format === 'ply' ? 1e-5 : 1e-3);
        figures.push(`export ${format} ${blob.size} B, ${back.count} splats`);
      }

      // A lost device: the scene and both objects back where they were, c still hidden.
      const pictureBefore = await v.readPixels();
      oc.visible = true;
      const shown = await check('c shown again', mergeClouds('shown', a, cb, transformCloud(c, tc)));
      oc.visible = false;
      await frames(v, 2);
      const generation = v.deviceGeneration;
      v.device.destroy();
      await until('the recovery', () => v.deviceGeneration === generation + 1);
      expect(v.device).not.toBe(device);
      expect(v.objects).toEqual([ob, oc]);
      expect([ob.removed, oc.removed, oc.visible]).toEqual([false, false, false]);
      await check('after the loss (c hidden)', mergeClouds('after', a, cb));
      const pictureAfter = await v.readPixels();
      const pLoss = psnr(rgbOf(pictureAfter.rgba), rgbOf(pictureBefore.rgba));
      figures.push(`same picture before and after the loss ${pLoss.toFixed(1)} dB`);
      expect(pLoss).toBeGreaterThanOrEqual(MIN_PSNR);
      oc.visible = true;
      const back = await check('after the loss, c shown', mergeClouds('after2', a, cb, transformCloud(c, tc)));
      expect(psnr(rgbOf(back), rgbOf(shown))).toBeGreaterThanOrEqual(MIN_PSNR);

      // remove(): c goes; its setters throw from now on.
      oc.remove();
      expect(oc.removed).toBe(true);
      expect(v.objects).toEqual([ob]);
      expect(() => (oc.visible = true)).toThrow(/removed/);
      await check('c removed', mergeClouds('removed', a, cb));

      // load() replaces everything: b ends with the switch.
      await v.load(cBytes.buffer as ArrayBuffer, { name: 'c-alone.ply' });
      expect(v.objects).toEqual([]);
      expect(ob.removed).toBe(true);
      await expect(v.export(ob, 'ply')).rejects.toThrow(/removed/);
      expect(v.scene).toMatchObject({ name: 'c-alone.ply', splats: 1500 });
      console.log(`viewer objects: ${figures.join('; ')}`);
    } finally {
      viewer?.destroy();
      ref.destroy();
      restoreNavigator();
    }
  });

  it('an object added to an empty viewer is framed; a streamed LOD source is refused; an aborted add rejects and adds nothing', async () => {
    const device = ctx.gpu.device;
    const v = await createViewer({ width: W, height: H }, { device, sort: 'radix16', draw: 'tiles', background: '#000000', controls: false });
    try {
      const t = makeTransform({ translation: [40, -3, 12], rotation: [0.9, 0.1, 0.4, 0], scale: 2 });
      const o = await v.add({ generate: 'synthetic:2000' }, { transform: t });
      expect(v.scene).toBeNull(); // load() showed nothing: the object is no scene
      expect(o.splats).toBe(2000);
      // The camera framed it where it was placed: it fills a good part of the picture.
      await frames(v, 3);
      const img = await v.readPixels();
      let lit = 0;
      for (let i = 0; i < img.rgba.length; i += 4) if (img.rgba[i]! + img.rgba[i + 1]! + img.rgba[i + 2]! > 30) lit++;
      expect(lit / (W * H)).toBeGreaterThan(0.05);
      const b = o.bounds;
      const target = v.camera.target;
      for (let k = 0; k < 3; k++) {
        expect(target[k]!).toBeGreaterThan(b.min[k]! - 1e-6);
        expect(target[k]!).toBeLessThan(b.max[k]! + 1e-6);
      }
      await expect(v.add('https://example.invalid/scene/lod-meta.json')).rejects.toThrow(/streamed LOD/);
      const abort = new AbortController();
      abort.abort();
      await expect(v.add({ generate: 'default:500' }, { signal: abort.signal })).rejects.toThrow();
      const late = new AbortController();
      const adding = v.add({ generate: 'default:500' }, { signal: late.signal });
      late.abort();
      await expect(adding).rejects.toMatchObject({ name: 'SceneLoadCancelled' });
      expect(v.objects).toEqual([o]);
      await expect(v.export(o, 'obj' as 'ply')).rejects.toThrow(/expected 'ply' or 'spz'/);
    } finally {
      v.destroy();
    }
  });
});
