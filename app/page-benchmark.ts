/**
 * The page's benchmark: started from the panel, flown by the viewer
 * (viewer.benchmark), its table shown in the #bench box with CSV / JSON downloads.
 * With a camera path set (the Path folder: keyframes or the orbit preset), it flies
 * the path's frames at 30 fps instead of the orbit: the table adds max per stage and
 * each row's slowest second, the box a plot of each frame's GPU time against its
 * path time (path-plot.ts), and CSV / JSON the per-frame series.
 */
import { drawServedBy, formatTable, frameCount, toCsv, toJson, type BenchmarkRow, type DrawName, type Viewer } from '../renderer/api/index';
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

/**
 * What a benchmark flies: each of `draws` (none ticked: `inUse`) with those of `all` it
 * can take (the tiles draw sorts on the GPU: GPU sorters only), and the draws skipped
 * for taking none of them.
 */
export function benchmarkPlan(all: readonly string[], draws: readonly DrawName[], inUse: DrawName): { flights: { draw: DrawName; strategies: string[] }[]; skipped: string[] } {
  const plan = (draws.length ? draws : [inUse]).map((draw) => ({ draw, strategies: all.filter((n) => drawServedBy(draw, n)) }));
  return {
    flights: plan.filter((p) => p.strategies.length > 0),
    skipped: plan.filter((p) => p.strategies.length === 0).map((p) => `${p.draw} takes none of them`),
  };
}

export class PageBenchmark {
  /** The last benchmark's rows, every draw's (what CSV / JSON download). */
  private rows: BenchmarkRow[] | null = null;
  private flying = false;

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

  /**
   * Flies each of `all` under each of `draws` in turn (none: the draw in use), the draw
   * set before its flights and the draw setting given back after (auto's too). A draw
   * that cannot take any selected strategy (tiles: GPU sorters only), or is refused, is
   * skipped and said.
   */
  async start(all: string[], draws: readonly DrawName[] = []): Promise<void> {
    const v = this.v;
    if (v.benchmarking || this.flying || !v.scene) return;
    const { flights: flown, skipped } = benchmarkPlan(all, draws, v.draw);
    if (flown.length === 0) {
      if (skipped.length) this.say(`Benchmark: ${skipped.join('; ')}`, 'error');
      return;
    }
    this.flying = true;
    this.panel().setExportEnabled(false);
    this.box.hidden = true;
    const path = v.path;
    const along = path ? { path, fps: PATH_BENCH_FPS, name: this.pathName() } : undefined;
    const frames = path ? `the ${along!.name} path's ${frameCount(path, PATH_BENCH_FPS)} frames` : `${v.settings.benchFrames} frames`;
    const drawSetting = v.settings.draw;
    const rows: BenchmarkRow[] = [];
    try {
      for (const { draw, strategies } of flown) {
        if (v.draw !== draw && !v.setDraw(draw)) {
          skipped.push(`${draw} refused`);
          continue;
        }
        this.say(`Benchmark (${draw}): ${strategies.join(', ')} × ${frames}…`, 'info');
        rows.push(...(await v.benchmark(strategies, along)));
      }
      this.say(skipped.length ? `Benchmark: skipped ${skipped.join('; ')}` : null, 'info');
      this.rows = rows;
      this.show(rows);
    } catch {
      // The viewer said why (a lost device, a new scene).
      this.panel().setExportEnabled(this.rows !== null);
    } finally {
      this.flying = false;
      if (v.settings.draw !== drawSetting) v.setDraw(drawSetting);
    }
  }

  exportCsv(): void {
    downloadText('splatview-benchmark.csv', 'text/csv', toCsv(this.rows ?? []));
  }

  exportJson(): void {
    downloadText('splatview-benchmark.json', 'application/json', toJson(this.rows ?? []));
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
