/**
 * A viewer's frame loop: one frame an animation frame, with auto's trials started
 * when due, the pacing (at most MAX_FRAMES_IN_FLIGHT frames queued on the GPU),
 * the camera (or the benchmark's pose), the renderer's encode with the profiler's
 * timestamps, the submit, and what follows it (a screenshot of the canvas, the
 * completion's figures, the `frame` event). It owns what the frames measure: the
 * live figures, the profiler, the visible count read back, the queue's clock.
 */
import type { CameraPose } from '../camera/camera';
import type { CameraController } from '../camera/controller';
import { frameCamera, windowCamera } from '../camera/frame-camera';
import type { FrameCamera, SplatRenderer } from '../frame/splat-renderer';
import type { Bounds } from '../../scenes/splat-cloud';
import type { DrawTrial, ProbeWindow, TrialFrame } from '../profile/auto-draw';
import type { DrawnOrderProbe } from '../profile/benchmark-path';
import type { BenchmarkRun } from '../profile/benchmark-run';
import type { FrameSample } from '../profile/frame-stats';
import { LiveFigures } from '../profile/live-figures';
import { GpuProfiler } from '../profile/profiler';
import { QueueClock } from '../profile/queue-clock';
import { DrawArgs } from '../stage/draw-args';
import { frameWhileLoading } from './load-pacing';
import { frameSettingsOf, type RenderSettings } from './settings';
import type { RenderTarget } from './targets';
import type { Voice } from './voice';

/** Frames the CPU may run ahead of the GPU. */
const MAX_FRAMES_IN_FLIGHT = 2;

/**
 * Frames in flight while auto measures (a sort or a draw trial, or the draws' compile before it). A trial's sort is a
 * submission of its own after a page frame completes; with two frames queued it waits
 * behind both, and the page's presentation (the compositor's draw, which on a software
 * adapter shares the GPU process's main thread with WebGPU's work) then waited for two
 * frames and the sort: gaps of 2-3.7x a frame between animation frames on SwiftShader.
 * One frame in flight puts the sort between two frames: the longest gap 1.5-1.7x a
 * frame there, and each trial step costs one frame, not two (issue 19). Outside trials,
 * two: the CPU's encode overlaps the GPU's work.
 */
const TRIAL_FRAMES_IN_FLIGHT = 1;

/** The device the frames are drawn with (device-link.ts). */
export interface FrameDevice {
  readonly device: GPUDevice;
  /** No frames on a lost device. */
  readonly lost: boolean;
  /** The tiles draw writes the canvas directly. */
  readonly canvasStorage: boolean;
}

/** The scene the frames draw (scene-holder.ts). */
export interface FrameScene {
  readonly renderer: SplatRenderer;
  /** A streamed LOD scene's depth-range bounds (its manifest's and the other objects', as placed); null for another scene. */
  readonly lodBounds: Bounds | null;
  /** A streamed LOD scene's work for this frame's camera (its object's scene swapped when its drawn set changed). */
  lodFrame(camera: FrameCamera): void;
  readonly probe: DrawnOrderProbe | null;
  frameSubmitted(frameId: number): void;
  frameCompleted(frameId: number, done: number): void;
}

/** Auto's part in the frames (choices.ts). */
export interface FrameAuto {
  /** A frame of the scene (`count` splats) completed and no benchmark flies: measurements start when due. */
  due(count: number): void;
  /** Auto measures: one frame in flight. */
  readonly measuring: boolean;
  /** A trial sort runs alone on the queue: no frame now. */
  readonly holding: boolean;
  /** The draws' trial in flight, or null. */
  readonly trial: DrawTrial | null;
  /** The draw trial's part of a frame: its draw, 'skip' (no frame now), or null. */
  trialFrame(now: number): TrialFrame | 'skip' | null;
}

/** The benchmark's part in the frames (benchmark.ts). */
export interface FrameBench {
  /** The benchmark flying, or null. */
  readonly run: BenchmarkRun | null;
  /** Frame `frameId` of the flight was submitted (`probed`: its drawn order captured). */
  advance(run: BenchmarkRun, frameId: number, probed: boolean, camera: ReturnType<typeof frameCamera>): void;
}

/** A camera path's part in the frames (path-player.ts). */
export interface FramePath {
  /** A frame is drawn `dt` seconds after the last: the path's pose, placed on the controller, or null when no flight. */
  advance(dt: number): CameraPose | null;
}

/** What the frame loop draws with and for. */
export interface FrameParts {
  target: RenderTarget;
  settings: RenderSettings;
  voice: Voice;
  link: FrameDevice;
  scene: FrameScene;
  controller: CameraController;
  auto: FrameAuto;
  bench: FrameBench;
  /** The camera path player: its flight drives the camera (a benchmark's flight first). */
  path?: FramePath;
  /** An offscreen render of a pose (a video's frame, pictures.ts) is in flight: it runs alone, no frame now. */
  offscreenBusy?: () => boolean;
  /** Auto measures nothing now (a video's frames are being rendered, pictures.ts renderSequence). */
  autoHeld?: () => boolean;
  /** A frame of the scene was just submitted: screenshots of the canvas are taken now, in the same task (pictures.ts). */
  submitted(): void;
  /** Schedules the next frame (default requestAnimationFrame, or a 16 ms timer without one). */
  schedule?: (cb: (now: number) => void) => void;
  /** A scene is being opened (scene-open.ts SceneLoads): a slow scene on screen is then drawn rarely (load-pacing.ts). */
  loading?: () => boolean;
}

/** The live figures of what is on screen now (Viewer.live). */
export interface LiveView {
  figures: LiveFigures;
  /** A host sort's own time (ms), or null for a GPU sort. */
  hostSortMs: number | null;
  /** The tiles draw's pair buffer, or null. */
  tileStatus: SplatRenderer['tileStatus'];
  /** The quads draw's order in use. */
  drawOrder: string;
  /** Why GPU stage times are missing, or null. */
  timingReason: string | null;
  timestampsSupported: boolean;
  /** A line about a software adapter, or null. */
  softwareNote: string | null;
}

export class FrameLoop {
  /** Schedules the next frame (read at each frame: a test may replace it). */
  schedule: (cb: (now: number) => void) => void;
  /** The next frame sorts (something changed the work or the picture). */
  dirty = true;
  /** Frames submitted whose GPU work has not completed. */
  inFlight = 0;
  /** Frames submitted so far. */
  framesRendered = 0;
  /** Frames whose GPU work completed. */
  framesCompleted = 0;
  /** The last completed frame of a scene: ms from submit to done (load-pacing.ts), or null. */
  private lastSceneFrameMs: number | null = null;
  /** When the last frame was submitted (the frame clock's time), or null. */
  private lastSubmitNow: number | null = null;
  /** The figures of what is on screen now (profile/live-figures.ts). */
  readonly figures = new LiveFigures();
  /** The queue's frames and trial sorts: the frame's own time, which no auto trial sort exceeds (queue-clock.ts). */
  readonly queueClock = new QueueClock();
  /** The last completed and profiled frame's figures, or null before one. */
  lastSample: FrameSample | null = null;
  /** The camera of the last frame drawn (picking). */
  lastCamera: ReturnType<typeof frameCamera> | null = null;
  profiler!: GpuProfiler;
  private countReadback!: GPUBuffer;
  private countPending = false;
  private lastCountRead = 0;
  private submittedFrames = 0;
  private lastTime = 0;
  private waiters: (() => void)[] = [];
  /** The offscreen target of auto's probes (encodeProbe), kept while their size stays. */
  private probeTexture: GPUTexture | null = null;
  private probeDevice: GPUDevice | null = null;
  /** Probe frames whose profile has not been reported yet. */
  private readonly probeFrames = new Set<number>();
  private stopped = false;
  /** What the figures so far were measured on (workNow): a `changed()` that changes none of it keeps them. */
  private work: { key: string; cloud: unknown; device: GPUDevice } | null = null;

  constructor(private readonly parts: FrameParts) {
    this.schedule =
      parts.schedule ?? (typeof requestAnimationFrame === 'function' ? (cb) => void requestAnimationFrame(cb) : (cb) => void setTimeout(() => cb(performance.now()), 16));
    this.makeHelpers(parts.link.device);
  }

  /** Draws from the next animation frame on. */
  start(): void {
    this.schedule((t) => this.tick(t));
  }

  /**
   * Something may have changed the work or the picture: redraw; if the work did change
   * (the scene, the device, the sort or draw in use, a setting a frame is drawn with,
   * the target's size: workNow), the figures start over (a new scene's, the FPS too),
   * else they stay (a host's invalidate() after a setting set to what it was, a
   * double-click's refocus, a failed load: the same work, the same figures).
   * `clearGraph`: a new scene or strategy, whose times are of other work. `force`:
   * start over whatever workNow says (a change it cannot see, e.g. a LOD budget).
   */
  changed(clearGraph = false, force = false): void {
    this.dirty = true;
    const before = this.work;
    const now = this.workNow();
    this.work = now;
    const newScene = before === null || now.cloud !== before.cloud || now.device !== before.device;
    if (!force && !newScene && now.key === before.key) {
      this.parts.voice.change(false); // a UI refreshes its notes; the figures and the graph stay
      return;
    }
    if (newScene) this.figures.sceneChanged();
    else this.figures.change();
    this.queueClock.forgetFrames();
    this.parts.voice.change(clearGraph || newScene);
  }

  /** The work a frame does now: the scene, the device, the sort and draw in use, the settings it is drawn with, the size. */
  private workNow(): { key: string; cloud: unknown; device: GPUDevice } {
    const { settings: s, target, scene, link } = this.parts;
    const r = scene.renderer;
    const key = JSON.stringify([
      r.strategy, r.draw, target.width, target.height,
      s.keyBits, s.sortMode, s.shDegree, s.splatScale, s.cull, s.sigmaCut, s.minContribution, s.antialias, s.drawOrder, s.background, s.upAxis, s.fovyDeg,
    ]);
    return { key, cloud: r.cloud, device: link.device };
  }

  /** Follows the target's size; other pixels, other draw times: the figures start over. */
  resize(): void {
    if (!this.parts.target.resize()) return;
    this.changed(false);
  }

  /** Resolves when the next frame's GPU work completes (or after 2 s, should none come). */
  nextFrameDone(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The live figures and what qualifies them (Viewer.live). */
  live(softwareNote: string | null): LiveView {
    const renderer = this.parts.scene.renderer;
    return {
      figures: this.figures,
      hostSortMs: renderer.hostSortMs,
      tileStatus: renderer.tileStatus,
      drawOrder: renderer.drawOrder.order,
      timingReason: this.profiler.reason ?? null,
      timestampsSupported: this.profiler.supported,
      softwareNote,
    };
  }

  /** The frames go on on a new `device` (the old one was lost): its profiler and read-back, the counts from zero. */
  deviceChanged(device: GPUDevice): void {
    this.profiler.destroy();
    this.countReadback.destroy();
    this.makeHelpers(device);
    this.dropProbeTarget();
    this.probeFrames.clear();
    this.inFlight = 0;
    this.queueClock.reset();
    this.countPending = false;
    this.releaseWaiters();
  }

  destroy(): void {
    this.stopped = true;
    this.releaseWaiters();
    this.profiler.destroy();
    this.countReadback.destroy();
    this.dropProbeTarget();
  }

  /** Frees the probes' offscreen target (the trial is over, or its device gone). */
  private dropProbeTarget(): void {
    this.probeTexture?.destroy();
    this.probeTexture = null;
    this.probeDevice = null;
  }

  /** The profiler and the visible-count read-back of `device`. */
  private makeHelpers(device: GPUDevice): void {
    this.profiler = new GpuProfiler(device, { onFrame: (sample, meta) => this.profiled(sample, meta.frame) });
    this.countReadback = device.createBuffer({ label: 'Viewer.countReadback', size: DrawArgs.size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  }

  private releaseWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private profiled(sample: FrameSample, frameId: number): void {
    // A probe's times are the trial's alone (not the page's figures, graph or last sample).
    if (this.probeFrames.delete(frameId)) {
      this.parts.auto.trial?.reported(frameId, sample.total);
      return;
    }
    const current = this.figures.current(frameId);
    this.figures.reported(frameId, sample);
    this.lastSample = sample;
    this.parts.auto.trial?.reported(frameId, sample.total);
    this.parts.bench.run?.profiled(frameId, sample);
    this.parts.voice.emit('sample', { frameId, sample, current });
  }

  /** Reads the visible count a frame or two late, never stalling the frame loop. */
  private readVisibleCount(now: number, frameId: number): void {
    this.countPending = true;
    this.lastCountRead = now;
    // This buffer, not the field: a lost device's is replaced by deviceChanged.
    const readback = this.countReadback;
    readback
      .mapAsync(GPUMapMode.READ)
      .then(() => {
        const v = DrawArgs.count(readback.getMappedRange());
        readback.unmap();
        this.figures.counted(frameId, v);
      })
      .catch(() => undefined)
      .finally(() => {
        this.countPending = false;
      });
  }

  /**
   * Auto's probe of a draw (DrawTrial): the frame's whole work with that draw into an offscreen
   * texture of the window's size (a window of the view at the screen's resolution), timed alone
   * as the trial's frames are.
   * Not the page's frame: no figure, FPS, `frame` event, screenshot or pick camera of it.
   */
  private encodeProbe(frame: TrialFrame, win: ProbeWindow, trial: DrawTrial): void {
    const { settings: s, link, scene, controller, target } = this.parts;
    const renderer = scene.renderer;
    const device = link.device;
    const { width, height } = win;
    let texture = this.probeTexture;
    if (!texture || texture.width !== width || texture.height !== height || this.probeDevice !== device) {
      texture?.destroy();
      texture = device.createTexture({
        label: 'Viewer.probeTarget',
        size: { width, height },
        format: renderer.format,
        // As the canvas is configured: the probed draw's pipelines are those compiled ahead for it.
        usage: GPUTextureUsage.RENDER_ATTACHMENT | (link.canvasStorage ? GPUTextureUsage.STORAGE_BINDING : 0),
      });
      this.probeTexture = texture;
      this.probeDevice = device;
    }
    const bounds = this.frameBounds();
    // A window of the view on screen, at its resolution (windowCamera: each splat as many pixels and tiles as there).
    const camera = windowCamera(frameCamera(controller.pose, target.width, target.height, bounds), win);
    const encoder = device.createCommandEncoder({ label: 'Viewer.probe' });
    const timestamps = this.profiler.begin();
    renderer.encodeProbeFrame(encoder, texture.createView(), camera, { ...frameSettingsOf(s), sort: true, targetStorage: link.canvasStorage }, timestamps);
    this.profiler.end(encoder);
    const submitAt = performance.now();
    const alone = this.inFlight === 0;
    device.queue.submit([encoder.finish()]);
    renderer.probeSubmitted();
    const frameId = this.submittedFrames++;
    this.probeFrames.add(frameId);
    trial.submitted(frame, frameId);
    this.inFlight++;
    void device.queue.onSubmittedWorkDone().then(
      () => {
        if (device !== link.device || this.stopped) return;
        this.inFlight--;
        const done = performance.now();
        this.queueClock.completed(submitAt, done);
        if (alone) trial.completed(frameId, done - submitAt, done);
      },
      () => {
        if (device === link.device) this.inFlight--;
      },
    );
    this.profiler.submitted({ cpuMs: 0, frameMs: 0 });
  }

  /** What a frame's depth range covers: a streamed LOD scene's bounds, else the placed objects' as placed now (one moved since the drawn set was assembled), else the scene's. */
  private frameBounds(): Bounds {
    const { scene } = this.parts;
    const renderer = scene.renderer;
    return scene.lodBounds ?? renderer.worldBounds ?? renderer.cloud?.bounds ?? { min: [-1, -1, -1], max: [1, 1, 1] };
  }

  private tick(now: number): void {
    if (this.stopped) return;
    this.schedule((t) => this.tick(t));
    this.encode(now);
  }

  private encode(now: number): void {
    const { target, settings: s, link, scene, controller, auto, bench } = this.parts;
    // No frames on a lost device (recovery draws on the new one).
    if (link.lost) return;
    const cloud0 = scene.renderer.cloud;
    // The new scene is on screen (a frame of it completed): auto measures now, off its first frame's path.
    const held = bench.run !== null || (this.parts.autoHeld?.() ?? false);
    if (cloud0 && this.figures.fps.count > 0 && !held) auto.due(cloud0.count);
    // Frame pacing: a GPU slower than the display (a software adapter, a huge scene)
    // must not collect a queue of frames, which would grow latency without bound.
    // While auto times a sort, it runs alone.
    const inFlight = auto.measuring ? TRIAL_FRAMES_IN_FLIGHT : MAX_FRAMES_IN_FLIGHT;
    if (this.inFlight >= inFlight || auto.holding || this.parts.offscreenBusy?.()) return;
    // A new scene being opened behind a slow one: the old one's frames would hold up its upload (load-pacing.ts).
    const loading = !bench.run && cloud0 !== null && (this.parts.loading?.() ?? false);
    if (loading && !frameWhileLoading({ loading, lastFrameMs: this.lastSceneFrameMs, sinceSubmitMs: this.lastSubmitNow === null ? Infinity : now - this.lastSubmitNow })) return;
    const trial = auto.trial;
    const trialFrame = held ? null : auto.trialFrame(now);
    if (trialFrame === 'skip') return;
    if (!auto.trial && this.probeTexture) this.dropProbeTarget();
    // Auto's probe of a draw: a window of the view offscreen, nothing presented, no figure of the page's.
    if (trialFrame?.window && trial) {
      this.encodeProbe(trialFrame, trialFrame.window, trial);
      return;
    }
    // Time between frames actually drawn (FPS, damping), not between animation callbacks.
    const frameSeconds = this.lastTime ? (now - this.lastTime) / 1000 : 1 / 60;
    const dt = Math.min(0.1, frameSeconds);
    this.lastTime = now;
    const t0 = performance.now();
    this.resize();
    const renderer = scene.renderer;
    const cloud = renderer.cloud;
    const { width, height } = target;
    let pose: CameraPose;
    let moved: boolean;
    let probeThisFrame = false;
    let rasterFloor = false;
    const run = bench.run;
    if (run) {
      const next = run.nextFrame();
      pose = next.pose;
      moved = true;
      probeThisFrame = next.probe;
      rasterFloor = next.rasterFloor;
    } else {
      // A path's flight: the frame's time step moves it (never ahead of the frames drawn).
      const flown = this.parts.path?.advance(dt) ?? null;
      controller.fovyDeg = s.fovyDeg;
      moved = controller.update(dt) || flown !== null;
      pose = flown ?? controller.pose;
    }
    // A strategy whose order lags the camera is asked every frame until it catches up.
    const sortNow = s.sortMode === 'every frame' || moved || this.dirty || renderer.strategyInfo.lagsCamera;
    this.dirty = false;

    const device = link.device;
    const encoder = device.createCommandEncoder({ label: 'Viewer.frame' });
    const timestamps = this.profiler.begin();
    const bounds = this.frameBounds();
    const camera = frameCamera(pose, width, height, bounds);
    // A streamed LOD scene: this view's selection (in its object's frame, within what the other objects leave of the
    // budget), loads and, when the drawn set changed, its object's new scene (the others untouched), without waiting.
    scene.lodFrame(camera);
    this.lastCamera = camera;
    renderer.encodeFrame(
      encoder,
      target.view(),
      camera,
      {
        ...frameSettingsOf(s),
        sort: sortNow,
        rasterFloor,
        targetStorage: link.canvasStorage,
      },
      timestamps,
    );
    this.profiler.end(encoder);
    const debug = renderer.debugBuffers;
    // The tiles draw counts its own visible splats (tileStatus); drawArgs is the quads'.
    const readCount = !this.countPending && now - this.lastCountRead > 250 && debug && renderer.draw === 'quads';
    if (readCount && debug) encoder.copyBufferToBuffer(debug.drawArgs, 0, this.countReadback, 0, DrawArgs.size);
    if (probeThisFrame && debug && scene.probe) scene.probe.capture(encoder, debug);
    const submitAt = performance.now();
    // Alone on the queue: its wall time (submit to done) is its own (a trial's frames: DrawTrial.frames).
    const alone = this.inFlight === 0;
    device.queue.submit([encoder.finish()]);
    renderer.submitted();
    // Same task as the submit: the canvas texture is still readable.
    if (cloud) this.parts.submitted();
    this.lastSubmitNow = now;
    const frameId = this.submittedFrames++;
    this.figures.submitted(frameId);
    if (trialFrame && trial) trial.submitted(trialFrame, frameId);
    if (cloud) scene.frameSubmitted(frameId);
    this.inFlight++;
    void device.queue.onSubmittedWorkDone().then(
      () => {
        // A frame of a lost device (recovery starts the count over on the new one).
        if (device !== link.device || this.stopped) return;
        this.inFlight--;
        this.framesCompleted++;
        const done = performance.now();
        // Its own time kept for auto's budget if it is of the work on screen now (else only its place in the queue).
        if (this.figures.current(frameId)) this.queueClock.frameCompleted(submitAt, done);
        else this.queueClock.completed(submitAt, done);
        if (trialFrame && trial && alone) trial.completed(frameId, done - submitAt, done);
        if (cloud) this.lastSceneFrameMs = done - submitAt;
        scene.frameCompleted(frameId, done);
        // FPS counts frames that drew a scene (none while the first is generated: those only clear the target).
        if (cloud) this.figures.completed(frameId, done);
        this.releaseWaiters();
        // Frames of a scene only (before the first, the target is only cleared).
        if (cloud) this.parts.voice.emit('frame', { frameId, stats: this.lastSample });
      },
      () => {
        if (device === link.device) this.inFlight--;
      },
    );
    // The benchmark owns its frame before the profiler reports it: without timestamps (lavapipe) it reports at once.
    if (run) bench.advance(run, frameId, probeThisFrame, camera);
    const cpuMs = performance.now() - t0;
    this.profiler.submitted({ cpuMs, frameMs: frameSeconds * 1000 });
    this.framesRendered++;
    if (readCount) this.readVisibleCount(now, frameId);
  }
}
