/**
 * Camera path files (docs/PATHS.md): keyframed poses in the scene's own frame, as
 * `--camera` takes them. The JSON anyone can write, its validation with typed errors
 * naming the keyframe and field, its serialisation, and a compact URL-hash form.
 * Pure functions, no DOM.
 *
 *   { "keyframes": [ { "time": 0, "eye": [x,y,z], "target": [x,y,z], "up": [x,y,z], "fovy": 60 }, ... ] }
 */
import { cross, length, normalize, sub, type CameraPose, type Vec3 } from './camera';

/** One keyframe: a pose and the time (seconds) it belongs to. */
export interface PathKeyframe extends CameraPose {
  /** Seconds from the path's start (>= 0, strictly increasing along the path). */
  time: number;
}

/** A validated camera path: at least 2 keyframes, times strictly increasing. */
export interface CameraPath {
  keyframes: PathKeyframe[];
}

/** `up` when a keyframe gives none (as `--camera`). */
export const DEFAULT_PATH_UP: Vec3 = [0, 1, 0];
/** `fovy` (degrees) when a keyframe gives none (as `--camera`). */
export const DEFAULT_PATH_FOVY = 60;

/**
 * A path that is not usable, with where: `keyframe` (index into `keyframes`, null for
 * the file as a whole) and `field` (`time`, `eye`, `target`, `up`, `fovy`, or null).
 * The message reads `path: keyframes[2].up: parallel to the view direction (target - eye)`.
 */
export class CameraPathError extends Error {
  override readonly name = 'CameraPathError';
  constructor(
    readonly keyframe: number | null,
    readonly field: string | null,
    readonly problem: string,
  ) {
    const where = keyframe === null ? (field ?? '') : `keyframes[${keyframe}]${field ? `.${field}` : ''}`;
    super(`path: ${where ? `${where}: ` : ''}${problem}`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function vec3(k: number, field: string, v: unknown): Vec3 {
  if (!Array.isArray(v) || v.length !== 3) throw new CameraPathError(k, field, `expected [x, y, z] (three numbers), got ${describe(v)}`);
  for (let i = 0; i < 3; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new CameraPathError(k, field, `component ${i} is ${describe(x)}, not a finite number`);
  }
  return [v[0], v[1], v[2]];
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  if (s === undefined) return typeof v;
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/**
 * Validates a keyframe's pose: eye != target, up non-zero and not parallel to the view
 * direction, fovy in (0, 180). `k` names the keyframe in errors.
 */
function checkPose(k: number, pose: CameraPose): void {
  const dir = sub(pose.target, pose.eye);
  const dirLen = length(dir);
  if (!(dirLen > 0)) throw new CameraPathError(k, 'target', 'equals eye, so there is no view direction');
  const upLen = length(pose.up);
  if (!(upLen > 0)) throw new CameraPathError(k, 'up', 'is the zero vector');
  // The same bound as the page's hash (view-url.ts): lookAt needs an up across the view.
  if (length(cross(dir, pose.up)) <= 1e-6 * dirLen * upLen) throw new CameraPathError(k, 'up', 'parallel to the view direction (target - eye)');
  if (!(pose.fovyDeg > 0 && pose.fovyDeg < 180)) throw new CameraPathError(k, 'fovy', `${pose.fovyDeg} is outside (0, 180) degrees`);
}

/** Times strictly increasing and >= 0; at least 2 keyframes. */
function checkTimes(keyframes: readonly { time: number }[]): void {
  if (keyframes.length < 2) throw new CameraPathError(null, 'keyframes', `need at least 2 keyframes, got ${keyframes.length}`);
  for (let k = 0; k < keyframes.length; k++) {
    const t = keyframes[k].time;
    if (!(t >= 0)) throw new CameraPathError(k, 'time', `${t} is negative (times are seconds from the path's start)`);
    if (k > 0 && !(t > keyframes[k - 1].time)) {
      throw new CameraPathError(k, 'time', `${t} is not after keyframes[${k - 1}].time ${keyframes[k - 1].time} (times must increase strictly)`);
    }
  }
}

/**
 * A camera path from a parsed JSON value: `{ keyframes: [{ time, eye, target, up?, fovy? }] }`.
 * `up` defaults to (0, 1, 0) and `fovy` to 60 degrees, as for `--camera`; fields other
 * than these are ignored. Numbers must be JSON numbers (not strings) and finite.
 *
 * @throws CameraPathError naming the keyframe and field: not an object, fewer than 2
 *   keyframes, a missing or non-finite number, times not strictly increasing or
 *   negative, eye equal to target, up zero or parallel to the view, fovy outside (0, 180).
 */
export function parseCameraPath(value: unknown): CameraPath {
  if (!isRecord(value)) throw new CameraPathError(null, null, `expected an object { "keyframes": [...] }, got ${describe(value)}`);
  const list = value.keyframes;
  if (!Array.isArray(list)) throw new CameraPathError(null, 'keyframes', `expected an array of keyframes, got ${describe(list)}`);
  if (list.length < 2) throw new CameraPathError(null, 'keyframes', `need at least 2 keyframes, got ${list.length}`);
  const keyframes: PathKeyframe[] = list.map((raw, k) => {
    if (!isRecord(raw)) throw new CameraPathError(k, null, `expected an object { time, eye, target, up, fovy }, got ${describe(raw)}`);
    const time = raw.time;
    if (typeof time !== 'number' || !Number.isFinite(time)) throw new CameraPathError(k, 'time', `expected a finite number of seconds, got ${describe(time)}`);
    const eye = vec3(k, 'eye', raw.eye);
    const target = vec3(k, 'target', raw.target);
    const up = raw.up === undefined ? ([...DEFAULT_PATH_UP] as Vec3) : vec3(k, 'up', raw.up);
    const fovy = raw.fovy === undefined ? DEFAULT_PATH_FOVY : raw.fovy;
    if (typeof fovy !== 'number' || !Number.isFinite(fovy)) throw new CameraPathError(k, 'fovy', `expected a finite number of degrees, got ${describe(fovy)}`);
    const kf: PathKeyframe = { time, eye, target, up, fovyDeg: fovy };
    checkPose(k, kf);
    return kf;
  });
  checkTimes(keyframes);
  return { keyframes };
}

/** Validates a path built in code (e.g. {@link orbitPath}); the same checks as {@link parseCameraPath}. */
export function validateCameraPath(path: CameraPath): CameraPath {
  return parseCameraPath(toJsonValue(path));
}

/**
 * A camera path from JSON text (a path file).
 * @throws CameraPathError for text that is not JSON (field null, the parser's message) or not a valid path.
 */
export function parseCameraPathJson(text: string): CameraPath {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CameraPathError(null, null, `not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseCameraPath(value);
}

function toJsonValue(path: CameraPath): { keyframes: { time: number; eye: Vec3; target: Vec3; up: Vec3; fovy: number }[] } {
  return { keyframes: path.keyframes.map((k) => ({ time: k.time, eye: [...k.eye], target: [...k.target], up: [...k.up], fovy: k.fovyDeg })) };
}

/**
 * A path as the JSON of a path file, one keyframe a line, every field written (numbers
 * exactly: `parseCameraPathJson(serializeCameraPath(p))` equals `p`).
 */
export function serializeCameraPath(path: CameraPath): string {
  const n = (x: number) => JSON.stringify(x === 0 ? 0 : x);
  const v = (a: readonly number[]) => `[${a.map(n).join(', ')}]`;
  const lines = path.keyframes.map(
    (k) => `    { "time": ${n(k.time)}, "eye": ${v(k.eye)}, "target": ${v(k.target)}, "up": ${v(k.up)}, "fovy": ${n(k.fovyDeg)} }`,
  );
  return `{\n  "keyframes": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

// ---------------------------------------------------------------------------
// URL hash: #path=T,EX,EY,EZ,TX,TY,TZ[,UX,UY,UZ][,FOVY];T,...

const HASH_KEY = 'path';

/** Fixed-point text without trailing zeros; "-0" becomes "0" (as the view hash, view-url.ts). */
function fixed(x: number, decimals: number): string {
  let s = x.toFixed(decimals);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
}

/** Decimals that keep a step of about 1e-4 of `scale` (the view hash's rule), 0..12. */
function decimalsFor(scale: number): number {
  return scale > 0 && Number.isFinite(scale) ? Math.min(12, Math.max(0, -Math.floor(Math.log10(scale * 1e-4)))) : 6;
}

/**
 * A path as a URL hash entry, `#path=` then keyframes separated by `;`, each
 * `t,ex,ey,ez,tx,ty,tz` followed by `ux,uy,uz` only where up differs from the keyframe
 * before (the first's from (0,1,0)) and `fovy` only where it differs (the first's from
 * 60): 7, 8, 10 or 11 numbers. Positions are rounded to about 1e-4 of the shortest
 * eye-target distance of the path (the page's view hash rule: the view direction
 * survives), up (normalised) to 4 decimals, fovy to 2, times to milliseconds (more
 * where two keyframes are closer). A 6-keyframe path is about 300 characters.
 */
export function encodePathHash(path: CameraPath): string {
  const ks = path.keyframes;
  const minDist = Math.min(...ks.map((k) => length(sub(k.target, k.eye))));
  const pd = decimalsFor(minDist);
  let td = 3;
  while (td < 9 && ks.some((k, i) => i > 0 && !(Number(fixed(k.time, td)) > Number(fixed(ks[i - 1].time, td))))) td++;
  let prevUp: string = DEFAULT_PATH_UP.map((x) => fixed(x, 4)).join(',');
  let prevFovy = fixed(DEFAULT_PATH_FOVY, 2);
  const entries = ks.map((k) => {
    const parts = [fixed(k.time, td), ...k.eye.map((x) => fixed(x, pd)), ...k.target.map((x) => fixed(x, pd))];
    const up = normalize(k.up)
      .map((x) => fixed(x, 4))
      .join(',');
    const fovy = fixed(k.fovyDeg, 2);
    if (up !== prevUp) parts.push(up);
    if (fovy !== prevFovy) parts.push(fovy);
    prevUp = up;
    prevFovy = fovy;
    return parts.join(',');
  });
  return `#${HASH_KEY}=${entries.join(';')}`;
}

// Plain decimal numbers only (what encodePathHash writes, plus exponents for hand edits).
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Reads a hash written by {@link encodePathHash} (with or without '#', possibly among
 * other `&`-separated entries such as the view's `cam=` and `scene=`).
 *
 * @returns null when the hash has no `path=` entry.
 * @throws CameraPathError when it has one that is not a valid path (the keyframe named).
 */
export function decodePathHash(hash: string): CameraPath | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  let value: string | undefined;
  for (const entry of body.split('&')) {
    const eq = entry.indexOf('=');
    if (eq < 0 || entry.slice(0, eq) !== HASH_KEY) continue;
    try {
      value = decodeURIComponent(entry.slice(eq + 1));
    } catch {
      throw new CameraPathError(null, null, 'malformed %-escape in the hash');
    }
  }
  if (value === undefined) return null;
  let up: Vec3 = [...DEFAULT_PATH_UP];
  let fovyDeg = DEFAULT_PATH_FOVY;
  const keyframes = value.split(';').map((text, k): PathKeyframe => {
    const parts = text.split(',').map((p) => p.trim());
    if (![7, 8, 10, 11].includes(parts.length)) {
      throw new CameraPathError(k, null, `expected t,ex,ey,ez,tx,ty,tz[,ux,uy,uz][,fovy] (7, 8, 10 or 11 numbers), got ${parts.length}`);
    }
    const bad = parts.findIndex((p) => !NUMBER_RE.test(p) || !Number.isFinite(Number(p)));
    if (bad >= 0) {
      const field = bad === 0 ? 'time' : bad <= 3 ? 'eye' : bad <= 6 ? 'target' : parts.length >= 10 && bad <= 9 ? 'up' : 'fovy';
      throw new CameraPathError(k, field, `"${parts[bad]}" is not a number`);
    }
    const n = parts.map(Number);
    if (n.length >= 10) up = [n[7], n[8], n[9]];
    if (n.length === 8 || n.length === 11) fovyDeg = n[n.length - 1];
    const kf: PathKeyframe = { time: n[0], eye: [n[1], n[2], n[3]], target: [n[4], n[5], n[6]], up: [...up], fovyDeg };
    checkPose(k, kf);
    return kf;
  });
  checkTimes(keyframes);
  return { keyframes };
}
