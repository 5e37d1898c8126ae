/**
 * The ruler's state (ruler.ts) and its short form in the URL hash, beside the view
 * (page-hash.ts): `&ruler=ax,ay,az,bx,by,bz[,k[,unit]]`, the two points in scene units,
 * then, once a scale is set, `k` the real units per scene unit and the unit's name
 * (percent-encoded). Pure string functions.
 *
 * The points are rounded to a fixed step of about 1e-4 of their distance (as the view's
 * eye and target are to theirs), so the distance survives to about 1e-4; `k` keeps 6
 * significant digits.
 */

export type V3 = [number, number, number];

/** A measurement: its two points (world, scene units) and the scale set from a known length. */
export interface RulerState {
  a: V3;
  b: V3;
  /** Real units per scene unit, or null before a scale is set (distances in scene units). */
  scale: number | null;
  /** The real unit's name (e.g. 'm'); '' without one. */
  unit: string;
}

export const RULER_KEY = 'ruler';
/** The longest unit name kept. */
export const MAX_UNIT = 16;

/** Fixed-point text without trailing zeros; "-0" becomes "0". */
function fixed(x: number, decimals: number): string {
  let s = x.toFixed(decimals);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
}

/** The distance between a and b, in scene units. */
export function sceneDistance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(b[0]! - a[0]!, b[1]! - a[1]!, b[2]! - a[2]!);
}

/** The distance as shown: `1.234 m` with a scale, else `1.234 units` (4 significant digits). */
export function formatDistance(d: number, scale: number | null, unit: string): string {
  const v = scale === null ? d : d * scale;
  const text = v === 0 ? '0' : Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(3) : v.toPrecision(4);
  return scale === null ? `${text} units` : `${text}${unit ? ` ${unit}` : ''}`;
}

/** The hash entry of a measurement, `ruler=...` (without '&'). */
export function encodeRulerEntry(r: RulerState): string {
  const d = sceneDistance(r.a, r.b);
  const decimals = d > 0 && Number.isFinite(d) ? Math.min(12, Math.max(0, -Math.floor(Math.log10(d * 1e-4)))) : 6;
  const parts = [...r.a, ...r.b].map((v) => fixed(v, decimals));
  if (r.scale !== null) {
    parts.push(fixed(Number(r.scale.toPrecision(6)), 12));
    const unit = r.unit.slice(0, MAX_UNIT);
    if (unit) parts.push(encodeURIComponent(unit));
  }
  return `${RULER_KEY}=${parts.join(',')}`;
}

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The measurement in a hash (with or without '#', among other `&` entries), or null: none, or not a usable one. */
export function decodeRulerHash(hash: string): RulerState | null {
  if (typeof hash !== 'string') return null;
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  let value: string | undefined;
  for (const entry of body.split('&')) {
    const eq = entry.indexOf('=');
    if (eq >= 0 && entry.slice(0, eq) === RULER_KEY) value = entry.slice(eq + 1);
  }
  if (value === undefined) return null;
  const parts = value.split(',');
  if (parts.length < 6 || parts.length > 8) return null;
  const nums = parts.slice(0, parts.length === 8 ? 7 : Math.min(parts.length, 7)).map((p) => p.trim());
  if (!nums.every((p) => NUMBER_RE.test(p))) return null;
  const n = nums.map(Number);
  if (!n.every(Number.isFinite)) return null;
  const scale = n.length === 7 ? n[6]! : null;
  if (scale !== null && !(scale > 0)) return null;
  let unit = '';
  if (parts.length === 8) {
    try {
      unit = decodeURIComponent(parts[7]!).slice(0, MAX_UNIT);
    } catch {
      return null;
    }
  }
  return { a: [n[0]!, n[1]!, n[2]!], b: [n[3]!, n[4]!, n[5]!], scale, unit };
}

/** The hash with its ruler entry replaced by `entry` (null: removed). */
export function withRulerEntry(hash: string, entry: string | null): string {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  const kept = body.split('&').filter((e) => e !== '' && !e.startsWith(`${RULER_KEY}=`));
  if (entry) kept.push(entry);
  return kept.length ? `#${kept.join('&')}` : '';
}
