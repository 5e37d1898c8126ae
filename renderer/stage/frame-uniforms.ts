import type { StructuredView } from 'webgpu-utils';
import commonWgsl from '../../shaders/stage/splat_common.wgsl?raw';
import { wgslStruct } from '../../sort/kernel-kit';
import type { CompactDecode } from '../gpu-scene/compact-pack';
import type { DrawGeometry, DrawOrder } from './draw-settings';

/** What a frame needs to know about the camera (matrices from renderer/camera/camera.ts). */
export interface FrameCamera {
  view: Float32Array;
  proj: Float32Array;
  eye: ArrayLike<number>;
  fovyDeg: number;
  width: number;
  height: number;
  near: number;
  far: number;
  /** The frustum splats are culled by and their projection's Jacobian clamped to, when not this viewport's (tan of the half angles, x and y): a window of a larger view keeps that view's (frame-camera.ts windowCamera). */
  cullTanHalfFov?: readonly [number, number];
}

export interface FrameSettings {
  /** SH degree to evaluate; clamped to the scene's. */
  shDegree: number;
  splatScale: number;
  /** Frustum culling in the project pass. */
  cull: boolean;
  /** Key bits of the depth key (32: exact float order; fewer: quantised depth). */
  keyBits: number;
  /**
   * Stop quads and fragments at 2 sqrt(2) sigma (PlayCanvas's extent) instead of the
   * forward model's 3: less area, a small image change (docs/PERFORMANCE.md gives its
   * PSNR cost). Default false.
   */
  sigmaCut?: boolean;
  /**
   * The contribution cull: drop splats whose alpha integrated over the screen
   * (opacity * 2 pi sqrt(det) of the pixel covariance) is under this many pixels,
   * before the sort (PlayCanvas's default is about 0.75 px). An image change; 0 (the default) is off.
   * Both draws (with a CPU sort strategy every splat is sorted and the quads prepare pass drops them).
   */
  minContribution?: number;
  /**
   * The anti-aliased mode (Mip-Splatting's 2D filter, gsplat's rasterize_mode
   * "antialiased"): each splat's opacity scaled by sqrt(det(cov2D) / det(cov2D + 0.3 I)),
   * so that the +0.3 px^2 low-pass no longer fattens small splats (shaders/stage/splat_common.wgsl
   * effectiveOpacity). Both draws. An image change; default false.
   */
  antialias?: boolean;
  /** The polygon splats are drawn with (draw-pass.ts); default DEFAULT_GEOMETRY. Same image. */
  geometry?: DrawGeometry;
  /** 'auto' geometry's threshold (draw-pass.ts DrawShape.autoArea); for measurements. */
  autoArea?: number;
  /** Draw a triangle list instead of instanced strips (draw-pass.ts DrawShape.list); for measurements. */
  listDraw?: boolean;
  /**
   * Draw order: back to front, or front to back with early termination
   * (draw-pass.ts), or 'auto' (the default): front to back where the view's depth
   * complexity makes it pay (SplatRenderer.resolveOrder).
   */
  drawOrder?: DrawOrder;
  /** Front to back: chunks of the draw (draw-pass.ts DrawShape.chunks); for tests. */
  f2bChunks?: number;
}

/** What the frame block says of the scene (a GpuScene has it). */
export interface FrameScene {
  count: number;
  shDegree: number;
  /** u32 words a splat of SH. */
  shStride: number;
  /** A compact scene's ranges (GpuScene.decode); null or absent for a full one. */
  decode?: CompactDecode | null;
  /** Its object table (GpuScene.objects: renderer/gpu-scene/objects.ts), written with the block for the frame's view. */
  readonly objects?: { writeView(view: ArrayLike<number>, eye: ArrayLike<number>): void };
}

/**
 * The `Frame` uniform block of shaders/stage/splat_common.wgsl, packed from the shader's
 * own struct definition (kernel-kit's WgslStruct: no hand-counted offsets).
 */
export class FrameUniforms {
  readonly buffer: GPUBuffer;
  private readonly view: StructuredView;

  constructor(private readonly device: GPUDevice) {
    const frame = wgslStruct(commonWgsl, 'Frame');
    this.view = frame.view();
    this.buffer = device.createBuffer({
      label: 'FrameUniforms.buffer',
      size: frame.size,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
  }

  /** Writes the frame's block for `scene` (its count, SH degree and SH layout: GpuScene). */
  write(cam: FrameCamera, settings: FrameSettings, scene: FrameScene): void {
    const tanY = Math.tan((cam.fovyDeg * Math.PI) / 360);
    const tanX = tanY * (cam.width / cam.height);
    const fy = cam.height / (2 * tanY);
    this.view.set({
      view: cam.view,
      proj: cam.proj,
      eye: [cam.eye[0], cam.eye[1], cam.eye[2]],
      splatCount: scene.count,
      viewport: [cam.width, cam.height],
      focal: [fy, fy],
      tanHalfFov: cam.cullTanHalfFov ? [cam.cullTanHalfFov[0], cam.cullTanHalfFov[1]] : [tanX, tanY],
      near: cam.near,
      far: cam.far,
      splatScale: settings.splatScale,
      shDegree: Math.max(0, Math.min(settings.shDegree, scene.shDegree)),
      shStride: scene.shStride,
      keyBits: settings.keyBits,
      cullEnabled: settings.cull ? 1 : 0,
      minContribution: Math.max(0, settings.minContribution ?? 0),
      antialias: settings.antialias ? 1 : 0,
      ...decodeFields(scene.decode),
    });
    this.device.queue.writeBuffer(this.buffer, 0, this.view.arrayBuffer);
    scene.objects?.writeView(cam.view, cam.eye);
  }

  destroy(): void {
    this.buffer.destroy();
  }
}

/** The Frame block's fields of a compact scene's ranges (zeros for a full scene: unused). */
function decodeFields(d: CompactDecode | null | undefined) {
  if (!d) return { dcMin: [0, 0, 0, 0], dcStep: [0, 0, 0, 0], lsRange: [0, 0, 0, 0], shRange: new Float32Array(48) };
  return { dcMin: [...d.dcMin, 0], dcStep: [...d.dcStep, 0], lsRange: [...d.lsRange, 0], shRange: d.shRange };
}
