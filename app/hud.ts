/**
 * What the HUD (bottom-left text) says, from the live figures of the scene on
 * screen. Every figure is either this scene's and this configuration's, or "-":
 * never a value left over from before a change (the app starts a new figures epoch
 * on every change, see renderer/profile/live-figures.ts). Text only: the app
 * writes it into the element.
 */
import { formatFps, type SanitizeReport } from '../renderer/api/index';
import { formatMs } from './frame-graph';

export interface HudFigures {
  /** The draw strategy (quads | tiles), when the page shows it. */
  drawName?: string;
  /** A warning line shown first (software adapter), or null. */
  notice: string | null;
  /** "loading NAME… 12.0 / 40.0 MB" while a scene loads, or null. */
  loading: string | null;
  scene: string | null;
  splats: number | null;
  /** What the loader dropped or clamped in this scene (sanitizedLine), or null. */
  sanitized?: string | null;
  visible: number | null;
  fps: number | null;
  /** The strategy drawing now, and whether `auto` chose it. */
  strategy: string | null;
  auto: boolean;
  /**
   * The draw's own stages in frame order with their median times (ms) over this
   * epoch's measured frames (null where none): quads project / sort / draw, tiles
   * project / sort / blend.
   */
  stages: readonly { name: string; ms: number | null }[];
  total: number | null;
  /**
   * A sort run on the host (the `cpu` strategy's worker): its median ms, shown apart from
   * the GPU stages (it is no GPU time, and the GPU total does not hold it); null or absent for a GPU sort.
   */
  hostSortMs?: number | null;
  /** Why GPU stage times are missing (shown when total is null), or null. */
  gpuNote: string | null;
}

/** Counts with thousands separators, "-" when unknown. */
export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined || !Number.isFinite(n) ? '-' : Math.round(n).toLocaleString('en-US');
}

/** The HUD's lines. */
export function hudText(f: HudFigures): string {
  const lines: string[] = [];
  if (f.notice) lines.push(f.notice);
  if (f.loading) lines.push(f.loading);
  lines.push(`${f.scene ?? '-'}  ${formatCount(f.splats)} splats (${formatCount(f.visible)} visible)`);
  if (f.sanitized) lines.push(f.sanitized);
  // Below 1 fps the seconds a frame too (the same rule at every rate: the completed frames of the scene on screen).
  const slow = f.fps !== null && Number.isFinite(f.fps) && f.fps > 0 && f.fps < 1 ? ` (${(1 / f.fps).toFixed(1)} s a frame)` : '';
  lines.push(`${formatFps(f.fps)} fps${slow}${f.drawName ? `  draw ${f.drawName}` : ''}  sort ${f.strategy ?? '-'}${f.auto ? ' (auto)' : ''}`);
  // A host sort is no GPU stage: named apart, so that the GPU stages add up to the GPU total.
  const host = f.hostSortMs !== undefined && f.hostSortMs !== null ? `  · sort (CPU worker) ${formatMs(f.hostSortMs)} ms` : '';
  if (f.total !== null) {
    lines.push(`gpu ${formatMs(f.total)} ms (${f.stages.map((s) => `${s.name} ${formatMs(s.ms)}`).join(' / ')})${host}`);
  } else if (f.gpuNote) {
    lines.push(`gpu stage times: ${f.gpuNote}${host}`);
  } else {
    lines.push(`gpu -${host}`);
  }
  return lines.join('\n');
}

/** Reasons for which the loader drops a splat (scenes/sanitize.ts); every other reason clamps. */
const DROP_REASONS = new Set(['non-finite position', 'position out of range', 'non-finite scale', 'scale implausible']);
/** Dropped by the scene's own robust extent (scenes/robust.ts): larger than the scene makes plausible. */
const IMPLAUSIBLE = 'scale implausible';
const NON_FINITE = new Set(['non-finite position', 'non-finite scale']);

/**
 * The HUD's line for what the loader had to drop or clamp (SplatCloud.sanitized),
 * or null when nothing was: "3 splats dropped: non-finite values",
 * "1 splat clamped: scale overflow", or both joined by " · ".
 */
export function sanitizedLine(r: SanitizeReport | undefined): string | null {
  if (!r || (r.dropped === 0 && r.clamped === 0)) return null;
  const reasons = Object.keys(r.reasons).filter((k) => (r.reasons[k] ?? 0) > 0);
  const parts: string[] = [];
  if (r.dropped > 0) {
    const why = reasons.filter((k) => DROP_REASONS.has(k) && k !== IMPLAUSIBLE);
    const labels: string[] = [];
    if (why.length > 0 || !reasons.includes(IMPLAUSIBLE)) {
      labels.push(why.every((k) => NON_FINITE.has(k)) ? 'non-finite values' : why.every((k) => !NON_FINITE.has(k)) ? 'positions out of range' : 'non-finite or out-of-range values');
    }
    if (reasons.includes(IMPLAUSIBLE)) labels.push('implausibly large for the scene');
    const what = labels.join(', ');
    parts.push(`${formatCount(r.dropped)} ${r.dropped === 1 ? 'splat' : 'splats'} dropped: ${what}`);
  }
  if (r.clamped > 0) {
    const why = reasons.filter((k) => !DROP_REASONS.has(k));
    const noun = r.dropped > 0 ? '' : r.clamped === 1 ? ' splat' : ' splats';
    parts.push(`${formatCount(r.clamped)}${noun} clamped${why.length ? `: ${why.join(', ')}` : ''}`);
  }
  return parts.join(' · ');
}
