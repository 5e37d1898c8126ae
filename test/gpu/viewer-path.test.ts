/**
 * The library's camera path player in Node (real WGSL on the default adapter,
 * lavapipe in CI), on a frame schedule the test drives: seek and play put the camera
 * at poseAt(path, t), t moving by the time between frames drawn (at most 0.1 s a
 * frame) times the speed; pause holds it; `pathframe` each frame flown, `pathend` at
 * the end unless it loops. renderView draws a pose offscreen at a size (the page's
 * video frames); a benchmark along the path reports each frame against its path time.
 */
import { describe, expect, it } from 'vitest';
import { createViewer, parseCameraPath, poseAt, type CameraPath, type CameraPose, type Viewer } from '../../renderer/api/index';
import { generateDefaultScene } from '../../scenes/generate';
import { writeSplatPly } from '../../scenes/write-ply';
import { useGpu } from '../support/gpu';

const ctx = useGpu();

const PATH: CameraPath = parseCameraPath({
  keyframes: [
    { time: 0, eye: [0, -1, -7], target: [0, 0, 0], up: [0, -1, 0], fovy: 60 },
    { time: 1, eye: [5, -1.5, -4], target: [0.3, 0, 0], up: [0, -1, 0], fovy: 50 },
    { time: 2, eye: [6, -1, 2], target: [0, 0.2, 0.3], up: [0, -1, 0], fovy: 55 },
  ],
});

function expectPose(actual: CameraPose, expected: CameraPose): void {
  for (let c = 0; c < 3; c++) {
    expect(actual.eye[c]).toBeCloseTo(expected.eye[c], 6);
    expect(actual.target[c]).toBeCloseTo(expected.target[c], 6);
  }
  expect(actual.fovyDeg).toBeCloseTo(expected.fovyDeg, 9);
}

/** The viewer's frames on the test's clock: `draw(now)` runs one animation frame at `now` ms and waits for it on the GPU. */
async function driven(viewer: Viewer): Promise<{ draw: (now: number) => Promise<void> }> {
  const { loop } = viewer.parts;
  let pending: ((now: number) => void) | null = null;
  loop.schedule = (cb) => void (pending = cb);
  // The default schedule's callback in flight hands over to this one.
  while (!pending) await new Promise((r) => setTimeout(r, 5));
  return {
    draw: async (now: number) => {
      const cb = pending!;
      pending = null;
      const rendered = viewer.framesRendered;
      cb(now);
      expect(viewer.framesRendered).toBe(rendered + 1);
      await new Promise<void>((resolve) => viewer.addEventListener('frame', () => resolve(), { once: true }));
    },
  };
}

describe('camera path player (Node viewer, driven frames)', () => {
  it('seek and play put the camera at poseAt(path, t) on the frames drawn; pause, speed, loop, pathend; renderView; a benchmark along it', async () => {
    const device = ctx.gpu.device;
    const viewer = await createViewer({ width: 128, height: 96 }, { device, scene: writeSplatPly(generateDefaultScene(3000)).buffer as ArrayBuffer, sort: 'radix16', draw: 'quads', background: '#000000' });
    await viewer.ready;
    const times: number[] = [];
    let ends = 0;
    viewer.addEventListener('pathframe', (e) => {
      const { time, pose } = (e as CustomEvent<{ time: number; pose: CameraPose }>).detail;
      times.push(time);
      expectPose(pose, poseAt(PATH, time));
    });
    viewer.addEventListener('pathend', () => ends++);
    const { draw } = await driven(viewer);
    let now = performance.now() + 1000;
    await draw(now);

    expect(() => viewer.play()).toThrow(/no camera path/);
    viewer.path = PATH;
    expect(viewer.path!.keyframes.map((k) => k.time)).toEqual([0, 1, 2]);
    expect(() => (viewer.path = { keyframes: [PATH.keyframes[1]!, PATH.keyframes[0]!] })).toThrow(/keyframes\[1\]\.time/);

    // seek: the camera there at once, and on the frames after.
    viewer.seek(0.7);
    expectPose(viewer.view, poseAt(PATH, 0.7));
    expect(times).toEqual([0.7]);
    await draw((now += 16));
    expectPose(viewer.view, poseAt(PATH, 0.7));

    // play from 0: the first frame shows t = 0, then t moves by the time between frames drawn, at most 0.1 s a frame.
    viewer.seek(0);
    viewer.play();
    expect(viewer.playing).toBe(true);
    await draw((now += 16));
    expect(viewer.pathTime).toBe(0);
    await draw((now += 50));
    expect(viewer.pathTime).toBeCloseTo(0.05, 9);
    expectPose(viewer.view, poseAt(PATH, 0.05));
    await draw((now += 700)); // a slow frame: the flight waits for it
    expect(viewer.pathTime).toBeCloseTo(0.15, 9);
    expectPose(viewer.view, poseAt(PATH, 0.15));

    // speed 2: twice the path time a frame.
    viewer.play(undefined, { speed: 2 });
    await draw((now += 40));
    await draw((now += 40));
    expect(viewer.pathTime).toBeCloseTo(0.23, 9);
    expectPose(viewer.view, poseAt(PATH, 0.23));

    // pause: the camera stays.
    viewer.pause();
    const flown = times.length;
    await draw((now += 40));
    await draw((now += 40));
    expect(times.length).toBe(flown);
    expectPose(viewer.view, poseAt(PATH, 0.23));

    // seek then play to the end: pathend once, the camera at the last keyframe, not playing.
    viewer.seek(1.5);
    expectPose(viewer.view, poseAt(PATH, 1.5));
    viewer.play(undefined, { speed: 1 });
    for (let i = 0; i < 10 && viewer.playing; i++) await draw((now += 100));
    expect(ends).toBe(1);
    expect(viewer.playing).toBe(false);
    expect(viewer.pathTime).toBe(2);
    expectPose(viewer.view, poseAt(PATH, 2));
    expect(times[times.length - 1]).toBe(2);

    // At the end, play starts over; loop goes round without pathend.
    viewer.play(undefined, { loop: true });
    await draw((now += 100));
    expect(viewer.pathTime).toBe(0);
    for (let i = 0; i < 21; i++) await draw((now += 100));
    expect(viewer.playing).toBe(true);
    expect(ends).toBe(1);
    expect(viewer.pathTime).toBeCloseTo(0.1, 6);
    expectPose(viewer.view, poseAt(PATH, viewer.pathTime));
    viewer.pause();

    // renderView: a pose at a size, as the view on screen there renders it.
    viewer.seek(1);
    const there = await viewer.renderView({ width: 96, height: 64 });
    const posed = await viewer.renderView({ width: 96, height: 64, pose: poseAt(PATH, 1) });
    expect([posed.width, posed.height]).toEqual([96, 64]);
    let worst = 0;
    for (let i = 0; i < posed.rgba.length; i++) worst = Math.max(worst, Math.abs(posed.rgba[i]! - there.rgba[i]!));
    expect(worst).toBeLessThanOrEqual(2);
    let lit = 0;
    for (let i = 0; i < posed.rgba.length; i += 4) if (posed.rgba[i]! + posed.rgba[i + 1]! + posed.rgba[i + 2]! > 30) lit++;
    expect(lit).toBeGreaterThan(50);
    await expect(viewer.renderView({ width: 0, height: 64 })).rejects.toThrow(RangeError);

    // renderSequence: the same frames as renderView, one per pose; auto held while it runs, released when the loop leaves.
    const poses = [poseAt(PATH, 0.5), poseAt(PATH, 1), poseAt(PATH, 1.5)];
    let seen = 0;
    for await (const image of viewer.renderSequence({ width: 96, height: 64, poses })) {
      expect(viewer.parts.pictures.sequences).toBe(1);
      if (seen === 1) expect(Buffer.compare(Buffer.from(image.rgba), Buffer.from(posed.rgba))).toBe(0);
      if (++seen === 2) break;
    }
    expect(seen).toBe(2);
    expect(viewer.parts.pictures.sequences).toBe(0);

    // A benchmark along the path: 10 fps, 21 frames, each against its path time; max per stage; the camera restored.
    const before = viewer.view;
    const benchmark = viewer.benchmark(['radix16'], { path: PATH, fps: 10, name: 'test' });
    let rows: Awaited<typeof benchmark> | null = null;
    void benchmark.then((r) => (rows = r));
    for (let i = 0; i < 400 && !rows; i++) await draw((now += 16));
    expect(rows).not.toBeNull();
    const row = rows![0]!;
    expect(row.camera).toBe('path test, 2 s at 10 fps');
    expect(row.path!.frames.map((f) => f.time)).toEqual(Array.from({ length: 21 }, (_, i) => Number((i / 10).toFixed(6))));
    expect(row.path).toMatchObject({ name: 'test', fps: 10, duration: 2 });
    expect(Object.keys(row.max!)).toEqual(Object.keys(row.stages));
    if (row.stages.total !== null) {
      expect(row.max!.total!).toBeGreaterThanOrEqual(row.p95.total!);
      expect(row.path!.slowestSecond).not.toBeNull();
    }
    await draw((now += 16));
    expectPose(viewer.view, before);
    viewer.destroy();
  });
});
