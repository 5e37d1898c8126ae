/**
 * Test helpers for the tile rasteriser in isolation: render a cloud with a
 * TileRasterizer (no SplatRenderer), compare with the CPU reference, count the
 * GPU buffers a piece of code leaves alive.
 */
import { frameCamera } from '../../renderer/camera/frame-camera';
import type { CameraPose } from '../../renderer/camera/camera';
import { FrameUniforms } from '../../renderer/stage/frame-uniforms';
import { GpuScene } from '../../renderer/gpu-scene/gpu-scene';
import { TileRasterizer, type TileRasterizerOptions } from '../../renderer/draw/tiles/tile-rasterizer';
import { canBlendInto } from '../../renderer/draw/tiles/tile-pipelines';
import { readTextureRgba } from '../../renderer/frame/offscreen';
import type { SorterFactory } from '../../sort/types';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { rasterizeReference } from '../reference/raster';

export interface TileSettings {
  shDegree: number;
  splatScale: number;
  background: [number, number, number];
  depthBits?: number;
  /** Write the target directly as a storage texture where its format allows (default true); false: through the image. */
  direct?: boolean;
  /** The anti-aliased mode (FrameSettings.antialias; the reference's RasterOptions.antialias). */
  antialias?: boolean;
}

/** A tile rasteriser over a cloud with its own scene buffers and frame uniforms. */
export class TileHarness {
  readonly scene: GpuScene;
  readonly uniforms: FrameUniforms;
  readonly tiles: TileRasterizer;

  constructor(readonly device: GPUDevice, readonly cloud: SplatCloud, factory: SorterFactory, options?: TileRasterizerOptions) {
    this.scene = new GpuScene(device, cloud);
    this.uniforms = new FrameUniforms(device);
    this.tiles = new TileRasterizer(device, this.uniforms.buffer, this.scene, factory, options);
  }

  /**
   * One frame, read back as RGBA8 (row 0 at the top); the pair count is settled
   * afterwards. `regrow`: a frame that outgrew the pair buffers is drawn again after
   * they grew (as renderOffscreen does); off, the frame is returned as drawn.
   */
  async render(pose: CameraPose, w: number, h: number, s: TileSettings, format: GPUTextureFormat = 'rgba8unorm', regrow = false): Promise<Uint8Array> {
    for (;;) {
      const img = await this.renderOnce(pose, w, h, s, format);
      if (!regrow || !(this.tiles.status.overflowed && !this.tiles.status.capped)) return img;
    }
  }

  private async renderOnce(pose: CameraPose, w: number, h: number, s: TileSettings, format: GPUTextureFormat): Promise<Uint8Array> {
    const { device } = this;
    const cam = frameCamera(pose, w, h, this.cloud.bounds);
    const depthBits = s.depthBits ?? 32;
    this.uniforms.write(cam, { shDegree: s.shDegree, splatScale: s.splatScale, cull: true, keyBits: depthBits, antialias: s.antialias }, this.scene);
    const direct = (s.direct ?? true) && canBlendInto(device, format);
    const usage = GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC | (direct ? GPUTextureUsage.STORAGE_BINDING : 0);
    const texture = device.createTexture({ size: { width: w, height: h }, format, usage });
    const enc = device.createCommandEncoder();
    this.tiles.encode(enc, texture.createView(), format, { width: w, height: h, depthBits, background: s.background, targetStorage: direct });
    device.queue.submit([enc.finish()]);
    this.tiles.submitted();
    const out = await readTextureRgba(device, texture);
    texture.destroy();
    await this.tiles.settle();
    return out;
  }

  destroy(): void {
    this.tiles.destroy();
    this.uniforms.destroy();
    this.scene.destroy();
  }
}

/** The reference image (straight colour, clamped to 0..1) as rgb floats, and how many splats it drew. */
export function referenceRgb(cloud: SplatCloud, pose: CameraPose, w: number, h: number, s: TileSettings): { rgb: Float32Array; drawn: number } {
  const cam = frameCamera(pose, w, h, cloud.bounds);
  const ref = rasterizeReference(cloud, { ...pose, near: cam.near, far: cam.far }, { width: w, height: h, ...s });
  return { rgb: ref.rgb.map((v) => Math.min(1, Math.max(0, v))), drawn: ref.drawn };
}

export function rgbOf(rgba: Uint8Array): Float32Array {
  const out = new Float32Array((rgba.length / 4) * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
    out[j] = rgba[i] / 255;
    out[j + 1] = rgba[i + 1] / 255;
    out[j + 2] = rgba[i + 2] / 255;
  }
  return out;
}

export function rgbaOf(rgb: Float32Array): Uint8Array {
  const out = new Uint8Array((rgb.length / 3) * 4);
  for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
    for (let c = 0; c < 3; c++) out[i + c] = Math.round(Math.min(1, Math.max(0, rgb[j + c])) * 255);
    out[i + 3] = 255;
  }
  return out;
}

/**
 * Counts the GPU buffers and textures created through `device` and not destroyed
 * while tracking is on (wraps createBuffer/createTexture and their destroy()).
 */
export function trackAllocations(device: GPUDevice): { live(): string[]; stop(): void } {
  const live = new Map<object, string>();
  const createBuffer = device.createBuffer.bind(device);
  const createTexture = device.createTexture.bind(device);
  const wrap = <T extends { destroy(): void; label: string }>(obj: T, kind: string): T => {
    live.set(obj, `${kind} ${obj.label}`);
    const destroy = obj.destroy.bind(obj);
    obj.destroy = () => {
      live.delete(obj);
      destroy();
    };
    return obj;
  };
  device.createBuffer = (d: GPUBufferDescriptor) => wrap(createBuffer(d), 'buffer');
  device.createTexture = (d: GPUTextureDescriptor) => wrap(createTexture(d), 'texture');
  return {
    live: () => [...live.values()],
    stop: () => {
      device.createBuffer = createBuffer;
      device.createTexture = createTexture;
    },
  };
}
