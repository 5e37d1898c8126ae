/**
 * Where a viewer draws: a canvas (an HTMLCanvasElement sized by CSS, or an
 * OffscreenCanvas of a fixed size) through its WebGPU context, or a texture of
 * its own (headless, e.g. Node with the `webgpu` package).
 */
import type { OffscreenImage } from '../frame/offscreen';

export interface RenderTarget {
  readonly format: GPUTextureFormat;
  readonly width: number;
  readonly height: number;
  /** The size in CSS pixels (for picking under the pointer). */
  readonly cssWidth: number;
  readonly cssHeight: number;
  /** Follows the element's CSS size (device pixels, at most 2 per CSS pixel); true when it changed. */
  resize(): boolean;
  configure(device: GPUDevice, storage: boolean): void;
  /** The view to draw this frame into. */
  view(): GPUTextureView;
  /** A PNG of what was just drawn (call in the task of the frame's submit), or null where there is no canvas. */
  toPng(): Promise<Blob> | null;
  /** The DOM element input listens to, if any. */
  readonly element: HTMLElement | null;
  unconfigure(): void;
}

export type CanvasLike = HTMLCanvasElement | OffscreenCanvas;

function isHtmlCanvas(c: CanvasLike): c is HTMLCanvasElement {
  return typeof HTMLCanvasElement !== 'undefined' && c instanceof HTMLCanvasElement;
}

export class CanvasTarget implements RenderTarget {
  readonly format: GPUTextureFormat;
  private readonly context: GPUCanvasContext;

  constructor(private readonly canvas: CanvasLike) {
    this.format = navigator.gpu.getPreferredCanvasFormat();
    const context = canvas.getContext('webgpu') as GPUCanvasContext | null;
    if (!context) throw new Error('The canvas has no WebGPU context.');
    this.context = context;
  }

  get width(): number {
    return this.canvas.width;
  }
  get height(): number {
    return this.canvas.height;
  }
  get cssWidth(): number {
    return isHtmlCanvas(this.canvas) ? this.canvas.clientWidth : this.canvas.width;
  }
  get cssHeight(): number {
    return isHtmlCanvas(this.canvas) ? this.canvas.clientHeight : this.canvas.height;
  }
  get element(): HTMLElement | null {
    return isHtmlCanvas(this.canvas) ? this.canvas : null;
  }

  resize(): boolean {
    const canvas = this.canvas;
    if (!isHtmlCanvas(canvas)) return false;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width === w && canvas.height === h) return false;
    canvas.width = w;
    canvas.height = h;
    return true;
  }

  configure(device: GPUDevice, storage: boolean): void {
    this.context.configure({
      device,
      format: this.format,
      alphaMode: 'opaque',
      usage: GPUTextureUsage.RENDER_ATTACHMENT | (storage ? GPUTextureUsage.STORAGE_BINDING : 0),
    });
  }

  view(): GPUTextureView {
    return this.context.getCurrentTexture().createView();
  }

  toPng(): Promise<Blob> {
    const canvas = this.canvas;
    if (!isHtmlCanvas(canvas)) return canvas.convertToBlob({ type: 'image/png' });
    return new Promise((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('screenshot: the canvas gave no image'))), 'image/png'),
    );
  }

  unconfigure(): void {
    this.context.unconfigure();
  }
}

/** A texture of the viewer's own (rgba8unorm, COPY_SRC): headless drawing. */
export class TextureTarget implements RenderTarget {
  readonly format: GPUTextureFormat = 'rgba8unorm';
  private texture: GPUTexture | null = null;
  readonly element = null;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  get cssWidth(): number {
    return this.width;
  }
  get cssHeight(): number {
    return this.height;
  }
  resize(): boolean {
    return false;
  }

  configure(device: GPUDevice, storage: boolean): void {
    this.texture?.destroy();
    this.texture = device.createTexture({
      label: 'Viewer.target',
      size: { width: this.width, height: this.height },
      format: this.format,
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC | (storage ? GPUTextureUsage.STORAGE_BINDING : 0),
    });
  }

  view(): GPUTextureView {
    if (!this.texture) throw new Error('TextureTarget: not configured');
    return this.texture.createView();
  }

  toPng(): null {
    return null;
  }

  unconfigure(): void {
    this.texture?.destroy();
    this.texture = null;
  }
}

/** A PNG of an offscreen render's pixels (OffscreenCanvas: a browser or worker). */
export async function imageToPng(img: OffscreenImage): Promise<Blob> {
  if (typeof OffscreenCanvas === 'undefined') throw new Error('screenshot: no OffscreenCanvas to encode the PNG here');
  const canvas = new OffscreenCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('screenshot: no 2D canvas to encode the PNG');
  ctx.putImageData(new ImageData(new Uint8ClampedArray(img.rgba.buffer as ArrayBuffer, img.rgba.byteOffset, img.rgba.byteLength), img.width, img.height), 0, 0);
  return canvas.convertToBlob({ type: 'image/png' });
}
