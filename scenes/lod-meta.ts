/**
 * Reader for PlayCanvas's streamed-LOD manifest, `lod-meta.json`, as
 * splat-transform 3.7 writes it (facts of the format; the code is ours):
 *
 *     { "version": 1, "asset": {...}, "count": N, "counts": [per level],
 *       "lodLevels": L, "lodErrors": bool, "environment"?: "env/meta.json",
 *       "filenames": ["0_0/meta.json", ...],
 *       "tree": { "bound": { "min": [x,y,z], "max": [x,y,z] },
 *                 "children": [node, node] | "lods": { "0": { "file", "offset", "count" }, ... } } }
 *
 * The tree is a bounding-volume hierarchy; its leaves are the unit of LOD
 * choice and streaming. A leaf holds, per level it has splats of, a range of
 * splats [offset, offset + count) of one unbundled SOG (`filenames[file]`,
 * relative to the manifest). Level 0 is the finest; each file holds one level
 * and several leaves' ranges. Positions are in the PLY frame, as SplatCloud's.
 * A leaf may lack a level (no splat of that level fell in it). The optional
 * per-node `errors` (lodErrors: true) are not read: the selector derives its
 * error from bounds and counts. The optional environment SOG is always drawn.
 */
import { LodFormatError, ReadFailedError, SceneLoadError, UnsupportedError, type SceneLoadErrorDetails } from './errors';
import type { LoadOptions } from './load-options';
import { loadSogFiles } from './sog';
import { concatRuns, type Bounds, type ShDegree, type SplatCloud } from './splat-cloud';
import { checkReference } from './references';
import { checkMemory } from './budget';

/** Most LOD levels a manifest may declare. */
export const MAX_LOD_LEVELS = 32;
/** Deepest tree accepted (splat-transform's binary tree over 2^32 splats is far shallower). */
const MAX_TREE_DEPTH = 64;
/** Most splats one range may declare: a SOG's limit (16383 x 16383 texels). */
const MAX_RANGE = 16383 * 16383;

/** Splats [offset, offset + count) of the SOG `filenames[file]`. */
export interface LodRange {
  file: number;
  offset: number;
  count: number;
}

/** A leaf of the tree: its bounds and, per level, its range (null where it has none of that level). */
export interface LodLeaf {
  bound: Bounds;
  lods: (LodRange | null)[];
}

export interface LodMeta {
  /** The manifest's name, for errors and `source`. */
  name: string;
  levels: number;
  /** Splats per level, as declared (and checked against the leaves). */
  counts: number[];
  filenames: string[];
  /** Per file: the level it holds and the splats the leaves' ranges need (the highest offset + count). */
  files: { level: number; splats: number }[];
  leaves: LodLeaf[];
  /** The root's bounds. */
  bound: Bounds;
  /** The environment SOG (drawn whatever the camera), or null. */
  environment: string | null;
}

/** Whether these bytes look like a lod-meta.json (a JSON object with "lodLevels" and "filenames"). */
export function looksLikeLodMeta(head: Uint8Array): boolean {
  const t = new TextDecoder('latin1').decode(head.subarray(0, 1 << 12));
  return /^\s*\{/.test(t) && t.includes('"lodLevels"') && t.includes('"filenames"');
}

/**
 * Parses and checks a lod-meta.json.
 *
 * @throws LodFormatError naming the JSON path for bad JSON, a missing or
 *   mistyped field, a range past its file's declared level, overlapping ranges,
 *   or counts that disagree with the leaves; UnsupportedError for a version other than 1
 */
export function parseLodMeta(bytes: Uint8Array, name: string): LodMeta {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw new LodFormatError(name, `lod-meta.json is not UTF-8 JSON (${e instanceof Error ? e.message : String(e)})`, { element: 'lod-meta.json', cause: e });
  }
  const bad = (path: string, what: string, v: unknown): never => {
    const shown = v === undefined ? 'missing' : `not ${JSON.stringify(v)?.slice(0, 60) ?? String(v)}`;
    throw new LodFormatError(name, `lod-meta.json '${path}' must be ${what}, ${shown}`, { element: 'lod-meta.json', property: path });
  };
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const own = (o: Record<string, unknown>, k: string): unknown => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);
  const int = (v: unknown, path: string, min: number, max: number): number =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : bad(path, `a whole number ${min}..${max}`, v);
  const vec3 = (v: unknown, path: string): [number, number, number] =>
    Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as [number, number, number]) : bad(path, 'an array of 3 finite numbers', v);

  if (!isObj(json)) return bad('', 'a JSON object', json);
  const root = json;
  const version = own(root, 'version');
  if (version !== 1) throw new UnsupportedError(name, `lod-meta.json version ${JSON.stringify(version)?.slice(0, 20) ?? 'missing'} is not read here (version 1 is)`, { element: 'lod-meta.json', property: 'version' });
  const levels = int(own(root, 'lodLevels'), 'lodLevels', 1, MAX_LOD_LEVELS);
  const countsV = own(root, 'counts');
  if (!Array.isArray(countsV) || countsV.length !== levels) bad('counts', `an array of ${levels} counts (lodLevels)`, countsV);
  const counts = (countsV as unknown[]).map((c, i) => int(c, `counts[${i}]`, 0, Number.MAX_SAFE_INTEGER));
  const namesV = own(root, 'filenames');
  if (!Array.isArray(namesV) || namesV.length === 0) bad('filenames', 'a non-empty array of file names', namesV);
  // Each a file inside the manifest's folder (scenes/references.ts: BadReferenceError), checked before any is fetched.
  const filenames = (namesV as unknown[]).map((f, i) => (typeof f === 'string' ? checkReference(name, f, `lod-meta.json filenames[${i}]`) : bad(`filenames[${i}]`, 'a relative path (a string)', f)));
  const envV = own(root, 'environment');
  const environment = envV === undefined ? null : typeof envV === 'string' ? checkReference(name, envV, 'lod-meta.json environment') : bad('environment', 'a relative path (a string)', envV);

  const files = filenames.map(() => ({ level: -1, splats: 0 }));
  const perFile: [number, number, string][][] = filenames.map(() => []);
  const leaves: LodLeaf[] = [];
  const sums = new Array<number>(levels).fill(0);
  const boundOf = (v: unknown, path: string): Bounds => {
    if (!isObj(v)) return bad(path, 'an object with min and max', v);
    const min = vec3(own(v, 'min'), `${path}.min`), max = vec3(own(v, 'max'), `${path}.max`);
    for (let a = 0; a < 3; a++) if (min[a]! > max[a]!) bad(`${path}.min`, `at most max (${max.join(', ')})`, min);
    return { min: [...min], max: [...max] };
  };
  const walk = (node: unknown, path: string, depth: number): Bounds => {
    if (!isObj(node)) return bad(path, 'an object (a tree node)', node);
    if (depth > MAX_TREE_DEPTH) bad(path, `at most ${MAX_TREE_DEPTH} levels deep`, '(deeper)');
    const bound = boundOf(own(node, 'bound'), `${path}.bound`);
    const children = own(node, 'children');
    const lodsV = own(node, 'lods');
    if (children !== undefined) {
      if (!Array.isArray(children) || children.length === 0) bad(`${path}.children`, 'a non-empty array of nodes', children);
      (children as unknown[]).forEach((c, i) => walk(c, `${path}.children[${i}]`, depth + 1));
      return bound;
    }
    if (!isObj(lodsV)) return bad(`${path}.lods`, 'an object (a leaf; or children for an inner node)', lodsV);
    const lods: (LodRange | null)[] = new Array(levels).fill(null);
    for (const key of Object.keys(lodsV)) {
      const p = `${path}.lods.${key}`;
      if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= levels) bad(p, `keyed by a level 0..${levels - 1}`, key);
      const level = Number(key);
      const r = lodsV[key];
      if (!isObj(r)) return bad(p, 'an object with file, offset and count', r);
      const file = int(own(r, 'file'), `${p}.file`, 0, filenames.length - 1);
      const offset = int(own(r, 'offset'), `${p}.offset`, 0, MAX_RANGE - 1);
      const count = int(own(r, 'count'), `${p}.count`, 1, MAX_RANGE - offset);
      const f = files[file]!;
      if (f.level !== -1 && f.level !== level) bad(`${p}.file`, `a file of level ${level} ('${filenames[file]}' holds level ${f.level})`, file);
      f.level = level;
      f.splats = Math.max(f.splats, offset + count);
      perFile[file]!.push([offset, count, p]);
      sums[level]! += count;
      lods[level] = { file, offset, count };
    }
    if (lods.every((l) => l === null)) bad(`${path}.lods`, 'a leaf with at least one level', lodsV);
    leaves.push({ bound, lods });
    return bound;
  };
  const bound = walk(own(root, 'tree'), 'tree', 0);
  for (let l = 0; l < levels; l++) {
    if (sums[l] !== counts[l]) bad(`counts[${l}]`, `the splats the leaves hold at level ${l} (${sums[l]})`, counts[l]);
  }
  perFile.forEach((ranges, file) => {
    ranges.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < ranges.length; i++) {
      const [prevOff, prevCount] = ranges[i - 1]!;
      if (ranges[i]![0] < prevOff + prevCount) bad(`${ranges[i]![2]}.offset`, `past the range before it in file ${file} (which ends at ${prevOff + prevCount})`, ranges[i]![0]);
    }
  });
  return { name, levels, counts, filenames, files, leaves, bound, environment };
}

/** Fetches a file by its path relative to the manifest; rejects when there is none. */
export type LodFileGetter = (path: string) => Promise<Uint8Array>;

/**
 * Loads the SOG `filenames[file]` (its meta.json, then its WebP textures beside it).
 *
 * @throws LodFormatError when the SOG holds fewer splats than the leaves' ranges
 *   need or had to drop splats (the ranges would no longer line up), and what loadSogFiles throws
 */
export async function loadLodFile(meta: LodMeta, file: number, getFile: LodFileGetter, options?: LoadOptions): Promise<SplatCloud> {
  const path = file === -1 ? meta.environment! : meta.filenames[file]!;
  const dir = path.slice(0, path.lastIndexOf('/') + 1);
  let cloud: SplatCloud;
  try {
    let bytes: Uint8Array;
    try {
      bytes = await getFile(path);
    } catch (e) {
      if (e instanceof SceneLoadError) throw e;
      throw new ReadFailedError(path, `reading it failed: ${e instanceof Error ? e.message : String(e)}`, { element: path, cause: e });
    }
    cloud = await loadSogFiles(bytes, (n) => getFile(dir + n), path, options);
  } catch (e) {
    throw e instanceof SceneLoadError ? inChunk(e, meta.name, path) : e;
  }
  if (file !== -1) checkLodChunk(meta, file, cloud);
  return cloud;
}

/**
 * Refuses a loaded chunk file whose splats do not line up with the manifest's
 * ranges: fewer than they need, or some dropped by the loader (the offsets after them would shift).
 * @throws LodFormatError
 */
export function checkLodChunk(meta: LodMeta, file: number, cloud: SplatCloud): void {
  const path = meta.filenames[file]!;
  const need = meta.files[file]!.splats;
  const dropped = cloud.sanitized?.dropped ?? 0;
  if (dropped > 0 || cloud.count < need) {
    throw new LodFormatError(meta.name, `chunk '${path}' holds ${cloud.count} drawable splats (${dropped} dropped) where the manifest's ranges need ${need} in order`, { element: path, property: 'count' });
  }
}

/** The same error (class and code) as the manifest's, its detail prefixed with the chunk file it is about. */
function inChunk(e: SceneLoadError, manifest: string, path: string): SceneLoadError {
  const detail = e.message.startsWith(`${e.file}: ${e.code}: `) ? e.message.slice(`${e.file}: ${e.code}: `.length) : e.message;
  const Cls = e.constructor as new (file: string, detail: string, details: SceneLoadErrorDetails) => SceneLoadError;
  const details: SceneLoadErrorDetails = { element: e.element ?? path, cause: e };
  if (e.property !== undefined) details.property = e.property;
  if (e.byteOffset !== undefined) details.byteOffset = e.byteOffset;
  const out = new Cls(manifest, `chunk '${path}': ${detail}`, details);
  // A class whose constructor takes the code (SceneLoadError itself) would have shifted the arguments.
  return out.code === e.code ? out : new SceneLoadError(manifest, e.code, `chunk '${path}': ${detail}`, details);
}

/**
 * The whole finest level of a streamed LOD scene as one cloud (its leaves'
 * level-0 ranges in tree order): what opening a lod-meta.json without a
 * budget shows. The SH degree is the highest of the files (others padded with zeros).
 *
 * @throws what parseLodMeta and loadLodFile throw
 */
export async function loadLodFinest(bytes: Uint8Array, getFile: LodFileGetter, name: string, options?: LoadOptions): Promise<SplatCloud> {
  const meta = parseLodMeta(bytes, name);
  const finest = meta.leaves.map((l) => l.lods.find((r) => r !== null)!);
  checkMemory(name, finest.reduce((a, r) => a + r.count, 0), 0, options, 'lod-meta.json (its finest level)', 0, { element: 'lod-meta.json' });
  const files = new Map<number, SplatCloud>();
  for (const r of finest) if (!files.has(r.file)) files.set(r.file, await loadLodFile(meta, r.file, getFile, options));
  const degree = Math.max(...[...files.values()].map((c) => c.shDegree)) as ShDegree;
  const n = finest.reduce((a, r) => a + r.count, 0);
  checkMemory(name, n, degree, options, 'lod-meta.json (its finest level)', 0, { element: 'lod-meta.json' });
  const out = concatRuns(
    finest.map((r) => ({ cloud: files.get(r.file)!, from: r.offset, count: r.count })),
    { name, format: 'lod' },
  );
  out.sanitized = { dropped: 0, clamped: 0, reasons: {} };
  for (const c of files.values()) {
    const s = c.sanitized;
    if (!s) continue;
    out.sanitized!.clamped += s.clamped;
    for (const [k, v] of Object.entries(s.reasons)) out.sanitized!.reasons[k] = (out.sanitized!.reasons[k] ?? 0) + v;
  }
  return out;
}
