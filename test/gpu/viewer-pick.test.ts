/**
 * Viewer.pick (issue 32's picking target), through the library in Node (a viewer on a
 * texture target, Dawn), on a real scene (playbot_31k, seen close so that it fills the
 * view): a grid of CSS points, each picked on the GPU (renderer/frame/pixel-pick.ts) at
 * the viewer's camera and settings, against the CPU reference rasteriser's opacity-0.5
 * depth at the same pixel (test/reference/raster.ts halfDepth):
 *
 * - the picked point reprojects (through the reference's own camera) within 1 px of the
 *   point clicked, and Viewer.project gives the click back;
 * - its depth is within 2% of the reference's where both find a surface, and the two
 *   find one at the same pixels; where the pixel's opacity stays under 0.5 (no surface
 *   for the reference) a translucent pick says so (its `opacity`, as the reference's);
 * - the tiles draw picks the same (the pick reads the scene, not the draw's order);
 * - a placed object in front is picked as its SplatObject; the scene's splats as Viewer.sceneObject;
 * - a tile of a trained scene (inria_sh3_tile_1971, much of it thin): its surfaces'
 *   depths as the reference's, its translucent pixels picked with the reference's opacity.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createViewer, SplatObject, type PickResult, type Viewer } from '../../renderer/api/index';
import { defaultForward, fitPose, robustBounds, upVector, type CameraPose } from '../../renderer/camera/camera';
import { firstViewPose } from '../../renderer/camera/framing';
import { generateDefaultScene } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import { writeSplatPly } from '../../scenes/write-ply';
import { makeCameraFrame, ndcToPixel, transformPoint } from '../reference/forward-model';
import { rasterizeReference } from '../reference/raster';
import { useGpu } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { frames, installNavigatorGpu } from '../support/viewer-harness';

useGpu();
const W = 128;
const H = 96;
const NAME = 'playbot_31k_sh2_reordered.ply';

describe.runIf(haveSharedScenes())('Viewer.pick on the GPU against the reference opacity-0.5 depth', () => {
  it('a real scene: points within 1 px of the click, depths within 2% of the reference; tiles the same; a placed object picked as its SplatObject', async () => {
    const restoreNavigator = installNavigatorGpu();
    let viewer: Viewer | null = null;
    try {
      const bytes = fs.readFileSync(sharedScene(NAME));
      const cloud = await loadScene(bytes, NAME);
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      const v = (viewer = await createViewer({ width: W, height: H }, { scene: buffer, sort: 'radix16', draw: 'quads', background: '#000000', controls: false }));
      await v.ready;
      // The first view, closer: the robot fills the picture.
      const first = firstViewPose(cloud, upVector('-y'), defaultForward('-y'), 60, W / H);
      const pose: CameraPose = { ...first, eye: [0, 1, 2].map((k) => first.target[k]! + 0.4 * (first.eye[k]! - first.target[k]!)) as [number, number, number] };
      v.setPose(pose);
      v.settings.fovyDeg = pose.fovyDeg;
      v.invalidate();
      await frames(v, 3);
      const cam = v.parts.loop.lastCamera!;
      const spec = { ...pose, near: cam.near, far: cam.far };
      const ref = rasterizeReference(cloud, spec, { width: W, height: H, shDegree: v.settings.shDegree, halfDepth: true });
      const frame = makeCameraFrame(spec, W, H);

      const points: [number, number][] = [];
      for (let y = 8; y < H; y += 16) for (let x = 8; x < W; x += 16) points.push([x + 0.5, y + 0.5]);
      const t0 = performance.now();
      const picks: (PickResult | null)[] = [];
      for (const [x, y] of points) picks.push(await v.pick(x, y));
      const msEach = (performance.now() - t0) / points.length;

      let both = 0;
      let translucent = 0;
      let worstOpacity = 0;
      let sameFound = 0;
      let worstPx = 0;
      let worstProject = 0;
      const errors: number[] = [];
      const misses: string[] = [];
      for (const [k, p] of picks.entries()) {
        const [x, y] = points[k]!;
        const want = ref.halfDepth![Math.floor(y) * W + Math.floor(x)]!;
        const refFound = Number.isFinite(want);
        const refOpacity = ref.alpha[Math.floor(y) * W + Math.floor(x)]!;
        const surface = p !== null && p.opacity >= 0.5;
        if (surface === refFound) sameFound++;
        else misses.push(`(${x}, ${y}): GPU ${p ? `${p.depth.toFixed(4)} (opacity ${p.opacity.toFixed(4)})` : 'none'}, reference ${refFound ? want.toFixed(4) : 'none'} (opacity ${refOpacity.toFixed(4)})`);
        if (p && !surface) {
          translucent++;
          worstOpacity = Math.max(worstOpacity, Math.abs(p.opacity - refOpacity));
        }
        if (!p) continue;
        expect(p.object).toBe(v.sceneObject); // the loaded scene is an object too
        const clip = transformPoint(frame.viewProj, p.point);
        const [u, w] = ndcToPixel(clip[0] / clip[3], clip[1] / clip[3], W, H);
        worstPx = Math.max(worstPx, Math.hypot(u - x, w - y));
        const back = v.project(p.point)!;
        worstProject = Math.max(worstProject, Math.hypot(back.x - x, back.y - y), Math.abs(back.depth - p.depth) / p.depth);
        if (!refFound || !surface) continue;
        both++;
        errors.push(Math.abs(p.depth - want) / want);
      }
      errors.sort((a, b) => a - b);
      const within2 = errors.filter((e) => e <= 0.02).length;
      const pct = (q: number) => errors[Math.min(errors.length - 1, Math.floor(q * errors.length))]!;
      console.log(
        `Viewer.pick on ${NAME} (${W}x${H}, compact): ${points.length} points, ${both} picked by both, ${sameFound} found alike; ` +
          `points within ${worstPx.toFixed(4)} px of the click; depth error median ${(100 * pct(0.5)).toFixed(3)}%, p95 ${(100 * pct(0.95)).toFixed(3)}%, ` +
          `max ${(100 * errors.at(-1)!).toFixed(3)}%, ${within2} of ${both} within 2%; ${translucent} translucent picks (opacity < 0.5, within ${worstOpacity.toFixed(4)} of the reference's); ${msEach.toFixed(1)} ms a pick` +
          (misses.length ? `; found differently: ${misses.join('; ')}` : ''),
      );
      expect(both).toBeGreaterThan(0.35 * points.length); // the robot and its plinth: the corners are empty
      expect(worstPx).toBeLessThan(1);
      expect(worstProject).toBeLessThan(1e-3);
      expect(sameFound).toBeGreaterThanOrEqual(0.97 * points.length);
      expect(within2).toBeGreaterThanOrEqual(0.97 * both);
      expect(pct(0.5)).toBeLessThan(0.005);
      expect(worstOpacity).toBeLessThan(0.05);

      // The tiles draw: the same picks (the scene is read, not the draw's order).
      expect(v.setDraw('tiles')).toBe(true);
      await frames(v, 3);
      expect(v.draw).toBe('tiles');
      for (const [k, [x, y]] of points.entries()) {
        if (k % 6) continue;
        const p = await v.pick(x, y);
        expect(p?.splat ?? null, `(${x}, ${y})`).toBe(picks[k]?.splat ?? null);
        if (p) expect(p.depth).toBeCloseTo(picks[k]!.depth, 5);
      }

      // A placed object between the camera and the robot: picked as its SplatObject, its splat an index of its own file.
      const small = generateDefaultScene(2000);
      const r = Math.hypot(...[0, 1, 2].map((k) => small.bounds.max[k]! - small.bounds.min[k]!)) / 2;
      const dist = Math.hypot(...[0, 1, 2].map((k) => pose.target[k]! - pose.eye[k]!));
      const at = [0, 1, 2].map((k) => pose.eye[k]! + 0.5 * (pose.target[k]! - pose.eye[k]!)) as [number, number, number];
      const scale = (0.1 * dist) / r;
      const c = [0, 1, 2].map((k) => (small.bounds.min[k]! + small.bounds.max[k]!) / 2);
      const obj = await v.add(writeSplatPly(small).buffer as ArrayBuffer, { name: 'small.ply', transform: { position: c.map((x, k) => at[k]! - scale * x), scale } });
      await frames(v, 3);
      const s = v.project(at)!;
      const onObj = await v.pick(s.x, s.y);
      expect(onObj?.object).toBeInstanceOf(SplatObject);
      expect(onObj!.object).toBe(obj);
      expect(onObj!.splat).toBeGreaterThanOrEqual(0);
      expect(onObj!.splat).toBeLessThan(2000);
      expect(onObj!.depth).toBeLessThan(0.6 * dist);
      // Off the canvas: nothing.
      expect(await v.pick(-1, 10)).toBeNull();
      expect(await v.pick(W + 1, 10)).toBeNull();

      // A tile of a trained scene, much of it thin: the surfaces as the reference's, the translucent pixels' opacity as its.
      const TILE = 'inria_sh3_tile_1971.ply';
      const tileBytes = fs.readFileSync(sharedScene(TILE));
      const tile = await loadScene(tileBytes, TILE);
      await v.load(tileBytes.buffer.slice(tileBytes.byteOffset, tileBytes.byteOffset + tileBytes.byteLength) as ArrayBuffer, { name: TILE });
      expect(v.objects).toEqual([]);
      const tilePose = fitPose(robustBounds(tile.positions), upVector('-y'), 60, W / H, defaultForward('-y'));
      v.setPose(tilePose);
      v.settings.fovyDeg = tilePose.fovyDeg;
      await frames(v, 3);
      const tcam = v.parts.loop.lastCamera!;
      const tspec = { ...tilePose, near: tcam.near, far: tcam.far };
      const tref = rasterizeReference(tile, tspec, { width: W, height: H, shDegree: v.settings.shDegree, halfDepth: true });
      const tframe = makeCameraFrame(tspec, W, H);
      let surfaces = 0;
      let thin = 0;
      let tileWorstDepth = 0;
      let tileWorstPx = 0;
      let tileWorstOpacity = 0;
      const tileMisses: string[] = [];
      for (let y = 8; y < H; y += 16) {
        for (let x = 8; x < W; x += 16) {
          const p = await v.pick(x + 0.5, y + 0.5);
          const want = tref.halfDepth![y * W + x]!;
          const refOpacity = tref.alpha[y * W + x]!;
          const surface = p !== null && p.opacity >= 0.5;
          if (surface !== Number.isFinite(want)) tileMisses.push(`(${x}, ${y}): GPU ${p ? p.opacity.toFixed(4) : 'none'}, reference ${refOpacity.toFixed(4)}`);
          if (!p) continue;
          const clip = transformPoint(tframe.viewProj, p.point);
          const [u, w] = ndcToPixel(clip[0] / clip[3], clip[1] / clip[3], W, H);
          tileWorstPx = Math.max(tileWorstPx, Math.hypot(u - x - 0.5, w - y - 0.5));
          if (surface && Number.isFinite(want)) {
            surfaces++;
            tileWorstDepth = Math.max(tileWorstDepth, Math.abs(p.depth - want) / want);
          } else if (!surface) {
            thin++;
            tileWorstOpacity = Math.max(tileWorstOpacity, Math.abs(p.opacity - refOpacity));
          }
        }
      }
      console.log(
        `Viewer.pick on ${TILE}: ${surfaces} surfaces (depth within ${(100 * tileWorstDepth).toFixed(3)}% of the reference's), ${thin} translucent picks ` +
          `(opacity within ${tileWorstOpacity.toFixed(4)} of the reference's), points within ${tileWorstPx.toFixed(4)} px` +
          (tileMisses.length ? `; found differently: ${tileMisses.join('; ')}` : ''),
      );
      expect(surfaces).toBeGreaterThan(3);
      expect(tileWorstDepth).toBeLessThan(0.02);
      expect(tileWorstPx).toBeLessThan(1);
      expect(tileWorstOpacity).toBeLessThan(0.05);
      expect(tileMisses.length).toBeLessThanOrEqual(1);
    } finally {
      viewer?.destroy();
      restoreNavigator();
    }
  });
});
