/**
 * Sharing a view through the page URL (docs/UX.md, 'sharing a view'):
 * the camera pose in the hash (`#cam=ex,ey,ez,tx,ty,tz,ux,uy,uz,fovy`), the
 * identity of the scene the pose belongs to (`&scene=ID`, see {@link viewAppliesTo}),
 * and the scene to open in the query (`?scene=URL`). Pure string functions; the
 * caller reads and writes `location`.
 */
import { type CameraPose, type Vec3, cross, length, normalize, sub } from '../renderer/api/index';

const KEY = 'cam';

/** Fixed-point text without trailing zeros; "-0" becomes "0". */
function fixed(x: number, decimals: number): string {
  let s = x.toFixed(decimals);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
}

/**
 * Encodes a pose as a URL hash, `#cam=ex,ey,ez,tx,ty,tz,ux,uy,uz,fovy`.
 *
 * Positions are rounded to a fixed step of about 1e-4 of the eye-target
 * distance rather than to a number of significant digits: what must survive
 * is the view direction, and a camera far from the origin looking at
 * something close (eye 1000.12, target 1000.15) would lose it entirely to
 * 5 significant digits. The result is ~1e-4 rad of direction error. The up
 * vector is normalised and kept to 4 decimals, fovy to 2.
 */
export function encodeViewHash(pose: CameraPose, scene?: string | null): string {
  const dist = length(sub(pose.target, pose.eye));
  const decimals = dist > 0 && Number.isFinite(dist) ? Math.min(12, Math.max(0, -Math.floor(Math.log10(dist * 1e-4)))) : 6;
  const up = normalize(pose.up);
  const parts = [
    ...pose.eye.map((v) => fixed(v, decimals)),
    ...pose.target.map((v) => fixed(v, decimals)),
    ...up.map((v) => fixed(v, 4)),
    fixed(pose.fovyDeg, 2),
  ];
  const sceneEntry = scene ? `&${SCENE_KEY}=${encodeURIComponent(scene)}` : '';
  return `#${KEY}=${parts.join(',')}${sceneEntry}`;
}

const SCENE_KEY = 'scene';

/** A view read from the hash: the pose and, when the hash names one, the scene it was saved for. */
export interface ViewState {
  pose: CameraPose;
  /** Identity of the scene the pose belongs to, or null for a hash that names none (applies to any scene). */
  scene: string | null;
}

/**
 * Decodes pose and scene identity from a hash written by {@link encodeViewHash};
 * null when the hash holds no usable pose (see {@link decodeViewHash}).
 */
export function decodeViewState(hash: string): ViewState | null {
  const pose = decodeViewHash(hash);
  if (!pose) return null;
  let scene: string | null = null;
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  for (const entry of body.split('&')) {
    const eq = entry.indexOf('=');
    if (eq < 0 || entry.slice(0, eq) !== SCENE_KEY) continue;
    try {
      scene = decodeURIComponent(entry.slice(eq + 1)) || null;
    } catch {
      scene = null;
    }
  }
  return { pose, scene };
}

/**
 * Whether a view saved for scene `saved` may be applied to the scene `current`:
 * a hash that names no scene applies to any (hand-written or older links), one
 * that names a scene applies only to that scene, so reloading after opening a
 * local file does not put that file's camera on the default scene.
 */
export function viewAppliesTo(view: ViewState, current: string): boolean {
  return view.scene === null || view.scene === current;
}

/**
 * Whether a scene identity names something the page can open by itself: a URL
 * (absolute http(s), or a relative path), not a generated scene (`default`,
 * `synthetic:N`) nor a local file (`file:NAME`).
 */
export function sceneIdIsUrl(id: string): boolean {
  if (id.startsWith('file:') || /^(default|synthetic)(:\d+)?$/.test(id)) return false;
  return /^https?:\/\//i.test(id) || /^[./]/.test(id) || /\.(ply|splat|spz|ksplat|sog)(\?|$)/i.test(id);
}

// Plain decimal numbers only (what encodeViewHash writes, plus exponents for hand edits).
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Decodes a hash written by {@link encodeViewHash} (with or without the
 * leading '#', possibly among other `&`-separated entries). Returns null for
 * anything that is not a usable pose: a missing `cam` entry, the wrong count
 * of numbers, non-numbers, fovy outside (0, 180), eye equal to target, or an
 * up vector that is zero or parallel to the view direction.
 */
export function decodeViewHash(hash: string): CameraPose | null {
  if (typeof hash !== 'string') return null;
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  let value: string | undefined;
  for (const entry of body.split('&')) {
    const eq = entry.indexOf('=');
    if (eq < 0 || entry.slice(0, eq) !== KEY) continue;
    try {
      value = decodeURIComponent(entry.slice(eq + 1));
    } catch {
      return null; // malformed %-escape
    }
  }
  if (value === undefined) return null;
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length !== 10 || !parts.every((p) => NUMBER_RE.test(p))) return null;
  const n = parts.map(Number);
  if (!n.every(Number.isFinite)) return null;
  const eye: Vec3 = [n[0], n[1], n[2]];
  const target: Vec3 = [n[3], n[4], n[5]];
  const up: Vec3 = [n[6], n[7], n[8]];
  const fovyDeg = n[9];
  if (!(fovyDeg > 0 && fovyDeg < 180)) return null;
  const dir = sub(target, eye);
  const dirLen = length(dir);
  const upLen = length(up);
  if (dirLen === 0 || upLen === 0) return null;
  if (length(cross(dir, up)) <= 1e-6 * dirLen * upLen) return null;
  return { eye, target, up, fovyDeg };
}

/**
 * The `scene` query parameter (`?scene=URL`), trimmed, or null when absent
 * or empty. Standard query decoding applies, so a scene URL containing
 * `&`, `+` or `#` must be percent-encoded (`encodeURIComponent`).
 */
export function readSceneParam(search: string): string | null {
  if (typeof search !== 'string') return null;
  const v = new URLSearchParams(search).get('scene');
  const t = v?.trim();
  return t ? t : null;
}
