/**
 * Placed objects (issue 32): several splat objects, each with its own transform, drawn
 * in one frame and one sort (SplatRenderer.addObject and friends; the object table,
 * renderer/gpu-scene/objects.ts; the assembly, renderer/gpu-scene/assemble.ts).
 *
 * The real tiles of ../shared/scenes hold no higher SH bands (their f_rest are zeros), so
 * the view-dependent colour comes from scenes/generate.ts's synthetic scene (SH3 with the
 * statistics of trained scenes' bands).
 *
 * 1. A real scene and a synthetic SH3 one placed to interleave in depth (the second turned
 *    about an axis that is no coordinate axis and scaled) draw as the one cloud their CPU transform
 *    (scenes/transform.ts transformCloud: centres, rotations, scales, SH rotated) merges
 *    into: both draws, every sort strategy, full and compact precision; three objects of
 *    mixed SH degree over paged bindings, hidden, removed and added again.
 * 2. SH under rotation: a scene of strong view-dependent colour, placed by R, t, s and
 *    seen by the camera placed with it, gives the same picture as unplaced (and not the
 *    picture of the same splats with their SH left unturned).
 * 3. Moving an object between frames writes nothing to the scene buffers (the queue's
 *    writes and the encoders' copies counted); hiding, showing and removing one write
 *    nothing of any scene from the CPU, adding one uploads only its own splats.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitPose, projectionMatrix, robustBounds, upVector, type CameraPose } from '../../renderer/camera/camera';
import { frameCamera } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { SplatRenderer, type FrameCamera } from '../../renderer/frame/splat-renderer';
import { listStrategies } from '../../renderer/order/strategies';
import { sceneBytesPerSplat, type ScenePrecision } from '../../renderer/gpu-scene/scene-precision';
import { generateDefaultScene, generateSynthetic } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import { withShDegree } from '../../scenes/load-options';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { makeTransform, rotationMatrix, transformCloud, transformPoint } from '../../scenes/transform';
import { psnr } from '../reference/raster';
import { useGpu, withValidation } from '../support/gpu';
import { mergeClouds, placedAt, robustCentre, robustRadius } from '../support/placed-clouds';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { rgbOf, trackAllocations } from '../support/tile-render';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const W = 128;
const H = 96;
const SETTINGS = { shDegree: 3, splatScale: 1, cull: true, keyBits: 32, background: [0.1, 0.1, 0.12] as [number, number, number] };
const MIN_PSNR = 45;
const PRECISIONS: ScenePrecision[] = ['full', 'compact'];





async function picture(r: SplatRenderer, cam: FrameCamera): Promise<Uint8Array> {
  return (await renderOffscreen(r, cam, SETTINGS)).rgba;
}

/** A turn about an axis that is no coordinate axis. */
const TURN = [0.82, 0.31, -0.42, 0.25];

describe.runIf(haveSharedScenes())('placed objects, one frame and one sort', () => {
  const load = async (name: string) => loadScene(fs.readFileSync(sharedScene(name)), name);

  it('two objects that interleave in depth draw as their CPU-transformed clouds merged: both draws, every sort strategy, full and compact', async () => {
    const { device } = ctx.gpu;
    const a = await load('inria_sh3_tile_1971.ply');
    const b = generateSynthetic(4000);
    const ta = makeTransform({ rotation: [0.99, 0.05, 0.1, -0.03], translation: [0.05, -0.02, 0.03] });
    // b turned, scaled to about a's size (a scale that is not 1) and centred on a's centre: the two interleave.
    const s = (0.9 * robustRadius(a)) / robustRadius(b);
    expect(Math.abs(s - 1)).toBeGreaterThan(0.05);
    const tb = placedAt(b, transformPoint(ta, robustCentre(a)), TURN, s);
    const merged = mergeClouds('merged', transformCloud(a, ta), transformCloud(b, tb));
    const pose = fitPose(robustBounds(merged.positions), upVector('-y'), 60, W / H);
    const cam = frameCamera({ ...pose, eye: [pose.eye[0] + 0.4 * robustRadius(a), pose.eye[1] - 0.2 * robustRadius(a), pose.eye[2]] }, W, H, merged.bounds);
    const strategies = listStrategies(device).map((x) => x.name);
    expect(strategies).toContain('cpu');
    const figures: string[] = [];
    for (const precision of PRECISIONS) {
      for (const draw of ['quads', 'tiles'] as const) {
        for (const strategy of strategies) {
          if (draw === 'tiles' && strategy === 'cpu') continue; // tiles needs a GPU sorter
          await withValidation(device, async () => {
            const r = new SplatRenderer(device, 'rgba8unorm', strategy, draw);
            r.precision = precision;
            r.setScene(merged);
            const want = await picture(r, cam);
            r.setScene(a); // replaces the merged cloud: one object at the identity
            const [objectA] = r.objects;
            r.setObjectTransform(objectA!.handle, ta);
            const hb = r.addObject(b, tb);
            expect(r.objects.map((o) => o.handle)).toEqual([objectA!.handle, hb]);
            const got = await picture(r, cam);
            const p = psnr(rgbOf(got), rgbOf(want));
            figures.push(`${precision} ${draw} ${strategy} ${p.toFixed(1)} dB`);
            if (p < MIN_PSNR) {
              writeTestPng(`objects-${precision}-${draw}-${strategy}-got.png`, got, W, H);
              writeTestPng(`objects-${precision}-${draw}-${strategy}-want.png`, want, W, H);
            }
            expect(p, `${precision} ${draw} ${strategy}`).toBeGreaterThanOrEqual(MIN_PSNR);
            r.destroy();
          });
        }
      }
    }
    console.log(`two objects vs the merged CPU transform: ${figures.join('; ')}`);
  });

  it('three objects of mixed SH degree over paged bindings; hidden, removed and added again', async () => {
    const { device } = ctx.gpu;
    const a = await load('inria_sh3_tile_1971.ply');
    const b = generateSynthetic(4000);
    const c = withShDegree(generateDefaultScene(3000), { maxShDegree: 1 });
    const tb = placedAt(b, robustCentre(a), TURN, (0.9 * robustRadius(a)) / robustRadius(b));
    const tc = placedAt(c, robustCentre(a), [0.6, -0.2, 0.7, 0.33], (0.5 * robustRadius(a)) / robustRadius(c));
    const [pa, pb, pc] = [a, transformCloud(b, tb), transformCloud(c, tc)];
    const all = mergeClouds('abc', pa, pb, pc);
    const pose = fitPose(robustBounds(all.positions), upVector('-y'), 60, W / H);
    const cam = frameCamera(pose, W, H, all.bounds);
    // Every array in pages (lavapipe, a lowered binding limit): the copies and the restride split at page seams.
    const limits = { maxStorageBufferBindingSize: 150_000, maxBufferSize: device.limits.maxBufferSize };
    const figures: string[] = [];
    for (const precision of PRECISIONS) {
      for (const draw of ['quads', 'tiles'] as const) {
        await withValidation(device, async () => {
          const ref = new SplatRenderer(device, 'rgba8unorm', 'radix4', draw, {}, limits);
          ref.precision = precision;
          const r = new SplatRenderer(device, 'rgba8unorm', 'radix4', draw, {}, limits);
          r.precision = precision;
          const ha = r.addObject(a);
          const hb = r.addObject(b, tb);
          const hc = r.addObject(c, tc);
          expect(r.scenePaging!.sh.pages).toBeGreaterThan(1);
          const check = async (what: string, ...clouds: SplatCloud[]) => {
            ref.setScene(mergeClouds(what, ...clouds));
            const p = psnr(rgbOf(await picture(r, cam)), rgbOf(await picture(ref, cam)));
            figures.push(`${precision} ${draw} ${what} ${p.toFixed(1)} dB`);
            expect(p, `${precision} ${draw} ${what}`).toBeGreaterThanOrEqual(MIN_PSNR);
          };
          await check('a+b+c', pa, pb, pc);
          r.setObjectVisible(hb, false);
          await check('a+c (b hidden)', pa, pc);
          r.removeObject(ha);
          await check('c (a removed, b hidden)', pc);
          r.setObjectVisible(hb, true);
          const ha2 = r.addObject(a);
          expect(r.objects.map((o) => o.handle)).toEqual([hb, hc, ha2]);
          await check('b+c+a (b shown, a added again)', pb, pc, pa);
          r.destroy();
          ref.destroy();
        });
      }
    }
    console.log(`three objects, paged: ${figures.join('; ')}`);
  });

  it('SH under rotation: a scene of strong view-dependent colour placed by R, t, s and seen by the camera placed with it gives the same picture', async () => {
    const { device } = ctx.gpu;
    // Strong view-dependent colour: the synthetic scene's higher bands, twice over.
    const plain = generateSynthetic(4000);
    const shiny: SplatCloud = { ...plain, sh: plain.sh.map((v, i) => (i % 48 < 3 ? v : 2 * v)), source: { name: 'shiny', format: 'memory' } };
    const t = makeTransform({ rotation: TURN, translation: [3, -1, 2], scale: 1.5 });
    const pose: CameraPose = fitPose(robustBounds(shiny.positions), upVector('-y'), 55, W / H);
    const cam = frameCamera(pose, W, H, shiny.bounds);
    // The camera placed with the object: eye and target by T, up by R; the clip planes by s.
    const r3 = rotationMatrix(t.rotation);
    const up = [0, 1, 2].map((i) => r3[3 * i]! * pose.up[0] + r3[3 * i + 1]! * pose.up[1] + r3[3 * i + 2]! * pose.up[2]) as [number, number, number];
    const pose2: CameraPose = { ...pose, eye: transformPoint(t, pose.eye), target: transformPoint(t, pose.target), up };
    const near = cam.near * t.scale, far = cam.far * t.scale;
    const cam2: FrameCamera = { ...frameCamera(pose2, W, H, shiny.bounds), near, far, proj: projectionMatrix(pose.fovyDeg, W / H, near, far) as Float32Array };
    const figures: string[] = [];
    for (const precision of PRECISIONS) {
      for (const draw of ['quads', 'tiles'] as const) {
        await withValidation(device, async () => {
          const r = new SplatRenderer(device, 'rgba8unorm', 'radix4', draw);
          r.precision = precision;
          r.setScene(shiny);
          const unplaced = await picture(r, cam);
          const [o] = r.objects;
          r.setObjectTransform(o!.handle, t);
          const placed = await picture(r, cam2);
          // The CPU transform (SH rotated on the CPU), and the same splats with their SH left as they were.
          r.setScene(transformCloud(shiny, t));
          const cpu = await picture(r, cam2);
          r.setScene({ ...transformCloud(shiny, t), sh: shiny.sh });
          const unturned = await picture(r, cam2);
          r.destroy();
          const pPlaced = psnr(rgbOf(placed), rgbOf(unplaced));
          const pCpu = psnr(rgbOf(cpu), rgbOf(unplaced));
          const pUnturned = psnr(rgbOf(unturned), rgbOf(unplaced));
          figures.push(`${precision} ${draw}: placed ${pPlaced.toFixed(1)} dB, CPU-transformed ${pCpu.toFixed(1)} dB, SH unturned ${pUnturned.toFixed(1)} dB`);
          if (precision === 'full' && draw === 'quads') {
            writeTestPng('objects-sh-unplaced.png', unplaced, W, H);
            writeTestPng('objects-sh-placed.png', placed, W, H);
            writeTestPng('objects-sh-unturned.png', unturned, W, H);
          }
          expect(pPlaced).toBeGreaterThanOrEqual(MIN_PSNR);
          expect(pCpu).toBeGreaterThanOrEqual(MIN_PSNR);
          // The view-dependent colour matters here: SH left unturned is a visibly other picture.
          expect(pUnturned).toBeLessThan(pPlaced - 10);
        });
      }
    }
    console.log(`SH under rotation: ${figures.join('; ')}`);
  });

  it('moving an object writes nothing to the scene buffers; hiding, showing, removing upload nothing; adding uploads its own splats only', async () => {
    const { device } = ctx.gpu;
    const a = await load('inria_sh3_tile_1971.ply');
    const b = generateSynthetic(4000);
    const tb = placedAt(b, robustCentre(a), TURN, (0.9 * robustRadius(a)) / robustRadius(b));
    const pose = fitPose(robustBounds(a.positions), upVector('-y'), 60, W / H);
    const cam = frameCamera(pose, W, H, a.bounds);
    // Every write through the queue and every buffer copy encoded, by target buffer; every buffer made.
    const queue = device.queue;
    const writeBuffer = queue.writeBuffer.bind(queue);
    const createBuffer = device.createBuffer.bind(device);
    const createCommandEncoder = device.createCommandEncoder.bind(device);
    let writes: { buffer: GPUBuffer; bytes: number }[] = [];
    let copies: GPUBuffer[] = [];
    let made = new Set<GPUBuffer>();
    queue.writeBuffer = ((buffer: GPUBuffer, offset: number, data: BufferSource | SharedArrayBuffer, dataOffset?: number, size?: number) => {
      const whole = ArrayBuffer.isView(data) ? data.byteLength : (data as ArrayBuffer).byteLength;
      const unit = ArrayBuffer.isView(data) && !(data instanceof DataView) ? (data as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT : 1;
      writes.push({ buffer, bytes: size !== undefined ? size * unit : whole - (dataOffset ?? 0) * unit });
      return writeBuffer(buffer, offset, data as BufferSource, dataOffset, size);
    }) as GPUQueue['writeBuffer'];
    device.createBuffer = (d: GPUBufferDescriptor) => {
      const buffer = createBuffer(d);
      made.add(buffer);
      return buffer;
    };
    device.createCommandEncoder = (d?: GPUCommandEncoderDescriptor) => {
      const enc = createCommandEncoder(d);
      const copy = enc.copyBufferToBuffer.bind(enc) as (...args: unknown[]) => void;
      enc.copyBufferToBuffer = ((...args: unknown[]) => {
        copies.push((args.length >= 5 ? args[2] : args[1]) as GPUBuffer);
        copy(...args);
      }) as GPUCommandEncoder['copyBufferToBuffer'];
      return enc;
    };
    const reset = () => {
      writes = [];
      copies = [];
      made = new Set();
    };
    const isScene = (buf: GPUBuffer) => buf.label.startsWith('GpuScene.');
    try {
      await withValidation(device, async () => {
        for (const precision of PRECISIONS) {
          const r = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'quads');
          r.precision = precision;
          r.setScene(a);
          reset();
          const hb = r.addObject(b, tb);
          // Adding b: its own buffers uploaded, the assembly copied on the GPU, nothing of a uploaded again.
          const uploaded = writes.filter((w) => isScene(w.buffer));
          expect(uploaded.every((w) => made.has(w.buffer))).toBe(true);
          expect(uploaded.reduce((s, w) => s + w.bytes, 0)).toBe(b.count * sceneBytesPerSplat(b.shDegree, precision));
          expect(copies.every((buf) => made.has(buf))).toBe(true);
          const before = await picture(r, cam);
          // Moving b between frames: no write to, no copy into, no new scene buffer.
          reset();
          r.setObjectTransform(hb, placedAt(b, transformPoint(makeTransform({ translation: [0.3 * robustRadius(a), 0, 0] }), robustCentre(a)), TURN, 0.7));
          const moved = await picture(r, cam);
          const sceneWrites = writes.filter((w) => isScene(w.buffer));
          expect(sceneWrites).toEqual([]);
          expect(copies.filter(isScene)).toEqual([]);
          expect([...made].filter(isScene)).toEqual([]);
          const tableBytes = writes.filter((w) => w.buffer.label === 'ObjectTable.buffer').reduce((s, w) => s + w.bytes, 0);
          expect(tableBytes).toBeGreaterThan(0);
          expect(tableBytes).toBeLessThan(2048);
          expect(psnr(rgbOf(moved), rgbOf(before))).toBeLessThan(40); // it did move
          // The same view again: nothing moved, the table is not even written.
          reset();
          await picture(r, cam);
          expect(writes.filter((w) => w.buffer.label === 'ObjectTable.buffer')).toEqual([]);
          // Hiding, showing, removing: GPU copies only, no scene byte from the CPU.
          for (const step of [() => r.setObjectVisible(hb, false), () => r.setObjectVisible(hb, true), () => r.removeObject(hb)]) {
            reset();
            step();
            await picture(r, cam);
            expect(writes.filter((w) => isScene(w.buffer))).toEqual([]);
          }
          console.log(`${precision}: adding b uploaded ${uploaded.reduce((s, w) => s + w.bytes, 0)} B (its own ${b.count} splats); moving it wrote ${tableBytes} B of object table, 0 B of scene`);
          r.destroy();
        }
      });
    } finally {
      queue.writeBuffer = writeBuffer;
      device.createBuffer = createBuffer;
      device.createCommandEncoder = createCommandEncoder;
    }
  });

  it('adding, hiding, showing, moving, removing and destroying leave no GPU buffer behind', async () => {
    const { device } = ctx.gpu;
    const a = await load('inria_sh3_tile_1971.ply');
    const b = withShDegree(generateSynthetic(2000), { maxShDegree: 2 });
    const cam = frameCamera(fitPose(robustBounds(a.positions), upVector('-y'), 60, W / H), W, H, a.bounds);
    const track = trackAllocations(device);
    try {
      await withValidation(device, async () => {
        for (const draw of ['quads', 'tiles'] as const) {
          const r = new SplatRenderer(device, 'rgba8unorm', 'radix4', draw);
          r.setScene(a);
          const hb = r.addObject(b, placedAt(b, robustCentre(a), TURN, 0.5));
          const hc = r.addObject(a, makeTransform({ translation: [0.5, 0, 0] }));
          await picture(r, cam);
          r.setObjectVisible(hb, false);
          r.setObjectTransform(hb, makeTransform({ scale: 2 }));
          await picture(r, cam);
          r.removeObject(hc);
          r.setObjectVisible(hb, true);
          await picture(r, cam);
          r.setScene(b);
          await picture(r, cam);
          r.destroy();
        }
      });
      expect(track.live()).toEqual([]);
    } finally {
      track.stop();
    }
  });
});
