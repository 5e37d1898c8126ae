/**
 * The page's benchmark: started from the panel, flown by the viewer
 * (viewer.benchmark), its table shown in the #bench box with CSV / JSON downloads.
 * With a camera path set (the Path folder: keyframes or the orbit preset), it flies
 * the path's frames at 30 fps instead of the orbit: the table adds max per stage and
 * each row's slowest second, the box a plot of each frame's GPU time against its
 * path time (path-plot.ts), and CSV / JSON the per-frame series.
 */
import { formatTable, frameCount, toCsv, toJson, type BenchmarkRow, type Viewer } from '../renderer/api/index';
import type { ViewerPanel } from './gui';
import { drawPathPlot } from './path-plot';

/** Frames a second of path time a benchmark flies a camera path at. */
export const PATH_BENCH_FPS = 30;

export function downloadText(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export class PageBenchmark {
  constructor(
    private readonly v: Viewer,
    private readonly box: HTMLElement,
    private readonly panel: () => ViewerPanel,
    private readonly say: (text: string | null, kind?: 'error' | 'info') => void,
    /** The camera path's name for the rows ('orbit', 'keyframes', a file's). */
    private readonly pathName: () => string = () => 'path',
  ) {
    box.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).dataset.action === 'close') box.hidden = true;
    });
  }

  start(all: string[]): void {
    const v = this.v;
    if (v.benchmarking || !v.scene) return;
    const strategies = v.benchmarkable(all);
    if (strategies.length === 0) return;
    this.panel().setExportEnabled(false);
    this.box.hidden = true;
    const path = v.path;
    const along = path ? { path, fps: PATH_BENCH_FPS, name: this.pathName() } : undefined;
    const frames = path ? `the ${along!.name} path's ${frameCount(path, PATH_BENCH_FPS)} frames` : `${v.settings.benchFrames} frames`;
    this.say(`Benchmark: ${strategies.join(', ')} × ${frames}…`, 'info');
    v.benchmark(strategies, along).then(
      (rows) => {
        this.say(null);
        this.show(rows);
      },
      () => this.panel().setExportEnabled(v.lastBenchmark !== null),
    );
  }

  exportCsv(): void {
    downloadText('splatview-benchmark.csv', 'text/csv', toCsv(this.v.lastBenchmark ?? []));
  }

  exportJson(): void {
    downloadText('splatview-benchmark.json', 'application/json', toJson(this.v.lastBenchmark ?? []));
  }

  private show(rows: BenchmarkRow[]): void {
    const reason = this.v.live.timingReason;
    const note = reason ? `\nGPU stage times unavailable: ${reason}` : '';
    const box = this.box;
    box.replaceChildren();
    const pre = document.createElement('pre');
    pre.textContent = formatTable(rows, this.v.adapterLine()) + note;
    const bar = document.createElement('div');
    for (const [label, action] of [['Download CSV', 'csv'], ['Download JSON', 'json'], ['Close', 'close']] as const) {
      const b = document.createElement('button');
      b.textContent = label;
      b.dataset.action = action;
      if (action === 'csv') b.onclick = () => downloadText('splatview-benchmark.csv', 'text/csv', toCsv(rows));
      if (action === 'json') b.onclick = () => downloadText('splatview-benchmark.json', 'application/json', toJson(rows));
      bar.appendChild(b);
    }
    // A camera path's flight: each frame's GPU time against its path time.
    if (rows.some((r) => r.path)) {
      const plot = document.createElement('canvas');
      plot.className = 'sv-path-plot';
      box.append(pre, plot, bar);
      drawPathPlot(plot, rows);
    } else box.append(pre, bar);
    box.hidden = false;
    this.panel().setExportEnabled(true);
  }
}
