import { describe, expect, it } from 'vitest';
import { chooseDraw, decideDraw, drawPrior, DrawTrial, isDrawSetting, probeWindows, reusableDraw, type TrialFrame } from './auto-draw';

const gpuSort = { name: 'onesweep', host: false };
const hostSort = { name: 'cpu', host: true };

describe("auto draw's choice given measured times", () => {
  it('picks the faster median and says which and why', () => {
    const c = chooseDraw(
      [
        { name: 'tiles', ms: [0.84, 0.9, 0.8] },
        { name: 'quads', ms: [4.07, 4.1, 4.0] },
      ],
      60_000,
      'GPU timestamps',
    )!;
    expect(c.name).toBe('tiles');
    expect(c.ranked.map((r) => r.name)).toEqual(['tiles', 'quads']);
    expect(c.reason).toBe('auto: tiles, 0.84 ms vs quads 4.07 ms measured on this adapter (GPU timestamps, 60,000 splats)');
    // What was measured and at what size, so the note is not read against the HUD's figures of another (issue 34).
    expect(chooseDraw([{ name: 'quads', ms: [1137] }, { name: 'tiles', ms: [2400] }], 10_000, 'wall clock of whole frames run alone, submit to done', '480x360')!.reason).toBe(
      'auto: quads, 1,137 ms vs tiles 2,400 ms measured on this adapter (wall clock of whole frames run alone, submit to done, 10,000 splats at 480x360 px)',
    );
  });

  it('quads when quads measure faster; tiles on a tie; null without a finite time', () => {
    expect(chooseDraw([{ name: 'tiles', ms: [9] }, { name: 'quads', ms: [3] }])!.name).toBe('quads');
    expect(chooseDraw([{ name: 'quads', ms: [3] }, { name: 'tiles', ms: [3] }])!.name).toBe('tiles');
    expect(chooseDraw([{ name: 'tiles', ms: [NaN] }, { name: 'quads', ms: [] }])).toBeNull();
    // One draw measured (the other failed): it is the pick, with nothing to compare.
    expect(chooseDraw([{ name: 'quads', ms: [2] }, { name: 'tiles', ms: [] }])!.reason).toBe('auto: quads, 2 ms measured on this adapter');
  });
});

describe('the draw for a setting', () => {
  const measured = chooseDraw([{ name: 'quads', ms: [1] }, { name: 'tiles', ms: [2] }]);

  it('an explicit choice wins over a measured pick, and says where it came from', () => {
    expect(decideDraw('quads', 'link', gpuSort, chooseDraw([{ name: 'tiles', ms: [1] }, { name: 'quads', ms: [5] }]))).toEqual({
      draw: 'quads',
      note: 'quads: chosen by the link (?draw=)',
      measure: false,
    });
    expect(decideDraw('tiles', 'saved', gpuSort, measured)).toEqual({ draw: 'tiles', note: 'tiles: your choice (remembered; pick auto to measure and choose)', measure: false });
  });

  it('auto starts with tiles and measures; a measured pick is reused without a new trial', () => {
    const start = decideDraw('auto', 'default', gpuSort);
    expect(start.draw).toBe('tiles');
    expect(start.measure).toBe(true);
    expect(start.note).toMatch(/^auto: tiles until measured/);
    expect(decideDraw('auto', 'panel', gpuSort, measured)).toEqual({ draw: 'quads', note: measured!.reason, measure: false });
  });

  it("before a size is measured: the nearest measured size's pick, else quads on a software adapter, else tiles; measured still", () => {
    const near = { count: 11_585, value: chooseDraw([{ name: 'tiles', ms: [1] }, { name: 'quads', ms: [3] }], 10_000)! };
    expect(drawPrior(near, true)).toEqual({ draw: 'tiles', why: 'measured the faster at 10,000 splats on this adapter' });
    // A pick stored by an older build (no count): its size bucket's, rounded.
    const { splats: _, ...old } = near.value;
    expect(drawPrior({ count: 11_585, value: old }, true)?.why).toBe('measured the faster at ~12,000 splats on this adapter');
    expect(drawPrior(undefined, true)).toEqual({ draw: 'quads', why: 'the faster on software GPUs' });
    expect(drawPrior(undefined, false)).toBeNull();
    expect(decideDraw('auto', 'default', gpuSort, null, drawPrior(undefined, true))).toEqual({
      draw: 'quads',
      note: 'auto: quads until measured (the faster on software GPUs); measuring both draws once the scene is on screen',
      measure: true,
    });
    // This size's own pick wins over a prior; an explicit draw and a host sort over both.
    expect(decideDraw('auto', 'panel', gpuSort, chooseDraw([{ name: 'tiles', ms: [1] }]), drawPrior(undefined, true)).draw).toBe('tiles');
    expect(decideDraw('tiles', 'link', gpuSort, null, drawPrior(undefined, true)).draw).toBe('tiles');
    expect(decideDraw('auto', 'default', hostSort, null, drawPrior(near, false)).draw).toBe('quads');
    expect(decideDraw('auto', 'default', hostSort, null, drawPrior(near, false)).measure).toBe(false);
  });

  it('a decisive pick (faster < 0.5x the slower) is reused for a similar size on this adapter, without a trial (issue 34)', () => {
    const decisive = { count: 55_000, value: chooseDraw([{ name: 'tiles', ms: [0.84] }, { name: 'quads', ms: [4.07] }], 60_000)! };
    const reused = reusableDraw(decisive, 100_000)!;
    expect(reused.name).toBe('tiles');
    expect(reused.reason).toBe('auto: tiles (measured at 60,000 splats on this adapter: 0.84 ms vs quads 4.07 ms; decisive, so not measured again for 100,000 splats)');
    expect(decideDraw('auto', 'default', gpuSort, reused, drawPrior(decisive, false))).toEqual({ draw: 'tiles', note: reused.reason, measure: false });
    // Similar size: within 4x either way.
    expect(reusableDraw(decisive, 15_000)?.name).toBe('tiles');
    expect(reusableDraw(decisive, 14_000)).toBeNull();
    expect(reusableDraw(decisive, 240_000)?.name).toBe('tiles');
    expect(reusableDraw(decisive, 250_000)).toBeNull();
    // Close (0.6x): measured again; one draw only, nothing measured: no reuse.
    const close = { count: 55_000, value: chooseDraw([{ name: 'quads', ms: [3] }, { name: 'tiles', ms: [5] }], 60_000)! };
    expect(reusableDraw(close, 70_000)).toBeNull();
    expect(reusableDraw({ count: 55_000, value: chooseDraw([{ name: 'tiles', ms: [1] }], 60_000)! }, 60_000)).toBeNull();
    expect(reusableDraw(undefined, 60_000)).toBeNull();
    // A pick of an older build (no count): its bucket's size.
    const { splats: _, ...old } = decisive.value;
    expect(reusableDraw({ count: 55_000, value: old }, 60_000)?.reason).toMatch(/^auto: tiles \(measured at 55,000 splats on this adapter/);
  });

  it('a host sort (cpu): auto draws quads and says why; an explicit tiles falls back to quads', () => {
    expect(decideDraw('auto', 'default', hostSort)).toEqual({
      draw: 'quads',
      note: 'auto: quads, as the cpu sort runs on the host and tiles needs a GPU sort',
      measure: false,
    });
    expect(decideDraw('tiles', 'panel', hostSort).draw).toBe('quads');
  });

  it('recognises the setting values (saved or from the URL)', () => {
    expect(['auto', 'quads', 'tiles', 'dots', 3].map(isDrawSetting)).toEqual([true, true, true, false, false]);
  });
});

/** A frame's time: fixed, or of its share of the target's pixels (1 on screen, 0 outside the view), the frame and its id. */
type FrameTime = number | undefined | ((area: number, frame: TrialFrame, frameId: number) => number);

/**
 * Runs a trial with fake frame times: wall ms by draw, GPU ms by draw (undefined: timestamps read 0).
 * `lateReadings`: a timed frame's GPU reading comes at the page's next frame, not at once.
 */
function runTrial(
  trial: DrawTrial,
  wall: Record<string, FrameTime>,
  gpu: Record<string, FrameTime>,
  target = { width: 1280, height: 720 },
  /** The wait for the next animation frame after each frame (the page's clock: DrawTrial's page frame). */
  rafMs = 0,
  lateReadings = false,
) {
  let clock = 0;
  const frames: (TrialFrame & { id: number; page?: boolean })[] = [];
  const pending: [number, number | undefined][] = [];
  const at = (v: FrameTime, f: TrialFrame, frameId: number) =>
    typeof v === 'function' ? v(!f.window ? 1 : f.window.x >= target.width ? 0 : (f.window.width * f.window.height) / (target.width * target.height), f, frameId) : v;
  const readings = () => {
    for (const [frameId, ms] of pending.splice(0)) trial.reported(frameId, ms);
  };
  let id = 100;
  for (let guard = 0; guard < 400; guard++) {
    const f = trial.next();
    if (f === null) break;
    expect(f).not.toBe('wait');
    if (f === 'wait') break;
    const frameId = id++;
    if (f === 'page') {
      // The page's own frame (not the trial's): the readings of the frames before it come in.
      frames.push({ draw: 'quads', timed: false, id: frameId, page: true });
      clock += (typeof wall.quads === 'number' ? wall.quads : 0) + rafMs;
      readings();
      continue;
    }
    trial.submitted(f, frameId);
    frames.push({ ...f, id: frameId });
    if (f.timed) expect(trial.next()).toBe('wait'); // a timed frame runs alone
    // Every frame ran alone here: its time is kept (DrawTrial.frames), a timed frame's measured.
    const ms = at(wall[f.draw], f, frameId)!;
    clock += ms;
    trial.completed(frameId, ms, clock);
    clock += rafMs;
    pending.push([frameId, f.timed ? at(gpu[f.draw], f, frameId) : 1]);
    if (!lateReadings) readings();
  }
  readings();
  return frames;
}

describe('the draw trial (a plan of the page frames)', () => {
  it('warms up, times each draw alone, the draw on screen first, and reads GPU timestamps where they are non-zero', () => {
    const trial = new DrawTrial(['quads', 'tiles'], 'tiles');
    const frames = runTrial(trial, { tiles: 1.2, quads: 3 }, { tiles: 0.84, quads: 4.07 });
    expect(trial.draws).toEqual(['tiles', 'quads']);
    const seq = frames.map((f) => `${f.draw}${f.timed ? '*' : ''}`);
    // tiles: 1 warm-up (already on screen), 5 timed (< 20 ms); quads: 3 warm-up, then 5 timed (not 3x slower by the wall clock).
    expect(seq).toEqual(['tiles', ...Array(5).fill('tiles*'), 'quads', 'quads', 'quads', ...Array(5).fill('quads*')]);
    expect(trial.reportsIn).toBe(true);
    const r = trial.result();
    expect(r.method).toBe('GPU timestamps of whole frames');
    expect(chooseDraw(r.timings)!.reason).toBe('auto: tiles, 0.84 ms vs quads 4.07 ms measured on this adapter');
  });

  it('timestamps that read 0 (SwiftShader): the wall clock of the lone frames; a draw 3x slower stops after one frame', () => {
    const trial = new DrawTrial(['quads', 'tiles'], 'tiles');
    const frames = runTrial(trial, { tiles: 400, quads: 1500 }, { tiles: undefined, quads: undefined });
    expect(frames.filter((f) => f.timed).map((f) => f.draw)).toEqual(['tiles', 'quads']); // 400 ms: 1 rep; quads > 3x: 1
    const r = trial.result();
    expect(r.method).toBe('wall clock of whole frames run alone, submit to done');
    expect(r.timings).toEqual([
      { name: 'tiles', ms: [400] },
      { name: 'quads', ms: [1500] },
    ]);
  });

  it('a draw over 2x slower than the best stops after its first timed frame (issue 34); under 2x it is timed in full', () => {
    const slow = new DrawTrial(['quads', 'tiles'], 'tiles');
    const frames = runTrial(slow, { tiles: 100, quads: 250 }, { tiles: undefined, quads: undefined });
    expect(frames.filter((f) => f.timed).map((f) => f.draw)).toEqual(['tiles', 'tiles', 'tiles', 'quads']);
    const close = new DrawTrial(['quads', 'tiles'], 'tiles');
    const all = runTrial(close, { tiles: 100, quads: 150 }, { tiles: undefined, quads: undefined });
    expect(all.filter((f) => f.timed && f.draw === 'quads')).toHaveLength(3);
  });

  it('waits for the GPU readings of the timed frames', () => {
    const trial = new DrawTrial(['tiles'], 'tiles', { reps: 2 });
    const f = trial.next() as TrialFrame;
    trial.submitted(f, 1); // warm-up
    const t = trial.next() as TrialFrame;
    expect(t.timed).toBe(true);
    trial.submitted(t, 2);
    trial.completed(2, 10);
    trial.submitted(trial.next() as TrialFrame, 3);
    trial.completed(3, 11);
    expect(trial.next()).toBeNull();
    expect(trial.reportsIn).toBe(false);
    trial.reported(1, 5); // not a timed frame
    trial.reported(2, 9);
    expect(trial.reportsIn).toBe(false);
    trial.reported(3, 0); // read 0: no usable GPU time
    expect(trial.reportsIn).toBe(true);
    expect(trial.result()).toEqual({ timings: [{ name: 'tiles', ms: [10, 11] }], method: 'wall clock of whole frames run alone, submit to done' });
  });

  it('probes the draw not on screen in windows of the view first, between the page frames, and draws it at full size when estimated within the page frame (issue 34: no trial frame over 2x it)', () => {
    // Fast adapter: quads on screen 4 ms a frame (the page's frame is a 60 Hz display's then); tiles 0.5 ms + 2 ms over the view.
    const fast = new DrawTrial(['quads', 'tiles'], 'quads', { size: { width: 1280, height: 720 } });
    const frames = runTrial(fast, { quads: 4, tiles: (a) => 0.5 + 2 * a }, { quads: undefined, tiles: undefined });
    const windows = frames.filter((f) => f.window);
    // Two warm-up frames, the window outside the view twice, then one window in each cell of a 4x4 grid, a quadrant each
    // first: estimated 2.5 ms, drawn at full size.
    expect(windows.slice(0, 8).map((f) => `${f.window!.x},${f.window!.y}${f.timed ? '*' : ''}`)).toEqual(['400,225', '400,225', '1440,0*', '1440,0*', '400,225*', '1040,585*', '1040,225*', '400,585*']);
    expect(windows).toHaveLength(20);
    expect(windows.every((f) => f.window!.width === 160 && f.window!.height === 90)).toBe(true);
    // The page's own frames come between the probes, once theirs since the last would pass half a page frame.
    let since = 0;
    for (const f of frames) {
      if (f.page) since = 0;
      else if (f.window) since += 0.5 + 2 * (f.window.x >= 1280 ? 0 : 1 / 64);
      expect(since).toBeLessThanOrEqual(fast.frames.pageMs);
    }
    expect(frames.filter((f) => f.page).length).toBeGreaterThanOrEqual(1);
    // Then tiles at full size, on screen, timed as before: measured, not estimated.
    expect(frames.filter((f) => !f.window && !f.page && f.draw === 'tiles').length).toBeGreaterThan(3);
    const r = fast.result();
    expect(r.timings.find((t) => t.name === 'tiles')).toEqual({ name: 'tiles', ms: [2.5, 2.5, 2.5, 2.5, 2.5] });
    expect(chooseDraw(r.timings)!.name).toBe('tiles');
  });

  it("a draw estimated over 2x the page's frame is never drawn at full size: its figure is the estimate, said so", () => {
    // SwiftShader at 1280x720 (this machine): quads ~90 ms a frame; tiles ~20 ms + ~3,500 ms over the view's pixels.
    const tiles = (a: number) => 20 + 3500 * a;
    const trial = new DrawTrial(['quads', 'tiles'], 'quads', { size: { width: 1280, height: 720 } });
    const frames = runTrial(trial, { quads: 90, tiles }, { quads: undefined, tiles: undefined });
    // No tiles frame on screen; every window far within the page's frame.
    expect(frames.filter((f) => f.draw === 'tiles' && !f.window && !f.page)).toEqual([]);
    // The quadrants' four windows (160x90) estimate over the page's frame, less their error: no more. Each window in the view (74.7 ms)
    // with the next would pass half the page's frame: the page's own frame after each; the two outside it (20 ms) together.
    const seq = frames.map((f) => (f.page ? 'P' : f.window ? (f.timed ? 'W' : 'w') : f.timed ? 'F' : 'f')).join('');
    expect(seq).toBe(`fFFFwPwPWWP${'WP'.repeat(4)}`);
    const r = trial.result();
    const t = r.timings.find((x) => x.name === 'tiles')!;
    // The window outside the view costs 20 ms (a window's share: 20 + 3500 / 256, scaled back to 3,500 over the view).
    expect(t.ms[0]).toBeCloseTo(3520, 6);
    expect(t.predicted).toBe('estimated from 4 windows of 160x90 px at full resolution, ±0 ms; not drawn whole, so not picked');
    const c = chooseDraw(r.timings, 60_000, r.method, '1280x720')!;
    expect(c.name).toBe('quads');
    expect(c.ranked).toEqual([{ name: 'quads', ms: 90 }, { name: 'tiles', ms: t.ms[0], predicted: true }]);
    expect(c.reason).toBe(
      'auto: quads, 90 ms vs tiles ~3,520 ms (estimated from 4 windows of 160x90 px at full resolution, ±0 ms; not drawn whole, so not picked) measured on this adapter (wall clock of whole frames run alone, submit to done, 60,000 splats at 1280x720 px)',
    );
    // Decisive: reused for a similar size without a trial.
    expect(reusableDraw({ count: 60_000, value: c }, 100_000)?.name).toBe('quads');
    // What the trial says of its frames: the longest is a frame of quads, the page's own (every window is shorter), 2x being the bound.
    expect(trial.frames).toEqual({ count: frames.filter((f) => !f.page).length, longestMs: 90, longest: 'quads', pageMs: 90 });
  });

  it("an estimate within the page's frame whose error is not is left an estimate, never the pick", () => {
    // tiles: 20 ms for the splats in view; windows in the left half of the view add nothing, in the right half 2 ms:
    // 84 ms estimated (under quads' 100), +-33 ms (the spread of 16 windows): not drawn at full size, not picked.
    const tiles = (a: number, f: TrialFrame) => 20 + (a > 0 && f.window!.x >= 640 ? 2 : 0);
    const trial = new DrawTrial(['quads', 'tiles'], 'quads', { size: { width: 1280, height: 720 } });
    const frames = runTrial(trial, { quads: 100, tiles }, { quads: undefined, tiles: undefined });
    expect(frames.filter((f) => f.window && f.timed && f.window.x < 1280)).toHaveLength(16);
    expect(frames.filter((f) => f.draw === 'tiles' && !f.window && !f.page)).toEqual([]);
    const r = trial.result();
    expect(r.timings[1]!.ms[0]).toBeCloseTo(84, 6);
    expect(r.timings[1]!.predicted).toBe('estimated from 16 windows of 160x90 px at full resolution, ±33 ms; not drawn whole, so not picked');
    const c = chooseDraw(r.timings, 60_000, r.method)!;
    expect(c.name).toBe('quads');
    expect(c.ranked).toEqual([{ name: 'quads', ms: 100 }, { name: 'tiles', ms: r.timings[1]!.ms[0], predicted: true }]);
  });

  it("a round is decided on its windows' GPU readings, a few frames late (the page's frames meanwhile): a hiccup of the wall clock does not count", () => {
    const trial = new DrawTrial(['quads', 'tiles'], 'quads', { size: { width: 1280, height: 720 } });
    let hiccups = 0;
    // Every third window in the view: 400 ms by the wall clock (the process was busy), not on the GPU.
    const tilesWall = (area: number, f: TrialFrame, frameId: number) => {
      const hiccup = !!f.window && area > 0 && f.timed && frameId % 3 === 0;
      if (hiccup) hiccups++;
      return hiccup ? 400 : 0.5 + 2 * area + 0.3;
    };
    const frames = runTrial(trial, { quads: 4.3, tiles: tilesWall }, { quads: 4, tiles: (area) => 0.5 + 2 * area }, undefined, 0, true);
    expect(hiccups).toBeGreaterThan(2);
    expect(frames.filter((f) => f.page).length).toBeGreaterThan(0);
    // Estimated 2.5 ms on the GPU readings: drawn and timed at full size.
    expect(trial.result().timings[1]).toEqual({ name: 'tiles', ms: [2.5, 2.5, 2.5, 2.5, 2.5] });
  });

  it("the page's frame is the interval between its frames as presented (their own time and the wait for the next animation frame)", () => {
    // tiles 10 ms + 100 ms over the view vs quads 90 ms with a 40 ms wait: the page's frame is 130 ms, and 110 ms
    // (+-0) is within it: tiles drawn at full size; without the wait (a 90 ms page frame), not.
    const tiles = (a: number) => 10 + 100 * a;
    const waited = new DrawTrial(['quads', 'tiles'], 'quads', { size: { width: 1280, height: 720 } });
    const frames = runTrial(waited, { quads: 90, tiles }, { quads: undefined, tiles: undefined }, undefined, 40);
    expect(waited.frames.pageMs).toBe(130);
    expect(frames.filter((f) => f.draw === 'tiles' && !f.window && f.timed).length).toBeGreaterThan(0);
    const alone = new DrawTrial(['quads', 'tiles'], 'quads', { size: { width: 1280, height: 720 } });
    const without = runTrial(alone, { quads: 90, tiles }, { quads: undefined, tiles: undefined });
    expect(alone.frames.pageMs).toBe(90);
    expect(without.filter((f) => f.draw === 'tiles' && !f.window && f.timed)).toEqual([]);
  });

  it("GPU timestamps where every frame, the windows' too, has one: the estimate from the windows' GPU times", () => {
    const trial = new DrawTrial(['quads', 'tiles'], 'quads', { size: { width: 1280, height: 720 } });
    runTrial(trial, { quads: 90, tiles: (a) => 20 + 3500 * a }, { quads: 80, tiles: (a) => 10 + 3000 * a });
    const r = trial.result();
    expect(r.method).toBe('GPU timestamps of whole frames');
    expect(r.timings[1]!.ms[0]).toBeCloseTo(3010, 6);
  });

  it('no windows on a target under 64 px a side: each draw at full size', () => {
    const trial = new DrawTrial(['quads', 'tiles'], 'quads', { size: { width: 48, height: 48 } });
    const frames = runTrial(trial, { quads: 9, tiles: 30 }, { quads: undefined, tiles: undefined });
    expect(frames.some((f) => f.window)).toBe(false);
  });
});

describe('the windows of the probes', () => {
  it('one at the centre of each cell of a 4x4 grid, a quadrant each first (a cell at most: then they tile the view), or one outside the view', () => {
    const small = probeWindows({ width: 1280, height: 720 }, 1 / 256);
    expect(small).toHaveLength(16);
    // Cells of 320x180: (1,1), (3,3), (3,1), (1,3) first.
    expect(small.slice(0, 4)).toEqual([
      { x: 440, y: 248, width: 80, height: 45 },
      { x: 1080, y: 608, width: 80, height: 45 },
      { x: 1080, y: 248, width: 80, height: 45 },
      { x: 440, y: 608, width: 80, height: 45 },
    ]);
    expect(new Set(small.map((c) => `${Math.floor(c.x / 320)},${Math.floor(c.y / 180)}`)).size).toBe(16);
    const cells = probeWindows({ width: 1280, height: 720 }, 1);
    expect(cells.every((c) => c.width === 320 && c.height === 180 && c.x % 320 === 0 && c.y % 180 === 0)).toBe(true);
    expect(new Set(cells.map((c) => `${c.x},${c.y}`)).size).toBe(16);
    expect(probeWindows({ width: 1280, height: 720 }, 1 / 256, true)).toEqual([{ x: 1360, y: 0, width: 80, height: 45 }]);
  });
});
