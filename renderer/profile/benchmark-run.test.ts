import { describe, expect, it } from 'vitest';
import type { CameraPose } from '../camera/camera';
import { BenchmarkRun } from './benchmark-run';

const pose = (i: number): CameraPose => ({ eye: [i, 0, 5], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 });

/** Flies `run` to its end the way the viewer does (a probe is skipped while one is in flight), returning each frame. */
async function fly(run: BenchmarkRun, probes: Promise<number>[] = []) {
  const frames: { strategy: string; pose: CameraPose; probe: boolean; id: number }[] = [];
  let id = 0;
  while (run.strategy !== undefined) {
    const strategy = run.strategy;
    const next = run.nextFrame();
    const probe = next.probe ? (probes.shift() ?? Promise.resolve(0)) : undefined;
    run.submitted(id, strategy === 'cpu' ? 7 : null, probe);
    frames.push({ strategy, pose: next.pose, probe: next.probe, id: id++ });
    await new Promise((r) => setTimeout(r, 0)); // the next animation frame: settled probes are in
  }
  return frames;
}

describe('BenchmarkRun', () => {
  it('flies the warm-up and the path once per strategy, probing every 10th path frame from the 5th', async () => {
    const path = Array.from({ length: 20 }, (_, i) => pose(i));
    const run = new BenchmarkRun({ strategies: ['radix4', 'cpu'], path, warmup: 3 });
    const frames = await fly(run);
    expect(frames.length).toBe(2 * (3 + 20));
    expect(frames.slice(0, 23).every((f) => f.strategy === 'radix4')).toBe(true);
    expect(frames.slice(23).every((f) => f.strategy === 'cpu')).toBe(true);
    // Warm-up frames hold the first pose, then the path in order.
    expect(frames.slice(0, 4).map((f) => f.pose.eye[0])).toEqual([0, 0, 0, 0]);
    expect(frames[3 + 19].pose.eye[0]).toBe(19);
    expect(frames.filter((f) => f.probe).map((f) => f.id)).toEqual([8, 18, 31, 41]);
  });

  it('completes once every counted frame and probe is in, with the host sort standing for the sort stage', async () => {
    const path = Array.from({ length: 6 }, (_, i) => pose(i));
    let completed = 0;
    const run = new BenchmarkRun({ strategies: ['radix4', 'cpu'], path, warmup: 2, onComplete: () => completed++ });
    const frames = await fly(run);
    expect(run.complete).toBe(false);
    for (const f of frames) {
      run.profiled(f.id, { cpuMs: 1, frameMs: 16, project: 0.5, sort: 0.25, draw: 2, total: 3 });
      if (f !== frames[frames.length - 1]) expect(completed).toBe(0);
    }
    await Promise.resolve();
    expect(completed).toBe(1);
    expect(run.complete).toBe(true);
    const rows = run.rows({ name: 'scene', splats: 100, visible: 80 });
    expect(rows.map((r) => [r.strategy, r.frames])).toEqual([['radix4', 6], ['cpu', 6]]);
    expect(rows[0].stages.sort).toBe(0.25);
    expect(rows[0].stages.total).toBe(3);
    expect(rows[1].stages.sort).toBe(7);
    expect(rows[1].stages.total).toBe(3 - 0.25 + 7);
  });

  it('waits for a probe still in flight and averages the probes per strategy', async () => {
    const path = Array.from({ length: 16 }, (_, i) => pose(i));
    let resolveProbe!: (f: number) => void;
    const slow = new Promise<number>((r) => (resolveProbe = r));
    const run = new BenchmarkRun({ strategies: ['radix4'], path, warmup: 0 });
    const frames = await fly(run, [slow]);
    for (const f of frames) run.profiled(f.id, { cpuMs: 1, frameMs: 16, total: 1 });
    expect(run.complete).toBe(false);
    resolveProbe(0.5);
    await slow;
    await Promise.resolve();
    expect(run.complete).toBe(true);
    expect(run.rows({ name: 's', splats: 1, visible: 1 })[0].outOfOrderFraction).toBe(0.5);
  });

  it('with rasterFloor, first flies the path drawing the floor; its median draw is every row\'s raster_floor_ms', async () => {
    const path = Array.from({ length: 4 }, (_, i) => pose(i));
    const run = new BenchmarkRun({ strategies: ['radix4', 'onesweep'], path, warmup: 1, rasterFloor: true });
    const floorFrames: boolean[] = [];
    let id = 0;
    const frames: { id: number; floor: boolean }[] = [];
    while (run.strategy !== undefined) {
      const next = run.nextFrame();
      floorFrames.push(next.rasterFloor);
      if (next.rasterFloor) expect(next.probe).toBe(false);
      run.submitted(id, null);
      frames.push({ id: id++, floor: next.rasterFloor });
    }
    // Floor pass (1 + 4 frames, drawn by the first strategy), then each strategy's 1 + 4.
    expect(floorFrames).toEqual([true, true, true, true, true, ...new Array(10).fill(false)]);
    for (const f of frames) run.profiled(f.id, { cpuMs: 1, frameMs: 16, project: 1, sort: 1, draw: f.floor ? 2 + f.id : 9, total: 11 });
    await Promise.resolve();
    expect(run.complete).toBe(true);
    const meta = { keyBits: 24, resolution: '640x480', adapter: 'a', date: 'd' };
    const rows = run.rows({ name: 's', splats: 1, visible: 1 }, undefined, meta);
    // Counted floor frames are ids 1..4: draw 3, 4, 5, 6 -> median 4.5.
    expect(rows.map((r) => r.rasterFloorMs)).toEqual([4.5, 4.5]);
    expect(rows.map((r) => r.frames)).toEqual([4, 4]);
    expect(rows[0]).toMatchObject(meta);
  });

  it('rejects an empty run', () => {
    expect(() => new BenchmarkRun({ strategies: [], path: [pose(0)] })).toThrow(RangeError);
    expect(() => new BenchmarkRun({ strategies: ['radix4'], path: [] })).toThrow(RangeError);
  });

  it('flown(): each strategy\'s frames in path order with their path index, whatever order they were profiled in', async () => {
    const path = Array.from({ length: 4 }, (_, i) => pose(i));
    const run = new BenchmarkRun({ strategies: ['radix4'], path, warmup: 1 });
    const frames = await fly(run);
    // Profiled out of order (frame 3 before 2); the warm-up frame (id 0) does not count.
    for (const id of [1, 3, 2, 4, 0]) run.profiled(id, { cpuMs: 1, frameMs: 16, total: id });
    expect(run.complete).toBe(true);
    expect(frames.map((f) => f.id)).toEqual([0, 1, 2, 3, 4]);
    const [flown] = run.flown();
    expect(flown!.frames).toEqual([0, 1, 2, 3]);
    expect(flown!.samples.map((s) => s.total)).toEqual([1, 2, 3, 4]);
  });
});
