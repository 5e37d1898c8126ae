/**
 * The one rule for every file a scene names (a .gltf's buffer and image URIs, a
 * SOG meta.json's texture files, a lod-meta.json's chunk files and environment),
 * in Node and in the page:
 * - a relative path: no leading '/', no '\', no scheme (a glTF's data: URIs are
 *   read inline by its reader and never reach here), no control character;
 * - no '..' segment, also when percent-encoded (`%2e%2e`, `%252e%252e`: every
 *   level of percent-decoding is checked), no empty segment ('a//b');
 * - resolved against the scene's folder (Node) or URL (the page) and checked to
 *   stay under it after resolution (resolveReferenceUrl; in Node,
 *   scenes/references-node.ts also follows symbolic links and opens regular files only).
 * A reference that breaks it is a BadReferenceError naming the scene file, where
 * the reference is written (`property`) and the reference itself (`element`),
 * thrown by the reader before anything is opened or fetched.
 *
 * This module has no Node or DOM imports: the page's worker uses it too.
 */
import { BadReferenceError } from './errors';

/** Longest reference accepted (characters). */
export const MAX_REFERENCE_LENGTH = 1024;

/** A reference as it may appear in a message: quoted, control characters escaped, long ones cut. */
export function shownReference(ref: string): string {
  const cut = ref.length > 120 ? `${ref.slice(0, 120)}...` : ref;
  return JSON.stringify(cut);
}

/**
 * Why a reference breaks the rule, or null when it keeps it.
 *
 * @param ref - the reference as written
 * @param uri - true for a glTF URI (percent-encoded: decoded once to get the file
 *   name), false for a plain file name (SOG, lod-meta.json)
 */
export function referenceProblem(ref: string, uri: boolean): string | null {
  if (typeof ref !== 'string' || ref.length === 0) return 'it is empty';
  if (ref.length > MAX_REFERENCE_LENGTH) return `it is longer than ${MAX_REFERENCE_LENGTH} characters`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) return ref.slice(0, 5).toLowerCase() === 'data:' ? 'a data: URI is read inline only where the format allows one (glTF buffers)' : 'it has a scheme (only relative paths, and data: URIs in glTF, are read)';
  let name = ref;
  if (uri) {
    if (/[?#]/.test(ref)) return 'a glTF URI with a query or fragment is not a plain relative path';
    try {
      name = decodeURIComponent(ref);
    } catch {
      return 'it is not valid percent-encoding';
    }
  }
  // The name itself, then each further level of percent-decoding a server or tool might apply.
  for (let level = 0, s = name; level < 4; level++) {
    const why = pathProblem(s);
    if (why !== null) return level === 0 ? why : `${why} once percent-decoded`;
    if (!s.includes('%')) break;
    let next: string;
    try {
      next = decodeURIComponent(s);
    } catch {
      break; // a literal '%' in a file name: nothing further decodes
    }
    if (next === s) break;
    s = next;
  }
  return null;
}

function pathProblem(p: string): string | null {
  if (p.length === 0) return 'it is empty';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(p)) return 'it holds a control character';
  if (p.includes('\\')) return "it holds '\\' (only '/' separates folders)";
  if (p.startsWith('/')) return 'it is an absolute path';
  if (/^[a-z][a-z0-9+.-]*:/i.test(p)) return 'it has a scheme or drive letter';
  const segments = p.split('/');
  if (segments.includes('..')) return "it has a '..' segment (it would leave the scene's folder)";
  if (segments.some((s, i) => s === '' && i < segments.length)) return "it has an empty segment ('//' or a trailing '/')";
  if (segments.every((s) => s === '.')) return 'it names the folder, not a file';
  return null;
}

/**
 * Checks a reference against the rule and gives the file name it stands for (a
 * glTF URI percent-decoded; '.' segments dropped), relative to the scene's folder.
 *
 * @param file - the scene file (for the error)
 * @param ref - the reference as written
 * @param property - where it is written, e.g. "buffers[0].uri", "means.files[1]"
 * @param uri - whether it is a (percent-encoded) glTF URI
 * @throws BadReferenceError naming the file, the property and the reference
 */
export function checkReference(file: string, ref: string, property: string, uri = false): string {
  const why = referenceProblem(ref, uri);
  if (why !== null) throw badReference(file, ref, property, why);
  const name = uri ? decodeURIComponent(ref) : ref;
  return name.split('/').filter((s) => s !== '.').join('/');
}

/** The error for a refused reference. */
export function badReference(file: string, ref: string, property: string, why: string): BadReferenceError {
  return new BadReferenceError(file, `${property} ${shownReference(ref)} is refused: ${why}; a scene may name only files inside its own folder`, { property, element: ref });
}

/**
 * The URL of a file a scene at `base` names: the reference checked (checkReference:
 * pass the name it gave, already percent-decoded for a glTF URI), each segment
 * percent-encoded (so "a#b.webp" and "x:y.bin" are file names, not a fragment or a
 * scheme), resolved against `base` and checked to stay under `base`'s folder
 * (same origin, a path below the folder's).
 *
 * @param file - the scene's name, for errors
 * @throws BadReferenceError
 */
export function resolveReferenceUrl(file: string, base: string, name: string, property = 'a file it names'): string {
  const why = referenceProblem(name, false);
  if (why !== null) throw badReference(file, name, property, why);
  const rel = name
    .split('/')
    .filter((s) => s !== '.')
    .map((s) => encodeURIComponent(s))
    .join('/');
  let url: URL;
  let dir: URL;
  try {
    const b = new URL(base);
    dir = new URL('.', b);
    url = new URL(rel, b);
  } catch {
    throw badReference(file, name, property, `the scene's URL (${shownReference(base)}) has no folder to resolve it against`);
  }
  if (url.protocol !== dir.protocol || url.host !== dir.host || url.username !== dir.username || !url.pathname.startsWith(dir.pathname) || url.pathname === dir.pathname) {
    throw badReference(file, name, property, `it resolves to ${shownReference(url.href)}, outside the scene's folder ${shownReference(dir.href)}`);
  }
  return url.href;
}
