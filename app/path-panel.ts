/**
 * The panel's "Path" folder (docs/USAGE.md, 'camera paths'): keyframes recorded from
 * the view (K), each with its time (retime it), moved up or down, deleted, shown;
 * a scrub slider, play / pause, loop and speed (the viewer's player: viewer.play,
 * seek); an orbit preset round the scene's first view; the path downloaded or opened
 * as JSON; a video of it (path-video.ts). The path is the viewer's (viewer.path), set
 * whenever the keyframes change, and kept in the URL hash by page-hash.ts.
 */
import type GUI from 'lil-gui';
import type { Controller } from 'lil-gui';
import {
  orbitPath,
  parseCameraPathJson,
  serializeCameraPath,
  type CameraPath,
  type CameraPose,
  type PathKeyframe,
  type Viewer,
  type ViewerEventMap,
} from '../renderer/api/index';
import { downloadText } from './page-benchmark';
import { downloadBlob } from './screenshot';
import { exportPathVideo, parseVideoSize, videoName, type PathVideo } from './path-video';

/** Seconds between a new keyframe and the one before it (retime it in its field). */
export const KEYFRAME_SPACING_S = 2;

/** Times shown in the fields: milliseconds. */
const roundTime = (t: number) => Math.round(t * 1000) / 1000;

const copyKeyframe = (k: PathKeyframe): PathKeyframe => ({ time: k.time, eye: [...k.eye], target: [...k.target], up: [...k.up], fovyDeg: k.fovyDeg });

/**
 * The keyframes as the panel edits them (pure: no DOM). Times increase strictly; moving a
 * keyframe up or down swaps its pose with its neighbour's, the times staying in place.
 */
export class KeyframeList {
  keyframes: PathKeyframe[] = [];

  /** The path of at least 2 keyframes, else null. */
  get path(): CameraPath | null {
    return this.keyframes.length >= 2 ? { keyframes: this.keyframes.map(copyKeyframe) } : null;
  }

  /** Appends `pose` KEYFRAME_SPACING_S after the last keyframe (the first at 0). */
  add(pose: CameraPose): void {
    const last = this.keyframes[this.keyframes.length - 1];
    const time = last ? roundTime(last.time + KEYFRAME_SPACING_S) : 0;
    this.keyframes.push({ time, eye: [...pose.eye], target: [...pose.target], up: [...pose.up], fovyDeg: pose.fovyDeg });
  }

  remove(i: number): void {
    this.keyframes.splice(i, 1);
  }

  /** Swaps keyframe i's pose with keyframe i + dir's (-1 up, +1 down); the times stay. False at an end. */
  move(i: number, dir: -1 | 1): boolean {
    const j = i + dir;
    const ks = this.keyframes;
    if (i < 0 || j < 0 || i >= ks.length || j >= ks.length) return false;
    const a = ks[i];
    const b = ks[j];
    ks[i] = { ...b, time: a.time };
    ks[j] = { ...a, time: b.time };
    return true;
  }

  /**
   * Sets keyframe i's time; null when done, else why not (the time must lie strictly
   * between its neighbours' and be >= 0).
   */
  retime(i: number, time: number): string | null {
    const ks = this.keyframes;
    const before = ks[i - 1]?.time ?? -Infinity;
    const after = ks[i + 1]?.time ?? Infinity;
    if (!Number.isFinite(time) || time < 0) return `Keyframe ${i + 1}: the time must be a number of seconds >= 0`;
    if (!(time > before && time < after)) {
      const range = Number.isFinite(after) ? `between ${before} and ${after} s` : `after ${before} s`;
      return `Keyframe ${i + 1}: the time must be ${i === 0 ? `before ${after} s` : range} (keyframes keep their order; move them with ↑ ↓)`;
    }
    ks[i] = { ...ks[i], time };
    return null;
  }

  set(path: CameraPath | null): void {
    this.keyframes = path ? path.keyframes.map(copyKeyframe) : [];
  }
}

/** What the folder needs of the page. */
export interface PathPanelHost {
  /** A line on the message bar (null: the path's line leaves). */
  say(text: string | null, kind?: 'error' | 'info'): void;
}

export class PathPanel {
  readonly list = new KeyframeList();
  private readonly listBox: HTMLElement;
  private readonly state = { time: 0, loop: false, speed: 1, orbitSeconds: 8, videoSize: '1280x720', videoFps: 30 };
  private readonly scrub: Controller;
  private readonly playButton: Controller;
  private readonly needPath: Controller[];
  private readonly fileInput: HTMLInputElement;
  private readonly progress: VideoProgress;
  /** The path's name in benchmark rows and files: 'orbit' while the orbit preset is unedited. */
  name = 'keyframes';
  /** The video export in flight's abort, or null. */
  private videoAbort: AbortController | null = null;
  /** The last video exported (the end-to-end test reads it). */
  lastVideo: PathVideo | null = null;

  constructor(
    gui: GUI,
    private readonly viewer: Viewer,
    private readonly host: PathPanelHost,
    progressRoot: HTMLElement,
  ) {
    const folder = gui.addFolder('Path');
    folder.add({ add: () => this.addView() }, 'add').name('Add view as keyframe (K)');
    this.listBox = document.createElement('div');
    this.listBox.className = 'sv-path-list';
    folder.$children.appendChild(this.listBox);
    this.listBox.addEventListener('click', (e) => this.onListClick(e));
    this.listBox.addEventListener('change', (e) => this.onListChange(e));
    this.scrub = folder
      .add(this.state, 'time', 0, 1, 0.01)
      .name('time (s)')
      .onChange((t: number) => {
        if (this.viewer.path) this.viewer.seek(t);
      });
    this.playButton = folder.add({ toggle: () => this.togglePlay() }, 'toggle').name('Play');
    folder
      .add(this.state, 'loop')
      .name('loop')
      .onChange(() => this.replay());
    folder
      .add(this.state, 'speed', 0.25, 4, 0.25)
      .name('speed')
      .onChange(() => this.replay());
    folder.add(this.state, 'orbitSeconds', 1, 120, 1).name('orbit seconds');
    folder.add({ orbit: () => this.orbit() }, 'orbit').name('Orbit preset (round the first view)');
    const clear = folder.add({ clear: () => this.setPath(null) }, 'clear').name('Clear path');
    const download = folder.add({ download: () => this.download() }, 'download').name('Download path JSON');
    folder.add({ open: () => this.fileInput.click() }, 'open').name('Open path JSON…');
    const video = folder.addFolder('Video');
    video.add(this.state, 'videoSize').name('size (WxH)');
    video.add(this.state, 'videoFps', 1, 120, 1).name('fps');
    const exportVideo = video.add({ video: () => void this.exportVideo() }, 'video').name('Export video…');
    this.needPath = [this.scrub, this.playButton, clear, download, exportVideo];
    this.fileInput = document.createElement('input');
    this.fileInput.type = 'file';
    this.fileInput.accept = '.json,application/json';
    this.fileInput.hidden = true;
    this.fileInput.addEventListener('change', () => {
      const file = this.fileInput.files?.[0];
      this.fileInput.value = '';
      if (file) void this.open(file);
    });
    folder.$children.appendChild(this.fileInput);
    this.progress = new VideoProgress(progressRoot, () => this.videoAbort?.abort());

    const on = <K extends keyof ViewerEventMap>(type: K, f: (d: ViewerEventMap[K]['detail']) => void) =>
      viewer.addEventListener(type, (e) => f((e as ViewerEventMap[K]).detail));
    on('pathframe', ({ time }) => {
      this.state.time = time;
      this.scrub.updateDisplay();
    });
    on('pathend', () => this.showPlaying());
    this.render();
  }

  /** The path in the viewer now, or null. */
  get path(): CameraPath | null {
    return this.viewer.path;
  }

  /** K: the view on screen becomes the last keyframe. */
  addView(): void {
    this.list.add(this.viewer.view);
    this.name = 'keyframes';
    this.commit();
  }

  /** A path from elsewhere (the hash, a file, the orbit preset), or null to clear it. */
  setPath(path: CameraPath | null, name = 'keyframes'): void {
    this.list.set(path);
    this.name = name;
    this.commit();
  }

  /** Play / Pause. */
  togglePlay(): void {
    if (this.viewer.playing) this.viewer.pause();
    else if (this.viewer.path) this.viewer.play(undefined, { loop: this.state.loop, speed: this.state.speed });
    this.showPlaying();
  }

  /** The keyframes changed: the viewer's path, the list, the controls. */
  private commit(): void {
    try {
      this.viewer.path = this.list.path;
      this.host.say(null);
    } catch (e) {
      // A keyframe the viewer refuses (e.g. up along the view): named in the line, the path as it was.
      this.host.say(e instanceof Error ? e.message : String(e));
      this.list.set(this.viewer.path);
    }
    this.render();
  }

  private replay(): void {
    if (this.viewer.playing) this.viewer.play(undefined, { loop: this.state.loop, speed: this.state.speed });
  }

  private showPlaying(): void {
    this.playButton.name(this.viewer.playing ? 'Pause' : 'Play');
  }

  private orbit(): void {
    this.setPath(orbitPath(this.viewer.homeView, this.state.orbitSeconds), 'orbit');
  }

  private download(): void {
    const path = this.viewer.path;
    if (path) downloadText(`splatview-path.json`, 'application/json', serializeCameraPath(path));
  }

  private async open(file: File): Promise<void> {
    try {
      this.setPath(parseCameraPathJson(await file.text()), file.name.replace(/\.json$/i, ''));
    } catch (e) {
      this.host.say(`${file.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The list of keyframes, the scrub's range, what needs a path. */
  private render(): void {
    const ks = this.list.keyframes;
    const rows = ks.map((k, i) => {
      const row = document.createElement('div');
      row.className = 'sv-path-key';
      const go = button(`${i + 1}`, 'go', i, `Show keyframe ${i + 1}`);
      const time = document.createElement('input');
      time.type = 'number';
      time.step = '0.1';
      time.min = '0';
      time.value = String(roundTime(k.time));
      time.dataset.key = String(i);
      time.title = `Keyframe ${i + 1}'s time (s)`;
      row.append(go, time, button('↑', 'up', i, 'Move up'), button('↓', 'down', i, 'Move down'), button('✕', 'delete', i, 'Delete'));
      return row;
    });
    if (ks.length === 1) {
      const hint = document.createElement('div');
      hint.className = 'sv-path-hint';
      hint.textContent = 'Add another keyframe (K) to make a path.';
      rows.push(hint);
    }
    this.listBox.replaceChildren(...rows);
    const path = this.viewer.path;
    const duration = path ? path.keyframes[path.keyframes.length - 1].time : 0;
    this.scrub.max(Math.max(0.01, duration));
    this.state.time = Math.min(this.viewer.pathTime, duration);
    this.scrub.updateDisplay();
    for (const c of this.needPath) c.enable(path !== null);
    this.showPlaying();
  }

  private onListClick(e: Event): void {
    const b = (e.target as HTMLElement).closest('button');
    if (!b) return;
    const i = Number(b.dataset.key);
    const action = b.dataset.action;
    const k = this.list.keyframes[i];
    if (!k) return;
    if (action === 'go') {
      if (this.viewer.path) this.viewer.seek(k.time);
      else this.viewer.setPose(k);
      return;
    }
    if (action === 'delete') this.list.remove(i);
    else if (!this.list.move(i, action === 'up' ? -1 : 1)) return;
    this.name = 'keyframes';
    this.commit();
  }

  private onListChange(e: Event): void {
    const input = e.target as HTMLInputElement;
    if (input.tagName !== 'INPUT' || input.dataset.key === undefined) return;
    const i = Number(input.dataset.key);
    const why = this.list.retime(i, roundTime(Number(input.value)));
    if (why) {
      this.host.say(why);
      this.render(); // the field shows the time kept
      return;
    }
    this.name = 'keyframes';
    this.commit();
  }

  /** Renders the path offscreen frame by frame and encodes it (path-video.ts); the progress bar and Cancel meanwhile. */
  async exportVideo(): Promise<PathVideo | null> {
    const path = this.viewer.path;
    if (!path || this.videoAbort) return null;
    const size = parseVideoSize(this.state.videoSize);
    if (typeof size === 'string') {
      this.host.say(size);
      return null;
    }
    const abort = new AbortController();
    this.videoAbort = abort;
    this.progress.show(`Video ${size.width}x${size.height} at ${this.state.videoFps} fps`);
    try {
      const video = await exportPathVideo(this.viewer, path, {
        ...size,
        fps: this.state.videoFps,
        signal: abort.signal,
        onProgress: (done, total) => this.progress.update(done, total),
      });
      this.lastVideo = video;
      downloadBlob(video.blob, videoName(this.viewer.scene?.name ?? 'splatview', video));
      this.host.say(null);
      return video;
    } catch (e) {
      if (!abort.signal.aborted) this.host.say(`Video export failed: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    } finally {
      this.videoAbort = null;
      this.progress.hide();
    }
  }
}

function button(text: string, action: string, i: number, title: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.title = title;
  b.dataset.action = action;
  b.dataset.key = String(i);
  return b;
}

/** The video export's bar: what it makes, frames done of the total, Cancel. */
class VideoProgress {
  private readonly label: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private title = '';

  constructor(
    private readonly root: HTMLElement,
    onCancel: () => void,
  ) {
    this.label = document.createElement('div');
    this.label.className = 'load-label';
    this.bar = document.createElement('progress');
    this.bar.max = 1;
    this.bar.value = 0;
    const cancel = document.createElement('button');
    cancel.textContent = 'Cancel';
    cancel.addEventListener('click', onCancel);
    const row = document.createElement('div');
    row.className = 'load-row';
    row.append(this.bar, cancel);
    root.replaceChildren(this.label, row);
  }

  show(title: string): void {
    this.title = title;
    this.label.textContent = `${title}: starting…`;
    this.bar.value = 0;
    this.root.hidden = false;
  }

  update(done: number, total: number): void {
    this.label.textContent = `${this.title}: frame ${done} / ${total}`;
    this.bar.value = total > 0 ? done / total : 0;
  }

  hide(): void {
    this.root.hidden = true;
  }
}
