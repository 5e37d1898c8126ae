/**
 * Per-stage GPU timing of frames with timestamp queries, read back without ever
 * stalling a frame, plus the CPU frame timings that are always available.
 *
 * Two layers:
 * - {@link ProfilerRing}: the pure part. A ring of slots, each going
 *     free -> recording (begin) -> encoded (end) -> mapping (submitted) -> free
 *   (when the readback resolves or fails), frames reported in the order they were
 *   submitted, timestamps turned into stage times by {@link stageTimes}. It knows
 *   no GPU: reading a slot back is a function it is given, so it runs in unit
 *   tests with a fake one.
 * - {@link GpuProfiler}: the thin GPU part. One query set of slots *
 *   TIMESTAMPS_PER_FRAME timestamps (the stage table, pipeline/frame-stages.ts), one resolve buffer, one mappable readback buffer per slot.
 *
 * A frame that finds every slot still in flight goes unmeasured on the GPU (its
 * CPU timings are still reported): waiting for a slot would stall the frame on a
 * readback, which is what the ring exists to avoid.
 */
import type { FrameSample } from './frame-stats';
import { FrameStats } from './frame-stats';
import { STAGE_NAMES, TIMESTAMPS_PER_FRAME, writtenOnly, type FrameTimestamps, type StageName } from '../stage/frame-stages';

export { TIMESTAMPS_PER_FRAME } from '../stage/frame-stages';

/** Where a slot is in its life. */
export type SlotState = 'free' | 'recording' | 'encoded' | 'mapping';

/**
 * What became of a frame's GPU timing:
 * - `measured`: stage times present (a stage whose queries were not written is absent);
 * - `unmeasured`: no slot was free, timestamps are not supported, or the frame
 *   never encoded its resolve (`end()` not called);
 * - `unwritten`: the slot was resolved but no stage wrote its timestamps (all 0,
 *   e.g. a frame with no scene);
 * - `unavailable`: the timestamps were written but read 0 elapsed over the frame
 *   (SwiftShader in the browser, or a clock too coarse for the work);
 * - `discarded`: a stage ended before it began (the GPU clock jumped);
 * - `failed`: the readback was rejected (device lost, profiler destroyed);
 * - `late`: given up after too many later frames were waiting on it (its
 *   readback never resolved); reported with CPU timings only.
 */
export type GpuOutcome = 'measured' | 'unmeasured' | 'unwritten' | 'unavailable' | 'discarded' | 'failed' | 'late';

/** What accompanies each reported frame. */
export interface FrameMeta {
  /** Sequence number of the frame among the submitted frames, from 0. */
  frame: number;
  /** The slot the frame was measured with, if it had one. */
  slot: number | undefined;
  gpu: GpuOutcome;
}

/** CPU timings of one frame, in ms (NaN where unknown). */
export interface CpuTimings {
  cpuMs: number;
  frameMs: number;
}

/** GPU stage times of one frame, in ms: one per stage of the table that was written. */
export type StageTimes = Partial<Record<StageName, number>> & {
  /** From the frame's start to the end of its last stage: the sum of the stages. */
  total: number;
};

/** The reading of a frame's TIMESTAMPS_PER_FRAME resolved timestamps (ns). */
export type StageReading = { outcome: 'measured'; times: StageTimes } | { outcome: 'unwritten' | 'unavailable' | 'discarded' };

/**
 * Turns a frame's resolved timestamps (ns; the frame's start, then the end of each
 * stage of the table, in table order: pipeline/frame-stages.ts) into stage times in
 * ms: a stage runs from the end of the written stage before it (or the frame's
 * start) to its own end, so the stages add up to the total.
 *
 * A query that was not written reads 0 (readers mask an older frame's values with
 * writtenOnly), so a stage with a 0 end is absent (not a huge or negative time).
 * The frame is `unwritten` without a start or any stage, `unavailable` when its
 * stages span 0 ns (nothing real takes 0 ns: the clock is not usable), `discarded`
 * when a stage ends before the one before it.
 */
export function stageTimes(ts: ArrayLike<bigint>): StageReading {
  if (ts.length < TIMESTAMPS_PER_FRAME) throw new RangeError(`stageTimes: need ${TIMESTAMPS_PER_FRAME} timestamps, got ${ts.length}`);
  const start = ts[0];
  if (start === 0n) return { outcome: 'unwritten' };
  const times: Partial<Record<StageName, number>> = {};
  let last = start;
  let stages = 0;
  for (let i = 0; i < STAGE_NAMES.length; i++) {
    const end = ts[1 + i];
    if (end === 0n) continue;
    if (end < last) return { outcome: 'discarded' };
    times[STAGE_NAMES[i]] = nsToMs(end - last);
    last = end;
    stages++;
  }
  if (stages === 0) return { outcome: 'unwritten' };
  if (last === start) return { outcome: 'unavailable' };
  return { outcome: 'measured', times: { ...times, total: nsToMs(last - start) } };
}

/** Exact difference in bigint first: a Number cannot hold ns timestamps to the ns. */
function nsToMs(ns: bigint): number {
  return Number(ns) / 1e6;
}

/**
 * Reads a slot's resolved timestamps back: maps its readback buffer, copies the
 * values out and unmaps. Rejects when the device is lost or the buffer destroyed.
 */
export type SlotReader = (slot: number) => Promise<ArrayLike<bigint>>;

/** Options of {@link ProfilerRing}. */
export interface ProfilerRingOptions {
  /** Number of slots: frames that may be in flight at once. */
  slots: number;
  /** Whether frames get slots at all (false: CPU timings only). */
  gpu: boolean;
  read: SlotReader;
  /** Receives each frame, in submission order. Called synchronously from submitted() or from a readback's resolution. */
  emit: (sample: FrameSample, meta: FrameMeta) => void;
  /** Clock in ms (default performance.now). */
  now?: () => number;
  /**
   * Frames that may wait behind an unfinished readback before it is given up as
   * `late` (default 120, about 2 s at 60 Hz), so a readback that never resolves
   * cannot hold reporting up forever.
   */
  maxWaiting?: number;
}

/** A submitted frame waiting to be reported. */
interface Pending {
  frame: number;
  slot: number | undefined;
  cpu: CpuTimings;
  gpu: GpuOutcome | undefined;
  times: StageTimes | undefined;
}

/** The frame between begin() and submitted(). */
interface Open {
  start: number;
  frameMs: number;
  slot: number | undefined;
}

/**
 * The slot state machine and frame bookkeeping of the profiler, without a GPU.
 *
 * Per frame: `begin()` (start of the frame's CPU work) -> `end()` (after the
 * frame's commands, before finish) -> queue.submit -> `submitted()`. A begin()
 * while a frame is still open abandons that frame: its slot goes back to free,
 * which is safe because a slot that is not mapping holds nothing the GPU or CPU
 * still needs.
 */
export class ProfilerRing {
  readonly slots: number;
  private readonly states: SlotState[];
  private readonly opts: ProfilerRingOptions;
  private readonly now: () => number;
  private readonly maxWaiting: number;
  private gpu: boolean;
  private nextSlot = 0;
  private frameSeq = 0;
  private lastStart: number | undefined;
  private open: Open | undefined;
  private readonly queue: Pending[] = [];
  private destroyed = false;

  constructor(opts: ProfilerRingOptions) {
    if (!Number.isInteger(opts.slots) || opts.slots < 1) throw new RangeError(`ProfilerRing: slots must be a positive integer, got ${opts.slots}`);
    this.opts = opts;
    this.slots = opts.slots;
    this.gpu = opts.gpu;
    this.now = opts.now ?? (() => performance.now());
    this.maxWaiting = opts.maxWaiting ?? 120;
    this.states = new Array<SlotState>(opts.slots).fill('free');
  }

  /** The state of slot `i`. */
  state(i: number): SlotState {
    return this.states[i];
  }

  /** Slots that are not free. */
  get busy(): number {
    return this.states.reduce((n, s) => n + (s === 'free' ? 0 : 1), 0);
  }

  /** Stops handing out slots (e.g. after device loss); frames go on with CPU timings. */
  disableGpu(): void {
    this.gpu = false;
  }

  /**
   * Starts a frame: records its CPU start and takes the next free slot, if any.
   * Returns the slot, or undefined when the frame goes unmeasured on the GPU.
   */
  begin(): number | undefined {
    if (this.destroyed) return undefined;
    this.abandonOpen();
    const start = this.now();
    const frameMs = this.lastStart === undefined ? NaN : start - this.lastStart;
    this.lastStart = start;
    let slot: number | undefined;
    if (this.gpu) {
      // Round robin from the slot after the last one handed out: the oldest slot is
      // the one most likely to have finished its readback.
      for (let k = 0; k < this.slots; k++) {
        const i = (this.nextSlot + k) % this.slots;
        if (this.states[i] === 'free') {
          slot = i;
          this.states[i] = 'recording';
          this.nextSlot = (i + 1) % this.slots;
          break;
        }
      }
    }
    this.open = { start, frameMs, slot };
    return slot;
  }

  /** The open frame's commands are complete: returns the slot whose resolve must now be encoded, if any. */
  end(): number | undefined {
    const slot = this.open?.slot;
    if (slot === undefined || this.states[slot] !== 'recording') return undefined;
    this.states[slot] = 'encoded';
    return slot;
  }

  /**
   * The open frame was submitted: starts its slot's readback and queues the frame
   * for reporting. `cpu` overrides the ring's own CPU timings (begin() to now,
   * and begin() to the previous begin()).
   */
  submitted(cpu?: CpuTimings): void {
    const open = this.open;
    if (!open || this.destroyed) return;
    this.open = undefined;
    const timings = cpu ?? { cpuMs: this.now() - open.start, frameMs: open.frameMs };
    const entry: Pending = { frame: this.frameSeq++, slot: open.slot, cpu: timings, gpu: undefined, times: undefined };
    this.queue.push(entry);
    const slot = open.slot;
    if (slot !== undefined && this.states[slot] === 'encoded') {
      this.states[slot] = 'mapping';
      let read: Promise<ArrayLike<bigint>>;
      try {
        read = this.opts.read(slot);
      } catch (e) {
        read = Promise.reject(e);
      }
      read.then(
        (ts) => this.settle(entry, stageTimes(ts)),
        () => this.settle(entry, undefined),
      );
    } else {
      // No slot, or end() was never called so nothing was resolved into it.
      if (slot !== undefined) this.states[slot] = 'free';
      entry.slot = undefined;
      entry.gpu = 'unmeasured';
    }
    this.giveUpLate();
    this.flush();
  }

  /** Stops reporting; readbacks still in flight are ignored when they settle. */
  destroy(): void {
    this.destroyed = true;
    this.open = undefined;
    this.queue.length = 0;
  }

  private abandonOpen(): void {
    const slot = this.open?.slot;
    if (slot !== undefined && this.states[slot] !== 'mapping') this.states[slot] = 'free';
    this.open = undefined;
  }

  private settle(entry: Pending, reading: StageReading | undefined): void {
    if (this.destroyed) return;
    if (entry.slot !== undefined) this.states[entry.slot] = 'free';
    if (entry.gpu === 'late') return; // already reported without GPU times
    if (!reading) {
      entry.gpu = 'failed';
    } else {
      entry.gpu = reading.outcome;
      if (reading.outcome === 'measured') entry.times = reading.times;
    }
    this.flush();
  }

  private giveUpLate(): void {
    while (this.queue.length > this.maxWaiting && this.queue[0].gpu === undefined) {
      this.queue[0].gpu = 'late';
      this.flush();
    }
  }

  private flush(): void {
    while (this.queue.length > 0 && this.queue[0].gpu !== undefined && !this.destroyed) {
      const e = this.queue.shift()!;
      const sample: FrameSample = { cpuMs: e.cpu.cpuMs, frameMs: e.cpu.frameMs, ...e.times };
      this.opts.emit(sample, { frame: e.frame, slot: e.slot, gpu: e.gpu! });
    }
  }
}

/** Options of {@link GpuProfiler}. */
export interface GpuProfilerOptions {
  /** Frames that may be in flight at once (default 6). */
  slots?: number;
  /** Capacity of {@link GpuProfiler.stats} (default 240 frames). */
  window?: number;
  /** Receives each frame, in submission order, after it entered `stats`. */
  onFrame?: (sample: FrameSample, meta: FrameMeta) => void;
  /** Clock in ms (default performance.now). */
  now?: () => number;
}

/** Bytes of one frame's timestamps. */
const FRAME_BYTES = TIMESTAMPS_PER_FRAME * 8;
/** resolveQuerySet needs 256-byte aligned destination offsets. */
const RESOLVE_STRIDE = 256;

/** Why GPU timings may be missing. */
const REASON_UNSUPPORTED = 'timestamp-query not available on this adapter';
const REASON_ZERO = 'timestamp-query reads 0 elapsed on this adapter (e.g. SwiftShader): GPU stage times unavailable';
/** Consecutive zero-elapsed frames before saying so: one could be a fluke. */
const ZERO_FRAMES_FOR_REASON = 3;

/**
 * Times the frame's stages with timestamp queries (when the device has
 * 'timestamp-query') and always its CPU timings; results go into {@link stats}
 * and to {@link onFrame}, a few frames late.
 *
 * Per frame:
 * ```ts
 * const ts = profiler.begin();          // at the start of the frame's CPU work
 * renderer.encodeFrame(encoder, view, camera, settings, ts);
 * profiler.end(encoder);                // before encoder.finish()
 * device.queue.submit([encoder.finish()]);
 * profiler.submitted();                 // after submit, never before
 * ```
 */
export class GpuProfiler {
  /** Whether the device can write timestamps (GPU stage times possible). */
  readonly supported: boolean;
  /** The last frames' timings. */
  readonly stats: FrameStats;
  /**
   * Receives each frame, in submission order, after it entered `stats`. Often called
   * from a readback's resolution: what it throws surfaces as an unhandled rejection.
   */
  onFrame: ((sample: FrameSample, meta: FrameMeta) => void) | undefined;
  private readonly ring: ProfilerRing;
  private readonly querySet: GPUQuerySet | undefined;
  private readonly resolve: GPUBuffer | undefined;
  private readonly readback: GPUBuffer[] = [];
  /** Each slot's frame as begin() handed it out (its `written` mask, set while the frame was encoded). */
  private readonly frames: (FrameTimestamps | undefined)[] = [];
  private zeroFrames = 0;
  private lostReason: string | undefined;
  private destroyed = false;

  constructor(
    readonly device: GPUDevice,
    opts: GpuProfilerOptions = {},
  ) {
    const slots = opts.slots ?? 6;
    this.supported = device.features.has('timestamp-query');
    this.stats = new FrameStats(opts.window ?? 240);
    this.onFrame = opts.onFrame;
    // The ring first: it checks `slots` before any GPU object is sized by it.
    this.ring = new ProfilerRing({
      slots,
      gpu: this.supported,
      read: (slot) => this.read(slot),
      emit: (sample, meta) => this.record(sample, meta),
      now: opts.now,
    });
    if (this.supported) {
      this.querySet = device.createQuerySet({ label: 'GpuProfiler.querySet', type: 'timestamp', count: slots * TIMESTAMPS_PER_FRAME });
      this.resolve = device.createBuffer({
        label: 'GpuProfiler.resolve',
        size: (slots - 1) * RESOLVE_STRIDE + FRAME_BYTES,
        usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
      });
      for (let i = 0; i < slots; i++) {
        this.readback.push(
          device.createBuffer({ label: `GpuProfiler.readback[${i}]`, size: FRAME_BYTES, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
        );
      }
    }
    // After loss every readback would fail: stop handing out slots and say why.
    void device.lost.then((info) => {
      if (this.destroyed) return;
      this.lostReason = `device lost${info.message ? `: ${info.message}` : ''}`;
      this.ring.disableGpu();
    });
  }

  /** Why GPU stage times are missing, or undefined while they arrive. */
  get reason(): string | undefined {
    if (!this.supported) return REASON_UNSUPPORTED;
    if (this.lostReason) return this.lostReason;
    return this.zeroFrames >= ZERO_FRAMES_FOR_REASON ? REASON_ZERO : undefined;
  }

  /** Slots not free: frames recording or waiting on their readback. */
  get inFlight(): number {
    return this.ring.busy;
  }

  /** Number of slots. */
  get slots(): number {
    return this.ring.slots;
  }

  /** The state of slot `i` (for tests and debugging). */
  slotState(i: number): SlotState {
    return this.ring.state(i);
  }

  /**
   * Starts a frame. Returns where the frame writes its timestamps, or undefined
   * when it goes unmeasured on the GPU (unsupported, or every slot in flight).
   * Call it every frame anyway: it also starts the CPU timing.
   */
  begin(): FrameTimestamps | undefined {
    if (this.destroyed) return undefined;
    const slot = this.ring.begin();
    if (slot === undefined || !this.querySet) return undefined;
    const ts: FrameTimestamps = { querySet: this.querySet, base: slot * TIMESTAMPS_PER_FRAME };
    this.frames[slot] = ts;
    return ts;
  }

  /** Encodes the frame's resolve and copy into its readback buffer; call after the frame's passes. */
  end(encoder: GPUCommandEncoder): void {
    const slot = this.ring.end();
    if (slot === undefined || !this.querySet || !this.resolve) return;
    const offset = slot * RESOLVE_STRIDE;
    encoder.resolveQuerySet(this.querySet, slot * TIMESTAMPS_PER_FRAME, TIMESTAMPS_PER_FRAME, this.resolve, offset);
    encoder.copyBufferToBuffer(this.resolve, offset, this.readback[slot], 0, FRAME_BYTES);
  }

  /**
   * Call right after queue.submit of the frame's commands (mapping the readback
   * before the submit would make the submit invalid). Starts the readback. `cpu`
   * replaces the profiler's own CPU timings (begin() to now, begin() to the
   * previous begin()).
   */
  submitted(cpu?: CpuTimings): void {
    if (!this.destroyed) this.ring.submitted(cpu);
  }

  /** Frees the GPU objects; readbacks in flight are rejected and dropped silently. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.ring.destroy();
    this.querySet?.destroy();
    this.resolve?.destroy();
    for (const b of this.readback) b.destroy();
  }

  private async read(slot: number): Promise<ArrayLike<bigint>> {
    const buffer = this.readback[slot];
    await buffer.mapAsync(GPUMapMode.READ, 0, FRAME_BYTES);
    try {
      // Copy out (the mapped range is detached by unmap()), without the slots this frame did not write.
      return writtenOnly(new BigUint64Array(buffer.getMappedRange(0, FRAME_BYTES)), this.frames[slot]?.written ?? 0);
    } finally {
      buffer.unmap();
    }
  }

  private record(sample: FrameSample, meta: FrameMeta): void {
    if (meta.gpu === 'measured') this.zeroFrames = 0;
    else if (meta.gpu === 'unavailable') this.zeroFrames++;
    this.stats.push(sample);
    this.onFrame?.(sample, meta);
  }
}
