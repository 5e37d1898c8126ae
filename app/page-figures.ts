/**
 * The page's figures: the HUD and the panel's read-only numbers from the
 * viewer's live figures ("-" for what this epoch has not measured yet), the
 * graph's note and visibility, and the tiles draw's pair-cap warning.
 */
import { AUTO_DRAW, AUTO_STRATEGY, type Viewer } from '../renderer/api/index';
import { formatMs, type FrameGraph } from './frame-graph';
import type { ViewerPanel } from './gui';
import { hudText, sanitizedLine } from './hud';

export interface FigureViews {
  hud: HTMLElement;
  panel: ViewerPanel;
  graph: FrameGraph;
  /** The HUD's loading line (the page's loading bar), or null. */
  loading(): string | null;
  /** Shows or clears the pair-cap warning. */
  capWarning(text: string | null): void;
}

export function updateFigures(v: Viewer, views: FigureViews): void {
  const { panel, graph } = views;
  const live = v.live;
  const scene = v.scene;
  const s = panel.stats;
  const sum = live.figures.stats.summary();
  const med = (x: { median: number } | null) => x?.median ?? null;
  // The GPU stages are the median frame's (by its GPU total): one frame's, so they add up to
  // the total shown (each stage's own median is another frame's: their sum would be none's).
  const frame = live.figures.stats.medianFrame('total');
  const gpu = (stage: 'project' | 'sort' | 'draw' | 'blend' | 'total') => frame?.[stage] ?? null;
  // A strategy that sorts on the host: its sort stage is the worker's time.
  const hostSortMs = live.hostSortMs;
  const sortMs = hostSortMs !== null ? hostSortMs : gpu('sort');
  // Frames of the scene on screen only: none before it (a scene being generated draws nothing).
  const fps = scene ? live.figures.fps.rate(performance.now()) : null;
  const fmt = (x: number | null) => formatMs(x);
  const tiles = v.draw === 'tiles';
  const pairs = live.tileStatus;
  // The tiles draw counts its own visible splats (splats touching a tile).
  const visible = tiles ? (pairs?.last?.visible ?? null) : live.figures.visible;
  s.splats = scene ? scene.splats.toLocaleString('en-US') : '-';
  const mem = v.sceneMemory;
  s.gpuMemory = mem ? `${(mem.bytes / 2 ** 20).toFixed(1)} MiB (${mem.bytesPerSplat.toFixed(0)} B a splat, ${mem.precision})` : '-';
  // Arrays paged over several buffers (an adapter whose one binding cannot hold them), e.g. "SH 3, covariances 2".
  const paged = mem ? Object.entries(mem.pages).filter(([, n]) => n > 1).map(([name, n]) => `${name === 'sh' ? 'SH' : name} ${n}`) : [];
  s.pages = !mem ? '-' : paged.length ? paged.join(', ') : 'none';
  s.visible = visible === null ? '-' : visible.toLocaleString('en-US');
  s.fps = fps === null ? '-' : fps < 1 ? fps.toFixed(2) : fps.toFixed(1);
  s.cpuMs = fmt(med(sum.cpuMs));
  s.project = fmt(gpu('project'));
  // A host sort is the worker's time, not a GPU stage: said so (the GPU total does not hold it).
  s.sort = hostSortMs !== null ? `${fmt(hostSortMs)} (CPU worker, not GPU)` : fmt(sortMs);
  s.gpuTotal = fmt(gpu('total'));
  s.draw = tiles ? '-' : fmt(gpu('draw'));
  s.blend = tiles ? fmt(gpu('blend')) : '-';
  s.tilePairs = !pairs
    ? '-'
    : `${(pairs.last?.needed ?? 0).toLocaleString('en-US')} / ${pairs.capacity.toLocaleString('en-US')}${pairs.capped ? ' CAPPED (drawn as quads)' : pairs.last?.fallback ? ' (fallback)' : pairs.grows || pairs.shrinks ? ` (grew ${pairs.grows}x, shrank ${pairs.shrinks}x)` : ''}`;
  views.capWarning(
    pairs?.capped
      ? `tiles: this view needs ${(pairs.last?.needed ?? 0).toLocaleString('en-US')} (tile, depth) pairs, more than this device holds (${pairs.maxCapacity.toLocaleString('en-US')}): it is drawn whole by the tiles draw's fallback (depth-sorted quads), slower, until the view needs fewer`
      : null,
  );
  const reason = live.timingReason;
  s.timing = reason ?? (hostSortMs !== null ? 'sort = CPU worker ms' : 'GPU timestamps, the median frame');
  graph.setNote(reason ?? undefined);
  graph.setVisible(panel.settings.graph);
  views.hud.textContent = hudText({
    notice: live.softwareNote,
    loading: views.loading() ?? v.loading,
    scene: scene?.name ?? null,
    splats: scene?.splats ?? null,
    sanitized: sanitizedLine(v.sanitized),
    visible,
    fps,
    // The draw in use now (the draw's auto switches it during its trial and after).
    drawName:
      `${v.draw}${v.settings.draw === AUTO_DRAW ? ' (auto)' : ''}` +
      (v.draw === 'quads' ? ` ${live.drawOrder}${v.settings.drawOrder === 'auto' ? ' (auto)' : ''}` : ''),
    strategy: v.strategy,
    auto: v.settings.sorter === AUTO_STRATEGY,
    // The GPU stages, adding up to the GPU total; a host sort apart (hostSortMs).
    stages: [
      { name: 'project', ms: gpu('project') },
      ...(hostSortMs !== null ? [] : [{ name: 'sort', ms: sortMs }]),
      tiles ? { name: 'blend', ms: gpu('blend') } : { name: 'draw', ms: gpu('draw') },
    ],
    total: gpu('total'),
    hostSortMs,
    gpuNote: reason ? (live.timestampsSupported ? 'unavailable (timestamps read 0 on this adapter)' : 'unavailable (no timestamp-query)') : null,
  });
  panel.setStrategyNote(v.strategyNote);
  panel.setDrawNote(v.drawNote);
}
