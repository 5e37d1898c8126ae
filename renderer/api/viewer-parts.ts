/**
 * The collaborators a Viewer (viewer.ts) is a facade over, made and wired
 * together: each owns its state and gets what it needs of the others as narrow
 * hooks; none knows the Viewer. What crosses several of them is here: the
 * switch to a new scene, the stop and remake around a lost device, the end.
 *
 *   link       the device (device-link.ts), and its recovery (recovery.ts)
 *   scene      the renderer and the scene on screen (scene-holder.ts)
 *   camera     the controller and input (view-camera.ts)
 *   loop       the frames and what they measure (frame.ts)
 *   loads      the loader and the loads (scene-open.ts)
 *   choices    sort and draw, the host's and auto's (choices.ts, draw-auto.ts)
 *   pictures   screenshots, readPixels (pictures.ts)
 *   picking    pick, project: the surface under a point, on the GPU (picking.ts)
 *   bench      the benchmark (benchmark.ts)
 *   player     the camera path's flight (path-player.ts)
 *   objects    the loaded scene's object and those placed beside it: add, move, crop, export (objects.ts)
 *   host       the scene drawn over a host's textures for its camera: drawOver (host-draw.ts)
 */
import type { SplatCloud } from '../../scenes/splat-cloud';
import type { BudgetLimits } from '../frame/gpu-budget';
import type { ScenePrecision } from '../gpu-scene/scene-precision';
import type { KeyValueStore } from '../profile/auto-picks';
import { Benchmarks } from './benchmark';
import { AutoChoices } from './choices';
import { DeviceLink } from './device-link';
import { FrameLoop } from './frame';
import type { AttachControlsOptions } from './input';
import type { LodStreamView } from './lod-stream';
import { Pictures } from './pictures';
import { Picking } from './picking';
import { ViewerObjects } from './objects';
import { HostDraw } from './host-draw';
import { PathPlayer } from './path-player';
import { DeviceRecovery } from './recovery';
import { SceneHolder, type ReadyScene } from './scene-holder';
import { SceneLoads } from './scene-open';
import type { RenderSettings } from './settings';
import type { SceneInput } from './sources';
import type { RenderTarget } from './targets';
import { ViewCamera } from './view-camera';
import { Voice, type Emit } from './voice';

/** What the viewer is made with (internal: createViewer fills it). */
export interface ViewerInit {
  device: GPUDevice;
  target: RenderTarget;
  /** The device is the host's: a loss is reported (devicelost), not recovered from, and destroy() leaves it. */
  ownsDevice: boolean;
  settings?: Partial<RenderSettings>;
  /** Binding limits lower than the device's (to try a smaller adapter). */
  budgetLimits?: BudgetLimits;
  /** Where the draw setting came from (the draw note words it). */
  drawSource?: 'default' | 'saved' | 'link';
  /** Where the sort setting came from (the sort note words it). */
  sortSource?: 'link' | 'choice';
  /** How scenes are kept on the GPU (scene-precision.ts): 'compact' (default, half the memory) or 'full'. */
  precision?: ScenePrecision;
  /** Where auto's sort and draw picks are kept across visits (by adapter and scene size); none: this viewer's memory only. */
  autoPicksStore?: KeyValueStore | null;
  /** Schedules the next frame (default requestAnimationFrame, or a 16 ms timer without one). */
  schedule?: (cb: (now: number) => void) => void;
  /** Built-in orbit / fly input on the target's element (none without). */
  controls?: Pick<AttachControlsOptions, 'keyTarget' | 'onKey'>;
}

export class ViewerParts {
  readonly voice: Voice;
  readonly link: DeviceLink;
  readonly recovery: DeviceRecovery;
  readonly choices: AutoChoices;
  readonly scene: SceneHolder;
  readonly camera: ViewCamera;
  readonly pictures: Pictures;
  readonly picking: Picking;
  readonly bench: Benchmarks;
  readonly loop: FrameLoop;
  readonly loads: SceneLoads;
  readonly objects: ViewerObjects;
  readonly host: HostDraw;
  readonly player: PathPlayer;

  constructor(init: ViewerInit, settings: RenderSettings, emit: Emit) {
    const { target } = init;
    const voice = (this.voice = new Voice(emit));
    const renderer = () => this.scene.renderer;
    const device = () => this.link.device;
    const redraw = () => void (this.loop.dirty = true);
    this.link = new DeviceLink(init.device, target, voice, init.ownsDevice, init.budgetLimits, (info) => void this.recovery.recover(info));
    this.recovery = new DeviceRecovery(this.link, voice, {
      stopWork: () => {
        this.loads.deviceLost();
        this.bench.abort();
        this.choices.deviceLost();
      },
      remake: (d, stale) => this.remake(d, stale),
      changed: () => this.loop.changed(true),
      reopen: () => {
        const source = this.scene.source;
        const pose = this.camera.pose;
        // A streamed LOD scene opens again beside the placed objects put back already (they stay).
        if (source !== null) this.loads.open(source, { keepObjects: true }).then(() => this.camera.setPose(pose), () => this.objects.sceneLost());
      },
    });
    this.choices = new AutoChoices(
      {
        settings,
        voice,
        device,
        renderer,
        sceneId: () => this.scene.sceneId,
        held: () => this.bench.run !== null || this.pictures.sequences > 0,
        changed: (clearGraph) => this.loop.changed(clearGraph),
        redraw,
        clearStats: () => this.loop.profiler.stats.clear(),
        frameDone: () => this.loop.nextFrameDone(),
        targetSize: () => ({ width: target.width, height: target.height }),
        inFlight: () => this.loop.inFlight,
        frameMs: () => this.loop.queueClock.frameMs,
        queued: (submitAt, done) => void this.loop.queueClock.completed(submitAt, done),
      },
      init,
    );
    const first = this.choices.first;
    this.scene = new SceneHolder(init.device, target.format, first.strategy, first.draw, this.link.budgetLimits, init.precision);
    this.camera = new ViewCamera(settings, target, redraw, () => voice.change());
    this.pictures = new Pictures({ settings, target, device, renderer, pose: () => this.camera.pose, redraw });
    this.picking = new Picking({ settings, target, renderer, pose: () => this.camera.pose, lastCamera: () => this.loop.lastCamera, objectOf: (h) => this.objects.objectOf(h) });
    this.bench = new Benchmarks({
      settings,
      target,
      controller: this.camera.controller,
      renderer,
      probe: () => this.scene.probe,
      visible: () => this.loop.figures.visible,
      adapterLine: () => this.link.adapterLine(),
      starting: () => this.choices.benchmarkStarts(),
      redraw,
    });
    this.player = new PathPlayer({
      voice,
      place: (pose) => {
        this.camera.controller.setPose(pose);
        settings.fovyDeg = pose.fovyDeg;
      },
      redraw,
    });
    this.loop = new FrameLoop({
      target,
      settings,
      voice,
      link: this.link,
      scene: this.scene,
      controller: this.camera.controller,
      auto: this.choices,
      bench: this.bench,
      path: this.player,
      offscreenBusy: () => this.pictures.rendering > 0,
      autoHeld: () => this.pictures.sequences > 0,
      submitted: () => this.pictures.submitted(),
      // Read at each frame (the loads are made just below).
      loading: () => this.loads.loading !== null,
      ...(init.schedule ? { schedule: init.schedule } : {}),
    });
    this.loads = new SceneLoads({
      settings,
      target,
      voice,
      link: this.link,
      renderer,
      lodBudget: () => this.scene.lodBudget,
      // The scene's up axis first (explicit choice, else detected), then its first view for that up.
      bodyViewSteps: (cloud) => {
        this.camera.sceneUp(cloud);
        return this.camera.bodyViewSteps(cloud);
      },
      show: (source, cloud, id, ready, lod, keepObjects) => this.show(source, cloud, id, ready, lod ?? null, keepObjects ?? false),
      lostLoad: (line) => this.recovery.loadLost(line),
    });
    this.host = new HostDraw({
      settings,
      device,
      renderer,
      bounds: () => (this.scene.renderer.cloud ? (this.scene.lodBounds ?? this.scene.renderer.worldBounds ?? this.scene.renderer.cloud.bounds) : null),
      format: () => target.format,
      lost: () => this.link.lost,
      redraw,
    });
    this.objects = new ViewerObjects({
      settings,
      renderer,
      sceneCloud: () => this.scene.cloud,
      removeScene: () => this.scene.clear(),
      frame: (cloud) => this.camera.frameNew(cloud, null),
      changed: () => this.loop.changed(),
    });
    if (init.controls) this.camera.attachControls(init.controls, async (x, y) => (await this.picking.pick(x, y))?.point ?? null);
    this.loop.start();
  }

  /** The switch: `cloud` (made ready) on screen, framed; auto follows; the `load` event. */
  private show(source: SceneInput, cloud: SplatCloud, id: string, ready: ReadyScene, lod: LodStreamView | null, keepObjects = false): void {
    this.bench.sceneChanged();
    const handle = this.scene.show(this.link.device, source, cloud, id, ready, lod, keepObjects);
    const renderer = this.scene.renderer;
    // A streamed LOD scene opened again after a loss: its object placed as it was, the objects put back stay.
    if (keepObjects && lod) this.objects.sceneBack(renderer, handle);
    else {
      // load() replaces everything: the placed objects went with the switch; the scene is a new object.
      this.objects.sceneReplaced();
      const kept = this.scene.keptScene;
      this.objects.sceneShown({ name: cloud.source.name, cloud: kept?.cloud ?? cloud, packed: kept?.packed ?? null, renderer, handle, lodBound: lod ? lod.meta.bound : null });
    }
    this.loop.resize(); // the target's real shape: a portrait phone frames narrower than the 300x150 default
    this.camera.frameNew(cloud, ready.view);
    this.choices.sceneChanged(); // a trial for the previous scene stops; this one is measured once on screen
    this.loop.changed(true);
    this.voice.emit('load', { name: cloud.source.name, id, splats: cloud.count, shDegree: cloud.shDegree });
  }

  /** Everything GPU-side made again on the new `device` (recovery.ts). */
  private async remake(device: GPUDevice, stale: () => boolean): Promise<{ uploadError: unknown; reopen: boolean } | null> {
    this.choices.adapterChanged(device);
    const remade = await this.scene.remake(device, this.link.budgetLimits, stale, (change) => void this.choices.tryChange(change));
    if (!remade) return null;
    // Every placed object again, where it was, from what was kept on the CPU.
    const objectError = this.objects.remake(this.scene.renderer, this.scene.handle);
    if (objectError && !remade.uploadError) remade.uploadError = objectError;
    this.loop.deviceChanged(device);
    // A measurement the loss stopped runs again; the draw's trial too; the picks so far stay.
    this.choices.deviceChanged(device);
    return remade;
  }

  /** Stops; frees every GPU buffer made, the worker, the listeners, and the device if the viewer made it. */
  destroy(): void {
    this.recovery.destroy();
    this.loads.destroy();
    this.objects.destroy();
    this.choices.destroy();
    this.bench.destroy();
    this.player.destroy();
    this.camera.destroy();
    this.pictures.destroy();
    this.host.destroy();
    this.loop.destroy();
    this.scene.destroy();
    this.link.destroy();
  }
}
