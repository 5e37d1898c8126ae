import { generateDefaultScene, generateSynthetic } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { benchmarkPath, DrawnOrderProbe } from '../profile/benchmark-path';
import { formatTable, toCsv, toJson, type BenchmarkRow } from '../profile/benchmark-report';
import { BenchmarkRun } from '../profile/benchmark-run';
import { robustBounds, upVector, type CameraPose, type UpAxis } from '../camera/camera';
import { CameraController } from '../camera/controller';
import { attachControls } from './input';
import { frameCamera } from '../camera/frame-camera';
import { FrameGraph } from './frame-graph';
import type { FrameSample } from '../profile/frame-stats';
import { ViewerPanel, type ViewerSettings } from './gui';
import { GpuProfiler } from '../profile/profiler';
import { DrawArgs } from '../pipeline/draw-args';
import { SplatRenderer } from '../pipeline/splat-renderer';
import { preferredSorter } from '../../sort/default-strategy';
import { listStrategies } from '../pipeline/strategies';
import { decodeViewHash, encodeViewHash, readSceneParam } from './view-url';

export interface AppElements {
  canvas: HTMLCanvasElement;
  hud: HTMLElement;
  message: HTMLElement;
  drop: HTMLElement;
  help: HTMLElement;
  file: HTMLInputElement;
  graph: HTMLElement;
  bench: HTMLElement;
}

/** Frames the CPU may run ahead of the GPU. */
const MAX_FRAMES_IN_FLIGHT = 2;

/** Built-in scenes offered in the panel's scene list (generated, no data shipped). */
const BUILT_IN_SCENES = ['default', 'default:3000', 'synthetic:100000', 'synthetic:1000000'];

function hexToRgb(hex: string): [number, number, number] {
  const v = parseInt(hex.replace('#', ''), 16);
  return [((v >> 16) & 255) / 255, ((v >> 8) & 255) / 255, (v & 255) / 255];
}

function builtInScene(name: string): SplatCloud {
  const [kind, n] = name.split(':');
  return kind === 'synthetic' ? generateSynthetic(Number(n)) : generateDefaultScene(n ? Number(n) : undefined);
}

/** A benchmark in progress (renderer/profile/benchmark-run.ts) and what to restore after it. */
interface Benchmark {
  run: BenchmarkRun;
  restore: { strategy: string; pose: CameraPose };
}

/**
 * The browser viewer: canvas + renderer + camera controls + panel + profiler +
 * scene loading + benchmark mode. A scene that fails to load leaves the one on
 * screen as it was.
 */
export class ViewerApp {
  private readonly context: GPUCanvasContext;
  private readonly renderer: SplatRenderer;
  private readonly controller: CameraController;
  private readonly panel: ViewerPanel;
  private readonly settings: ViewerSettings;
  private readonly profiler: GpuProfiler;
  private readonly graph: FrameGraph;
  private readonly countReadback: GPUBuffer;
  private probe: DrawnOrderProbe | null = null;
  private sceneChoices = [...BUILT_IN_SCENES];
  private lastTime = 0;
  private fpsEma = 0;
  private countPending = false;
  private lastCountRead = 0;
  private hashWritten = 0;
  private loadToken = 0;
  /** A setting changed that needs a new sort or draw even if the camera stands still. */
  private dirty = true;
  private submittedFrames = 0;
  /** Frames submitted and not yet finished by the GPU. */
  private gpuInFlight = 0;
  private bench: Benchmark | null = null;
  /** Frames submitted so far (read by the end-to-end test). */
  framesRendered = 0;
  /** The last benchmark's rows (also offered as CSV / JSON downloads). */
  lastBenchmark: BenchmarkRow[] | null = null;

  constructor(
    readonly device: GPUDevice,
    private readonly el: AppElements,
  ) {
    const format = navigator.gpu.getPreferredCanvasFormat();
    const context = el.canvas.getContext('webgpu');
    if (!context) throw new Error('The canvas has no WebGPU context.');
    this.context = context;
    context.configure({ device, format, alphaMode: 'opaque' });

    const strategies = listStrategies(device);
    const names = strategies.map((s) => s.name);
    const saved = ViewerPanel.loadSaved((k, v) => k !== 'sorter' || names.includes(v as string));
    // onesweep where the scheduler is known to be fair, radix4 elsewhere (sort/default-strategy.ts).
    const preferred = preferredSorter(device.adapterInfo ?? {}, device.features);
    this.settings = {
      scene: 'default',
      sorter: names.includes(preferred) ? preferred : strategies[0].name,
      keyBits: 32,
      sortMode: 'every frame',
      shDegree: 3,
      splatScale: 1,
      cull: true,
      sigmaCut: false,
      background: '#000000',
      upAxis: '-y',
      fovyDeg: 60,
      graph: true,
      benchFrames: 120,
      ...saved,
    };
    const params = new URLSearchParams(location.search);
    const urlSort = params.get('sort');
    if (urlSort && names.includes(urlSort)) this.settings.sorter = urlSort;
    const urlCut = params.get('cut');
    if (urlCut === '1' || urlCut === '0') this.settings.sigmaCut = urlCut === '1';

    this.renderer = new SplatRenderer(device, format, this.settings.sorter);
    this.controller = new CameraController({ eye: [0, 0, -5], target: [0, 0, 0], up: upVector(this.settings.upAxis), fovyDeg: this.settings.fovyDeg });
    this.panel = new ViewerPanel(this.settings, strategies, this.sceneChoices, {
      openFile: () => el.file.click(),
      openScene: (name) => this.openScene(name),
      frameScene: () => this.frameScene(),
      resetView: () => this.controller.reset(),
      onStrategyChange: (name) => {
        this.renderer.setStrategy(name);
        this.dirty = true;
      },
      onUpAxisChange: (axis) => this.setUpAxis(axis),
      onSettingsChange: () => {
        this.dirty = true;
      },
      runBenchmark: (list) => this.startBenchmark(list),
      exportCsv: () => this.download('splatview-benchmark.csv', 'text/csv', toCsv(this.lastBenchmark ?? [])),
      exportJson: () => this.download('splatview-benchmark.json', 'application/json', toJson(this.lastBenchmark ?? [])),
    });
    this.profiler = new GpuProfiler(device, { onFrame: (sample, meta) => this.onProfiledFrame(sample, meta.frame) });
    this.graph = new FrameGraph(el.graph);
    this.graph.setVisible(this.settings.graph);
    this.countReadback = device.createBuffer({
      label: 'ViewerApp.countReadback',
      size: DrawArgs.size,
      usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
    });
    attachControls(el.canvas, this.controller, {
      onKey: (key: string) => {
        if (key === 'f') this.frameScene();
        else if (key === 'r') this.controller.reset();
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

  /** Opens the scene named by ?scene=URL, else the generated default scene (?splats=N sizes it). */
  async start(): Promise<void> {
    const url = readSceneParam(location.search);
    const splats = Number(new URLSearchParams(location.search).get('splats') ?? '') || undefined;
    this.setScene(generateDefaultScene(splats));
    const fromHash = decodeViewHash(location.hash);
    if (fromHash) this.controller.setPose(fromHash);
    requestAnimationFrame((t) => this.frame(t));
    if (url) {
      await this.openUrl(url);
      if (fromHash) this.controller.setPose(fromHash);
    }
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
    this.el.bench.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).dataset.action === 'close') this.el.bench.hidden = true;
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

  private openScene(name: string): void {
    if (!BUILT_IN_SCENES.includes(name)) return; // an opened file: it is already what is shown
    this.showMessage(`Generating ${name}…`, 'info');
    // Let the message paint before the (synchronous) generation.
    setTimeout(() => {
      this.setScene(builtInScene(name));
      this.hideMessage();
    }, 20);
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
    this.bench = null;
    this.renderer.setScene(cloud);
    this.probe?.destroy();
    this.probe = new DrawnOrderProbe(this.device, cloud.count);
    this.panel.setSceneShDegree(cloud.shDegree);
    this.settings.shDegree = cloud.shDegree;
    this.panel.stats.splats = cloud.count.toLocaleString('en-US');
    const name = cloud.source.name;
    if (!this.sceneChoices.includes(name)) this.sceneChoices = [...BUILT_IN_SCENES, name];
    this.panel.setSceneChoice(name, this.sceneChoices);
    this.controller.aspect = this.el.canvas.width / Math.max(1, this.el.canvas.height);
    this.controller.setUp(this.settings.upAxis);
    this.controller.frame(robustBounds(cloud.positions), { keepDirection: false, setHome: true, snap: true });
    this.dirty = true;
    document.title = `${name} — splatview`;
  }

  private frameScene(): void {
    this.controller.aspect = this.el.canvas.width / Math.max(1, this.el.canvas.height);
    this.controller.frame();
  }

  private setUpAxis(axis: UpAxis): void {
    this.controller.setUp(axis);
    this.controller.frame(undefined, { keepDirection: false, setHome: true });
    this.dirty = true;
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
      this.dirty = true;
    }
  }

  private frame(now: number): void {
    requestAnimationFrame((t) => this.frame(t));
    // Frame pacing: a GPU slower than the display (a software adapter, a huge scene)
    // must not collect a queue of frames, which would grow latency without bound.
    if (this.gpuInFlight >= MAX_FRAMES_IN_FLIGHT) return;
    // Time between frames actually drawn (FPS, damping), not between animation callbacks.
    const frameSeconds = this.lastTime ? (now - this.lastTime) / 1000 : 1 / 60;
    const dt = Math.min(0.1, frameSeconds);
    this.lastTime = now;
    const t0 = performance.now();
    this.resize();
    const cloud = this.renderer.cloud;
    const { width, height } = this.el.canvas;
    let pose: CameraPose;
    let moved: boolean;
    let probeThisFrame = false;
    const bench = this.bench;
    if (bench) {
      const next = bench.run.nextFrame();
      pose = next.pose;
      moved = true;
      probeThisFrame = next.probe;
    } else {
      this.controller.fovyDeg = this.settings.fovyDeg;
      moved = this.controller.update(dt);
      pose = this.controller.pose;
    }
    // A strategy whose order lags the camera is asked every frame until it catches up.
    const sortNow = this.settings.sortMode === 'every frame' || moved || this.dirty || this.renderer.strategyInfo.lagsCamera;
    this.dirty = false;

    const encoder = this.device.createCommandEncoder({ label: 'ViewerApp.frame' });
    const timestamps = this.profiler.begin();
    const bounds = cloud?.bounds ?? { min: [-1, -1, -1], max: [1, 1, 1] };
    const camera = frameCamera(pose, width, height, bounds);
    this.renderer.encodeFrame(
      encoder,
      this.context.getCurrentTexture().createView(),
      camera,
      {
        shDegree: this.settings.shDegree,
        splatScale: this.settings.splatScale,
        cull: this.settings.cull,
        sigmaCut: this.settings.sigmaCut,
        keyBits: this.settings.keyBits,
        background: hexToRgb(this.settings.background),
        sort: sortNow,
      },
      timestamps,
    );
    this.profiler.end(encoder);
    const debug = this.renderer.debugBuffers;
    const readCount = !this.countPending && now - this.lastCountRead > 250 && debug;
    if (readCount && debug) encoder.copyBufferToBuffer(debug.drawArgs, 0, this.countReadback, 0, DrawArgs.size);
    if (probeThisFrame && debug && this.probe) this.probe.capture(encoder, debug);
    this.device.queue.submit([encoder.finish()]);
    this.gpuInFlight++;
    void this.device.queue.onSubmittedWorkDone().finally(() => this.gpuInFlight--);
    const cpuMs = performance.now() - t0;
    this.profiler.submitted({ cpuMs, frameMs: frameSeconds * 1000 });
    const frameId = this.submittedFrames++;
    this.framesRendered++;
    if (readCount) this.readVisibleCount(now);
    if (bench) this.advanceBenchmark(bench.run, frameId, probeThisFrame, camera);

    this.fpsEma = this.fpsEma ? this.fpsEma * 0.9 + (1 / frameSeconds) * 0.1 : 1 / frameSeconds;
    if (this.framesRendered % 10 === 1) this.updateFigures(cloud);
    if (!bench && now - this.hashWritten > 500) {
      this.hashWritten = now;
      const hash = encodeViewHash(pose);
      if (location.hash !== hash) history.replaceState(null, '', hash);
    }
  }

  private updateFigures(cloud: SplatCloud | null): void {
    const s = this.panel.stats;
    const sum = this.profiler.stats.summary();
    const fmt = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(2));
    s.fps = this.fpsEma.toFixed(1);
    s.cpuMs = fmt(sum.cpuMs?.median);
    s.project = fmt(sum.project?.median);
    const hostSortMs = this.renderer.hostSortMs;
    s.sort = fmt(hostSortMs !== null ? hostSortMs : sum.sort?.median);
    s.draw = fmt(sum.draw?.median);
    s.gpuTotal = fmt(sum.total?.median);
    const reason = this.profiler.reason;
    s.timing = reason ?? (hostSortMs !== null ? 'sort = CPU worker ms' : 'GPU timestamps, median');
    this.graph.setNote(reason);
    this.graph.setVisible(this.settings.graph);
    this.el.hud.textContent = `${cloud?.source.name ?? ''}  ${s.splats} splats (${s.visible} visible)  ${s.fps} fps  sort ${this.renderer.strategy}${
      s.gpuTotal !== '-' ? `  gpu ${s.gpuTotal} ms (project ${s.project} / sort ${s.sort} / draw ${s.draw})` : ''
    }`;
  }

  private onProfiledFrame(sample: FrameSample, frameId: number): void {
    this.graph.push(sample);
    this.bench?.run.profiled(frameId, sample);
  }

  private startBenchmark(strategies: string[]): void {
    const cloud = this.renderer.cloud;
    if (!cloud || strategies.length === 0 || this.bench) return;
    const { width, height } = this.el.canvas;
    const path = benchmarkPath(robustBounds(cloud.positions), upVector(this.settings.upAxis), this.settings.fovyDeg, width / height, this.settings.benchFrames);
    const run = new BenchmarkRun({ strategies, path, warmup: 5, onComplete: (r) => this.finishBenchmark(r) });
    this.bench = { run, restore: { strategy: this.renderer.strategy, pose: this.controller.pose } };
    this.renderer.setStrategy(run.strategy!);
    this.panel.setExportEnabled(false);
    this.el.bench.hidden = true;
    this.showMessage(`Benchmark: ${strategies.join(', ')} × ${path.length} frames…`, 'info');
  }

  private advanceBenchmark(run: BenchmarkRun, frameId: number, probed: boolean, camera: ReturnType<typeof frameCamera>): void {
    const cloud = this.renderer.cloud;
    const probe = probed && this.probe && cloud ? this.probe.outOfOrder(cloud.positions, camera) : undefined;
    run.submitted(frameId, this.renderer.hostSortMs, probe);
    const next = run.strategy;
    if (next !== undefined && next !== this.renderer.strategy) this.renderer.setStrategy(next);
  }

  private finishBenchmark(run: BenchmarkRun): void {
    const bench = this.bench;
    if (!bench || bench.run !== run) return;
    this.bench = null;
    const cloud = this.renderer.cloud!;
    const rows = run.rows({
      name: cloud.source.name,
      splats: cloud.count,
      visible: Number(this.panel.stats.visible.replace(/,/g, '')) || cloud.count,
    });
    this.lastBenchmark = rows;
    this.renderer.setStrategy(bench.restore.strategy);
    this.controller.setPose(bench.restore.pose);
    this.dirty = true;
    this.hideMessage();
    this.showBenchmark(rows);
  }

  private showBenchmark(rows: BenchmarkRow[]): void {
    const note = this.profiler.reason ? `\nGPU stage times unavailable: ${this.profiler.reason}` : '';
    const box = this.el.bench;
    box.replaceChildren();
    const pre = document.createElement('pre');
    pre.textContent = formatTable(rows, this.adapterLine()) + note;
    const bar = document.createElement('div');
    for (const [label, action] of [['Download CSV', 'csv'], ['Download JSON', 'json'], ['Close', 'close']] as const) {
      const b = document.createElement('button');
      b.textContent = label;
      b.dataset.action = action;
      if (action === 'csv') b.onclick = () => this.download('splatview-benchmark.csv', 'text/csv', toCsv(rows));
      if (action === 'json') b.onclick = () => this.download('splatview-benchmark.json', 'application/json', toJson(rows));
      bar.appendChild(b);
    }
    box.append(pre, bar);
    box.hidden = false;
    this.panel.setExportEnabled(true);
  }

  private adapterLine(): string {
    const info = this.device.adapterInfo;
    return info ? `${info.vendor} / ${info.architecture} ${info.description ?? ''}`.trim() : 'adapter: unknown';
  }

  private download(name: string, type: string, text: string): void {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  /** Reads the visible count a frame or two late, never stalling the frame loop. */
  private readVisibleCount(now: number): void {
    this.countPending = true;
    this.lastCountRead = now;
    this.countReadback
      .mapAsync(GPUMapMode.READ)
      .then(() => {
        const v = DrawArgs.count(this.countReadback.getMappedRange());
        this.countReadback.unmap();
        this.panel.stats.visible = v.toLocaleString('en-US');
      })
      .catch(() => undefined)
      .finally(() => {
        this.countPending = false;
      });
  }
}
