/**
 * Does a scene fit the GPU? The arrays that grow with a splat's size (the scene's
 * centres, covariances and SH, the draws' per-splat records) are paged by whole
 * splats over as many storage bindings as the per-binding limit needs (paging.ts),
 * each page its own buffer: their size is not capped by one binding. What caps it:
 * - the bindings a shader stage may have (`maxStorageBuffersPerShaderStage`): a pass
 *   binds every page of the arrays it reads (stageBuffers);
 * - the sort's (key, id) arrays, 4 B a splat each, paged too (paging.ts sortPagingFor;
 *   the sort merges its pages: sort/paged-sort.ts), at most maxStorageBuffersPerShaderStage
 *   - 2 pages (its merge binds them all): 201M splats under 128 MiB bindings, more than
 *   such an adapter's memory holds at 72 B a splat;
 * - the device's memory in all, which WebGPU does not report: an allocation that
 *   fails is the device's out-of-memory error.
 * Checked before anything is allocated, so a scene that does not fit leaves the
 * scene on screen as it was. Lowering the SH degree (scenes/load-options.ts
 * `maxShDegree`, `?sh=N` in the viewer, `--sh N` in the programs) needs fewer SH
 * pages: the way out the message names when it is enough.
 *
 * Pure arithmetic on numbers: unit-tested without a GPU.
 */
import type { ShDegree } from '../../scenes/splat-cloud';
import { drawKindByName, type DrawName } from '../draw/draw-strategies';
import { formatBytes } from '../gpu-scene/gpu-memory';
import { bindingLimit, pagingFor, sortPagingFor } from '../gpu-scene/paging';
import { DEFAULT_PRECISION, sceneLayout, type ScenePrecision } from '../gpu-scene/scene-precision';

export { bindingLimit, formatBytes };
export { shWordsPerSplat } from '../gpu-scene/scene-precision';
export { allocateOrThrow, GpuMemoryError } from '../gpu-scene/gpu-memory';

/** The device limits the check reads (a GPUSupportedLimits has them). */
export interface BudgetLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  /** Default WebGPU's 8 where absent. */
  maxStorageBuffersPerShaderStage?: number;
  /**
   * Not a device limit: the most bytes a page of the sort's keys or values holds, when
   * lower than the binding limit. Tests page the sort's arrays with it while the scene's
   * stay whole (at the binding limit, the scene's arrays, 4x a key's size and more, are
   * paged first, and a stage's bindings run out before the keys need a second page).
   */
  sortPageBytes?: number;
}

/** WebGPU's default maxStorageBuffersPerShaderStage. */
export const DEFAULT_STAGE_BUFFERS = 8;

/** One count-sized array: its label, size and paging. */
export interface BufferNeed {
  /** What it holds, for the message ('SH', 'covariances', ...). */
  name: string;
  /** Its whole size. */
  bytes: number;
  /** Bytes a splat (the unit of a page). */
  splatBytes: number;
  /** Whether it is paged over bindings (the sort's arrays are one binding each). */
  paged: boolean;
  /** Bindings (buffers) it takes under the limit: its pages; 1 when unpaged. */
  pages: number;
}

/**
 * The arrays sized by the splat count, for `count` splats of SH `degree` under
 * the `draw` strategy, with their pages under `bindingBytes` (default: none):
 * - the scene (GpuScene), by its precision (scene-precision.ts sceneLayout): full:
 *   centers 16 B, covariances 32 B, SH (f16 pairs); compact: centers 16 B,
 *   covariances 8 B, SH (opacity and 8-bit bands) a splat; paged;
 * - the draw's per-splat records (its DrawKind's budget.records: quads 48 B,
 *   tiles 32 B); paged;
 * - the sort's (key, id) pair: keys and values 4 B a splat each (SplatRenderer), paged
 *   (sortPagingFor), and the GPU sorter's scratch copies of both, 4 B a splat each
 *   (sort/sorter-base.ts; bitonic pads to a power of two and checks that itself): one
 *   sorter a page (one of the page's size, and one of the last page's when shorter),
 *   and when paged the merge's output pages and ranks (2 pages of u32s, 1 page);
 *   The tiles draw's (tile, depth) pair buffers are not listed: they start at what
 *   the device binds at most and grow only that far (tiles/pair-budget.ts).
 */
export function sceneBuffers(
  count: number,
  degree: number,
  draw: DrawName = 'quads',
  precision: ScenePrecision = DEFAULT_PRECISION,
  bindingBytes = Number.POSITIVE_INFINITY,
  sortPageBytes = Number.POSITIVE_INFINITY,
): BufferNeed[] {
  const n = Math.max(1, count);
  const need = (name: string, splatBytes: number, paged: boolean): BufferNeed => ({
    name,
    bytes: n * splatBytes,
    splatBytes,
    paged,
    pages: paged && n * splatBytes > bindingBytes ? pagingFor(n, splatBytes, bindingBytes).pages : 1,
  });
  const layout = sceneLayout(degree, precision);
  const records = drawKindByName(draw).budget.records;
  return [
    need('SH', layout.shStride * 4, true),
    need('covariances', layout.covBytes, true),
    need('centers', layout.centerBytes, true),
    need(records.name, records.bytes, true),
    ...sortBuffers(n, Math.min(bindingBytes, sortPageBytes)),
  ];
}

/** The sort's arrays for `n` splats (see sceneBuffers): pages when a binding does not hold them. */
function sortBuffers(n: number, bindingBytes: number): BufferNeed[] {
  const { pages, pageSplats } = sortPagingFor(n, bindingBytes);
  const last = n - (pages - 1) * pageSplats;
  const entry = (name: string, words: number, parts: number): BufferNeed => ({ name, bytes: 4 * words, splatBytes: 4, paged: true, pages: parts });
  const scratch = pages === 1 ? n : pageSplats + (last < pageSplats ? last : 0);
  const sorters = pages > 1 && last < pageSplats ? 2 : 1;
  return [
    entry('sort keys', n, pages),
    entry('sort values', n, pages),
    entry('sort scratch keys', scratch, sorters),
    entry('sort scratch values', scratch, sorters),
    ...(pages > 1 ? [entry('sort merge', 2 * n + pageSplats, 2 * pages + 1)] : []),
  ];
}

/**
 * Storage buffers the fullest shader stage of `draw` binds for these arrays: the
 * draw's own stages' (its DrawKind's budget.stageBuffers: tiles/tiles.ts,
 * quads/quads.ts), or a paged sort's merge, which binds every key page and two more
 * (sort/paged-sort.ts).
 */
export function stageBuffers(buffers: readonly BufferNeed[], draw: DrawName = 'tiles'): number {
  const pages = (b: BufferNeed | undefined) => b?.pages ?? 0;
  const scene = ['SH', 'covariances', 'centers'].reduce((a, name) => a + pages(buffers.find((b) => b.name === name)), 0);
  const records = pages(buffers.find((b) => b.name.endsWith('records')));
  const sort = Math.max(1, pages(buffers.find((b) => b.name === 'sort keys')));
  const merge = sort > 1 ? sort + 2 : 0;
  return Math.max(drawKindByName(draw).budget.stageBuffers({ scene, records, sort }), merge);
}


/** The result of a budget check. */
export interface BudgetCheck {
  /** Every count-sized array, with its pages. */
  buffers: BufferNeed[];
  /** Their sum (GPU memory the scene takes, besides fixed-size buffers). */
  totalBytes: number;
  /** The per-binding limit in bytes, and its name. */
  binding: { bytes: number; limit: 'maxStorageBufferBindingSize' | 'maxBufferSize' };
  /** An unpaged array larger than one binding (the largest), or null. */
  over: BufferNeed | null;
  /** Storage buffers the project pass needs, and what the adapter allows a shader stage. */
  stage: { needed: number; allowed: number };
  /** Whether it all fits. */
  fits: boolean;
  /** When it does not fit: the highest SH degree at which it does (null when none does, or lowering it does not help). */
  fitsAtDegree: ShDegree | null;
  /** The most splats that fit at SH degree 0 under this draw. */
  maxSplats: number;
}

/** Checks `count` splats of SH `degree` under `draw` against `limits` (see the module comment). */
export function checkBudget(count: number, degree: ShDegree, draw: DrawName, limits: BudgetLimits, precision: ScenePrecision = DEFAULT_PRECISION): BudgetCheck {
  const binding = bindingLimit(limits);
  const allowed = limits.maxStorageBuffersPerShaderStage ?? DEFAULT_STAGE_BUFFERS;
  const at = (n: number, d: number) => {
    const buffers = sceneBuffers(n, d, draw, precision, binding.bytes, limits.sortPageBytes);
    let over: BufferNeed | null = null;
    for (const b of buffers) if (!b.paged && b.bytes > binding.bytes && (over === null || b.bytes > over.bytes)) over = b;
    // A splat larger than a binding cannot be paged either (never at these sizes).
    if (buffers.some((b) => b.splatBytes > binding.bytes)) over ??= buffers.find((b) => b.splatBytes > binding.bytes)!;
    const needed = stageBuffers(buffers, draw);
    return { buffers, over, needed, fits: over === null && needed <= allowed };
  };
  const now = at(count, degree);
  let fitsAtDegree: ShDegree | null = null;
  if (!now.fits && now.over === null) {
    for (let d = degree - 1; d >= 0; d--) {
      if (at(count, d).fits) {
        fitsAtDegree = d as ShDegree;
        break;
      }
    }
  }
  // The most splats at degree 0: every array grows with the count, so a bisection.
  let lo = 0, hi = Math.max(1, count);
  while (at(hi, 0).fits && hi < 2 ** 40) hi *= 2;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (at(mid, 0).fits) lo = mid;
    else hi = mid;
  }
  return {
    buffers: now.buffers,
    totalBytes: now.buffers.reduce((a, b) => a + b.bytes, 0),
    binding,
    over: now.over,
    stage: { needed: now.needed, allowed },
    fits: now.fits,
    fitsAtDegree,
    maxSplats: lo,
  };
}

/**
 * A scene does not fit the GPU's limits. Its message is one line: what is needed,
 * what the adapter allows, which limit, and the way out.
 */
export class GpuBudgetError extends Error {
  override name = 'GpuBudgetError';
  /** The array over the limit ('sort keys', ...), or 'storage buffers' when the pages are too many for one shader stage. */
  readonly buffer: string;
  /** What is needed: bytes of one binding, or storage buffers of one stage (by `limit`). */
  readonly needed: number;
  /** What the adapter allows, in the same unit. */
  readonly available: number;
  /** Which device limit it is. */
  readonly limit: keyof BudgetLimits;
  /** The highest SH degree that fits, when lowering it is the way out; null otherwise. */
  readonly suggestedShDegree: ShDegree | null;
  /** The message without its way out ("NAME: N splats ... need ..., the adapter allows ..."), for callers that word their own. */
  readonly needs: string;

  /** What does not fit, in words and numbers. */
  private static describe(scene: string, count: number, degree: ShDegree, check: BudgetCheck) {
    const splats = `${scene}: ${count.toLocaleString('en-US')} splats of SH degree ${degree}`;
    if (check.over) {
      const over = check.over;
      return {
        needs: `${splats} need ${formatBytes(over.bytes)} of ${over.name} in one buffer, the adapter allows ${formatBytes(check.binding.bytes)} per binding (${check.binding.limit})`,
        buffer: over.name,
        needed: over.bytes,
        available: check.binding.bytes,
        limit: check.binding.limit as keyof BudgetLimits,
      };
    }
    // The arrays a stage binds (the sorters' scratch and the merge's buffers are bound apart).
    const bound = (b: BufferNeed) => !b.name.startsWith('sort scratch') && b.name !== 'sort merge';
    const paged = check.buffers.filter((b) => b.pages > 1 && bound(b)).map((b) => `${b.name} in ${b.pages} pages`);
    return {
      needs:
        `${splats} need ${check.stage.needed} storage buffers in one shader stage (${paged.join(', ')} of at most ${formatBytes(check.binding.bytes)}), ` +
        `the adapter allows ${check.stage.allowed} (maxStorageBuffersPerShaderStage)`,
      buffer: 'storage buffers',
      needed: check.stage.needed,
      available: check.stage.allowed,
      limit: 'maxStorageBuffersPerShaderStage' as keyof BudgetLimits,
    };
  }

  constructor(scene: string, count: number, degree: ShDegree, check: BudgetCheck) {
    const what = GpuBudgetError.describe(scene, count, degree, check);
    const d = check.fitsAtDegree;
    const way =
      d !== null
        ? `reload with SH degree ${d} (?sh=${d}; --sh ${d} in npm run render)`
        : `this adapter draws at most ${check.maxSplats.toLocaleString('en-US')} splats (at SH degree 0): open a smaller scene`;
    super(`${what.needs}: ${way}`);
    this.buffer = what.buffer;
    this.needed = what.needed;
    this.available = what.available;
    this.limit = what.limit;
    this.suggestedShDegree = d;
    this.needs = what.needs;
  }
}

/**
 * Throws GpuBudgetError unless the scene fits.
 * @param scene - the scene's name, for the message
 */
export function assertSceneFits(
  scene: string,
  count: number,
  degree: ShDegree,
  draw: DrawName,
  limits: BudgetLimits,
  precision: ScenePrecision = DEFAULT_PRECISION,
): BudgetCheck {
  const check = checkBudget(count, degree, draw, limits, precision);
  if (!check.fits) throw new GpuBudgetError(scene, count, degree, check);
  return check;
}
