/**
 * `<splat-view>` (`import 'splatview/element'`): a viewer in an element sized by
 * CSS (300x150 unless styled). Attributes, all live:
 *   src         the scene's URL (changing it loads the new scene)
 *   draw        quads | tiles | auto
 *   sort        a sort strategy's name | auto
 *   camera      "eye=x,y,z target=x,y,z up=x,y,z fovy=deg" (any of them)
 *   background  #rrggbb
 *   controls    "off" turns the built-in orbit/fly input off (read once)
 * Its `viewer` property is the Viewer (index.ts) once made (null before). The
 * `ready` promise resolves with it once the first scene (`src`) is on screen
 * (`viewer.scene` set, after the `load` event), at once without `src`; it rejects
 * where there is no WebGPU or that first load fails. The viewer's `load`, `error` and `progress`
 * events are dispatched on the element too. Removed from the page, it destroys
 * its viewer. `device` (set before it is added) shares a device the host has.
 */
import { isDrawSetting } from '../profile/auto-draw';
import { createViewer } from './create-viewer';
import type { Viewer, ViewerCamera } from './viewer';

/** "eye=1,2,3 target=0,0,0 up=0,-1,0 fovy=50" -> a partial camera; malformed parts are ignored. */
export function parseCameraAttribute(text: string): Partial<ViewerCamera> {
  const out: { -readonly [K in keyof ViewerCamera]?: ViewerCamera[K] } = {};
  for (const part of text.trim().split(/\s+/)) {
    const [key, value] = part.split('=');
    if (!key || value === undefined) continue;
    const nums = value.split(',').map(Number);
    if (nums.some((n) => !Number.isFinite(n))) continue;
    if ((key === 'eye' || key === 'target' || key === 'up') && nums.length === 3) out[key] = nums;
    else if (key === 'fovy' && nums.length === 1 && nums[0]! > 0 && nums[0]! < 180) out.fovy = nums[0]!;
  }
  return out;
}

const STYLE = ':host{display:block;position:relative;width:300px;height:150px;contain:strict}canvas{display:block;width:100%;height:100%;touch-action:none;outline:none}';

export class SplatViewElement extends HTMLElement {
  static readonly observedAttributes = ['src', 'draw', 'sort', 'camera', 'background'];
  /** The viewer, once made. */
  viewer: Viewer | null = null;
  /** A device the host has, shared with other viewers (set before the element is added). */
  device: GPUDevice | undefined;
  /**
   * Resolves with the viewer once its first scene (`src`) is shown, the `load` event
   * dispatched (at once without `src`; a newer `src` before then: once that one is
   * shown); rejects where there is no WebGPU, or with the error of that first load.
   */
  readonly ready: Promise<Viewer>;
  /** `ready` has settled. */
  private settled = false;
  private resolveReady!: (v: Viewer) => void;
  private rejectReady!: (e: unknown) => void;
  private readonly canvas: HTMLCanvasElement;
  private making = false;
  private loadAbort: AbortController | null = null;

  constructor() {
    super();
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined); // reported on the element as an error event
    const root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = STYLE;
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('part', 'canvas');
    root.append(style, this.canvas);
  }

  connectedCallback(): void {
    if (this.viewer || this.making) return;
    this.making = true;
    const draw = this.getAttribute('draw');
    const sort = this.getAttribute('sort');
    const camera = this.getAttribute('camera');
    const background = this.getAttribute('background');
    createViewer(this.canvas, {
      ...(this.device ? { device: this.device } : {}),
      ...(isDrawSetting(draw) ? { draw } : {}),
      ...(sort ? { sort } : {}),
      ...(camera ? { camera: parseCameraAttribute(camera) } : {}),
      ...(background ? { background } : {}),
      controls: this.getAttribute('controls') !== 'off',
    }).then(
      (viewer) => {
        this.making = false;
        if (!this.isConnected) {
          viewer.destroy();
          return;
        }
        this.viewer = viewer;
        for (const type of ['load', 'error', 'progress'] as const) {
          viewer.addEventListener(type, (e) => this.dispatchEvent(new CustomEvent(type, { detail: (e as CustomEvent).detail })));
        }
        const src = this.getAttribute('src');
        if (src) this.load(src);
        else this.settle(viewer);
      },
      (err) => {
        this.making = false;
        this.settle(null, err);
        this.dispatchEvent(new CustomEvent('error', { detail: { name: this.getAttribute('src') ?? '', error: err } }));
      },
    );
  }

  /** Settles `ready` once: with the viewer, or rejected with `err`. */
  private settle(viewer: Viewer | null, err?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    if (viewer) this.resolveReady(viewer);
    else this.rejectReady(err);
  }

  disconnectedCallback(): void {
    this.loadAbort?.abort();
    this.viewer?.destroy();
    this.viewer = null;
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    const v = this.viewer;
    if (!v || old === value) return;
    if (name === 'src' && value) this.load(value);
    else if (name === 'draw' && isDrawSetting(value)) v.setDraw(value);
    else if (name === 'sort' && value) v.setSort(value);
    else if (name === 'camera' && value) v.camera = parseCameraAttribute(value);
    else if (name === 'background' && value) {
      v.settings.background = value;
      v.invalidate();
    }
  }

  private load(src: string): void {
    const v = this.viewer;
    if (!v) return;
    this.loadAbort?.abort();
    const abort = (this.loadAbort = new AbortController());
    const camera = this.getAttribute('camera');
    v.load(src, { signal: abort.signal }).then(
      () => {
        if (camera) v.camera = parseCameraAttribute(camera);
        if (this.loadAbort === abort) this.settle(v);
      },
      (err) => {
        // The error event says why; `ready` settles with this load unless a newer src replaced it.
        if (this.loadAbort === abort) this.settle(null, err);
      },
    );
  }
}

if (typeof customElements !== 'undefined' && !customElements.get('splat-view')) customElements.define('splat-view', SplatViewElement);

declare global {
  interface HTMLElementTagNameMap {
    'splat-view': SplatViewElement;
  }
}
