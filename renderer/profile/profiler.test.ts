import { describe, expect, it } from 'vitest';
import { STAGE_NAMES, TIMESTAMPS_PER_FRAME } from '../stage/frame-stages';
import type { FrameSample } from './frame-stats';
import { type FrameMeta, GpuProfiler, ProfilerRing, stageTimes } from './profiler';

/** A fake readback: each read is a promise the test resolves or rejects by slot. */
class FakeMapper {
  readonly pending = new Map<number, { resolve: (ts: bigint[]) => void; reject: (e: Error) => void }>();
  reads: number[] = [];
  read = (slot: number): Promise<bigint[]> => {
    if (this.pending.has(slot)) throw new Error(`slot ${slot} read twice while mapping`);
    this.reads.push(slot);
    return new Promise((resolve, reject) => this.pending.set(slot, { resolve, reject }));
  };
  resolve(slot: number, ts: bigint[]): void {
    const p = this.pending.get(slot)!;
    this.pending.delete(slot);
    p.resolve(ts);
  }
  reject(slot: number): void {
    const p = this.pending.get(slot)!;
    this.pending.delete(slot);
    p.reject(new Error('device lost'));
  }
}

/** A clock the test moves by hand. */
function clock() {
  const c = { t: 0, now: () => c.t };
  return c;
}

const tick = () => new Promise((r) => setTimeout(r, 0));

/**
 * A quads frame's 4 timestamps (its start, then the end of project, sort and draw)
 * in their slots of the stage table; the tiles draw's blend unwritten (0).
 */
function quads(ts: bigint[]): bigint[] {
  const out = new Array<bigint>(TIMESTAMPS_PER_FRAME).fill(0n);
  out[0] = ts[0];
  (['project', 'sort', 'draw'] as const).forEach((name, k) => {
    out[1 + STAGE_NAMES.indexOf(name)] = ts[1 + k];
  });
  return out;
}

/** Timestamps (ns) of a frame whose stages take project, sort, draw ms back to back, from `t0` ns. */
function frameTs(project: number, sort: number, draw: number, t0 = 5_000_000_000n): bigint[] {
  const ms = (x: number) => BigInt(Math.round(x * 1e6));
  const t1 = t0 + ms(project);
  const t2 = t1 + ms(sort);
  return quads([t0, t1, t2, t2 + ms(draw)]);
}

function setup(slots: number, gpu = true, maxWaiting?: number) {
  const mapper = new FakeMapper();
  const c = clock();
  const out: Array<{ sample: FrameSample; meta: FrameMeta }> = [];
  const ring = new ProfilerRing({ slots, gpu, read: mapper.read, emit: (sample, meta) => out.push({ sample, meta }), now: c.now, maxWaiting });
  return { mapper, c, out, ring };
}

describe('stageTimes', () => {
  it('turns ns timestamps into stage ms, each from the end of the one before; total spans the start to the draw end', () => {
    const r = stageTimes(quads([1_000_000n, 3_000_000n, 3_500_000n, 10_000_000n]));
    expect(r).toEqual({ outcome: 'measured', times: { project: 2, sort: 0.5, draw: 6.5, total: 9 } });
  });

  it('is exact on large absolute timestamps (differences taken in bigint)', () => {
    const t0 = 1_609_534_029_021n;
    const r = stageTimes(quads([t0, t0 + 1n, t0 + 3n, t0 + 7n]));
    expect(r).toEqual({ outcome: 'measured', times: { project: 1e-6, sort: 2e-6, draw: 4e-6, total: 7e-6 } });
  });

  it('all zero (nothing written) is unwritten; a 0 ns frame is unavailable: no zero or negative garbage', () => {
    expect(stageTimes(quads([0n, 0n, 0n, 0n]))).toEqual({ outcome: 'unwritten' });
    // A start but no stage, or stages without a start: nothing to measure.
    expect(stageTimes(quads([5n, 0n, 0n, 0n]))).toEqual({ outcome: 'unwritten' });
    expect(stageTimes(quads([0n, 5n, 6n, 7n]))).toEqual({ outcome: 'unwritten' });
    expect(stageTimes(quads(new Array(4).fill(77n)))).toEqual({ outcome: 'unavailable' });
  });

  it('a stage that was not written is absent; the next one runs from the end of the one before', () => {
    const r = stageTimes(quads([1_000_000n, 2_000_000n, 0n, 5_000_000n]));
    expect(r).toEqual({ outcome: 'measured', times: { project: 1, draw: 3, total: 4 } });
    // Only draw written (a host sort): the draw is the whole frame.
    expect(stageTimes(quads([4_000_000n, 0n, 0n, 5_500_000n]))).toEqual({ outcome: 'measured', times: { draw: 1.5, total: 1.5 } });
  });

  it('a stage of 0 ns inside a frame that took time is a real 0', () => {
    const r = stageTimes(quads([1_000_000n, 2_000_000n, 2_000_000n, 3_000_000n]));
    expect(r).toEqual({ outcome: 'measured', times: { project: 1, sort: 0, draw: 1, total: 2 } });
  });

  it('discards a frame where a stage ends before the one before it (or before the start)', () => {
    expect(stageTimes(quads([1_000_000n, 2_000_000n, 5_000_000n, 4_000_000n]))).toEqual({ outcome: 'discarded' });
    // The clock reset between the start and the first stage.
    expect(stageTimes(quads([9_000_000n, 1_000_000n, 1_200_000n, 1_400_000n]))).toEqual({ outcome: 'discarded' });
  });

  it('rejects fewer timestamps than the table has', () => {
    expect(() => stageTimes([1n, 2n])).toThrow(RangeError);
  });
});

describe('ProfilerRing', () => {
  it('walks a slot free -> recording -> encoded -> mapping -> free and reports stage and CPU ms', async () => {
    const { mapper, c, out, ring } = setup(4);
    c.t = 100;
    const slot = ring.begin()!;
    expect(slot).toBe(0);
    expect(ring.state(0)).toBe('recording');
    expect(ring.end()).toBe(0);
    expect(ring.state(0)).toBe('encoded');
    c.t = 102.5;
    ring.submitted();
    expect(ring.state(0)).toBe('mapping');
    expect(mapper.reads).toEqual([0]);
    expect(out).toEqual([]);
    mapper.resolve(0, frameTs(1, 2, 3));
    await tick();
    expect(ring.state(0)).toBe('free');
    expect(ring.busy).toBe(0);
    expect(out).toHaveLength(1);
    const { sample, meta } = out[0];
    expect(meta).toEqual({ frame: 0, slot: 0, gpu: 'measured' });
    expect(sample.cpuMs).toBe(2.5);
    expect(sample.frameMs).toBeNaN(); // no previous frame
    expect(sample.project).toBeCloseTo(1, 12);
    expect(sample.sort).toBeCloseTo(2, 12);
    expect(sample.draw).toBeCloseTo(3, 12);
    expect(sample.total).toBeCloseTo(6, 12);
  });

  it('frame-to-frame ms is the time between begin() calls; cpu timings can be given', async () => {
    const { c, out, ring } = setup(2, false);
    c.t = 10;
    ring.begin();
    c.t = 11;
    ring.submitted();
    c.t = 26.5;
    ring.begin();
    c.t = 30;
    ring.submitted();
    ring.begin();
    ring.submitted({ cpuMs: 7, frameMs: 8 });
    expect(out.map((o) => o.sample)).toEqual([
      { cpuMs: 1, frameMs: NaN },
      { cpuMs: 3.5, frameMs: 16.5 },
      { cpuMs: 7, frameMs: 8 },
    ]);
  });

  it('without GPU timing: no slots, every frame reported at once with CPU timings only', () => {
    const { mapper, out, ring } = setup(4, false);
    for (let i = 0; i < 3; i++) {
      expect(ring.begin()).toBeUndefined();
      expect(ring.end()).toBeUndefined();
      ring.submitted();
    }
    expect(mapper.reads).toEqual([]);
    expect(out.map((o) => o.meta)).toEqual([0, 1, 2].map((frame) => ({ frame, slot: undefined, gpu: 'unmeasured' })));
    expect(out.every((o) => o.sample.total === undefined && !('project' in o.sample))).toBe(true);
  });

  it('when every slot is in flight the frame goes unmeasured instead of waiting', async () => {
    const { mapper, out, ring } = setup(2);
    const frame = () => {
      const s = ring.begin();
      ring.end();
      ring.submitted();
      return s;
    };
    expect(frame()).toBe(0);
    expect(frame()).toBe(1);
    expect(frame()).toBeUndefined();
    expect(frame()).toBeUndefined();
    expect(out).toEqual([]); // frames 2 and 3 wait behind 0 and 1 so that reports stay in order
    mapper.resolve(1, frameTs(1, 1, 1));
    await tick();
    expect(out).toEqual([]);
    expect(ring.state(1)).toBe('free');
    mapper.resolve(0, frameTs(2, 2, 2));
    await tick();
    expect(out.map((o) => [o.meta.frame, o.meta.gpu, o.meta.slot])).toEqual([
      [0, 'measured', 0],
      [1, 'measured', 1],
      [2, 'unmeasured', undefined],
      [3, 'unmeasured', undefined],
    ]);
    expect(out[0].sample.total).toBeCloseTo(6, 9);
    expect(out[1].sample.total).toBeCloseTo(3, 9);
    // Round robin: the next frame takes slot 0 again (after 1 was handed out last).
    expect(frame()).toBe(0);
  });

  it('never hands out a busy slot under a random schedule of frames and readbacks', async () => {
    const { mapper, out, ring } = setup(3);
    let seed = 12345;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const inFlight = new Set<number>();
    let settled = 0;
    let submitted = 0;
    for (let f = 0; f < 300; f++) {
      const slot = ring.begin();
      if (slot !== undefined) {
        expect(inFlight.has(slot)).toBe(false);
        inFlight.add(slot);
      }
      // Sometimes a frame is dropped before its submit (e.g. an exception while encoding).
      if (rand() < 0.1) {
        if (slot !== undefined) inFlight.delete(slot);
        continue;
      }
      ring.end();
      ring.submitted();
      submitted++;
      for (const s of [...mapper.pending.keys()]) {
        if (rand() < 0.4) {
          if (rand() < 0.1) mapper.reject(s);
          else mapper.resolve(s, frameTs(1, 1, 1));
          await tick();
          inFlight.delete(s);
          settled++;
        }
      }
      expect(ring.busy).toBe(inFlight.size);
    }
    for (const s of [...mapper.pending.keys()]) mapper.resolve(s, frameTs(1, 1, 1));
    await tick();
    expect(ring.busy).toBe(0);
    expect(out).toHaveLength(submitted);
    expect(out.map((o) => o.meta.frame)).toEqual([...Array(submitted).keys()]);
    expect(settled).toBeGreaterThan(50);
  });

  it('a rejected readback (device lost, destroyed) frees the slot silently; CPU timings still reported', async () => {
    const { mapper, out, ring } = setup(1);
    ring.begin();
    ring.end();
    ring.submitted();
    mapper.reject(0);
    await tick();
    expect(ring.state(0)).toBe('free');
    expect(out.map((o) => o.meta.gpu)).toEqual(['failed']);
    expect(out[0].sample.total).toBeUndefined();
    expect(ring.begin()).toBe(0);
  });

  it('a reader that throws synchronously counts as a failed readback', async () => {
    const out: FrameMeta[] = [];
    const ring = new ProfilerRing({
      slots: 1,
      gpu: true,
      read: () => {
        throw new Error('mapAsync on a destroyed buffer');
      },
      emit: (_s, m) => out.push(m),
    });
    ring.begin();
    ring.end();
    ring.submitted();
    await tick();
    expect(out.map((m) => m.gpu)).toEqual(['failed']);
    expect(ring.state(0)).toBe('free');
  });

  it('0-elapsed and unwritten readings come out without GPU fields', async () => {
    const { mapper, out, ring } = setup(2);
    for (let i = 0; i < 2; i++) {
      ring.begin();
      ring.end();
      ring.submitted();
    }
    mapper.resolve(0, quads(new Array(6).fill(123n)));
    mapper.resolve(1, quads(new Array(6).fill(0n)));
    await tick();
    expect(out.map((o) => o.meta.gpu)).toEqual(['unavailable', 'unwritten']);
    for (const { sample } of out) expect(Object.keys(sample).sort()).toEqual(['cpuMs', 'frameMs']);
  });

  it('a frame begun again before submit gives its slot back', () => {
    const { mapper, out, ring } = setup(2);
    expect(ring.begin()).toBe(0);
    expect(ring.begin()).toBe(1); // frame abandoned while recording: slot 0 free again
    expect(ring.state(0)).toBe('free');
    ring.end();
    expect(ring.begin()).toBe(0); // abandoned after end() (encoded, never submitted)
    expect(ring.state(1)).toBe('free');
    expect(mapper.reads).toEqual([]);
    expect(out).toEqual([]);
  });

  it('submitted() without end() frees the slot: nothing was resolved into it', () => {
    const { mapper, out, ring } = setup(1);
    ring.begin();
    ring.submitted();
    expect(ring.state(0)).toBe('free');
    expect(mapper.reads).toEqual([]);
    expect(out.map((o) => o.meta)).toEqual([{ frame: 0, slot: undefined, gpu: 'unmeasured' }]);
  });

  it('submitted() with no frame open does nothing', () => {
    const { out, ring } = setup(1);
    ring.submitted();
    expect(out).toEqual([]);
  });

  it('gives a readback that never resolves up as late once too many frames wait behind it', async () => {
    const { mapper, out, ring } = setup(1, true, 3);
    for (let i = 0; i < 4; i++) {
      ring.begin();
      ring.end();
      ring.submitted();
    }
    expect(out.map((o) => [o.meta.frame, o.meta.gpu])).toEqual([
      [0, 'late'],
      [1, 'unmeasured'],
      [2, 'unmeasured'],
      [3, 'unmeasured'],
    ]);
    expect(ring.state(0)).toBe('mapping'); // still mapped: must not be handed out
    expect(ring.begin()).toBeUndefined();
    ring.submitted();
    mapper.resolve(0, frameTs(1, 1, 1));
    await tick();
    expect(ring.state(0)).toBe('free');
    expect(out).toHaveLength(5); // frame 0 is not reported twice
  });

  it('after destroy() nothing is reported, even when readbacks settle', async () => {
    const { mapper, out, ring } = setup(2);
    ring.begin();
    ring.end();
    ring.submitted();
    ring.destroy();
    mapper.resolve(0, frameTs(1, 1, 1));
    await tick();
    expect(ring.begin()).toBeUndefined();
    ring.submitted();
    expect(out).toEqual([]);
  });

  it('rejects a slot count that is not a positive integer', () => {
    expect(() => setup(0)).toThrow(RangeError);
  });
});

describe('GpuProfiler without timestamp-query', () => {
  it('reports CPU timings only and says why', () => {
    let t = 0;
    const device = { features: new Set<string>(), lost: new Promise(() => {}) } as unknown as GPUDevice;
    const seen: FrameMeta[] = [];
    const profiler = new GpuProfiler(device, { now: () => t, onFrame: (_s, m) => seen.push(m) });
    expect(profiler.supported).toBe(false);
    expect(profiler.reason).toBe('timestamp-query not available on this adapter');
    for (let i = 0; i < 3; i++) {
      t = 16 * i;
      expect(profiler.begin()).toBeUndefined();
      profiler.end({} as GPUCommandEncoder); // encodes nothing
      t += 2;
      profiler.submitted();
    }
    expect(profiler.stats.samples()).toEqual([
      { cpuMs: 2, frameMs: NaN },
      { cpuMs: 2, frameMs: 16 },
      { cpuMs: 2, frameMs: 16 },
    ]);
    expect(seen.map((m) => m.gpu)).toEqual(['unmeasured', 'unmeasured', 'unmeasured']);
    expect(profiler.inFlight).toBe(0);
    profiler.destroy();
    expect(profiler.begin()).toBeUndefined();
  });
});
