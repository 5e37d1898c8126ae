/**
 * Which sources are streamed LOD scenes (lod-meta.json, as splat-transform names
 * it), and the budget's defaults: small, so that routing a load costs a host
 * nothing; the streaming itself (lod-stream.ts) loads on demand.
 */
import type { LoadSource } from './scene-load-protocol';

/** The default budget: what a mid-range GPU draws at interactive rates. */
export const DEFAULT_LOD_BUDGET = 2_000_000;
const LOD_NAME = /(^|\/)lod-meta\.json$/i;

/** Whether a source is a streamed LOD manifest (by its name: lod-meta.json, as splat-transform writes it). */
export function isLodSource(source: LoadSource): boolean {
  if (source.kind === 'url') return LOD_NAME.test(new URL(source.url, globalThis.location?.href).pathname);
  if (source.kind === 'blob') return LOD_NAME.test(source.companions?.mainPath ?? source.name);
  return false;
}

/** `?budget=N` (splats), or null. */
export function budgetParam(search: string): number | null {
  const v = Number((new URLSearchParams(search).get('budget') ?? '').replace(/[,_]/g, ''));
  return Number.isInteger(v) && v >= 1 ? v : null;
}
