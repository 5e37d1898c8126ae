/**
 * The library's API in Node (real WGSL on the default adapter, lavapipe in CI):
 * createViewer drawing into a texture of its own with the test's device, a PLY
 * loaded from an ArrayBuffer (the loader's job on this thread: Node has no
 * workers), the events in order, frames drawn and profiled (stats), the picture
 * read back, a bad file and an aborted load refused with the scene kept, and
 * destroy() giving back every buffer the viewer made.
 */
import { meterGpuMemory } from '../../bench/gpu-memory';
import { sceneBytesPerSplat } from '../../renderer/gpu-scene/scene-precision';
import { describe, expect, it } from 'vitest';
import { createViewer, SceneLoadCancelled, SceneLoadError, STAGE_NAMES } from '../../renderer/api/index';
import { generateDefaultScene } from '../../scenes/generate';
import { writeSplatPly } from '../../scenes/write-ply';
import { useGpu } from '../support/gpu';
import { writeTestPng } from '../support/test-png';
import { frames, nextEvent } from '../support/viewer-harness';

const ctx = useGpu();

describe('createViewer in Node (offscreen target)', () => {
  it('loads, draws, profiles, refuses bad and aborted loads keeping the scene, and frees its buffers on destroy', async () => {
    const device = ctx.gpu.device;
    const buffers = meterGpuMemory(device);
    const before = buffers.liveBuffers;
    const ply = writeSplatPly(generateDefaultScene(3000));
    const viewer = await createViewer({ width: 128, height: 96 }, { device, scene: ply.buffer as ArrayBuffer, sort: 'radix16', draw: 'quads', background: '#000000' });
    const events: string[] = [];
    for (const type of ['progress', 'load', 'frame', 'error']) viewer.addEventListener(type, () => events.push(type));
    await viewer.ready;
    expect(viewer.scene).toMatchObject({ splats: 3000 });
    // The default scene is SH1: 36 B a splat compact (the default), its buffers' bytes.
    const mem = viewer.sceneMemory!;
    expect(mem.precision).toBe('compact');
    expect(mem.bytesPerSplat).toBeCloseTo(sceneBytesPerSplat(viewer.scene!.shDegree, 'compact'), 0);
    await frames(viewer, 4);
    // progress... then load, then frames: nothing before its time.
    const firstLoad = events.indexOf('load');
    expect(events.slice(0, firstLoad).every((e) => e === 'progress')).toBe(true);
    expect(events.indexOf('progress')).toBe(0);
    expect(events.slice(firstLoad + 1)).toContain('frame');
    expect(events).not.toContain('error');
    expect(viewer.framesCompleted).toBeGreaterThanOrEqual(4);
    // The last profiled frame's figures: the profiler's sample (CPU ms always; GPU stages where timestamps work).
    await frames(viewer, 4);
    const stats = viewer.stats;
    expect(stats).not.toBeNull();
    expect(stats!.cpuMs).toBeGreaterThanOrEqual(0);
    for (const k of Object.keys(stats!)) expect(['cpuMs', 'frameMs', 'total', ...STAGE_NAMES]).toContain(k);

    // The picture: the scene lit in the middle of a black background.
    const img = await viewer.readPixels();
    expect([img.width, img.height]).toEqual([128, 96]);
    writeTestPng('viewer-api.png', img.rgba, img.width, img.height);
    let lit = 0;
    for (let i = 0; i < img.rgba.length; i += 4) if (img.rgba[i]! + img.rgba[i + 1]! + img.rgba[i + 2]! > 30) lit++;
    expect(lit / (img.width * img.height)).toBeGreaterThan(0.05);

    // The camera: set, read back.
    viewer.camera = { eye: [0, -1, -8], target: [0, 0, 0], fovy: 50 };
    viewer.camera.eye.forEach((x, i) => expect(x).toBeCloseTo([0, -1, -8][i]!, 9));
    expect(viewer.camera.fovy).toBe(50);

    // A bad file: the typed error, an error event, the scene kept.
    const errorEvent = nextEvent(viewer, 'error');
    await expect(viewer.load(new TextEncoder().encode('not a scene at all').buffer as ArrayBuffer, { name: 'junk.ply' })).rejects.toBeInstanceOf(SceneLoadError);
    expect((await errorEvent).detail.error).toBeInstanceOf(SceneLoadError);
    expect(viewer.scene).toMatchObject({ splats: 3000 });

    // An aborted load rejects with SceneLoadCancelled; the scene stays.
    const abort = new AbortController();
    const loading = viewer.load(writeSplatPly(generateDefaultScene(2000)).buffer as ArrayBuffer, { signal: abort.signal, name: 'other.ply' });
    abort.abort();
    await expect(loading).rejects.toBeInstanceOf(SceneLoadCancelled);
    expect(viewer.scene).toMatchObject({ splats: 3000 });
    await frames(viewer, 2);

    // destroy(): every buffer it made is destroyed; the host's device lives on.
    const made = buffers.created;
    expect(buffers.liveBuffers).toBeGreaterThan(before);
    viewer.destroy();
    expect(buffers.liveBuffers).toBe(before);
    expect(made).toBeGreaterThan(5);
    const probe = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST });
    probe.destroy();
    const framesAtEnd = viewer.framesRendered;
    await new Promise((r) => setTimeout(r, 100));
    expect(viewer.framesRendered).toBe(framesAtEnd);
  });

  it("keeps one frame in flight while auto measures (a trial's sort goes between frames), two otherwise", async () => {
    const device = ctx.gpu.device;
    const viewer = await createViewer({ width: 256, height: 192 }, { device, scene: writeSplatPly(generateDefaultScene(3000)).buffer as ArrayBuffer, sort: 'auto', draw: 'quads' });
    // Frames asked for as fast as the event loop allows (not every 16 ms): the pacing alone bounds the frames in flight.
    // The frame loop and the sort's auto, reached through the viewer's collaborators (viewer-parts.ts).
    const { loop, choices } = viewer.parts;
    const during: number[] = [];
    const outside: number[] = [];
    loop.schedule = (cb) =>
      void setTimeout(() => {
        cb(performance.now());
        (choices.sort.busy ? during : outside).push(loop.inFlight);
      }, 0);
    await viewer.ready;
    const deadline = performance.now() + 60_000;
    while (!/fastest exact sort/.test(viewer.strategyNote) && performance.now() < deadline) await frames(viewer, 1);
    expect(viewer.strategyNote).toMatch(/fastest exact sort/);
    await frames(viewer, 20);
    expect(during.length).toBeGreaterThan(10);
    expect(Math.max(...during)).toBe(1);
    expect(Math.max(...outside)).toBe(2);
    viewer.destroy();
  });
});
