/**
 * A streamed LOD scene as one object among others (issue 32), through the library in
 * Node on a viewer that owns its device (navigator.gpu is Dawn's here), so that a lost
 * device is recovered from. The LOD fixture is made at test time by splat-transform
 * (test/support/lod-fixture.ts) and opened as dropped files (the manifest and its chunks).
 *
 * - load() the LOD scene, add() an ordinary object beside it: the LOD selection runs
 *   under the budget less the object's splats (`lod.others`), and the picture is the
 *   one of the same LOD set (settled by a LodScene of the test's own, the viewer's
 *   camera, that share of the budget) and the object, drawn by a renderer of the test's own;
 * - the camera moves close: the LOD drawn set changes; the object is still drawn (the
 *   same comparison), the drawn splats stay within the shared budget, and nothing of
 *   the object is written or freed (its buffers, caught as add() made them, counted);
 * - a budget the object takes whole: the LOD object draws nothing; the object hidden: the
 *   LOD scene has the whole budget;
 * - device.destroy(): the recovery brings the object back where it was and opens the
 *   LOD scene again beside it (the same comparison on the new device);
 * - the LOD scene's object (Viewer.sceneObject, the same after the loss; its bounds the
 *   manifest's, its export refused) placed far behind the camera: its selection, in its
 *   own frame, sees none of its leaves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createViewer, LodObjectRefused, type SplatObject, type Viewer } from '../../renderer/api/index';
import { fitPose, robustBounds, upVector, type CameraPose } from '../../renderer/camera/camera';
import { bindingLimit } from '../../renderer/frame/gpu-budget';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer } from '../../renderer/frame/splat-renderer';
import { generateSynthetic } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { writeSplatPly } from '../../scenes/write-ply';
import { settledLodScene } from '../../bench/lod-node';
import { useGpu } from '../support/gpu';
import { haveSplatTransform, makeLodFixture, type LodFixture } from '../support/lod-fixture';
import { placedAt } from '../support/placed-clouds';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { frames, installNavigatorGpu, viewerPictureCheck } from '../support/viewer-harness';

const ctx = useGpu();
const have = haveSharedScenes() && haveSplatTransform();
const W = 128;
const H = 96;
const MIN_PSNR = 45;
/** The frame's splat budget: the LOD scene (6831 / 1708 / 410 splats a level) and the object's 1000 share it. */
const BUDGET = 4000;
const OBJECT_SPLATS = 1000;

/**
 * Frames until the LOD scene draws its whole choice for the view, nothing loads and its
 * object in the renderer holds that set, three frames running.
 */
async function lodSettled(v: Viewer, ms = 15_000): Promise<void> {
  const end = performance.now() + ms;
  let calm = 0;
  while (calm < 3) {
    await frames(v, 1);
    const s = v.lod;
    const scene = v.parts.scene;
    const settled = s !== null && s.waiting === 0 && s.inFlight === 0 && s.drawn === s.chosen && scene.cloud?.count === s.drawn;
    calm = settled ? calm + 1 : 0;
    if (performance.now() > end) throw new Error(`the LOD scene did not settle: ${JSON.stringify(s)}`);
  }
}

/** The fixture's files as a page's dropped folder: the manifest and every chunk file, by path. */
function droppedLod(metaPath: string): { file: Blob & { name: string }; companions: { mainPath: string; files: Record<string, Blob> } } {
  const root = path.dirname(metaPath);
  const files: Record<string, Blob> = {};
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else files[`lod/${path.relative(root, p).split(path.sep).join('/')}`] = new Blob([fs.readFileSync(p)]);
    }
  };
  walk(root);
  const file = Object.assign(files['lod/lod-meta.json']!, { name: 'lod-meta.json' });
  return { file, companions: { mainPath: 'lod/lod-meta.json', files } };
}

describe.skipIf(!have)('a streamed LOD scene as one object among others', () => {
  let fx: LodFixture;
  let full: SplatCloud;
  // Made by splat-transform once per machine (shared with lod.test.ts through the temp dir): a minute or more, cold.
  beforeAll(async () => {
    fx = makeLodFixture(sharedScene('inria_sh3_tile_6831.ply'));
    full = await loadScene(fs.readFileSync(fx.full), 'full.ply');
  }, 240_000);

  it('an object added beside it survives LOD updates (drawn, nothing of it re-uploaded), the budget shared; both back after a lost device', async () => {
    const restoreNavigator = installNavigatorGpu();
    const ref = new SplatRenderer(ctx.gpu.device, 'rgba8unorm', 'radix16', 'quads');
    ref.precision = 'full';
    let viewer: Viewer | null = null;
    try {
      const bBytes = writeSplatPly(generateSynthetic(OBJECT_SPLATS));
      const b = await loadScene(bBytes, 'b.ply');
      const v = (viewer = await createViewer(
        { width: W, height: H },
        { sort: 'radix16', draw: 'quads', background: '#000000', controls: false, precision: 'full', lodBudget: BUDGET },
      ));
      await v.ready;
      await v.load(droppedLod(fx.meta));
      expect(v.lod).not.toBeNull();
      const fb = full.bounds;
      const c = (a: number) => (fb.min[a]! + fb.max[a]!) / 2;
      const size = Math.hypot(fb.max[0] - fb.min[0], fb.max[1] - fb.min[1], fb.max[2] - fb.min[2]);
      // The object in the middle of the scene, turned and scaled to a fifth of it.
      const bSize = Math.hypot(b.bounds.max[0] - b.bounds.min[0], b.bounds.max[1] - b.bounds.min[1], b.bounds.max[2] - b.bounds.min[2]);
      const tb = placedAt(b, [c(0), c(1), c(2)], [0.82, 0.31, -0.42, 0.25], (0.2 * size) / bSize);

      // The object's scene buffers, caught as add() makes them.
      const made: GPUBuffer[] = [];
      const createBuffer = v.device.createBuffer.bind(v.device);
      v.device.createBuffer = (d: GPUBufferDescriptor) => {
        const buffer = createBuffer(d);
        if ((d.label ?? '').startsWith('GpuScene.')) made.push(buffer);
        return buffer;
      };
      let ob: SplatObject;
      try {
        ob = await v.add(bBytes.buffer as ArrayBuffer, { name: 'b.ply', transform: { position: tb.translation, rotation: tb.rotation, scale: tb.scale } });
      } finally {
        v.device.createBuffer = createBuffer;
      }
      // Its own three arrays (the assembly of it with the LOD object came after: GpuScene buffers too).
      const own = made.slice(0, 3);
      expect(own.length).toBe(3);
      await expect(v.add(droppedLod(fx.meta))).rejects.toBeInstanceOf(LodObjectRefused);

      const fitView: CameraPose = fitPose(robustBounds(full.positions), upVector('-y'), 60, W / H);
      const closeView: CameraPose = { eye: [fb.min[0], c(1), fb.min[2]], target: [fb.max[0], c(1), fb.max[2]], up: [0, -1, 0], fovyDeg: 70 };

      const figures: string[] = [];
      /** The viewer's picture against the same LOD set (the viewer's camera, the budget's share) and the object, drawn by the test's renderer. */
      const check = async (what: string): Promise<void> => {
        const lod = v.lod!;
        expect(lod.others, what).toBe(OBJECT_SPLATS);
        expect(lod.budget, what).toBe(BUDGET);
        expect(lod.drawn + OBJECT_SPLATS, what).toBeLessThanOrEqual(BUDGET);
        const drawnScene = v.parts.scene.renderer.cloud!;
        expect(drawnScene.count, what).toBe(lod.drawn + OBJECT_SPLATS);
        await viewerPictureCheck(v, ctx.gpu.device, {
          what,
          prefix: 'lod-objects',
          minPsnr: MIN_PSNR,
          figures,
          figure: (p) => `${what}: LOD ${lod.drawn} + object ${OBJECT_SPLATS} of ${BUDGET}, ${p.toFixed(1)} dB`,
          draw: async (camera, settings) => {
            const { lod: refLod, scene } = await settledLodScene(ctx.gpu.device, fx.meta, camera, { budget: BUDGET - OBJECT_SPLATS, bindingBytes: bindingLimit(ctx.gpu.device.limits).bytes, precision: 'full' });
            try {
              expect(scene!.count, what).toBe(lod.drawn);
              ref.setGpuScene(scene!);
              ref.addObject(b, tb);
              return (await renderOffscreen(ref, camera, settings)).rgba;
            } finally {
              refLod.destroy();
            }
          },
        });
      };

      v.setPose(fitView);
      await lodSettled(v);
      await check('fitted view');
      const lodCloudBefore = v.parts.scene.cloud;
      const drawnBefore = v.lod!.drawn;

      // The camera moves close: the LOD drawn set changes, its object's scene swapped; the object's buffers untouched.
      const queue = v.device.queue;
      const writeBuffer = queue.writeBuffer.bind(queue);
      const written: { label: string; bytes: number; own: boolean }[] = [];
      queue.writeBuffer = ((buffer: GPUBuffer, offset: number, data: BufferSource, dataOffset?: number, size?: number) => {
        written.push({ label: buffer.label, bytes: size ?? (data as ArrayBuffer).byteLength, own: own.includes(buffer) });
        return writeBuffer(buffer, offset, data, dataOffset, size);
      }) as GPUQueue['writeBuffer'];
      const freed: string[] = [];
      const destroys = own.map((buffer) => buffer.destroy.bind(buffer));
      own.forEach((buffer) => (buffer.destroy = () => void freed.push(buffer.label)));
      try {
        v.setPose(closeView);
        await lodSettled(v);
      } finally {
        queue.writeBuffer = writeBuffer;
        own.forEach((buffer, k) => (buffer.destroy = destroys[k]!));
      }
      expect(v.parts.scene.cloud).not.toBe(lodCloudBefore);
      expect(v.lod!.drawn).not.toBe(drawnBefore);
      expect(written.filter((w) => w.own)).toEqual([]);
      expect(written.filter((w) => w.label.startsWith('GpuScene.')).reduce((n, w) => n + w.bytes, 0)).toBe(0);
      expect(freed).toEqual([]);
      expect(ob.removed).toBe(false);
      await check('close view (the LOD set changed)');

      // A budget the object takes whole: the LOD object draws nothing (an empty scene), the object alone is drawn;
      // the object hidden, the LOD scene has the whole budget.
      v.setLodBudget(OBJECT_SPLATS);
      await frames(v, 3);
      expect(v.lod).toMatchObject({ budget: OBJECT_SPLATS, others: OBJECT_SPLATS, drawn: 0 });
      expect(v.parts.scene.renderer.cloud!.count).toBe(OBJECT_SPLATS);
      ob.visible = false;
      await frames(v, 3);
      expect(v.lod).toMatchObject({ others: 0 });
      expect(v.lod!.drawn).toBeGreaterThan(0);
      expect(v.lod!.drawn).toBeLessThanOrEqual(OBJECT_SPLATS);
      expect(v.parts.scene.renderer.cloud!.count).toBe(v.lod!.drawn);
      ob.visible = true;
      v.setLodBudget(BUDGET);
      await lodSettled(v);
      await check('the budget back, the object shown');

      // A lost device: the object back where it was, the LOD scene opened again beside it.
      const lodObject = v.sceneObject;
      expect(lodObject).not.toBeNull();
      const generation = v.deviceGeneration;
      v.device.destroy();
      const end = performance.now() + 30_000;
      while (v.deviceGeneration !== generation + 1 || !v.lod || v.parts.scene.renderer.objects.length < 2) {
        if (performance.now() > end) throw new Error('timed out waiting for the recovery');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(v.objects).toEqual([ob]);
      expect(ob.removed).toBe(false);
      ob.transform.position.forEach((x, k) => expect(x).toBeCloseTo(tb.translation[k]!, 6));
      v.setPose(closeView);
      await lodSettled(v);
      expect(v.deviceGeneration).toBe(generation + 1);
      await check('after the loss');

      // The LOD scene is Viewer.sceneObject, placed like any object (the same one after the loss): its selection sees
      // the camera in its own frame. Moved far behind the camera, none of its leaves is in view: the coarsest level of each.
      const so = v.sceneObject!;
      expect(so).toBe(lodObject);
      expect(so.removed).toBe(false);
      // Its bounds are its manifest's: they hold every splat of the finest level.
      for (let k = 0; k < 3; k++) {
        expect(so.localBounds.min[k]!).toBeLessThanOrEqual(fb.min[k]! + 1e-4);
        expect(so.localBounds.max[k]!).toBeGreaterThanOrEqual(fb.max[k]! - 1e-4);
      }
      await expect(v.export(so, 'ply')).rejects.toBeInstanceOf(LodObjectRefused);
      const back = [0, 1, 2].map((a) => (closeView.eye[a]! - closeView.target[a]!) * 1000);
      so.transform = { position: back };
      await frames(v, 3);
      expect(v.lod!.chosen).toBe(fx.info.lodCounts[2]);
      so.transform = { position: [0, 0, 0] };
      await lodSettled(v);
      expect(v.lod!.chosen).toBeGreaterThan(fx.info.lodCounts[2]! * 2);
      console.log(`lod objects: ${figures.join('; ')}`);
    } finally {
      viewer?.destroy();
      ref.destroy();
      restoreNavigator();
    }
  }, 60_000);
});
