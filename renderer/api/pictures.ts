/**
 * Pictures of a viewer's view: a PNG of the canvas as drawn (taken in the task of the next frame's
 * submit: frame.ts calls `submitted`), and offscreen renders at a multiple of the
 * target's resolution (frame/offscreen.ts: the same pipeline into a texture of its own).
 */
import type { CameraPose } from '../camera/camera';
import { frameCamera } from '../camera/frame-camera';
import { renderOffscreen, type OffscreenImage } from '../frame/offscreen';
import type { SplatRenderer } from '../frame/splat-renderer';
import { frameSettingsOf, type RenderSettings } from './settings';
import { imageToPng, type RenderTarget } from './targets';

/** What pictures need of their viewer. */
export interface PicturesHooks {
  settings: RenderSettings;
  target: RenderTarget;
  device(): GPUDevice;
  renderer(): SplatRenderer;
  /** The pose on screen now. */
  pose(): CameraPose;
  /** The next frame draws (and sorts). */
  redraw(): void;
}

export class Pictures {
  /** Offscreen renders of renderPose in flight: the frame loop draws no frame meanwhile (frame.ts). */
  rendering = 0;
  /** renderSequence runs in flight: auto measures nothing meanwhile (its trials would draw between the frames). */
  sequences = 0;
  private shotWaiters: { resolve: (b: Blob) => void; reject: (e: unknown) => void }[] = [];

  constructor(private readonly hooks: PicturesHooks) {}

  /** A PNG of the view: scale 1 the canvas itself (right after the next frame's submit), else an offscreen render. */
  async screenshot(scale: number): Promise<Blob> {
    if (scale === 1 && this.hooks.target.element) {
      this.hooks.redraw();
      return new Promise((resolve, reject) => this.shotWaiters.push({ resolve, reject }));
    }
    return imageToPng(await this.readPixels(scale));
  }

  /** A frame of the scene was just submitted: the canvas texture is still readable, in this task. */
  submitted(): void {
    if (this.shotWaiters.length === 0) return;
    const waiters = this.shotWaiters.splice(0);
    const png = this.hooks.target.toPng() ?? Promise.reject(new Error('screenshot: no canvas'));
    void png.then(
      (b) => waiters.forEach((w) => w.resolve(b)),
      (e) => waiters.forEach((w) => w.reject(e)),
    );
  }

  /** The scale readPixels(scale) really uses (bounded by the device's largest texture). */
  screenshotScale(scale: number): number {
    const max = this.hooks.device().limits.maxTextureDimension2D;
    const { target } = this.hooks;
    return Math.max(1, Math.min(scale, Math.floor(max / Math.max(target.width, target.height))));
  }

  /** The view's pixels (RGBA8, rows top down), rendered offscreen at `scale` times the target's resolution. */
  readPixels(scale: number): Promise<OffscreenImage> {
    const renderer = this.hooks.renderer();
    const cloud = renderer.cloud;
    if (!cloud) return Promise.reject(new Error('screenshot: no scene is open'));
    const k = this.screenshotScale(scale);
    const { target, settings: s } = this.hooks;
    const camera = frameCamera(this.hooks.pose(), target.width * k, target.height * k, renderer.worldBounds ?? cloud.bounds);
    return renderOffscreen(renderer, camera, {
      ...frameSettingsOf(s),
      sort: true,
    });
  }

  /**
   * `pose` rendered offscreen at width x height device pixels (each within the device's largest texture), with the
   * frame's settings as drawn on screen: a video's frames (the page's path export).
   */
  async renderPose(pose: CameraPose, width: number, height: number): Promise<OffscreenImage> {
    const renderer = this.hooks.renderer();
    const cloud = renderer.cloud;
    if (!cloud) throw new Error('render: no scene is open');
    const max = this.hooks.device().limits.maxTextureDimension2D;
    for (const [name, v] of [['width', width], ['height', height]] as const) {
      if (!(Number.isInteger(v) && v >= 1 && v <= max)) throw new RangeError(`render: ${name} ${v} is not a whole number of pixels in 1..${max}`);
    }
    const s = this.hooks.settings;
    const camera = frameCamera(pose, width, height, cloud.bounds);
    // Alone on the queue: a slow GPU (SwiftShader) otherwise draws the live view's frames in between.
    this.rendering++;
    try {
      return await renderOffscreen(renderer, camera, {
        ...frameSettingsOf(s),
        sort: true,
      });
    } finally {
      this.rendering--;
    }
  }

  /**
   * Each of `poses` rendered offscreen as renderPose does, one after the other, as the
   * caller asks for them (a video's frames). While it runs auto holds its trials: a
   * trial's frames between two of these would stall the sequence for seconds on a slow
   * GPU and time the sorts against the sequence's work.
   */
  async *renderSequence(poses: Iterable<CameraPose>, width: number, height: number): AsyncGenerator<OffscreenImage, void, undefined> {
    this.sequences++;
    try {
      for (const pose of poses) yield await this.renderPose(pose, width, height);
    } finally {
      this.sequences--;
    }
  }

  /** Screenshots waiting for a frame fail. */
  destroy(): void {
    for (const w of this.shotWaiters.splice(0)) w.reject(new Error('screenshot: the viewer was destroyed'));
  }
}
