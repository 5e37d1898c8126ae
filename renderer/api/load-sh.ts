/**
 * The SH degree scenes are loaded with (scenes/load-options.ts `maxShDegree`): the
 * page's way out when a scene's SH does not fit the GPU (pipeline/gpu-budget.ts).
 * Read from and written to the query (`?sh=N`, so a reload keeps it and a link
 * carries it); pure string functions, the caller reads and writes `location`.
 */
import type { BudgetLimits, GpuBudgetError } from '../frame/gpu-budget';
import { parseShDegree, type LoadOptions } from '../../scenes/load-options';
import type { ShDegree } from '../../scenes/splat-cloud';

/** `?sh=N`: the degree (0..3), undefined when absent, or the problem as one line when malformed. */
export function readShParam(search: string): { degree?: ShDegree; error?: string } {
  const v = new URLSearchParams(search).get('sh');
  if (v === null) return {};
  try {
    return { degree: parseShDegree(v, '?sh=') };
  } catch (e) {
    return { error: `${e instanceof Error ? e.message : String(e)}; loading with every SH band the file has` };
  }
}

/** The query with `sh` set to `degree`, or without it for undefined (every band: the default). */
export function withShParam(search: string, degree: ShDegree | undefined): string {
  const p = new URLSearchParams(search);
  if (degree === undefined) p.delete('sh');
  else p.set('sh', String(degree));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The loaders' options for the panel's choice: 3 keeps what the file has. */
export function loadOptionsFor(degree: ShDegree | undefined): LoadOptions {
  return degree === undefined || degree === 3 ? {} : { maxShDegree: degree };
}

/** The page's line for a scene that does not fit: the numbers, then the way out in the page's terms. */
export function budgetLine(err: GpuBudgetError): string {
  const d = err.suggestedShDegree;
  if (d === null) return err.message;
  return `${err.needs}: reload with SH degree ${d} (?sh=${d}, or Scene › load SH degree); the scene on screen stays`;
}

/**
 * The limits the page checks scenes against: the device's, or with `?bindlimit=MB`
 * a smaller per-binding limit, to see (and test) the page on a smaller adapter
 * than the one at hand. Never above the device's own.
 */
export function budgetLimitsFor(device: BudgetLimits, search: string): BudgetLimits {
  const mb = Number(new URLSearchParams(search).get('bindlimit') ?? NaN);
  const stage = device.maxStorageBuffersPerShaderStage === undefined ? {} : { maxStorageBuffersPerShaderStage: device.maxStorageBuffersPerShaderStage };
  if (!(mb > 0)) return { maxStorageBufferBindingSize: device.maxStorageBufferBindingSize, maxBufferSize: device.maxBufferSize, ...stage };
  return { maxStorageBufferBindingSize: Math.min(device.maxStorageBufferBindingSize, Math.floor(mb * 1e6)), maxBufferSize: device.maxBufferSize, ...stage };
}
