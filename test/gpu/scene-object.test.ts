/**
 * The scene load() shows as a SplatObject (issue 32, Viewer.sceneObject), in Node on a
 * viewer that owns its device (navigator.gpu is Dawn's here), so that a lost device is
 * recovered from:
 *
 * - moved (a rotation not about an axis, a scale != 1) and cropped: the picture is the
 *   one of the CPU-transformed / CPU-cropped cloud with an added object beside it (a
 *   renderer of the test's own, the viewer's camera); its bounds as placed;
 * - pick over it returns it as `object`; export('ply') loads back with the cropped
 *   count, where it was placed;
 * - hidden, then device.destroy(): the recovery brings it back moved, cropped and still
 *   hidden (the same SplatObject), then shown;
 * - remove(): the scene leaves the screen (Viewer.scene null), the added object stays;
 *   load() shows a new scene as a new object.
 */
import { describe, expect, it } from 'vitest';
import { createViewer, SplatObject, type Viewer } from '../../renderer/api/index';
import { fitPose, robustBounds, upVector } from '../../renderer/camera/camera';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { checkCrop, cropCloud } from '../../scenes/crop';
import { generateDefaultScene, generateSynthetic } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { transformCloud } from '../../scenes/transform';
import { writeSplatPly } from '../../scenes/write-ply';
import { useGpu } from '../support/gpu';
import { boundsCentre as centre, mergeClouds, placedAt } from '../support/placed-clouds';
import { cloudDraw, frames, installNavigatorGpu, until, viewerPictureCheck } from '../support/viewer-harness';

const ctx = useGpu();
const W = 128;
const H = 96;
const MIN_PSNR = 45;

describe('Viewer.sceneObject: the loaded scene as a placed object', () => {
  it('moves, crops, picks, exports, hides the loaded scene; a lost device keeps its placement; remove() takes it off screen; load() makes a new one', async () => {
    const restoreNavigator = installNavigatorGpu();
    const ref = new SplatRenderer(ctx.gpu.device, 'rgba8unorm', 'radix16', 'quads');
    ref.precision = 'compact';
    let viewer: Viewer | null = null;
    try {
      const sceneBytes = writeSplatPly(generateDefaultScene(2500));
      const bBytes = writeSplatPly(generateSynthetic(1000));
      const [a, b] = await Promise.all([loadScene(sceneBytes, 'scene.ply'), loadScene(bBytes, 'b.ply')]);
      const v = (viewer = await createViewer({ width: W, height: H }, { scene: sceneBytes.buffer as ArrayBuffer, sort: 'radix16', draw: 'quads', background: '#000000', controls: false }));
      await v.ready;
      const so = v.sceneObject!;
      expect(so).toBeInstanceOf(SplatObject);
      expect([so.name, so.splats, so.visible, so.crop, so.removed]).toEqual([v.scene!.name, a.count, true, null, false]);
      expect(so.transform.position).toEqual([0, 0, 0]);
      expect(so.localBounds).toEqual(v.scene!.bounds);

      const r0 = Math.hypot(...[0, 1, 2].map((k) => a.bounds.max[k]! - a.bounds.min[k]!)) / 2;
      const ta = placedAt(a, [centre(a)[0] + 0.2 * r0, centre(a)[1] - 0.1 * r0, centre(a)[2]], [0.82, 0.31, -0.42, 0.25], 0.7, centre);
      const tb = placedAt(b, [centre(a)[0] - 0.5 * r0, centre(a)[1], centre(a)[2]], [1, 0, 0, 0], 0.4, centre);
      const ob = await v.add(bBytes.buffer as ArrayBuffer, { name: 'b.ply', transform: { position: tb.translation, scale: tb.scale } });
      expect(v.objects).toEqual([ob]); // the scene's object is not among the added ones
      so.transform = { position: ta.translation, rotation: ta.rotation, scale: ta.scale };
      const placedB = transformCloud(b, tb);
      const all = mergeClouds('all', transformCloud(a, ta), placedB);
      v.setPose(fitPose(robustBounds(all.positions), upVector('-y'), 60, W / H));

      const figures: string[] = [];
      /** The viewer's picture against the test's own renderer drawing `want` with the viewer's camera. */
      const check = async (what: string, want: SplatCloud): Promise<void> => {
        await frames(v, 3);
        await viewerPictureCheck(v, ctx.gpu.device, {
          what,
          prefix: 'scene-object',
          minPsnr: MIN_PSNR,
          figures,
          draw: cloudDraw(ref, want),
        });
      };
      await check('scene moved', all);

      // Cropped in its own frame: half of it along x.
      const crop = checkCrop({ min: [a.bounds.min[0], -Infinity, -Infinity], max: [centre(a)[0], Infinity, Infinity] });
      so.crop = crop;
      const ca = transformCloud(cropCloud(a, crop), ta);
      expect(ca.count).toBeLessThan(0.8 * a.count);
      await check('scene moved and cropped', mergeClouds('cropped', ca, placedB));
      for (let k = 0; k < 3; k++) {
        expect(so.bounds.min[k]!).toBeLessThanOrEqual(ca.bounds.min[k]! + 1e-4);
        expect(so.bounds.max[k]!).toBeGreaterThanOrEqual(ca.bounds.max[k]! - 1e-4);
      }

      // pick over the scene's splats returns its object: the first pixel of a grid over the cropped scene that hits one.
      let picked: SplatObject | null = null;
      const cb = robustBounds(ca.positions);
      for (const f of [0.5, 0.35, 0.65]) {
        const at = v.project([0, 1, 2].map((k) => cb.min[k]! + f * (cb.max[k]! - cb.min[k]!)));
        const hit = at ? await v.pick(at.x, at.y) : null;
        if (hit?.object === so) {
          picked = hit.object;
          expect(hit.splat).toBeLessThan(a.count);
          break;
        }
      }
      expect(picked).toBe(so);

      // Export: the crop applied, the transform baked in.
      const blob = await v.export(so, 'ply');
      const back = await loadScene(new Uint8Array(await blob.arrayBuffer()), 'scene-out.ply');
      expect(back.count).toBe(ca.count);
      let worst = 0;
      for (let i = 0; i < ca.positions.length; i++) worst = Math.max(worst, Math.abs(back.positions[i]! - ca.positions[i]!));
      expect(worst).toBeLessThan(1e-5);
      figures.push(`export ply ${back.count} splats`);

      // Hidden, then a lost device: it comes back moved, cropped and still hidden, the same object.
      so.visible = false;
      await check('scene hidden', placedB);
      const generation = v.deviceGeneration;
      v.device.destroy();
      await until('the recovery', () => v.deviceGeneration === generation + 1, 30_000);
      expect(v.sceneObject).toBe(so);
      expect([so.removed, so.visible]).toEqual([false, false]);
      so.transform.position.forEach((x, k) => expect(x).toBeCloseTo(ta.translation[k]!, 6));
      await check('after the loss (hidden)', placedB);
      so.visible = true;
      await check('after the loss, shown', mergeClouds('after', ca, placedB));

      // remove(): the scene leaves the screen; the added object stays.
      so.remove();
      expect([so.removed, v.sceneObject, v.scene]).toEqual([true, null, null]);
      expect(v.objects).toEqual([ob]);
      expect(() => (so.visible = true)).toThrow(/removed/);
      await check('scene removed', placedB);

      // load(): a new scene, a new object at the identity; the added one ends.
      await v.load(bBytes.buffer as ArrayBuffer, { name: 'b-alone.ply' });
      const so2 = v.sceneObject!;
      expect(so2).not.toBe(so);
      expect([so2.name, so2.splats, ob.removed]).toEqual(['b-alone.ply', 1000, true]);
      expect(so2.transform.position).toEqual([0, 0, 0]);
      console.log(`scene object: ${figures.join('; ')}`);
    } finally {
      viewer?.destroy();
      ref.destroy();
      restoreNavigator();
    }
  }, 30_000);
});
