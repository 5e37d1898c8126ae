/**
 * What crosses between the page and the scene loader's worker
 * (scene-load.worker.ts), and the small pure rules both sides follow: which
 * buffers are transferred, how often progress is sent, what a URL's scene is
 * called. No DOM, no Worker: unit-tested in Node.
 */
import * as sceneErrors from '../../scenes/errors';
import type { LoadOptions } from '../../scenes/load-options';
import type { LoadProgress } from '../../scenes/stream';
import type { SplatCloud } from '../../scenes/splat-cloud';
import type { CompactDecode, PackedScene } from '../gpu-scene/compact-pack';

export type { LoadProgress } from '../../scenes/stream';

/**
 * Where the worker reads the scene from: a File (or any Blob; passing it to the
 * worker copies a handle, not the bytes) or an absolute URL the worker fetches;
 * and the loaders' options (the SH degree to keep). The files a meta.json or
 * .gltf names are fetched beside the URL, or, for a Blob, taken from
 * `companions`: the files opened with it, by normalized path (scene-files.ts),
 * `mainPath` being the scene file's own.
 */
export type LoadSource = (
  | { kind: 'blob'; name: string; blob: Blob; companions?: { mainPath: string; files: Record<string, Blob> } }
  | { kind: 'url'; name: string; url: string }
  /** A generated scene (scenes/generate.ts generatedScene: 'default:3000'), made in the worker as a file is read there. */
  | { kind: 'generated'; name: string; spec: string }
) & {
  options?: LoadOptions;
  /**
   * Pack the scene compact in the worker (compact-pack.ts packScene) and hand the
   * page the packed arrays and the cloud without its SH: the page never holds the
   * float SH (192 of a SH3 splat's 236 bytes). Off by default.
   */
  pack?: boolean;
  /**
   * Pack as `pack` does, under these ranges rather than the scene's own: a streamed LOD
   * chunk, packed under the ranges its pool fixed at its first chunk (ChunkPool). 'own':
   * under the file's own ranges widened for a stream (compact-pack.ts streamedDecode):
   * the first chunk, whose ranges the pool then takes.
   */
  packWith?: CompactDecode | 'own';
};

/** What a load hands the page: the cloud (without its SH when packed) and the packed scene, if asked for. */
export interface LoadedScene {
  cloud: SplatCloud;
  packed: PackedScene | null;
}

/**
 * The buffers behind a cloud's typed arrays, each once, to transfer rather
 * than copy (the arrays of a 1M SH3 scene are 236 MB).
 */
export function cloudTransferables(cloud: SplatCloud, packed: PackedScene | null = null): ArrayBuffer[] {
  const arrays = [cloud.positions, cloud.scales, cloud.rotations, cloud.opacities, cloud.sh, ...(packed ? [packed.centers, packed.covs, packed.sh] : [])];
  const buffers = new Set<ArrayBuffer>();
  for (const a of arrays) if (a.buffer instanceof ArrayBuffer && a.buffer.byteLength > 0) buffers.add(a.buffer);
  return [...buffers];
}

/** Milliseconds between progress messages: for eyes, not accounting (the page redraws its bar at most this often). */
export const PROGRESS_INTERVAL_MS = 50;

/**
 * Decides which progress reports are sent: the first, then at most one every
 * `intervalMs`, and always the one that completes the announced size.
 */
export class ProgressGate {
  private last = -Infinity;
  constructor(private readonly intervalMs = PROGRESS_INTERVAL_MS) {}

  /** Whether a report at time `now` (ms) should be sent. */
  due(now: number, p: LoadProgress): boolean {
    const complete = p.totalBytes !== undefined && p.bytes >= p.totalBytes;
    if (!complete && now - this.last < this.intervalMs) return false;
    this.last = now;
    return true;
  }
}

/** The scene name of a URL: its last path segment, decoded ("scenes/my%20room.ply?v=2" -> "my room.ply"). */
export function sceneNameOfUrl(url: string): string {
  const last = url.split(/[?#]/)[0]!.split('/').filter(Boolean).pop() ?? url;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * The size a response announces for its body, or undefined: Content-Length
 * counts the encoded bytes, so a compressed response (Content-Encoding other
 * than identity) announces nothing usable.
 */
export function announcedSize(contentLength: string | null, contentEncoding: string | null): number | undefined {
  if (contentEncoding !== null && contentEncoding.trim() !== '' && contentEncoding.trim().toLowerCase() !== 'identity') return undefined;
  if (contentLength === null || !/^\s*\d+\s*$/.test(contentLength)) return undefined;
  const n = Number(contentLength);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * The loaders' error classes by the `name` their errors carry (scenes/errors.ts: SceneLoadError
 * and each subclass). Read from an instance, not the class: a minified build renames classes.
 */
const SCENE_ERRORS: ReadonlyMap<string, typeof sceneErrors.SceneLoadError> = new Map(
  Object.values(sceneErrors)
    .filter((v): v is typeof sceneErrors.SceneLoadError => typeof v === 'function' && (v === sceneErrors.SceneLoadError || v.prototype instanceof sceneErrors.SceneLoadError))
    .map((c) => [c === sceneErrors.SceneLoadError ? new c('', 'bad-data', '').name : new (c as unknown as new (f: string, d: string) => sceneErrors.SceneLoadError)('', '').name, c]),
);

/**
 * The loader's typed error again, from what crossed the worker's boundary: comlink
 * carries an error's name and message only, so the page got a plain Error named
 * 'UnknownFormatError'. Rebuilt as that class (its `file`, `code` and detail read
 * back from the one-line message `FILE: CODE: DETAIL`), so that `instanceof
 * SceneLoadError` holds in the browser as in Node (docs/API.md) and the page's
 * wording (error-lines.ts) can tell the causes apart. Anything else passes as it is.
 */
export function reviveLoadError(e: unknown): unknown {
  if (!(e instanceof Error) || e instanceof sceneErrors.SceneLoadError) return e;
  const Class = SCENE_ERRORS.get(e.name);
  if (!Class) return e;
  const isBase = Class === sceneErrors.SceneLoadError;
  // The class's code: a subclass fixes it (read from an instance); the base's is in the message.
  const code = isBase ? /^.*?: ([a-z-]+): /.exec(e.message)?.[1] : new (Class as unknown as new (f: string, d: string) => sceneErrors.SceneLoadError)('', '').code;
  if (!code) return e;
  const at = e.message.indexOf(`: ${code}: `);
  if (at < 0) return e;
  const file = e.message.slice(0, at);
  const detail = e.message.slice(at + code.length + 4);
  const revived = isBase
    ? new sceneErrors.SceneLoadError(file, code as sceneErrors.SceneLoadErrorCode, detail)
    : new (Class as unknown as new (f: string, d: string) => sceneErrors.SceneLoadError)(file, detail);
  if (e.stack) revived.stack = e.stack;
  return revived;
}
