import { describe, expect, it } from 'vitest';
import { chooseDraw, decideDraw, drawPrior, DrawTrial, isDrawSetting, reusableDraw, type TrialFrame } from './auto-draw';

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

/** Runs a trial with fake frame times: wall ms by draw, GPU ms by draw (undefined: timestamps read 0). */
function runTrial(trial: DrawTrial, wall: Record<string, number>, gpu: Record<string, number | undefined>) {
  const frames: (TrialFrame & { id: number })[] = [];
  let id = 100;
  for (let guard = 0; guard < 100; guard++) {
    const f = trial.next();
    if (f === null) break;
    expect(f).not.toBe('wait');
    if (f === 'wait') break;
    const frameId = id++;
    trial.submitted(f, frameId);
    frames.push({ ...f, id: frameId });
    if (f.timed) {
      expect(trial.next()).toBe('wait'); // a timed frame runs alone
      trial.completed(frameId, wall[f.draw]);
    }
    trial.reported(frameId, f.timed ? gpu[f.draw] : 1);
  }
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
});
