/**
 * The viewer: a scene and placed objects on one target (a canvas, or a texture headless), drawn every animation
 * frame with the camera, the sort and the draw of its settings; an EventTarget (events.ts), made by createViewer.
 * A facade: the work and its state belong to the collaborators viewer-parts.ts wires (device, scene, camera, paths,
 * frames, loads, objects, sort and draw choices, pictures, benchmark); its members are one-line delegations to them.
 */
import type { Bounds, SplatCloud } from '../../scenes/splat-cloud';
import type { CameraPose, UpAxis } from '../camera/camera';
import type { CameraPath } from '../camera/camera-path';
import type { DrawName } from '../draw/draw-strategies';
import type { BudgetLimits } from '../frame/gpu-budget';
import type { OffscreenImage } from '../frame/offscreen';
import type { LodStats } from '../lod/lod-scene';
import { listStrategies, type StrategyInfo } from '../order/strategies';
import type { DrawChoice, DrawSetting } from '../profile/auto-draw';
import type { BenchmarkRow } from '../profile/benchmark-report';
import type { FrameSample } from '../profile/frame-stats';
import type { BenchmarkPathOptions } from './benchmark';
import type { ViewerEventMap, ViewerEventName } from './events';
import type { LiveView } from './frame';
import type { SceneMemory } from './scene-holder';
import type { PlayOptions } from './path-player';
import type { LoadRecord } from './scene-open';
import type { AddOptions, ExportFormat, SplatObject } from './objects';
import type { DrawOverOptions } from './host-draw';
import type { PickResult, ScreenPoint } from './picking';
import { defaultSettings, type RenderSettings } from './settings';
import type { SceneInput } from './sources';
import type { ViewerCamera } from './view-camera';
import { ViewerParts, type ViewerInit } from './viewer-parts';

export type { ViewerCamera } from './view-camera';

export class Viewer extends EventTarget {
  /** The live settings each frame reads (see settings.ts). */
  readonly settings: RenderSettings;
  /** Settles when the first scene (createViewer's options.scene) is shown, or its load failed. */
  ready: Promise<void> = Promise.resolve();
  /** @internal The collaborators this facade delegates to (viewer-parts.ts): for tests and tools, not for hosts. */
  readonly parts: ViewerParts;
  private destroyed = false;

  constructor(init: ViewerInit) {
    super();
    // The host's object itself, defaults filled in (a panel edits it in place).
    const given = init.settings ?? {};
    this.settings = Object.assign(given, { ...defaultSettings(), ...given });
    this.parts = new ViewerParts(init, this.settings, (type, detail) => this.emit(type, detail));
  }

  private emit<K extends ViewerEventName>(type: K, detail: ViewerEventMap[K]['detail']): void {
    if (!this.destroyed) this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // ---- what is on screen ----

  /** The device drawing now (a new one after a loss this viewer recovered from). */
  get device(): GPUDevice { return this.parts.link.device; }

  /** The binding limits scenes are checked against: the device's, or lower where asked. */
  get budgetLimits(): BudgetLimits { return this.parts.link.budgetLimits; }

  /** 0 for the first device, one more each time a lost device has been replaced and the scene is on the new one. */
  get deviceGeneration(): number { return this.parts.link.generation; }

  /** The scene on screen: its name, splat count, SH degree and bounds (its splats', in its own frame: sceneObject.bounds is where it is placed), or null. */
  get scene(): { name: string; splats: number; shDegree: number; bounds: Bounds } | null {
    const c = this.parts.scene.cloud;
    return c ? { name: c.source.name, splats: c.count, shDegree: c.shDegree, bounds: { min: [...c.bounds.min], max: [...c.bounds.max] } } : null;
  }

  /** The identity of the scene on screen (a URL, `file:NAME`, a generated spec), or null. */
  get sceneId(): string | null { return this.parts.scene.sceneId; }

  /** Identities of the scenes shown so far, in order. */
  get scenesShown(): string[] { return this.parts.scene.scenesShown; }

  /** performance.now() of the current scene's first submitted frame, or null before it. */
  get sceneFirstFrameAt(): number | null { return this.parts.scene.firstFrameAt; }

  /** performance.now() when the GPU finished the current scene's first frame, or null before. */
  get sceneFirstFrameDoneAt(): number | null { return this.parts.scene.firstFrameDoneAt; }

  /** The cloud on screen's sanitize report (NaN/Inf dropped or clamped), if any. */
  get sanitized(): SplatCloud['sanitized'] { return this.parts.scene.cloud?.sanitized; }

  /**
   * The scene's resident GPU buffers (null without one): bytes, bytes a splat, precision ('compact' | 'full'), and the
   * buffers each array is paged over (1 unless one binding cannot hold it). A streamed LOD scene's: `lod.residentBytes`.
   */
  get sceneMemory(): SceneMemory | null { return this.parts.scene.memory; }

  /**
   * A streamed LOD scene's figures (null for any other scene): its budget, splats chosen and drawn, resident (and
   * their bytes), chunk files in flight and failed, leaves drawn coarser than chosen while loading.
   */
  get lod(): LodStats | null { return this.parts.scene.lod; }

  /** The splats a streamed LOD scene may draw (this one and those opened later). */
  setLodBudget(splats: number): void {
    this.parts.scene.setLodBudget(splats);
    this.parts.loop.changed(false, true); // other work, which the settings do not show
  }

  /** Frames submitted so far. */
  get framesRendered(): number { return this.parts.loop.framesRendered; }

  /** Frames whose GPU work completed. */
  get framesCompleted(): number { return this.parts.loop.framesCompleted; }

  /** The last completed and profiled frame's figures: per-stage GPU ms (frame-stages.ts), CPU ms, total; null before one. */
  get stats(): FrameSample | null { return this.parts.loop.lastSample; }

  /** The live figures of what is on screen now (profile/live-figures.ts: stage medians, FPS, visible splats) and what qualifies them: for a HUD. */
  get live(): LiveView { return this.parts.loop.live(this.parts.choices.softwareNote); }

  /** A setting was edited in place: redraw, and the figures start over. */
  invalidate(): void { this.parts.loop.changed(); }

  // ---- the camera ----

  /** The camera pose on screen now (the field of view in degrees as fovyDeg). */
  get view(): CameraPose { return this.parts.camera.pose; }

  get camera(): ViewerCamera { return this.parts.camera.camera; }

  set camera(c: Partial<ViewerCamera>) { this.parts.camera.camera = c; }

  /** Jumps to a pose, the field of view included; the up-axis setting follows a pose whose up is one of its axes. */
  setPose(pose: CameraPose, from?: 'link'): void { this.parts.camera.setPose(pose, from); }

  /** Frames the scene's dense body from the current direction. */
  frameScene(): void { this.parts.camera.frameScene(); }

  /** Back to the scene's first view. */
  resetView(): void { this.parts.camera.resetView(); }

  /** The user's up axis: kept for the scenes that open after, over detection (issue 34). */
  setUpAxis(axis: UpAxis): void { this.parts.camera.setUpAxis(axis); }

  /** A saved (earlier visit's explicit) up axis: kept over detection, under the link's and the user's. */
  useSavedUpAxis(axis: UpAxis): void { this.parts.camera.chooseUp(axis, 'saved'); }

  /** "up: +z (detected)": the up axis the scene on screen opened with and who set it; '' before a scene. */
  get upNote(): string { return this.parts.camera.upNote; }

  /** The scene's first view (where resetView() goes): what an orbit preset goes round. */
  get homeView(): CameraPose { return this.parts.camera.controller.homePose; }

  // ---- camera paths (docs/PATHS.md) ----

  /**
   * The camera path that play() flies, or null. Set: validated (CameraPathError names the keyframe and field) and
   * kept as a copy; null stops a flight.
   */
  get path(): CameraPath | null { return this.parts.player.path; }

  set path(path: CameraPath | null) { this.parts.player.path = path; }

  /**
   * Flies `path` (or `viewer.path`), from the current path time (from the start at the end): the camera is at
   * poseAt(path, t) each frame, t moving by the time between frames drawn (at most 0.1 s a frame) times `speed`;
   * `loop` starts again at the end, else `pathend`. A `pathframe` event each frame.
   */
  play(path?: CameraPath | null, options: PlayOptions = {}): void { this.parts.player.play(path, options); }

  /** Stops the flight where it is. */
  pause(): void { this.parts.player.pause(); }

  /** Puts the camera at path time `t` (seconds, clamped to the path) now; a flight goes on from there. */
  seek(t: number): void { this.parts.player.seek(t); }

  /** The path time the camera is at (seconds). */
  get pathTime(): number { return this.parts.player.time; }

  /** A flight is in progress. */
  get playing(): boolean { return this.parts.player.playing; }

  // ---- loading ----

  /**
   * Loads a scene and shows it once ready (the scene on screen keeps drawing meanwhile, and stays after a failure).
   * Resolves when shown; rejects with the loader's typed error, or SceneLoadCancelled (`signal` aborted, a newer load).
   */
  load(source: SceneInput, options: { signal?: AbortSignal; name?: string } = {}): Promise<void> { return this.parts.loads.open(source, options); }

  // ---- placed objects ----

  /**
   * Adds a scene as a placed object beside what is on screen (load() replaces everything; add() keeps it): read
   * through the same loader as load(), only the new object uploaded, placed by `options.transform`. Resolves with
   * the object once it is drawn; rejects with the loader's typed error, GpuBudgetError / GpuMemoryError (nothing
   * added) or SceneLoadCancelled (`signal`, destroy()).
   */
  add(source: SceneInput, options: AddOptions = {}): Promise<SplatObject> { return this.parts.objects.add(source, options); }

  /** The placed objects (add()), in the order added; the scene load() shows is not one of them (it is `sceneObject`). */
  get objects(): SplatObject[] { return this.parts.objects.list; }

  /**
   * The scene load() shows as an object (null without one): moved, cropped, hidden and exported as an added one;
   * its remove() takes the scene off screen. A new load() ends it (the new scene is a new object).
   */
  get sceneObject(): SplatObject | null { return this.parts.objects.sceneObject; }

  /** A placed object (or sceneObject) as a file: its crop applied, its transform baked in (SH rotated), as 'ply' (3DGS) or 'spz'. */
  export(object: SplatObject, format: ExportFormat): Promise<Blob> { return this.parts.objects.export(object, format); }

  /** Stops the load in flight in whatever phase: the worker's read and parse, or the GPU upload (it rejects with SceneLoadCancelled). */
  cancelLoad(): void { this.parts.loads.cancel(); }

  /** The loads so far, oldest first: when each started, its cloud arrived, it was shown; how it ended. */
  get loads(): LoadRecord[] { return this.parts.loads.records; }

  /** The HUD's loading line while a load runs, else null. */
  get loading(): string | null { return this.parts.loads.loading; }

  // ---- sort and draw ----

  /** The sort strategies this device offers. */
  get strategies(): StrategyInfo[] { return listStrategies(this.parts.link.device); }

  /** The sort strategy drawing now (auto's pick, or the one set). */
  get strategy(): string { return this.parts.scene.renderer.strategy; }

  /** The draw strategy in use. */
  get draw(): DrawName { return this.parts.scene.renderer.draw; }

  /** What auto picked and why, or the chosen sort. */
  get strategyNote(): string { return this.parts.choices.sort.note; }

  /** The draw's auto pick and why, or the chosen draw. */
  get drawNote(): string { return this.parts.choices.draw.note; }

  /** The draw's auto pick for the scene on screen, once measured. */
  get drawChoice(): DrawChoice | null { return this.parts.choices.drawChoice; }

  /** The sort strategy: a name of `strategies`, or 'auto' (measured once a scene is on screen). False when refused (the message event says why). */
  setSort(name: string): boolean { return this.parts.choices.setSort(name); }

  /** The draw: 'quads', 'tiles' or 'auto' (the faster measured here). False when refused (the message event says why). */
  setDraw(name: DrawSetting, source: 'panel' | 'saved' | 'link' = 'panel'): boolean { return this.parts.choices.setDraw(name, source); }

  // ---- composing with a host (docs/API.md "Composing with a host") ----

  /** The texture format the viewer draws in: drawOver's colour texture is of it. */
  get format(): GPUTextureFormat { return this.parts.host.format; }

  /**
   * Draws the scene over a host's colour texture for the host's camera, on the device they share, now (one
   * submit): the splats behind the host's depth are hidden, and with the tiles draw a depth for the host can be
   * written (`outputDepth`; the quads draw throws CompositionRefused). Nothing is drawn without a scene.
   */
  drawOver(options: DrawOverOptions): void { this.parts.host.drawOver(options); }

  // ---- pictures and the benchmark ----

  /**
   * The surface under CSS pixel (x, y) of the canvas (from its top left), on the GPU at the camera and settings on
   * screen, whatever the draw: the splat where the pixel's opacity, front to back, reaches 0.5, its object (an added one,
   * or sceneObject), the world point there, its view depth and the pixel's opacity (under 0.5: a translucent pixel, picked
   * where half of it is reached); null where nothing is there (opacity under 0.1) (picking.ts).
   */
  pick(x: number, y: number): Promise<PickResult | null> { return this.parts.picking.pick(x, y); }

  /** Where world point `p` is on the canvas (CSS pixels from its top left, and its view depth) in the frame on screen; null behind the camera. */
  project(p: ArrayLike<number>): ScreenPoint | null { return this.parts.picking.project(p); }

  /** A PNG of the view: scale 1 the canvas itself (right after the next frame's submit), else an offscreen render at `scale` times its resolution (within the device's largest texture). */
  screenshot(scale = 1): Promise<Blob> { return this.parts.pictures.screenshot(scale); }

  /** The view's pixels (RGBA8, rows top down), rendered offscreen at `scale` times the target's resolution. */
  readPixels(scale = 1): Promise<OffscreenImage> { return this.parts.pictures.readPixels(scale); }

  /**
   * `pose` (default: the view on screen) rendered offscreen at `width` x `height` device pixels with the settings
   * drawn on screen, as RGBA8 (rows top down): e.g. a video's frames, poseAt(path, t) at a chosen size.
   */
  renderView(options: { width: number; height: number; pose?: CameraPose }): Promise<OffscreenImage> {
    return this.parts.pictures.renderPose(options.pose ?? this.view, options.width, options.height);
  }

  /**
   * Each of `poses` rendered as renderView renders one, yielded in turn as the caller asks (a video's frames): auto
   * holds its trials until the sequence ends (the loop finishes or breaks).
   */
  renderSequence(options: { width: number; height: number; poses: Iterable<CameraPose> }): AsyncGenerator<OffscreenImage, void, undefined> {
    return this.parts.pictures.renderSequence(options.poses, options.width, options.height);
  }

  /** The scale readPixels(scale) really uses (bounded by the device's largest texture). */
  screenshotScale(scale: number): number { return this.parts.pictures.screenshotScale(scale); }

  /**
   * Flies the benchmark path with each of `strategies`; resolves with the rows (also kept as lastBenchmark). With
   * `along`, a camera path's frames instead (frame i at path time i / fps, fps 30 by default): each row also has
   * `max` per stage and `path` (each frame's path time and GPU ms per stage, the slowest second and its stage).
   */
  benchmark(strategies: string[], along?: BenchmarkPathOptions): Promise<BenchmarkRow[]> { return this.parts.bench.start(strategies, along ?? null); }

  /** Of `strategies`, those a benchmark flies with the draw in use (the tiles draw: GPU sorters only). */
  benchmarkable(strategies: string[]): string[] { return this.parts.bench.benchmarkable(strategies); }

  /** A benchmark is flying. */
  get benchmarking(): boolean { return this.parts.bench.run !== null; }

  /** The last benchmark's rows. */
  get lastBenchmark(): BenchmarkRow[] | null { return this.parts.bench.lastRows; }

  /** "vendor / architecture description" of the adapter. */
  adapterLine(): string { return this.parts.link.adapterLine(); }

  /** Stops drawing and frees everything: the GPU buffers, the loader's worker, the listeners; the device when the viewer made it. Unusable afterwards. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.parts.destroy();
  }
}
