/**
 * The GPU pick (renderer/frame/pixel-pick.ts: Viewer.pick, `npm run pick`) against the CPU reference
 * (test/reference/forward-model.ts: every splat projected, sorted by depth key, its
 * fragment alpha at the pixel centre blended front to back until the pixel's opacity
 * reaches 0.5), on real scenes (playbot_31k, a whole object; a tile of a trained scene):
 *
 * - a grid of pixels of the first view: the same splat picked (where the reference's
 *   opacity does not sit within f32 rounding of 0.5 at the pick), the same found / not
 *   found, and every picked point projecting within 1 px of the pixel's centre;
 * - placed objects: the scene and a second object turned, scaled and cropped: the
 *   object and its splat (an index into its own file) as the reference finds them on
 *   the CPU-cropped, transformed, merged clouds;
 * - the program: `npm run pick` prints the JSON of the same pick.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCameraArg, robustBounds, upVector, type CameraPose, defaultForward, fitPose } from '../../renderer/camera/camera';
import { firstViewPose } from '../../renderer/camera/framing';
import { frameCamera, projectToPixel } from '../../renderer/camera/frame-camera';
import { renderOffscreen } from '../../renderer/frame/offscreen';
import { pickPixel } from '../../renderer/frame/pixel-pick';
import { SplatRenderer, type FrameCamera } from '../../renderer/frame/splat-renderer';
import { checkCrop, cropKeeps } from '../../scenes/crop';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { makeTransform, transformCloud } from '../../scenes/transform';
import { covariance3D, effectiveOpacity, fragmentAlpha, makeCameraFrame, MIN_ALPHA, ndcToPixel, projectSplat, transformPoint as transformPoint4 } from '../reference/forward-model';
import { useGpu, withValidation } from '../support/gpu';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';
import { writeTestPng } from '../support/test-png';

const ctx = useGpu();
const W = 128;
const H = 96;
const SETTINGS = { shDegree: 3, splatScale: 1, cull: true, keyBits: 32, background: [0, 0, 0] as [number, number, number] };
const root = path.resolve(__dirname, '../..');

/** A GPU pick as the reference names it: the object's index in SplatRenderer.objects and the splat in its own file. */
interface GpuPick {
  object: number;
  splat: number;
  point: [number, number, number];
  depth: number;
}

/**
 * One frame drawn (the object table written as every frame writes it, and a picture to
 * look at), then the pick at each pixel's centre by the strict rule (opacity 0.5; no
 * translucent fallback: minOpacity 1).
 */
async function pickAll(r: SplatRenderer, cam: FrameCamera, pixels: readonly (readonly [number, number])[]) {
  const image = await renderOffscreen(r, cam, SETTINGS);
  const handles = r.objects.map((o) => o.handle);
  const picks: (GpuPick | null)[] = [];
  for (const [x, y] of pixels) {
    const p = await pickPixel(r, cam, SETTINGS, x + 0.5, y + 0.5, 0.5, 1);
    picks.push(p && { object: p.object === null ? 0 : handles.indexOf(p.object), splat: p.splat, point: p.point, depth: p.depth });
  }
  return { picks, image };
}

interface RefPick {
  /** Index into the cloud given; null when the opacity never reaches 0.5. */
  index: number | null;
  depth: number;
  /** The pixel's opacity just before and just after the pick (how close to 0.5 it came). */
  before: number;
  after: number;
}

/** The CPU reference's pick at pixel (px, py) of `cloud` seen by `cam`. */
function referencePicks(cloud: SplatCloud, pose: CameraPose, cam: FrameCamera, pixels: readonly (readonly [number, number])[]): RefPick[] {
  const frame = makeCameraFrame({ ...pose, near: cam.near, far: cam.far }, W, H);
  const projected: { i: number; key: number; depth: number; opacity: number; conic: [number, number, number]; c: [number, number] }[] = [];
  for (let i = 0; i < cloud.count; i++) {
    const p = projectSplat(frame, cloud.positions.subarray(3 * i, 3 * i + 3), covariance3D(cloud.scales.subarray(3 * i, 3 * i + 3), cloud.rotations.subarray(4 * i, 4 * i + 4)));
    if (!p) continue;
    const opacity = effectiveOpacity(cloud.opacities[i]!, p);
    if (!(opacity >= MIN_ALPHA)) continue;
    projected.push({ i, key: p.key, depth: p.depth, opacity, conic: p.conic, c: p.center });
  }
  // Front to back: the largest key first (ascending keys are back to front).
  projected.sort((a, b) => b.key - a.key);
  return pixels.map(([x, y]) => {
    let t = 1;
    for (const s of projected) {
      const a = fragmentAlpha(s.opacity, s.conic, x + 0.5 - s.c[0], y + 0.5 - s.c[1]);
      if (a === 0) continue;
      const before = 1 - t;
      t *= 1 - a;
      if (1 - t >= 0.5) return { index: s.i, depth: s.depth, before, after: 1 - t };
    }
    return { index: null, depth: 0, before: 1 - t, after: 1 - t };
  });
}

function grid(step: number): [number, number][] {
  const out: [number, number][] = [];
  for (let y = step / 2; y < H; y += step) for (let x = step / 2; x < W; x += step) out.push([x, y]);
  return out;
}

/**
 * Where the GPU's pick and the reference's agree (the same splat at the same depth), and
 * how far each picked point projects from its pixel's centre (through the reference's
 * own camera: forward-model.ts makeCameraFrame, not the pick's maths).
 */
function compare(picks: (GpuPick | null)[], refs: RefPick[], pixels: readonly (readonly [number, number])[], pose: CameraPose, cam: FrameCamera, same: (p: GpuPick, r: RefPick) => boolean) {
  const frame = makeCameraFrame({ ...pose, near: cam.near, far: cam.far }, W, H);
  let agree = 0;
  let borderline = 0;
  let found = 0;
  let worstPx = 0;
  const disagreements: string[] = [];
  for (const [k, p] of picks.entries()) {
    const r = refs[k]!;
    const [x, y] = pixels[k]!;
    if (p) {
      found++;
      const clip = transformPoint4(frame.viewProj, p.point);
      const [u, v] = ndcToPixel(clip[0] / clip[3], clip[1] / clip[3], W, H);
      // The pick's own maths agree with it.
      const at = projectToPixel(cam, p.point)!;
      worstPx = Math.max(worstPx, Math.hypot(at.x - u, at.y - v));
      worstPx = Math.max(worstPx, Math.hypot(u - (x + 0.5), v - (y + 0.5)));
    }
    // Within f32 rounding of the threshold, at the reference's pick or just before it: either splat is right.
    const close = Math.abs(r.after - 0.5) < 2e-3 || Math.abs(r.before - 0.5) < 2e-3;
    if ((p === null && r.index === null) || (p && r.index !== null && same(p, r) && Math.abs(p.depth - r.depth) <= 1e-4 * r.depth)) agree++;
    else if (close) borderline++;
    else disagreements.push(`(${x}, ${y}): GPU ${p ? `${p.object}/${p.splat} at ${p.depth.toFixed(4)}` : 'none'}, reference ${r.index ?? 'none'} at ${r.depth.toFixed(4)} (${r.before.toFixed(4)} -> ${r.after.toFixed(4)})`);
  }
  return { agree, borderline, found, worstPx, disagreements };
}

describe.runIf(haveSharedScenes())('the GPU pick against the CPU reference', () => {
  const file = sharedScene('inria_sh3_tile_1971.ply');
  const load = async () => loadScene(fs.readFileSync(file), 'inria_sh3_tile_1971.ply');

  it('a real scene: the same splat under a grid of pixels, each point within 1 px of its pixel; full and compact precision', async () => {
    const { device } = ctx.gpu;
    const cloud = await loadScene(fs.readFileSync(sharedScene('playbot_31k_sh2_reordered.ply')), 'playbot_31k_sh2_reordered.ply');
    // The first view, closer: the robot fills the picture (its plinth leaves the edges).
    const first = firstViewPose(cloud, upVector('-y'), defaultForward('-y'), 60, W / H);
    const pose = { ...first, eye: [0, 1, 2].map((k) => first.target[k]! + 0.4 * (first.eye[k]! - first.target[k]!)) as [number, number, number] };
    const cam = frameCamera(pose, W, H, cloud.bounds);
    const pixels = grid(12);
    const refs = referencePicks(cloud, pose, cam, pixels);
    const figures: string[] = [];
    for (const precision of ['full', 'compact'] as const) {
      await withValidation(device, async () => {
        const r = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'quads');
        r.precision = precision;
        r.setScene(cloud);
        const { picks, image } = await pickAll(r, cam, pixels);
        r.destroy();
        if (precision === 'full') writeTestPng('gpu-pick-view.png', image.rgba, W, H);
        const c = compare(picks, refs, pixels, pose, cam, (p, ref) => p.object === 0 && p.splat === ref.index);
        figures.push(`${precision}: ${c.agree} of ${pixels.length} pixels the reference's pick (${c.borderline} within rounding of 0.5), ${c.found} picked, points within ${c.worstPx.toFixed(3)} px`);
        expect(c.found).toBeGreaterThan(20); // a tile of a trained scene: much of the view is thin
        expect(c.worstPx).toBeLessThan(1);
        if (precision === 'full') expect(c.disagreements, c.disagreements.join('\n')).toEqual([]);
        // Compact: rotations, scales and opacities quantised (a few alphas move): nearly every pixel still agrees.
        else expect(c.agree + c.borderline).toBeGreaterThanOrEqual(0.95 * pixels.length);
      });
    }
    console.log(`GPU pick vs the CPU reference: ${figures.join('; ')}`);
  });

  it('placed objects: the object and its splat (an index into its own file) under a turned, scaled, cropped second object', async () => {
    const { device } = ctx.gpu;
    const a = await load();
    const b = await load();
    const t = makeTransform({ rotation: [0.9, 0.2, -0.3, 0.1], scale: 0.6, translation: [0.4, -0.2, -1.5] });
    const bb = robustBounds(b.positions);
    const crop = checkCrop({ min: [bb.min[0], bb.min[1], -Infinity], max: [(bb.min[0] + bb.max[0]) / 2, bb.max[1], Infinity] });
    // The reference: a, then b's kept splats transformed; the index back to b's own file.
    const keptB: number[] = [];
    for (let i = 0; i < b.count; i++) if (cropKeeps(crop, b.positions[3 * i]!, b.positions[3 * i + 1]!, b.positions[3 * i + 2]!)) keptB.push(i);
    const pick = (c: SplatCloud, idx: number[]): SplatCloud => ({
      ...c,
      count: idx.length,
      positions: Float32Array.from(idx.flatMap((i) => [...c.positions.subarray(3 * i, 3 * i + 3)])),
      scales: Float32Array.from(idx.flatMap((i) => [...c.scales.subarray(3 * i, 3 * i + 3)])),
      rotations: Float32Array.from(idx.flatMap((i) => [...c.rotations.subarray(4 * i, 4 * i + 4)])),
      opacities: Float32Array.from(idx.map((i) => c.opacities[i]!)),
      sh: new Float32Array(0),
    });
    const tb = transformCloud({ ...pick(b, keptB), shDegree: 0 }, t);
    const merged: SplatCloud = {
      ...a,
      count: a.count + tb.count,
      positions: Float32Array.from([...a.positions, ...tb.positions]),
      scales: Float32Array.from([...a.scales, ...tb.scales]),
      rotations: Float32Array.from([...a.rotations, ...tb.rotations]),
      opacities: Float32Array.from([...a.opacities, ...tb.opacities]),
    };
    const pose = fitPose(robustBounds(merged.positions), upVector('-y'), 60, W / H, defaultForward('-y'));
    const cam = frameCamera(pose, W, H, merged.bounds);
    const pixels = grid(8);
    const refs = referencePicks(merged, pose, cam, pixels);
    await withValidation(device, async () => {
      const r = new SplatRenderer(device, 'rgba8unorm', 'radix4', 'quads');
      r.precision = 'full';
      r.setScene(a);
      const h = r.addObject(b, t);
      r.setObjectCrop(h, crop);
      const { picks } = await pickAll(r, cam, pixels);
      r.destroy();
      const same = (p: GpuPick, ref: RefPick) => (ref.index! < a.count ? p.object === 0 && p.splat === ref.index : p.object === 1 && p.splat === keptB[ref.index! - a.count]);
      const c = compare(picks, refs, pixels, pose, cam, same);
      const onB = picks.filter((p) => p?.object === 1).length;
      console.log(`GPU pick, two objects: ${c.agree} of ${pixels.length} pixels the reference's pick (${c.borderline} within rounding of 0.5), ${c.found} picked (${onB} on the placed object), points within ${c.worstPx.toFixed(3)} px`);
      expect(onB).toBeGreaterThan(5);
      expect(picks.filter((p) => p?.object === 0).length).toBeGreaterThan(5);
      expect(c.worstPx).toBeLessThan(1);
      expect(c.disagreements, c.disagreements.join('\n')).toEqual([]);
    });
  });

  it('npm run pick prints the JSON of the pick', async () => {
    const cmd = ['scripts/run.mjs', 'bench/pick.ts', '--scene', file, '--at', '64,40', '--size', `${W}x${H}`];
    const res = spawnSync(process.execPath, cmd, { cwd: root, encoding: 'utf8', timeout: 170_000 });
    expect(res.status, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout.trim().split('\n').at(-1)!) as { object: number; splat: number; point: number[]; depth: number; pixel: number[] };
    expect(out.object).toBe(0);
    expect(Number.isInteger(out.splat)).toBe(true);
    expect(out.point).toHaveLength(3);
    expect(out.depth).toBeGreaterThan(0);
    expect(out.pixel).toEqual([64, 40]);
    // The same pick with the camera given: the program's first view, as its JSON.
    const cloud = await load();
    const pose = firstViewPose(cloud, upVector('-y'), defaultForward('-y'), 60, W / H);
    const again = spawnSync(process.execPath, [...cmd, '--camera', formatCameraArg(pose)], { cwd: root, encoding: 'utf8', timeout: 170_000 });
    expect(again.status, again.stderr).toBe(0);
    const out2 = JSON.parse(again.stdout.trim().split('\n').at(-1)!) as { splat: number; point: number[] };
    expect(out2.splat).toBe(out.splat);
    out2.point.forEach((v, k) => expect(v).toBeCloseTo(out.point[k]!, 3));
  });
});
