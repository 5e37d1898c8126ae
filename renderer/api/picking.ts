/**
 * Viewer.pick and Viewer.project: the surface under a point of the canvas, and where a
 * world point is on it, both in CSS pixels of the target and at the camera of the frame
 * on screen (the last one drawn; the pose's before the first).
 *
 * pick is the GPU's (renderer/frame/pixel-pick.ts): the splats of the drawn scene that
 * cover the point, projected as both draws project them with the viewer's settings,
 * blended front to back until the pixel's opacity reaches 0.5; whichever draw is in use
 * (it reads the scene, not the draw's order), with no frame drawn and no image read back.
 * The page's double-click focus (input.ts) and ruler (app/ruler.ts) use it.
 */
import { frameCamera, projectToPixel } from '../camera/frame-camera';
import type { ObjectHandle } from '../frame/splat-renderer';
import { pickPixel } from '../frame/pixel-pick';
import type { SplatRenderer } from '../frame/splat-renderer';
import type { CameraPose } from '../camera/camera';
import type { SplatObject } from './objects';
import { frameSettingsOf, type RenderSettings } from './settings';
import type { RenderTarget } from './targets';

/** What Viewer.pick finds under a point of the canvas. */
export interface PickResult {
  /** The object the splat belongs to: an added one (Viewer.add), or Viewer.sceneObject for the scene load() shows. */
  object: SplatObject | null;
  /** The splat's index in its object's file (or in the loaded scene's; in a streamed LOD scene, in the set drawn now). */
  splat: number;
  /** The world point under the pointer, on the surface: at `depth` along the pointer's ray. */
  point: [number, number, number];
  /** Its view depth (world units along the camera's axis): where the pixel's opacity, front to back, reaches 0.5. */
  depth: number;
  /**
   * The pixel's opacity along the ray, all of it: >= 0.5 where `depth` is the opacity-0.5 surface; under 0.5 (a
   * translucent pixel, not under 0.1) `depth` is where half of it is reached.
   */
  opacity: number;
}

/** Where a world point is drawn (Viewer.project). */
export interface ScreenPoint {
  /** CSS pixels from the target's top left. */
  x: number;
  y: number;
  /** Its view depth (> 0: in front of the camera). */
  depth: number;
}

/** What picking needs of its viewer. */
export interface PickingHooks {
  settings: RenderSettings;
  target: RenderTarget;
  renderer(): SplatRenderer;
  pose(): CameraPose;
  /** The camera of the last frame drawn, or null before one. */
  lastCamera(): ReturnType<typeof frameCamera> | null;
  /** The SplatObject of a renderer's object handle (the loaded scene's too), or null. */
  objectOf(handle: ObjectHandle): SplatObject | null;
}

export class Picking {
  constructor(private readonly hooks: PickingHooks) {}

  /** The camera of the frame on screen, and device pixels per CSS pixel of the target. */
  private view(): { camera: ReturnType<typeof frameCamera>; sx: number; sy: number } {
    const { target } = this.hooks;
    const renderer = this.hooks.renderer();
    const bounds = renderer.worldBounds ?? renderer.cloud?.bounds ?? { min: [-1, -1, -1], max: [1, 1, 1] };
    const camera = this.hooks.lastCamera() ?? frameCamera(this.hooks.pose(), target.width, target.height, bounds);
    return { camera, sx: camera.width / Math.max(1, target.cssWidth), sy: camera.height / Math.max(1, target.cssHeight) };
  }

  /** The surface under CSS pixel (x, y) of the target (fractions allowed: the point itself is sampled), or null where nothing reaches opacity 0.5. */
  async pick(x: number, y: number): Promise<PickResult | null> {
    if (!(Number.isFinite(x) && Number.isFinite(y))) throw new RangeError(`pick: (${x}, ${y}) is not a point`);
    const renderer = this.hooks.renderer();
    const { camera, sx, sy } = this.view();
    const px = x * sx;
    const py = y * sy;
    if (!(px >= 0 && py >= 0 && px < camera.width && py < camera.height)) return null;
    const hit = await pickPixel(renderer, camera, frameSettingsOf(this.hooks.settings), px, py);
    if (!hit) return null;
    return { object: hit.object === null ? null : this.hooks.objectOf(hit.object), splat: hit.splat, point: hit.point, depth: hit.depth, opacity: hit.opacity };
  }

  /** Where world point `p` is drawn on the target (CSS pixels from its top left) by the frame on screen, or null behind the camera. */
  project(p: ArrayLike<number>): ScreenPoint | null {
    const { camera, sx, sy } = this.view();
    const at = projectToPixel(camera, p);
    return at && { x: at.x / sx, y: at.y / sy, depth: at.depth };
  }
}
