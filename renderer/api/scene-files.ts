/**
 * Scenes made of several files (an unbundled SOG: meta.json and its .webp
 * textures; a .gltf and its .bin): where the files a scene file names are
 * found, beside a URL or among files opened together, and which of several
 * files opened at once is the scene. Pure functions (no DOM, no Worker):
 * unit-tested in Node; the worker (scene-load-job.ts) and the page (app.ts)
 * use them.
 */
import { checkReference, resolveReferenceUrl } from '../../scenes/references';

/**
 * The URL of a file that the scene file at `base` names (as written in
 * meta.json, or a glTF URI already percent-decoded), under the one rule for
 * references (scenes/references.ts): a relative path with no '..' segment (also
 * percent-encoded), no absolute path, no scheme; each segment percent-encoded
 * ("a#b.webp" and "x:y.bin" are file names, not a fragment or a scheme),
 * resolved against `base` and checked to stay under its folder.
 *
 * @throws BadReferenceError (a SceneLoadError: the loader passes it through) before anything is fetched
 */
export function sceneFileUrl(base: string, name: string): string {
  return resolveReferenceUrl(sceneNameOf(base), base, name);
}

/** The last path segment of a URL (what its errors name), or the URL itself. */
function sceneNameOf(url: string): string {
  const path = url.split(/[?#]/)[0]!;
  return path.slice(path.lastIndexOf('/') + 1) || url;
}

/** A path with "." and empty segments removed and "a/.." folded; a leading "/" dropped; ".." above the root kept out (dropped). */
export function normalizePath(path: string): string {
  const out: string[] = [];
  for (const s of path.replace(/\\/g, '/').split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') out.pop();
    else out.push(s);
  }
  return out.join('/');
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i + 1);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Which of `paths` (normalized, the files opened together) is the file
 * `name` that the scene file at `mainPath` names: the path beside it, else
 * (files chosen in a file dialog have no folders) the one file of that base
 * name, if exactly one; null when none.
 *
 * @throws BadReferenceError for a name that breaks the reference rule (scenes/references.ts)
 */
export function companionPath(mainPath: string, name: string, paths: readonly string[]): string | null {
  // The one rule for references (scenes/references.ts): nothing outside the scene's folder, before any lookup.
  checkReference(baseName(normalizePath(mainPath)) || mainPath, name, 'a file it names');
  const want = normalizePath(dirOf(normalizePath(mainPath)) + name);
  if (paths.includes(want)) return want;
  const base = baseName(want);
  const same = paths.filter((p) => baseName(p) === base);
  return same.length === 1 ? same[0]! : null;
}

/** Files whose names say they are scenes read whole with companions, then any scene file. */
const NEEDS_COMPANIONS = [/(^|\/)([^/]*[._-])?meta\.json$/i, /\.gltf$/i];
const SCENE_NAME = /\.(ply|splat|spz|sog|glb|gltf|json)$/i;

/**
 * Of several files opened at once (a dropped folder, a multiple selection),
 * the scene and the rest as its companions. The scene is the file that names
 * others (a meta.json, a .gltf), else a scene-like file name (.ply, .sog,
 * ...), else the first; with several candidates, the shallowest path, then
 * the first in order. The format itself is still judged from the content.
 *
 * @param paths - the files' paths (a folder's relative paths, or bare names)
 * @returns the index of the scene file and the normalized paths of all
 *   files (its own included), or null for no files
 */
export function groupSceneFiles(paths: readonly string[]): { main: number; paths: string[] } | null {
  if (paths.length === 0) return null;
  const norm = paths.map(normalizePath);
  const depth = (p: string): number => p.split('/').length;
  const pick = (test: (p: string) => boolean): number => {
    let best = -1;
    norm.forEach((p, i) => {
      if (test(p) && (best < 0 || depth(p) < depth(norm[best]!))) best = i;
    });
    return best;
  };
  let main = pick((p) => NEEDS_COMPANIONS.some((r) => r.test(p)));
  if (main < 0) main = pick((p) => SCENE_NAME.test(p));
  if (main < 0) main = 0;
  return { main, paths: norm };
}
