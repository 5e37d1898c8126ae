/**
 * Does a scene fit the GPU? Each buffer the renderer sizes by the splat count is
 * bound whole as one storage binding, so each must fit the device's
 * `maxStorageBufferBindingSize` and `maxBufferSize` (renderer/gpu/requirements.ts
 * requests the adapter's own values). Checked before anything is allocated, so a
 * scene that does not fit leaves the scene on screen as it was.
 *
 * The SH buffer is the one that grows with the SH degree (16 coefficients x 3
 * channels as halves at degree 3: 96 bytes a splat, three times the covariances),
 * and the one with a way out: load the scene with a lower SH degree
 * (scenes/load-options.ts `maxShDegree`, `?sh=N` in the viewer, `--sh N` in the
 * programs). Where even degree 0 does not fit, or a buffer that SH does not
 * size is too large, the scene has more splats than this adapter binds.
 *
 * Pure arithmetic on numbers: unit-tested without a GPU.
 */
import { RECORD_BYTES } from './draw-pass';
import { shCoeffCount, type ShDegree } from '../../scenes/splat-cloud';
import type { DrawName } from './draw-strategies';

/** The device limits the check reads (a GPUSupportedLimits has them). */
export interface BudgetLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
}

/** One count-sized buffer: its label and size. */
export interface BufferNeed {
  /** What it holds, for the message ('SH', 'covariances', ...). */
  name: string;
  bytes: number;
}

/** u32 words a splat's SH takes as f16 pairs (GpuScene.shStride). */
export function shWordsPerSplat(degree: number): number {
  return Math.ceil((shCoeffCount(degree) * 3) / 2);
}

/**
 * The buffers sized by the splat count, for `count` splats of SH `degree` under
 * the `draw` strategy:
 * - the scene (GpuScene): centers 16 B, covariances 32 B, SH (f16 pairs) a splat;
 * - the sort's (key, id) pair: keys and values 4 B a splat each (SplatRenderer),
 *   and the GPU sorter's scratch copies of both, 4 B a splat each (sort/sorter-base.ts;
 *   bitonic pads to a power of two and checks that itself);
 * - tiles only: per-splat records 32 B and footprints 16 B (tiles/tile-rasterizer.ts).
 *   Its (tile, depth) pair buffers are not listed: they start at what the device
 *   binds at most and grow only that far (tiles/pair-budget.ts).
 */
export function sceneBuffers(count: number, degree: number, draw: DrawName = 'quads'): BufferNeed[] {
  const n = Math.max(1, count);
  const list: BufferNeed[] = [
    { name: 'SH', bytes: n * shWordsPerSplat(degree) * 4 },
    { name: 'covariances', bytes: n * 32 },
    { name: 'centers', bytes: n * 16 },
    { name: 'sort keys', bytes: n * 4 },
    { name: 'sort values', bytes: n * 4 },
    { name: 'sort scratch keys', bytes: n * 4 },
    { name: 'sort scratch values', bytes: n * 4 },
  ];
  if (draw === 'tiles') list.push({ name: 'tile records', bytes: n * 32 }, { name: 'tile footprints', bytes: n * 16 });
  // The quads draw's per-splat records of its prepare pass (draw-pass.ts RECORD_BYTES).
  else list.push({ name: 'draw records', bytes: n * RECORD_BYTES });
  return list;
}

/** The largest buffer one binding may hold, and the limit that sets it. */
export function bindingLimit(limits: BudgetLimits): { bytes: number; limit: keyof BudgetLimits } {
  return limits.maxStorageBufferBindingSize <= limits.maxBufferSize
    ? { bytes: limits.maxStorageBufferBindingSize, limit: 'maxStorageBufferBindingSize' }
    : { bytes: limits.maxBufferSize, limit: 'maxBufferSize' };
}

/** Bytes for people: "2.1 GB", "640 MB", "12 KB" (powers of 1000, as the figures of a file manager). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(bytes >= 1e8 ? 0 : 1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(0)} KB`;
  return `${bytes} B`;
}

/** The result of a budget check. */
export interface BudgetCheck {
  /** Every count-sized buffer. */
  buffers: BufferNeed[];
  /** Their sum (GPU memory the scene takes, besides fixed-size buffers). */
  totalBytes: number;
  /** The per-binding limit in bytes, and its name. */
  binding: { bytes: number; limit: keyof BudgetLimits };
  /** The largest buffer over the limit, or null when all fit. */
  over: BufferNeed | null;
  /** When `over` is the SH: the highest SH degree whose buffers all fit (null when none does). */
  fitsAtDegree: ShDegree | null;
  /** The most splats whose buffers all fit at SH degree 0 under this draw. */
  maxSplats: number;
}

/** Checks `count` splats of SH `degree` under `draw` against `limits` (see the module comment). */
export function checkBudget(count: number, degree: ShDegree, draw: DrawName, limits: BudgetLimits): BudgetCheck {
  const binding = bindingLimit(limits);
  const fits = (d: number): { buffers: BufferNeed[]; over: BufferNeed | null } => {
    const buffers = sceneBuffers(count, d, draw);
    let over: BufferNeed | null = null;
    for (const b of buffers) if (b.bytes > binding.bytes && (over === null || b.bytes > over.bytes)) over = b;
    return { buffers, over };
  };
  const { buffers, over } = fits(degree);
  let fitsAtDegree: ShDegree | null = null;
  if (over?.name === 'SH') {
    for (let d = degree - 1; d >= 0; d--) {
      if (fits(d).over === null) {
        fitsAtDegree = d as ShDegree;
        break;
      }
    }
  }
  // Every buffer is linear in the count: the widest one a splat at degree 0 sets the most splats.
  const widest = Math.max(...sceneBuffers(1, 0, draw).map((b) => b.bytes));
  const maxSplats = Math.floor(binding.bytes / widest);
  return { buffers, totalBytes: buffers.reduce((a, b) => a + b.bytes, 0), binding, over, fitsAtDegree, maxSplats };
}

/**
 * A scene does not fit the GPU's binding limits. Its message is one line: what
 * is needed, what the adapter allows, which buffer and limit, and the way out.
 */
export class GpuBudgetError extends Error {
  override name = 'GpuBudgetError';
  /** The buffer over the limit ('SH', 'covariances', ...). */
  readonly buffer: string;
  /** Its size in bytes. */
  readonly neededBytes: number;
  /** The per-binding limit in bytes. */
  readonly availableBytes: number;
  /** Which device limit sets it. */
  readonly limit: keyof BudgetLimits;
  /** The highest SH degree that fits, when lowering it is the way out; null otherwise. */
  readonly suggestedShDegree: ShDegree | null;
  /** The message without its way out ("NAME: N splats ... need X of SH ..., the adapter allows Y ..."), for callers that word their own. */
  readonly needs: string;

  constructor(scene: string, count: number, degree: ShDegree, check: BudgetCheck) {
    const over = check.over!;
    const needs = `${scene}: ${count.toLocaleString('en-US')} splats of SH degree ${degree} need ${formatBytes(over.bytes)} of ${over.name} in one buffer, the adapter allows ${formatBytes(check.binding.bytes)} per binding (${check.binding.limit})`;
    const d = check.fitsAtDegree;
    const way =
      d !== null
        ? `reload with SH degree ${d} (?sh=${d}; --sh ${d} in npm run render)`
        : `this adapter binds at most ${check.maxSplats.toLocaleString('en-US')} splats (at SH degree 0): open a smaller scene`;
    super(`${needs}: ${way}`);
    this.buffer = over.name;
    this.neededBytes = over.bytes;
    this.availableBytes = check.binding.bytes;
    this.limit = check.binding.limit;
    this.suggestedShDegree = d;
    this.needs = needs;
  }
}

/**
 * Throws GpuBudgetError unless every count-sized buffer of the scene fits.
 * @param scene - the scene's name, for the message
 */
export function assertSceneFits(scene: string, count: number, degree: ShDegree, draw: DrawName, limits: BudgetLimits): BudgetCheck {
  const check = checkBudget(count, degree, draw, limits);
  if (check.over !== null) throw new GpuBudgetError(scene, count, degree, check);
  return check;
}
