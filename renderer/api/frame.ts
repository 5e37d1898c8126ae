/**
 * One frame of a viewer: auto's trials started when due, the pacing (at most
 * MAX_FRAMES_IN_FLIGHT frames queued on the GPU), the camera (or the benchmark's
 * pose), the renderer's encode with the profiler's timestamps, the submit, and
 * what follows it (a screenshot of the canvas, the completion's figures, the
 * `frame` event).
 */
import type { CameraPose } from '../camera/camera';
import { frameCamera } from '../camera/frame-camera';
import { DrawArgs } from '../stage/draw-args';
import { hexToRgb } from './settings';
import { advanceBenchmark } from './benchmark';
import type { Viewer } from './viewer';

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

export function encodeFrame(v: Viewer, now: number): void {
  // No frames on a lost device (recover draws on the new one).
  if (v.gpuLost) return;
  const cloud0 = v.renderer.cloud;
  if (v.auto.wanted && cloud0 && v.figures.fps.count > 0 && !v.bench) {
    // The new scene is on screen (a frame of it completed): measure now, off its first frame's path.
    // Rejects when the device is lost mid-measurement (recover measures again).
    v.auto.measure(v.sceneId, cloud0.count, v.settings.keyBits, v.renderer.strategy).catch((e) => console.warn('auto: the sort trial stopped:', e));
  }
  // The draw's auto, after the sort's (it times frames sorted by the strategy auto picks).
  if (v.drawAuto.wanted && cloud0 && v.figures.fps.count > 0 && !v.bench && !v.auto.wanted && !v.auto.busy && !v.drawAuto.trial && !v.drawAuto.preparing) {
    v.drawAuto.start(cloud0.count);
  }
  // Frame pacing: a GPU slower than the display (a software adapter, a huge scene)
  // must not collect a queue of frames, which would grow latency without bound.
  // While auto times a sort, it runs alone.
  const inFlight = v.auto.busy || v.drawAuto.trial || v.drawAuto.preparing ? TRIAL_FRAMES_IN_FLIGHT : MAX_FRAMES_IN_FLIGHT;
  if (v.gpuInFlight >= inFlight || v.auto.holding) return;
  const trial = v.drawAuto.trial;
  const trialFrame = v.bench ? null : v.drawAuto.frame(now);
  if (trialFrame === 'skip') return;
  // Time between frames actually drawn (FPS, damping), not between animation callbacks.
  const frameSeconds = v.lastTime ? (now - v.lastTime) / 1000 : 1 / 60;
  const dt = Math.min(0.1, frameSeconds);
  v.lastTime = now;
  const t0 = performance.now();
  v.resize();
  const cloud = v.renderer.cloud;
  const { width, height } = v.target;
  let pose: CameraPose;
  let moved: boolean;
  let probeThisFrame = false;
  let rasterFloor = false;
  const bench = v.bench;
  if (bench) {
    const next = bench.run.nextFrame();
    pose = next.pose;
    moved = true;
    probeThisFrame = next.probe;
    rasterFloor = next.rasterFloor;
  } else {
    v.controller.fovyDeg = v.settings.fovyDeg;
    moved = v.controller.update(dt);
    pose = v.controller.pose;
  }
  // A strategy whose order lags the camera is asked every frame until it catches up.
  const sortNow = v.settings.sortMode === 'every frame' || moved || v.dirty || v.renderer.strategyInfo.lagsCamera;
  v.dirty = false;

  const device = v.gpu;
  const encoder = device.createCommandEncoder({ label: 'Viewer.frame' });
  const timestamps = v.profiler.begin();
  const bounds = v.lodStream?.meta.bound ?? cloud?.bounds ?? { min: [-1, -1, -1], max: [1, 1, 1] };
  const camera = frameCamera(pose, width, height, bounds);
  // A streamed LOD scene: this view's selection, loads and (when the drawn set changed) a new scene, without waiting.
  const lodScene = v.lodStream?.frame(camera);
  if (lodScene) v.renderer.setGpuScene(lodScene);
  v.lastCamera = camera;
  const s = v.settings;
  v.renderer.encodeFrame(
    encoder,
    v.target.view(),
    camera,
    {
      shDegree: s.shDegree,
      splatScale: s.splatScale,
      cull: s.cull,
      sigmaCut: s.sigmaCut,
      minContribution: s.minContribution,
      antialias: s.antialias,
      drawOrder: s.drawOrder,
      keyBits: s.keyBits,
      background: hexToRgb(s.background),
      sort: sortNow,
      rasterFloor,
      targetStorage: v.canvasStorage,
    },
    timestamps,
  );
  v.profiler.end(encoder);
  const debug = v.renderer.debugBuffers;
  // The tiles draw counts its own visible splats (tileStatus); drawArgs is the quads'.
  const readCount = !v.countPending && now - v.lastCountRead > 250 && debug && v.renderer.draw === 'quads';
  if (readCount && debug) encoder.copyBufferToBuffer(debug.drawArgs, 0, v.countReadback, 0, DrawArgs.size);
  if (probeThisFrame && debug && v.probe) v.probe.capture(encoder, debug);
  const submitAt = performance.now();
  device.queue.submit([encoder.finish()]);
  v.renderer.submitted();
  if (v.shotWaiters.length > 0 && cloud) {
    // Same task as the submit: the canvas texture is still readable.
    const waiters = v.shotWaiters.splice(0);
    const png = v.target.toPng() ?? Promise.reject(new Error('screenshot: no canvas'));
    void png.then(
      (b) => waiters.forEach((w) => w.resolve(b)),
      (e) => waiters.forEach((w) => w.reject(e)),
    );
  }
  const frameId = v.submittedFrames++;
  v.figures.submitted(frameId);
  if (trialFrame && trial) trial.trial.submitted(trialFrame, frameId);
  if (cloud && v.sceneFirstFrameAt === null) {
    v.sceneFirstFrameAt = performance.now();
    v.sceneFirstFrameId = frameId;
  }
  v.gpuInFlight++;
  void device.queue.onSubmittedWorkDone().then(
    () => {
      // A frame of a lost device (recover starts the count over on the new one).
      if (device !== v.gpu || v.destroyed) return;
      v.gpuInFlight--;
      v.framesCompleted++;
      const done = performance.now();
      // Its own time kept for auto's budget if it is of the work on screen now (else only its place in the queue).
      if (v.figures.current(frameId)) v.queueClock.frameCompleted(submitAt, done);
      else v.queueClock.completed(submitAt, done);
      if (trialFrame?.timed && trial) trial.trial.completed(frameId, done - submitAt);
      if (frameId === v.sceneFirstFrameId) v.sceneFirstFrameDoneAt = done;
      v.figures.completed(frameId, done);
      const waiters = v.frameWaiters;
      v.frameWaiters = [];
      for (const w of waiters) w();
      // Frames of a scene only (before the first, the target is only cleared).
      if (cloud) v.emit('frame', { frameId, stats: v.stats });
    },
    () => {
      if (device === v.gpu) v.gpuInFlight--;
    },
  );
  const cpuMs = performance.now() - t0;
  v.profiler.submitted({ cpuMs, frameMs: frameSeconds * 1000 });
  v.framesRendered++;
  if (readCount) v.readVisibleCount(now, frameId);
  if (bench) advanceBenchmark(v, bench.run, frameId, probeThisFrame, camera);
}
