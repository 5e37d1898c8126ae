/**
 * Does a scene fit the GPU? Each buffer the renderer sizes by the splat count is
 * bound whole as one storage binding, so each must fit the device's
 * `maxStorageBufferBindingSize` and `maxBufferSize` (renderer/gpu/requirements.ts
 * requests the adapter's own values). Checked before anything is allocated, so a
 * scene that does not fit leaves the scene on screen as it was.
 *
 * The SH is the exception: it is the buffer that grows with the SH degree (16
 * coefficients x 3 channels as halves at degree 3: 96 bytes a splat, three times
 * the covariances), so GpuScene splits it by whole splats over SH_BINDINGS (2)
 * storage buffers where one binding would not hold it (shSplitAt): the SH needs
 * half its size per binding, not all of it. What still does not fit has a way
 * out: load the scene with a lower SH degree
 * (scenes/load-options.ts `maxShDegree`, `?sh=N` in the viewer, `--sh N` in the
 * programs). Where even degree 0 does not fit, or a buffer that SH does not
 * size is too large, the scene has more splats than this adapter binds.
 *
 * Pure arithmetic on numbers: unit-tested without a GPU.
 */
import { RECORD_BYTES } from './draw-pass';
import { shCoeffCount, type ShDegree } from '../../scenes/splat-cloud';
import type { DrawName } from './draw-strategies';
import { DEFAULT_PRECISION, sceneLayout, type ScenePrecision } from './scene-precision';

/** The device limits the check reads (a GPUSupportedLimits has them). */
export interface BudgetLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
}

/** One count-sized buffer: its label and size. */
export interface BufferNeed {
  /** What it holds, for the message ('SH', 'covariances', ...). */
  name: string;
  /** Its whole size. */
  bytes: number;
  /** Storage bindings it may be split over, by whole splats (SH: SH_BINDINGS; the others 1). */
  bindings: number;
  /** Bytes a splat (the unit of a split). */
  splatBytes: number;
}

/** Storage buffers (and bindings) the SH may be split over: GpuScene's sh0 and sh1. */
export const SH_BINDINGS = 2;

/** u32 words a splat's SH takes as f16 pairs (GpuScene.shStride of a full scene). */
export function shWordsPerSplat(degree: number): number {
  return Math.ceil((shCoeffCount(degree) * 3) / 2);
}

/**
 * Where GpuScene splits the SH of `count` splats of `shStride` words each under a
 * per-binding limit of `bindingBytes`: splats [0, splitAt) in the first buffer,
 * [splitAt, count) in the second. `count` when the whole SH fits one binding (the
 * second buffer is then a tiny unused one); else the most whole splats one binding
 * holds, so that the first buffer is as full as the limit allows.
 * @throws RangeError when even SH_BINDINGS bindings cannot hold it (the budget check refuses such scenes first)
 */
export function shSplitAt(count: number, shStride: number, bindingBytes: number): number {
  const splatBytes = shStride * 4;
  if (count * splatBytes <= bindingBytes) return count;
  const splitAt = Math.floor(bindingBytes / splatBytes);
  if (count - splitAt > splitAt) {
    throw new RangeError(`SH of ${count} splats (${splatBytes} bytes each) does not fit ${SH_BINDINGS} bindings of ${bindingBytes} bytes`);
  }
  return splitAt;
}

/**
 * The bytes the largest binding of `b` needs under a per-binding limit: all of it
 * when it fits one binding (or may not be split), else its splats spread evenly
 * over its bindings (the least the fullest one can hold).
 */
export function bindingNeed(b: BufferNeed, bindingBytes: number): number {
  if (b.bindings <= 1 || b.bytes <= bindingBytes) return b.bytes;
  return Math.ceil(b.bytes / b.splatBytes / b.bindings) * b.splatBytes;
}

/**
 * The buffers sized by the splat count, for `count` splats of SH `degree` under
 * the `draw` strategy:
 * - the scene (GpuScene), by its precision (scene-precision.ts sceneLayout): full:
 *   centers 16 B, covariances 32 B, SH (f16 pairs); compact: centers 16 B,
 *   covariances 8 B, SH (opacity and 8-bit bands) a splat;
 * - the sort's (key, id) pair: keys and values 4 B a splat each (SplatRenderer),
 *   and the GPU sorter's scratch copies of both, 4 B a splat each (sort/sorter-base.ts;
 *   bitonic pads to a power of two and checks that itself);
 * - tiles only: per-splat records 32 B (tiles/tile-rasterizer.ts).
 *   Its (tile, depth) pair buffers are not listed: they start at what the device
 *   binds at most and grow only that far (tiles/pair-budget.ts).
 */
export function sceneBuffers(count: number, degree: number, draw: DrawName = 'quads', precision: ScenePrecision = DEFAULT_PRECISION): BufferNeed[] {
  const n = Math.max(1, count);
  const need = (name: string, splatBytes: number, bindings = 1): BufferNeed => ({ name, bytes: n * splatBytes, bindings, splatBytes });
  const layout = sceneLayout(degree, precision);
  const list: BufferNeed[] = [
    need('SH', layout.shStride * 4, SH_BINDINGS),
    need('covariances', layout.covBytes),
    need('centers', layout.centerBytes),
    need('sort keys', 4),
    need('sort values', 4),
    need('sort scratch keys', 4),
    need('sort scratch values', 4),
  ];
  if (draw === 'tiles') list.push(need('tile records', 32));
  // The quads draw's per-splat records of its prepare pass (draw-pass.ts RECORD_BYTES).
  else list.push(need('draw records', RECORD_BYTES));
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
  /** The buffer whose largest binding is the most over the limit (`bindingBytes`: that binding's need), or null when all fit. */
  over: (BufferNeed & { bindingBytes: number }) | null;
  /** When `over` is the SH: the highest SH degree whose buffers all fit (null when none does). */
  fitsAtDegree: ShDegree | null;
  /** The most splats whose buffers all fit at SH degree 0 under this draw. */
  maxSplats: number;
}

/** Checks `count` splats of SH `degree` under `draw` against `limits` (see the module comment). */
export function checkBudget(count: number, degree: ShDegree, draw: DrawName, limits: BudgetLimits, precision: ScenePrecision = DEFAULT_PRECISION): BudgetCheck {
  const binding = bindingLimit(limits);
  const fits = (d: number): { buffers: BufferNeed[]; over: BudgetCheck['over'] } => {
    const buffers = sceneBuffers(count, d, draw, precision);
    let over: BudgetCheck['over'] = null;
    for (const b of buffers) {
      const bindingBytes = bindingNeed(b, binding.bytes);
      if (bindingBytes > binding.bytes && (over === null || bindingBytes > over.bindingBytes)) over = { ...b, bindingBytes };
    }
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
  // Every buffer is linear in the count: the one with the fewest whole splats in its bindings (at degree 0) sets the most splats.
  const maxSplats = Math.min(...sceneBuffers(1, 0, draw, precision).map((b) => Math.floor(binding.bytes / b.splatBytes) * b.bindings));
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
  /** What its largest binding needs, in bytes (for the SH split over SH_BINDINGS: its share of the splats). */
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
    const where =
      over.bindingBytes === over.bytes
        ? `${formatBytes(over.bytes)} of ${over.name} in one buffer`
        : `${formatBytes(over.bytes)} of ${over.name} (${formatBytes(over.bindingBytes)} in each of ${over.bindings} bindings)`;
    const needs = `${scene}: ${count.toLocaleString('en-US')} splats of SH degree ${degree} need ${where}, the adapter allows ${formatBytes(check.binding.bytes)} per binding (${check.binding.limit})`;
    const d = check.fitsAtDegree;
    const way =
      d !== null
        ? `reload with SH degree ${d} (?sh=${d}; --sh ${d} in npm run render)`
        : `this adapter binds at most ${check.maxSplats.toLocaleString('en-US')} splats (at SH degree 0): open a smaller scene`;
    super(`${needs}: ${way}`);
    this.buffer = over.name;
    this.neededBytes = over.bindingBytes;
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
export function assertSceneFits(
  scene: string,
  count: number,
  degree: ShDegree,
  draw: DrawName,
  limits: BudgetLimits,
  precision: ScenePrecision = DEFAULT_PRECISION,
): BudgetCheck {
  const check = checkBudget(count, degree, draw, limits, precision);
  if (check.over !== null) throw new GpuBudgetError(scene, count, degree, check);
  return check;
}
