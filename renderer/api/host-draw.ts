/**
 * Viewer.drawOver (docs/API.md "Composing with a host"): the viewer's scene drawn over a
 * host's colour texture, for the host's camera, on the device they share, composed with
 * the host's depth (both draws: renderer/draw/draw.ts EncodeOptions.hostDepth) and, with
 * the tiles draw, writing a depth for the host (outputDepth). One frame encoded and
 * submitted at once, so that it lands on the queue between the host's passes.
 */
import type { Bounds } from '../../scenes/splat-cloud';
import { boundsCenter, dot, normalize, sub, type CameraPose, type Vec3 } from '../camera/camera';
import { frameCamera } from '../camera/frame-camera';
import type { FrameCamera, HostDepth, OutputDepth, SplatRenderer } from '../frame/splat-renderer';
import { frameSettingsOf, type RenderSettings } from './settings';

/** A host camera as its matrices: column-major 4x4 (WebGL / three.js `elements` order), WebGPU's [0, 1] depth. */
export interface HostCamera {
  /** World to view (a rigid transform; the camera looks down its -z, +y up). */
  view: ArrayLike<number>;
  /**
   * A symmetric perspective projection to WebGPU clip space (z in [0, 1]: three.js
   * WebGPURenderer's cameras, gl-matrix perspectiveZO), standard or reversed-Z, its far
   * plane finite or infinite; its aspect the colour texture's.
   */
  projection: ArrayLike<number>;
}

/** A depth texture of the host's, and the projection planes its z is in (docs/API.md). */
export interface HostDepthTexture {
  texture: GPUTexture;
  /** The host projection's planes (view distances); default: read from a HostCamera's projection. */
  near?: number;
  far?: number;
  /** Reversed-Z (1 near, 0 far); default: read from a HostCamera's projection, else false. */
  reversed?: boolean;
}

export interface DrawOverOptions {
  /**
   * The host's colour texture (its picture, drawn before): the splats are drawn over it.
   * Of the viewer's format (`viewer.format`), RENDER_ATTACHMENT usage; its size is the frame's.
   */
  color: GPUTexture;
  /**
   * The host's depth (depth16unorm, depth24plus, depth32float or a stencil form; the colour's
   * size): the splats behind its surfaces are hidden. Quads draw: RENDER_ATTACHMENT usage
   * (a read-only depth attachment); tiles draw: TEXTURE_BINDING. Without it nothing of the
   * host's hides a splat (the splats are still drawn over its colour).
   */
  depth?: HostDepthTexture;
  /**
   * A depth for the host (the tiles draw only; the quads draw throws CompositionRefused): an
   * r32float texture with STORAGE_BINDING usage, the colour's size; per pixel the NDC z where
   * the splats' opacity reaches 0.5, else the far plane's. Its planes default to the depth's.
   */
  outputDepth?: HostDepthTexture;
  /** The host's camera: its matrices, or a pose (then `depth` and `outputDepth` need near and far). */
  camera: HostCamera | CameraPose;
}

/** What drawOver needs of its viewer. */
export interface HostDrawHooks {
  settings: RenderSettings;
  device(): GPUDevice;
  renderer(): SplatRenderer;
  /** The drawn scene's bounds (its camera's planes are fitted to them), or null without a scene. */
  bounds(): Bounds | null;
  /** The format the viewer draws in. */
  format(): GPUTextureFormat;
  /** The device is lost: nothing is drawn. */
  lost(): boolean;
  /** The viewer's own next frame sorts again (the order is the host camera's now). */
  redraw(): void;
}

/** The planes and convention of a projection matrix (WebGPU depth). */
export function projectionPlanes(p: ArrayLike<number>): { near: number; far: number; reversed: boolean } {
  const [p10, p14] = [p[10]!, p[14]!];
  if (p[11] !== -1 || p[15] !== 0 || Math.abs(p[8]!) > 1e-6 || Math.abs(p[9]!) > 1e-6 || !(p[5]! > 0)) {
    throw new RangeError('drawOver: camera.projection must be a symmetric perspective projection (column-major, m[11] = -1, m[15] = 0)');
  }
  // Standard: z = -p10 + p14 / d with p14 < 0; reversed-Z: p14 > 0 (docs/API.md's convention).
  const reversed = p14 > 0;
  const near = reversed ? p14 / (p10 + 1) : p14 / p10;
  const far = reversed ? (p10 === 0 ? Infinity : p14 / p10) : p10 === -1 ? Infinity : p14 / (p10 + 1);
  if (!(near > 0) || !(far > near)) throw new RangeError(`drawOver: camera.projection's planes are not 0 < near < far (near ${near}, far ${far}): a WebGPU [0, 1] depth projection?`);
  return { near, far, reversed };
}

/** A rigid view matrix and a projection as a pose (its target at the scene's centre's depth). */
export function poseOf(cam: HostCamera, bounds: Bounds, width: number, height: number): CameraPose {
  const v = cam.view;
  const p = cam.projection;
  if (Math.abs(p[0]! * width - p[5]! * height) > 1e-3 * p[5]! * height) {
    throw new RangeError(`drawOver: camera.projection's aspect (${(p[5]! / p[0]!).toFixed(4)}) is not the colour texture's (${(width / height).toFixed(4)})`);
  }
  const t = [v[12]!, v[13]!, v[14]!];
  const eye: Vec3 = [0, 1, 2].map((i) => -(v[4 * i]! * t[0]! + v[4 * i + 1]! * t[1]! + v[4 * i + 2]! * t[2]!)) as Vec3;
  const forward = normalize([-v[2]!, -v[6]!, -v[10]!]);
  const up: Vec3 = [v[1]!, v[5]!, v[9]!];
  const toCentre = Math.max(1e-6, Math.abs(dot(sub(boundsCenter(bounds), eye), forward)));
  const target: Vec3 = [eye[0] + forward[0] * toCentre, eye[1] + forward[1] * toCentre, eye[2] + forward[2] * toCentre];
  return { eye, target, up, fovyDeg: (2 * Math.atan(1 / p[5]!) * 180) / Math.PI };
}

function isPose(c: HostCamera | CameraPose): c is CameraPose {
  return (c as CameraPose).eye !== undefined;
}

export class HostDraw {
  /** Without the host's depth: a depth cleared to the far plane, of the colour's size. */
  private far: { texture: GPUTexture; device: GPUDevice } | null = null;

  constructor(private readonly hooks: HostDrawHooks) {}

  /** The format the viewer draws in (a colour texture's for drawOver). */
  get format(): GPUTextureFormat {
    return this.hooks.format();
  }

  /** One frame of the scene over `options.color` for the host's camera, submitted now; nothing without a scene or on a lost device. */
  drawOver(options: DrawOverOptions): void {
    const { color } = options;
    const format = this.hooks.format();
    if (color.format !== format) throw new RangeError(`drawOver: the colour texture is ${color.format}; the viewer draws ${format} (viewer.format)`);
    const renderer = this.hooks.renderer();
    const bounds = this.hooks.bounds();
    if (!renderer.cloud || !bounds || this.hooks.lost()) return;
    const { width, height } = color;
    const matrices = isPose(options.camera) ? null : options.camera;
    const pose = matrices ? poseOf(matrices, bounds, width, height) : (options.camera as CameraPose);
    const planes = matrices ? projectionPlanes(matrices.projection) : null;
    const camera: FrameCamera = frameCamera(pose, width, height, bounds);
    const given = options.depth;
    // The planes: the texture's own, else the host depth's (for outputDepth), else the projection's.
    const convention = (d: HostDepthTexture, what: string) => {
      const near = d.near ?? given?.near ?? planes?.near;
      const far = d.far ?? given?.far ?? planes?.far;
      if (near === undefined || far === undefined) throw new RangeError(`drawOver: ${what} needs near and far with a camera pose (a HostCamera's projection gives them)`);
      return { near, far, reversed: d.reversed ?? given?.reversed ?? planes?.reversed ?? false };
    };
    // No host depth: one cleared to the far plane of an infinite projection (nothing is hidden).
    const depth = given ?? { texture: this.farDepth(width, height), near: camera.near, far: Infinity, reversed: false };
    for (const [what, t] of [['depth', depth.texture], ['outputDepth', options.outputDepth?.texture]] as const) {
      if (t && (t.width !== width || t.height !== height)) throw new RangeError(`drawOver: ${what} is ${t.width}x${t.height}, the colour ${width}x${height}`);
    }
    const hostDepth: HostDepth = {
      view: depth.texture.createView({ aspect: 'depth-only' }),
      texture: depth.texture,
      ...convention(depth, 'depth'),
    };
    const out = options.outputDepth;
    const outputDepth: OutputDepth | undefined = out && { view: out.texture.createView(), ...convention(out, 'outputDepth') };
    const s = this.hooks.settings;
    const device = this.hooks.device();
    const encoder = device.createCommandEncoder({ label: 'Viewer.drawOver' });
    renderer.encodeFrame(encoder, color.createView(), camera, {
      ...frameSettingsOf(s),
      sort: true,
      targetStorage: (color.usage & GPUTextureUsage.STORAGE_BINDING) !== 0,
      hostDepth,
      ...(outputDepth ? { outputDepth } : {}),
    });
    device.queue.submit([encoder.finish()]);
    renderer.submitted();
    this.hooks.redraw();
  }

  /** A depth16unorm texture cleared to 1 (the far plane, standard convention), kept while the size holds. */
  private farDepth(width: number, height: number): GPUTexture {
    const f = this.far;
    const device = this.hooks.device();
    if (f && f.device === device && f.texture.width === width && f.texture.height === height) return f.texture;
    f?.texture.destroy();
    const texture = device.createTexture({
      label: 'Viewer.drawOver.farDepth',
      size: { width, height },
      format: 'depth16unorm',
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.TEXTURE_BINDING,
    });
    const encoder = device.createCommandEncoder({ label: 'Viewer.drawOver.clearDepth' });
    encoder.beginRenderPass({ colorAttachments: [], depthStencilAttachment: { view: texture.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'store' } }).end();
    device.queue.submit([encoder.finish()]);
    this.far = { texture, device };
    return texture;
  }

  destroy(): void {
    this.far?.texture.destroy();
    this.far = null;
  }
}
