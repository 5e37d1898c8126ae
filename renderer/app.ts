import { loadScene } from '../scenes/load';
import { generateDefaultScene } from '../scenes/generate';
import type { SplatCloud } from '../scenes/splat-cloud';
import { getSorterFactory, listSorters } from '../sort/registry';
import { robustBounds, type UpAxis } from './camera';
import { attachControls, CameraController } from './controls';
import { frameCamera } from './frame-camera';
import { ViewerPanel, type ViewerSettings } from './gui';
import { SplatRenderer } from './splat-renderer';
import { decodeViewHash, encodeViewHash, readSceneParam } from './view-url';

export interface AppElements {
  canvas: HTMLCanvasElement;
  hud: HTMLElement;
  message: HTMLElement;
  drop: HTMLElement;
  help: HTMLElement;
  file: HTMLInputElement;
}

function hexToRgb(hex: string): [number, number, number] {
  const v = parseInt(hex.replace('#', ''), 16);
  return [((v >> 16) & 255) / 255, ((v >> 8) & 255) / 255, (v & 255) / 255];
}

/**
 * The browser viewer: canvas + renderer + camera controls + panel + scene loading.
 * A scene that fails to load leaves the one on screen as it was.
 */
export class ViewerApp {
  private readonly context: GPUCanvasContext;
  private readonly renderer: SplatRenderer;
  private readonly controller: CameraController;
  private readonly panel: ViewerPanel;
  private readonly settings: ViewerSettings;
  private lastTime = 0;
  private fpsEma = 0;
  private cpuEma = 0;
  private countReadback: GPUBuffer;
  private countPending = false;
  private lastCountRead = 0;
  /** Frames submitted so far (read by the end-to-end test). */
  framesRendered = 0;
  private hashWritten = 0;
  private loadToken = 0;

  constructor(
    readonly device: GPUDevice,
    private readonly el: AppElements,
  ) {
    const format = navigator.gpu.getPreferredCanvasFormat();
    const context = el.canvas.getContext('webgpu');
    if (!context) throw new Error('The canvas has no WebGPU context.');
    this.context = context;
    context.configure({ device, format, alphaMode: 'opaque' });

    const sorters = listSorters(device);
    this.settings = {
      sorter: sorters[0].name,
      shDegree: 3,
      splatScale: 1,
      cull: true,
      upAxis: '-y',
      fovyDeg: 60,
      background: '#000000',
    };
    this.renderer = new SplatRenderer(device, format, sorters[0]);
    this.controller = new CameraController({ eye: [0, 0, -5], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 });
    this.panel = new ViewerPanel(
      this.settings,
      sorters.map((s) => ({ name: s.name, label: `${s.name}${s.stable ? '' : ' (unstable)'}` })),
      {
        openFile: () => el.file.click(),
        frameScene: () => this.frameScene(),
        resetView: () => this.resetView(),
        onSorterChange: (name) => this.renderer.setSorter(getSorterFactory(name)),
        onUpAxisChange: (axis) => this.setUpAxis(axis),
      },
    );
    this.countReadback = device.createBuffer({
      label: 'ViewerApp.countReadback',
      size: 16,
      usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
    });
    attachControls(el.canvas, this.controller, {
      onKey: (key: string) => {
        if (key === 'f') this.frameScene();
        else if (key === 'r') this.resetView();
        else if (key === 'h') el.help.hidden = !el.help.hidden;
      },
    });
    this.wireInputs();
    device.addEventListener('uncapturederror', (e) => {
      const err = (e as GPUUncapturedErrorEvent).error;
      console.error('WebGPU error:', err.message);
      this.showMessage(`GPU error: ${err.message}`);
    });
    void device.lost.then((info) => {
      if (info.reason !== 'destroyed') this.showMessage(`The GPU device was lost: ${info.message}. Reload the page.`);
    });
  }

  /** Opens the scene named by ?scene=URL, else the generated default scene. */
  async start(): Promise<void> {
    const url = readSceneParam(location.search);
    const params = new URLSearchParams(location.search);
    const splats = Number(params.get('splats') ?? '') || undefined;
    this.setScene(generateDefaultScene(splats));
    const fromHash = decodeViewHash(location.hash);
    if (fromHash) this.controller.setPose(fromHash);
    requestAnimationFrame((t) => this.frame(t));
    if (url) await this.openUrl(url);
    if (fromHash) this.controller.setPose(fromHash);
  }

  private wireInputs(): void {
    const { file, drop } = this.el;
    file.addEventListener('change', () => {
      const f = file.files?.[0];
      if (f) void this.openFile(f);
      file.value = '';
    });
    let depth = 0;
    window.addEventListener('dragenter', (e) => {
      e.preventDefault();
      depth++;
      drop.hidden = false;
    });
    window.addEventListener('dragleave', () => {
      if (--depth <= 0) {
        depth = 0;
        drop.hidden = true;
      }
    });
    window.addEventListener('dragover', (e) => e.preventDefault());
    window.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      drop.hidden = true;
      const f = e.dataTransfer?.files?.[0];
      if (f) void this.openFile(f);
    });
  }

  async openFile(file: File): Promise<void> {
    await this.openBytes(file.name, () => file.arrayBuffer(), file.size);
  }

  async openUrl(url: string): Promise<void> {
    const name = decodeURIComponent(url.split('/').pop()?.split('?')[0] || url);
    await this.openBytes(name, async () => {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${name}: HTTP ${res.status} ${res.statusText} for ${url}`);
      return res.arrayBuffer();
    });
  }

  /** Loads bytes into a scene; on failure, shows one line and keeps the current scene. */
  private async openBytes(name: string, read: () => Promise<ArrayBuffer>, size?: number): Promise<void> {
    const token = ++this.loadToken;
    const mb = size ? ` (${(size / 1e6).toFixed(1)} MB)` : '';
    this.showMessage(`Loading ${name}${mb}…`, 'info');
    try {
      const bytes = await read();
      const cloud = await loadScene(bytes, name);
      if (token !== this.loadToken) return; // a newer load superseded this one
      this.setScene(cloud);
      this.hideMessage();
    } catch (err) {
      if (token !== this.loadToken) return;
      const msg = err instanceof Error ? err.message : String(err);
      console.warn(`scene load failed: ${msg}`);
      this.showMessage(msg);
    }
  }

  private setScene(cloud: SplatCloud): void {
    this.renderer.setScene(cloud);
    this.panel.setSceneShDegree(cloud.shDegree);
    this.settings.shDegree = cloud.shDegree;
    this.panel.stats.splats = cloud.count.toLocaleString('en-US');
    this.controller.aspect = this.el.canvas.width / Math.max(1, this.el.canvas.height);
    this.controller.setUp(this.settings.upAxis);
    this.controller.frame(robustBounds(cloud.positions), { keepDirection: false, setHome: true, snap: true });
    document.title = `${cloud.source.name} — splatview`;
  }

  private frameScene(): void {
    this.controller.aspect = this.el.canvas.width / Math.max(1, this.el.canvas.height);
    this.controller.frame();
  }

  private resetView(): void {
    this.controller.reset();
  }

  private setUpAxis(axis: UpAxis): void {
    this.controller.setUp(axis);
    this.controller.frame(undefined, { keepDirection: false, setHome: true });
  }

  showMessage(text: string, kind: 'error' | 'info' = 'error'): void {
    this.el.message.textContent = text;
    this.el.message.className = kind === 'info' ? 'info' : '';
    this.el.message.hidden = false;
  }

  private hideMessage(): void {
    this.el.message.hidden = true;
  }

  private resize(): void {
    const canvas = this.el.canvas;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
  }

  private frame(now: number): void {
    const dt = this.lastTime ? Math.min(0.1, (now - this.lastTime) / 1000) : 1 / 60;
    this.lastTime = now;
    const t0 = performance.now();
    this.resize();
    this.controller.fovyDeg = this.settings.fovyDeg;
    this.controller.update(dt);
    const cloud = this.renderer.cloud;
    const { width, height } = this.el.canvas;
    const pose = this.controller.pose;
    const encoder = this.device.createCommandEncoder({ label: 'ViewerApp.frame' });
    const bounds = cloud?.bounds ?? { min: [-1, -1, -1], max: [1, 1, 1] };
    this.renderer.encodeFrame(encoder, this.context.getCurrentTexture().createView(), frameCamera(pose, width, height, bounds), {
      shDegree: this.settings.shDegree,
      splatScale: this.settings.splatScale,
      cull: this.settings.cull,
      keyBits: 32,
      background: hexToRgb(this.settings.background),
    });
    const readCount = !this.countPending && now - this.lastCountRead > 250 && this.renderer.debugBuffers;
    if (readCount && this.renderer.debugBuffers) {
      encoder.copyBufferToBuffer(this.renderer.debugBuffers.drawArgs, 0, this.countReadback, 0, 16);
    }
    this.device.queue.submit([encoder.finish()]);
    if (readCount) this.readVisibleCount(now);
    const cpuMs = performance.now() - t0;

    this.fpsEma = this.fpsEma ? this.fpsEma * 0.9 + (1 / dt) * 0.1 : 1 / dt;
    this.cpuEma = this.cpuEma ? this.cpuEma * 0.9 + cpuMs * 0.1 : cpuMs;
    if (++this.framesRendered % 10 === 1) {
      this.panel.stats.fps = this.fpsEma.toFixed(1);
      this.panel.stats.cpuMs = this.cpuEma.toFixed(2);
      this.el.hud.textContent = `${cloud?.source.name ?? ''}  ${this.panel.stats.splats} splats (${this.panel.stats.visible} visible)  ${this.panel.stats.fps} fps  cpu ${this.panel.stats.cpuMs} ms  sort ${this.renderer.sorterName}`;
    }
    if (now - this.hashWritten > 500) {
      this.hashWritten = now;
      const hash = encodeViewHash(pose);
      if (location.hash !== hash) history.replaceState(null, '', hash);
    }
    requestAnimationFrame((t) => this.frame(t));
  }

  /** Reads the visible count a frame or two late, never stalling the frame loop. */
  private readVisibleCount(now: number): void {
    this.countPending = true;
    this.lastCountRead = now;
    this.countReadback
      .mapAsync(GPUMapMode.READ)
      .then(() => {
        const v = new Uint32Array(this.countReadback.getMappedRange())[1];
        this.countReadback.unmap();
        this.panel.stats.visible = v.toLocaleString('en-US');
      })
      .catch(() => undefined)
      .finally(() => {
        this.countPending = false;
      });
  }
}
