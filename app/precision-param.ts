import { DEFAULT_PRECISION, PRECISIONS, type ScenePrecision } from '../renderer/api/index';

/**
 * `?precision=full|compact` of the page's URL: how scenes are kept on the GPU
 * (renderer/gpu-scene/scene-precision.ts; compact, the default, is half the memory).
 * Absent: the default; a value that is neither: the default, and `note` says so.
 */
export function readPrecisionParam(search: string): { precision: ScenePrecision; note?: string } {
  const v = new URLSearchParams(search).get('precision');
  if (v === null) return { precision: DEFAULT_PRECISION };
  if ((PRECISIONS as readonly string[]).includes(v)) return { precision: v as ScenePrecision };
  return { precision: DEFAULT_PRECISION, note: `?precision=${v}: expected ${PRECISIONS.join(' or ')}; using ${DEFAULT_PRECISION}` };
}
