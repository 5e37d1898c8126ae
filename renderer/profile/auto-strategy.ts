/**
 * The `auto` sort strategy: which strategy to draw with, chosen from times measured
 * on the user's own adapter with the scene's splat count (strategy-trial.ts measures
 * them). Pure: no GPU, no DOM.
 *
 * Only exact strategies are candidates: stable (equal depths keep their order, so
 * the picture does not flicker) and sorting the frame's own camera (`cpu` draws an
 * older frame's order). Among them the one with the lowest median time wins.
 *
 * Before anything is measured the page starts with a prior: on hardware the
 * adapter-based pick of sort/default-strategy.ts; on a software adapter
 * (SwiftShader, llvmpipe) the order measured there: radix16, since it runs in
 * workgroups of 32 on SwiftShader (sort/radix16-kernels.ts), the fastest at every size
 * (SwiftShader in Node, 2026-11-28: 81 / 476 / 4,314 ms at 10,000 / 100,000 / 1M keys
 * against onesweep's 164 / - / 7,192-7,696, and 0.4 s to compile against onesweep's
 * 2-3 s; llvmpipe: 3.7 / 378 ms at 10,000 / 1M against 5.4 / 328), then onesweep;
 * radix4, the slowest there (1,459 ms at 60,000 keys, 2026-11-24), is never the start.
 */
import { isSoftwareAdapter, preferredSorter, type AdapterFacts } from '../../sort/default-strategy';

/** The value of the strategy setting that means "choose for me". */
export const AUTO_STRATEGY = 'auto';

/** What the choice needs to know of a strategy. */
export interface StrategyTraits {
  name: string;
  stable: boolean;
  /** Draws an order computed for an earlier frame's camera. */
  lagsCamera: boolean;
}

/** One strategy's measured sort times (ms), from strategy-trial.ts. */
export interface StrategyTiming extends StrategyTraits {
  ms: readonly number[];
  /** Keys its times were measured at, when fewer than the count they were scaled to (strategy-trial.ts). */
  timedAt?: number;
}

/** What `auto` picked and why, in words for the panel. */
export interface AutoChoice {
  name: string;
  /** Median ms of the winner. */
  ms: number;
  /** One line: "onesweep: fastest exact sort here (0.41 ms; radix16 0.62, radix4 1.10) for 60,000 splats". */
  reason: string;
  /** Every exact candidate measured, fastest first. */
  ranked: { name: string; ms: number }[];
}

/** Whether a strategy can be `auto`'s choice. */
export function isExact(s: StrategyTraits): boolean {
  return s.stable && !s.lagsCamera;
}

function median(values: readonly number[]): number {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** "0.412" / "12.3" / "1,459": ms to 3 significant digits, grouped thousands. */
export function formatSortMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms >= 100) return Math.round(ms).toLocaleString('en-US');
  return Number(ms.toPrecision(3)).toString();
}

/**
 * The fastest exact strategy by median measured time; null when no exact strategy
 * has a finite time. Ties go to the earlier entry (the registry's order).
 * `splats` and `timing` (how the times were taken) only feed the reason text.
 */
export function chooseStrategy(timings: readonly StrategyTiming[], splats?: number, timing?: string): AutoChoice | null {
  const measured = timings
    .filter(isExact)
    .map((t, i) => ({ name: t.name, ms: median(t.ms), i, timedAt: t.timedAt }))
    .filter((t) => Number.isFinite(t.ms))
    .sort((a, b) => a.ms - b.ms || a.i - b.i);
  const ranked = measured.map(({ name, ms }) => ({ name, ms }));
  if (ranked.length === 0) return null;
  const best = ranked[0];
  const others = ranked
    .slice(1)
    .map((r) => `${r.name} ${formatSortMs(r.ms)}`)
    .join(', ');
  const count = splats !== undefined ? ` for ${splats.toLocaleString('en-US')} splats` : '';
  // Times measured on fewer keys (a slow adapter's budget) and scaled to the count: which, from how many.
  const scaled = measured.filter((t) => t.timedAt !== undefined && (splats === undefined || t.timedAt < splats));
  const from = scaled.length ? `; timed at fewer keys and scaled: ${scaled.map((t) => `${t.name} ${t.timedAt!.toLocaleString('en-US')}`).join(', ')}` : '';
  const how = (timing ? `, ${timing}` : '') + from;
  const untimed = NEVER_TIMED.some((n) => !measured.some((t) => t.name === n)) ? `; ${UNTIMED_NOTE}` : '';
  const reason = `${best.name}: fastest exact sort on this GPU (${formatSortMs(best.ms)} ms${others ? `; ${others}` : ''})${count}${how}${untimed}`;
  return { name: best.name, ms: best.ms, reason, ranked };
}

/** Strategies in the order they are fastest on a software adapter (measured, see the module comment). */
export const SOFTWARE_ORDER: readonly string[] = ['radix16', 'onesweep', 'radix4'];

/**
 * Strategies a software adapter's trial does not time (unless drawing with one now):
 * radix4 (2-bit digits, 16 passes) is measured 5-10x slower there than the fastest, in
 * every trial on record (SwiftShader, 10,000 keys: 336-772 ms against radix16's 64-76 ms;
 * 60,000 keys: 1,459 ms against onesweep's 250), and compiling its kernels stalls the
 * page's frames (in Chromium the GPU process compiles: a gap of 1.5-1.7 s between 600 ms
 * frames, 2026-11-28), for a pick it never wins.
 */
export const SOFTWARE_UNTIMED: readonly string[] = ['radix4'];
/**
 * Strategies auto never times, on any adapter (issue 34): radix4, the required
 * reference sort, the slowest on every adapter measured (docs/PERFORMANCE.md), so a
 * trial of it only costs frames. The sort note says so (UNTIMED_NOTE).
 */
export const NEVER_TIMED: readonly string[] = SOFTWARE_UNTIMED;
/** The sort note's words for NEVER_TIMED. */
export const UNTIMED_NOTE = 'radix4 is not timed: the required reference sort, slowest on every adapter measured';

/**
 * What auto's trial times, in order: the exact strategies, the one drawing now first
 * (the others stop early when clearly slower); on a software adapter then in
 * {@link SOFTWARE_ORDER}; never {@link NEVER_TIMED} (radix4), unless nothing else is exact.
 */
export function trialCandidates(strategies: readonly StrategyTraits[], current: string, software: boolean): StrategyTraits[] {
  const rank = (name: string) => (name === current ? -1 : software ? (SOFTWARE_ORDER.indexOf(name) + 1 || SOFTWARE_ORDER.length + 1) : 0);
  return strategies
    .filter(isExact)
    .filter((s, _, exact) => !NEVER_TIMED.includes(s.name) || exact.every((e) => NEVER_TIMED.includes(e.name)))
    .map((s, i) => ({ s, i }))
    .sort((a, b) => rank(a.s.name) - rank(b.s.name) || a.i - b.i)
    .map(({ s }) => s);
}

/**
 * The strategy to start with before anything is measured (and where measuring is
 * impossible), among `available` (names the device can run). On a software
 * adapter: the first of {@link SOFTWARE_ORDER} available; elsewhere the
 * adapter-based pick of sort/default-strategy.ts when available; else the first
 * exact strategy; else the first.
 */
export function startingStrategy(info: AdapterFacts, features: ReadonlySet<string> | GPUSupportedFeatures, available: readonly StrategyTraits[]): string {
  const names = available.map((s) => s.name);
  if (isSoftwareAdapter(info)) {
    const pick = SOFTWARE_ORDER.find((n) => names.includes(n));
    if (pick) return pick;
  }
  const preferred = preferredSorter(info, features);
  if (names.includes(preferred)) return preferred;
  return (available.find(isExact) ?? available[0]).name;
}

/** One line for the page when the adapter is a CPU implementation, else null. */
export function softwareAdapterNote(info: AdapterFacts): string | null {
  if (!isSoftwareAdapter(info)) return null;
  const what = [info.vendor, info.architecture, info.description].filter((s) => s).join(' ') || 'a software renderer';
  return `Software GPU (${what}): WebGPU runs on the CPU here, expect slow frames.`;
}
