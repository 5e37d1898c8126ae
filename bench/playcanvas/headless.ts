/**
 * The least browser PlayCanvas's WebGPU device needs in Node: `window.navigator.gpu`
 * (Dawn, from renderer/gpu/node-gpu.ts) and a canvas whose `getContext('webgpu')`
 * returns a context drawing into an offscreen GPUTexture of the canvas's size.
 *
 * Install it AFTER PlayCanvas is imported: PlayCanvas decides at module load
 * whether it runs in a browser (`typeof window`), and it must decide "node" (no
 * DOM events, no devicePixelRatio), while its WebGPU device reads
 * `window.navigator.gpu` at run time.
 */
import { nodeGpuObject } from '../../renderer/gpu/node-gpu';

/** The offscreen "swap chain" of the fake canvas: one texture, recreated on resize or configure. */
export class OffscreenContext {
  config: GPUCanvasConfiguration | null = null;
  texture: GPUTexture | null = null;

  constructor(readonly canvas: FakeCanvas) {}

  configure(config: GPUCanvasConfiguration): void {
    this.config = config;
    this.texture?.destroy();
    this.texture = null;
  }

  unconfigure(): void {
    this.texture?.destroy();
    this.texture = null;
    this.config = null;
  }

  getConfiguration(): GPUCanvasConfiguration | null {
    return this.config;
  }

  getCurrentTexture(): GPUTexture {
    const cfg = this.config;
    if (!cfg) throw new Error('headless canvas: getCurrentTexture() before configure()');
    const { width, height } = this.canvas;
    if (!this.texture || this.texture.width !== width || this.texture.height !== height) {
      this.texture?.destroy();
      this.texture = cfg.device.createTexture({
        label: 'headless.canvas',
        size: { width, height },
        format: cfg.format,
        // COPY_SRC so the bench can read the last frame back.
        usage: (cfg.usage ?? GPUTextureUsage.RENDER_ATTACHMENT) | GPUTextureUsage.COPY_SRC,
        viewFormats: cfg.viewFormats ? [...cfg.viewFormats] : [],
      });
    }
    return this.texture;
  }
}

/** A canvas with a size, a WebGPU context and inert DOM methods. */
export class FakeCanvas {
  readonly style: Record<string, string> = {};
  readonly context: OffscreenContext;
  constructor(
    public width: number,
    public height: number,
  ) {
    this.context = new OffscreenContext(this);
  }
  get clientWidth(): number {
    return this.width;
  }
  get clientHeight(): number {
    return this.height;
  }
  getContext(kind: string): OffscreenContext | null {
    return kind === 'webgpu' ? this.context : null;
  }
  getBoundingClientRect() {
    return { x: 0, y: 0, left: 0, top: 0, right: this.width, bottom: this.height, width: this.width, height: this.height };
  }
  setAttribute(): void {}
  addEventListener(): void {}
  removeEventListener(): void {}
}

const noop = (): void => {};

/**
 * Installs `window` (with `navigator.gpu`, the canvas format PlayCanvas should
 * pick, inert event methods) and returns the Dawn GPU object. `canvasFormat` is
 * what `getPreferredCanvasFormat()` answers: PlayCanvas renders its back buffer in it.
 */
export function installHeadlessWindow(canvasFormat: GPUTextureFormat): GPU {
  const gpu = nodeGpuObject();
  const navigatorGpu = {
    requestAdapter: (opts?: GPURequestAdapterOptions) => gpu.requestAdapter(opts),
    getPreferredCanvasFormat: () => canvasFormat,
    wgslLanguageFeatures: gpu.wgslLanguageFeatures,
  };
  const g = globalThis as Record<string, unknown>;
  const nav = (g.navigator as Record<string, unknown> | undefined) ?? {};
  const navigator = Object.create(nav, { gpu: { value: navigatorGpu, enumerable: true } });
  g.window = {
    navigator,
    devicePixelRatio: 1,
    location: { href: 'file:///' },
    addEventListener: noop,
    removeEventListener: noop,
    matchMedia: () => ({ matches: false, addEventListener: noop, removeEventListener: noop }),
  };
  return gpu;
}
