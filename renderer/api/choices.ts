/**
 * A viewer's sort and draw choices: the host's (setSort, setDraw; a refused one
 * says what to change, refused-choice.ts) and auto's, for the sort (AutoRun:
 * trial sorts between the frames, profile/auto-run.ts) and for the draw
 * (DrawAuto: a trial over the frames, draw-auto.ts), with the notes that word
 * them. The one rule between the two, which draw takes which sort, is
 * draw/draw-strategies.ts drawRefusal.
 */
import { DRAW_NAMES, drawRefusal, drawServedBy, type DrawName } from '../draw/draw-strategies';
import type { SplatRenderer } from '../frame/splat-renderer';
import { listStrategies } from '../order/strategies';
import { AUTO_DRAW, decideDraw, type DrawChoice, type DrawSetting, type TrialFrame, type DrawTrial } from '../profile/auto-draw';
import { adapterKey, AutoPicks, isPickOf, type KeyValueStore } from '../profile/auto-picks';
import { AutoRun } from '../profile/auto-run';
import { AUTO_STRATEGY, softwareAdapterNote, startingStrategy, type AutoChoice } from '../profile/auto-strategy';
import { DrawAuto } from './draw-auto';
import { refusedChoiceLine } from './refused-choice';
import type { RenderSettings } from './settings';
import type { Voice } from './voice';

/** What the choices need of their viewer. */
export interface ChoicesHooks {
  settings: RenderSettings;
  voice: Voice;
  device(): GPUDevice;
  renderer(): SplatRenderer;
  sceneId(): string | null;
  /** A benchmark flies or a video's frames are rendered: auto waits. */
  held(): boolean;
  /** Something changed the work or the picture: redraw, figures start over (`clearGraph`: of other work now). */
  changed(clearGraph: boolean): void;
  /** The next frame draws (and sorts). */
  redraw(): void;
  /** The profiler's window of stage times starts over (a new draw's stages). */
  clearStats(): void;
  /** Resolves when the next frame's GPU work completes. */
  frameDone(): Promise<void>;
  /** The target's size in pixels. */
  targetSize(): { width: number; height: number };
  /** Frames submitted whose GPU work has not completed. */
  inFlight(): number;
  /** The frame's own time on the queue (queue-clock.ts), or null while unknown; a trial sort's place on it. */
  frameMs(): number | null;
  queued(submitAt: number, done: number): void;
}

/** Where the settings came from, and where auto's picks are kept (ViewerInit). */
export interface ChoicesInit {
  drawSource?: 'default' | 'saved' | 'link';
  sortSource?: 'link' | 'choice';
  autoPicksStore?: KeyValueStore | null;
}

export class AutoChoices {
  /** The sort's auto. */
  readonly sort: AutoRun;
  /** The draw's auto. */
  readonly draw: DrawAuto;
  /** A line about a software adapter, or null. */
  softwareNote: string | null;
  /** The sort and draw the first renderer is made with. */
  readonly first: { strategy: string; draw: DrawName };

  constructor(private readonly hooks: ChoicesHooks, init: ChoicesInit) {
    const { settings } = hooks;
    const device = hooks.device();
    const strategies = listStrategies(device);
    const names = [AUTO_STRATEGY, ...strategies.map((s) => s.name)];
    if (!names.includes(settings.sorter)) settings.sorter = AUTO_STRATEGY;
    const adapter = device.adapterInfo ?? {};
    this.softwareNote = softwareAdapterNote(adapter);
    // Until auto has measured: the prior for this adapter (the fastest known on software adapters).
    const first = settings.sorter === AUTO_STRATEGY ? startingStrategy(adapter, device.features, strategies) : settings.sorter;
    // Picks by adapter and scene size (in the host's store, if given): a size measured before is not measured again.
    const picksKey = adapterKey(adapter);
    const store = init.autoPicksStore ?? null;
    this.draw = new DrawAuto(
      {
        settings,
        renderer: hooks.renderer,
        software: () => this.softwareNote !== null,
        tryChange: (change) => this.tryChange(change),
        drawChanged: () => {
          hooks.clearStats();
          hooks.changed(true);
        },
        noted: () => hooks.voice.change(),
        inFlight: hooks.inFlight,
        redraw: hooks.redraw,
        size: hooks.targetSize,
      },
      init.drawSource ?? 'default',
      new AutoPicks<DrawChoice>('draw', picksKey, isPickOf<DrawChoice>(DRAW_NAMES), store),
    );
    // The tiles draw sorts on the GPU: with a sort it cannot take it falls back to quads (decideDraw).
    const firstDraw = decideDraw(settings.draw, this.draw.source, { name: first, host: !drawServedBy('tiles', first) }, null, this.draw.prior());
    this.draw.note = firstDraw.note;
    this.draw.wanted = firstDraw.measure;
    this.first = { strategy: first, draw: firstDraw.draw };
    this.sort = new AutoRun(
      device,
      strategies,
      {
        // Each trial sort within the viewer's own frame time (trial-pacing.ts).
        frameMs: hooks.frameMs,
        queued: hooks.queued,
        software: () => this.softwareNote !== null,
        frameDone: hooks.frameDone,
        noted: () => hooks.voice.change(),
        apply: (name) => {
          if (hooks.renderer().strategy === name) return;
          hooks.renderer().setStrategy(name);
          this.sortChanged();
          hooks.changed(true);
        },
        active: () => settings.sorter === AUTO_STRATEGY && !hooks.held(),
      },
      new AutoPicks<AutoChoice>('sort', picksKey, isPickOf<AutoChoice>(strategies.map((s) => s.name)), store),
    );
    if (settings.sorter === AUTO_STRATEGY) this.sort.note = `auto: starting with ${first}${this.softwareNote ? ' (fastest known on software GPUs)' : ''}; measuring once a scene is on screen`;
    else if (init.sortSource === 'link') this.sort.note = `${first}: chosen by the link (?sort=)`;
    else this.sort.note = `${first}: your choice (remembered; pick auto to measure and choose)`;
  }

  /** The draw's auto pick for the scene on screen, once measured. */
  get drawChoice(): DrawChoice | null {
    const cloud = this.hooks.renderer().cloud;
    return (this.hooks.settings.draw === AUTO_DRAW && cloud && this.draw.picks.get(cloud.count)) || null;
  }

  /**
   * Applies a change; a refused one shows why and changes nothing. With `choice` (a
   * host's sort or draw choice), the line says what to change to have it and what
   * still runs (refused-choice.ts).
   */
  tryChange(change: () => void, choice?: { what: 'sort' | 'draw'; asked: string }): boolean {
    const { voice } = this.hooks;
    try {
      change();
      this.hooks.redraw();
      return true;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (!choice) {
        voice.say(reason, 'error', 'page');
        return false;
      }
      const renderer = this.hooks.renderer();
      const gpuSorts = listStrategies(this.hooks.device())
        .filter((s) => drawServedBy('tiles', s.name))
        .map((s) => s.name);
      voice.say(refusedChoiceLine(choice.what, choice.asked, { sort: renderer.strategy, draw: renderer.draw, gpuSorts }, reason), 'error', choice.what);
      return false;
    }
  }

  /** Viewer.setSort. */
  setSort(name: string): boolean {
    const { settings } = this.hooks;
    if (name === AUTO_STRATEGY) {
      settings.sorter = name;
      this.sort.chosen(this.hooks.sceneId());
    } else {
      // The draw's auto makes way for a sort the tiles draw cannot take (a host sort): quads first.
      if (settings.draw === AUTO_DRAW && !drawServedBy('tiles', name)) {
        this.draw.trial = null;
        this.draw.use('quads');
      }
      // A refused change (e.g. the tiles draw with a host sort) shows why and changes nothing.
      if (!this.tryChange(() => this.hooks.renderer().setStrategy(name), { what: 'sort', asked: name })) return false;
      settings.sorter = name;
      this.sortChanged();
      this.sort.cancel();
      this.sort.say(`${name}: your choice (remembered; pick auto to measure and choose)`);
    }
    this.hooks.voice.unsay('sort'); // an earlier action's line (e.g. a refused choice) leaves
    this.hooks.changed(true);
    return true;
  }

  /** Viewer.setDraw. */
  setDraw(name: DrawSetting, source: 'panel' | 'saved' | 'link'): boolean {
    const renderer = this.hooks.renderer();
    // A draw that cannot take the sort in use (tiles under a host sort) is refused, saying why.
    const refused = (DRAW_NAMES as readonly string[]).includes(name) && drawRefusal(name, renderer.strategy) !== null;
    if (refused && !this.tryChange(() => renderer.setDraw(name), { what: 'draw', asked: name })) return false;
    this.hooks.settings.draw = name;
    this.draw.source = name === AUTO_DRAW ? 'default' : source;
    const ok = this.draw.apply();
    if (ok) this.hooks.voice.unsay('draw'); // an earlier action's line leaves
    return ok;
  }

  /** The sort changed: the draw's auto follows (a host sort draws quads; back to a GPU sort, its pick or tiles). */
  private sortChanged(): void {
    if (this.hooks.settings.draw === AUTO_DRAW && !this.draw.trial) this.draw.apply();
  }

  // ---- in the frames (frame.ts) ----

  /** A frame of the scene on screen (`count` splats) has completed and no benchmark flies: auto's measurements start when due. */
  due(count: number): void {
    const { sort, draw } = this;
    // Measure now, off the new scene's first frame's path; rejects when the device is lost mid-measurement (recovery measures again).
    if (sort.wanted) sort.measure(this.hooks.sceneId(), count, this.hooks.settings.keyBits, this.hooks.renderer().strategy).catch((e) => console.warn('auto: the sort trial stopped:', e));
    // The draw's auto, after the sort's (it times frames sorted by the strategy auto picks).
    if (draw.wanted && !sort.wanted && !sort.busy && !draw.trial && !draw.preparing) draw.start(count);
  }

  /** Auto measures (a sort or a draw trial, or the draws' compile before it): frames one at a time. */
  get measuring(): boolean {
    return this.sort.busy || this.draw.trial !== null || this.draw.preparing;
  }

  /** A trial sort runs alone on the queue: no frame now. */
  get holding(): boolean {
    return this.sort.holding;
  }

  /** The draws' trial in flight, or null. */
  get trial(): DrawTrial | null {
    return this.draw.trial?.trial ?? null;
  }

  /** The draw trial's part of a frame (DrawAuto.frame). */
  trialFrame(now: number): TrialFrame | 'skip' | null {
    return this.draw.frame(now);
  }

  // ---- what else changes ----

  /** A new scene is on screen: a trial for the previous one stops; this one's pick, or a measurement once on screen. */
  sceneChanged(): void {
    this.sort.sceneChanged(this.hooks.renderer().strategy);
    this.draw.apply();
  }

  /** A benchmark starts: a draw trial stops (back to the draw auto starts with, or its pick) and runs again after it. */
  benchmarkStarts(): void {
    if (this.draw.trial) this.draw.apply();
  }

  /** The device was lost: trials on it stop. */
  deviceLost(): void {
    this.draw.trial = null;
    this.sort.deviceLost();
  }

  /** A new device is attached (the software note follows its adapter). */
  adapterChanged(device: GPUDevice): void {
    this.softwareNote = softwareAdapterNote(device.adapterInfo ?? {});
  }

  /** The scene draws on the new device: a measurement the loss stopped runs again; the draw's trial too; picks so far stay. */
  deviceChanged(device: GPUDevice): void {
    this.sort.deviceChanged(device);
    this.draw.apply();
  }

  destroy(): void {
    this.sort.deviceLost();
    this.draw.destroy();
  }
}
