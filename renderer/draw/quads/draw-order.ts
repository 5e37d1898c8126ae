/**
 * The quads draw's shape of a frame: the geometry and extent its settings ask for,
 * and the order, 'auto' resolved per view from the estimated depth complexity
 * (depth-complexity.ts). CPU only.
 */
import type { SplatCloud } from '../../../scenes/splat-cloud';
import type { DrawOrder } from '../../stage/draw-settings';
import type { FrameCamera, FrameSettings } from '../../stage/frame-uniforms';
import { estimateLayers } from './depth-complexity';
import type { ObjectRun } from '../../gpu-scene/objects';
import { DEFAULT_GEOMETRY, type DrawShape } from './draw-shape';

/**
 * 'auto' draws front to back from this many layers over the mean pixel
 * (depth-complexity.ts). On the H200 (docs/PERFORMANCE.md) front to back is slower
 * at biker's ~11 layers and 0.75x / 0.6x of back to front at the replicated 1M / 6M
 * files' ~94 / ~560 layers.
 */
export const F2B_MIN_LAYERS = 32;

/**
 * The geometry and extent a frame's settings ask for (defaults: DEFAULT_GEOMETRY, the
 * model's 3 sigma); an explicit draw order is set here, 'auto' is left to AutoOrder.
 */
export function drawShape(settings: FrameSettings): DrawShape {
  const order = settings.drawOrder ?? 'auto';
  return {
    ...(order !== 'auto' ? { frontToBack: order === 'front-to-back' } : {}),
    ...(settings.f2bChunks !== undefined ? { chunks: settings.f2bChunks } : {}),
    geometry: settings.geometry ?? DEFAULT_GEOMETRY,
    sigmaCut: settings.sigmaCut ?? false,
    ...(settings.autoArea !== undefined ? { autoArea: settings.autoArea } : {}),
    ...(settings.listDraw !== undefined ? { list: settings.listDraw } : {}),
  };
}

/**
 * 'auto': front to back when the view's estimated depth complexity reaches
 * F2B_MIN_LAYERS. The estimate (a 4096-splat sample on the CPU) is kept while the
 * cloud, the camera, the viewport and the splat scale stay the same.
 */
export class AutoOrder {
  private layers: { cloud: SplatCloud; key: string; value: number } | null = null;

  /** The depth complexity the last resolve saw; null before one. */
  get lastLayers(): number | null {
    return this.layers?.value ?? null;
  }

  /** `objects`: the drawn scene's placed objects (GpuScene.objects; default one at the identity). */
  resolve(cloud: SplatCloud, camera: FrameCamera, splatScale: number, objects?: { readonly runs: readonly ObjectRun[]; readonly version: number }): Exclude<DrawOrder, 'auto'> {
    const key = `${Array.from(camera.view).join(',')}|${camera.width}x${camera.height}|${camera.fovyDeg}|${splatScale}|${objects?.version ?? 0}`;
    if (this.layers?.cloud !== cloud || this.layers.key !== key) {
      this.layers = { cloud, key, value: estimateLayers(cloud, camera, splatScale, undefined, objects?.runs) };
    }
    return this.layers.value >= F2B_MIN_LAYERS ? 'front-to-back' : 'back-to-front';
  }
}
