/**
 * createViewer: a Viewer on a canvas (or headless on a texture of its own),
 * with the host's device or one of its own, built-in controls, and a first scene.
 */
import type { ScenePrecision } from '../gpu-scene/scene-precision';
import type { KeyValueStore } from '../profile/auto-picks';
import { createBrowserDevice } from '../gpu/browser-device';
import type { DrawSetting } from '../profile/auto-draw';
import type { BudgetLimits } from '../frame/gpu-budget';
import type { RenderSettings } from './settings';
import type { SceneInput } from './sources';
import { CanvasTarget, TextureTarget, type CanvasLike, type RenderTarget } from './targets';
import { Viewer, type ViewerCamera } from './viewer';

export interface ControlsOptions {
  /** Where keys are listened for (default the canvas, made focusable; the page passes window). */
  keyTarget?: EventTarget;
  /** Takes over the keys that are not movement keys (F frame, R reset are built in otherwise). */
  onKey?: (key: string, e: KeyboardEvent) => void;
}

export interface ViewerOptions {
  /** The first scene: a URL, a File or Blob, an ArrayBuffer, or `{ generate: 'default' }`. */
  scene?: SceneInput;
  /** 'quads', 'tiles' or 'auto' (default: the faster measured on this adapter). */
  draw?: DrawSetting;
  /** A sort strategy's name, or 'auto' (default: measured on this adapter). */
  sort?: string;
  /** The first camera; applied after the first scene is framed (default: the scene's dense body, framed). */
  camera?: Partial<ViewerCamera>;
  /** '#rrggbb' (default black). */
  background?: string;
  /** Spherical-harmonics degree drawn, 0..3 (default 3: what the scene has). */
  shDegree?: number;
  /** A device the host already has (shared between viewers). Otherwise the viewer makes its own, and remakes it if it is lost. */
  device?: GPUDevice;
  /** Built-in orbit/fly input (mouse, touch, keys): on by default. */
  controls?: boolean | ControlsOptions;
  /** More settings (settings.ts): the viewer reads this object live (a panel edits it, then viewer.invalidate()). */
  settings?: Partial<RenderSettings>;
  /** Binding limits lower than the device's (to try a smaller adapter). */
  budgetLimits?: BudgetLimits;
  /** The most splats a streamed LOD scene (lod-meta.json) draws a frame (default DEFAULT_LOD_BUDGET, 2,000,000). */
  lodBudget?: number;
  /** How scenes are kept on the GPU: 'compact' (the default: 72 B a splat at SH3) or 'full' (144 B). */
  precision?: ScenePrecision;
  /** Where the draw and sort settings came from (their notes word it). */
  drawSource?: 'default' | 'saved' | 'link';
  sortSource?: 'link' | 'choice';
  /**
   * Where auto's sort and draw picks are kept across visits, by adapter and scene size
   * (e.g. window.localStorage; entries are validated on read): a size measured before
   * is not measured again. Default: this viewer's memory only.
   */
  autoPicksStore?: KeyValueStore | null;
}

/** A headless target: the viewer draws into a texture of its own this size. */
export interface TextureSize {
  width: number;
  height: number;
}

function isCanvas(c: CanvasLike | TextureSize): c is CanvasLike {
  return typeof (c as CanvasLike).getContext === 'function';
}

/**
 * Makes a viewer drawing on `canvas` (sized by CSS) or, given `{ width, height }`,
 * into a texture of its own. Resolves once it draws; the first scene (options.scene)
 * then loads: listen for `load` / `error`, or await `viewer.ready`.
 */
export async function createViewer(canvas: CanvasLike | TextureSize, options: ViewerOptions = {}): Promise<Viewer> {
  const device = options.device ?? (await createBrowserDevice()).device;
  const target: RenderTarget = isCanvas(canvas) ? new CanvasTarget(canvas) : new TextureTarget(canvas.width, canvas.height);
  // options.settings is read live (a panel's object): the options below are written into it.
  const settings: Partial<RenderSettings> = options.settings ?? {};
  if (options.draw !== undefined) settings.draw = options.draw;
  if (options.sort !== undefined) settings.sorter = options.sort;
  if (options.background !== undefined) settings.background = options.background;
  if (options.shDegree !== undefined) settings.shDegree = options.shDegree;
  if (options.camera?.fovy !== undefined) settings.fovyDeg = options.camera.fovy;
  const controls = options.controls === false ? undefined : typeof options.controls === 'object' ? options.controls : {};
  const viewer = new Viewer({
    device,
    target,
    ownsDevice: options.device === undefined,
    settings,
    ...(options.budgetLimits ? { budgetLimits: options.budgetLimits } : {}),
    drawSource: options.drawSource ?? (options.draw && options.draw !== 'auto' ? 'link' : 'default'),
    sortSource: options.sortSource ?? 'choice',
    ...(options.precision ? { precision: options.precision } : {}),
    ...(options.autoPicksStore ? { autoPicksStore: options.autoPicksStore } : {}),
    ...(controls ? { controls } : {}),
  });
  if (options.lodBudget !== undefined) viewer.setLodBudget(options.lodBudget);
  const camera = options.camera;
  const scene = options.scene;
  if (scene === undefined) {
    if (camera) viewer.camera = camera;
    viewer.ready = Promise.resolve();
  } else {
    // Started in a task of its own: the host's listeners, added when this resolves, see every event.
    viewer.ready = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => viewer.load(scene)).then(() => {
      if (camera) viewer.camera = camera;
    });
    viewer.ready.catch(() => undefined); // reported by the error event; awaited by whoever wants it
  }
  return viewer;
}
