/**
 * What the scene loader's worker does, as a comlink-exposable object: makes a
 * generated scene, or opens the source (a Blob's stream, or a fetch of a URL) and parses the bytes as they
 * arrive (scenes/stream.ts loadSceneStream: the binary PLY fast path decodes
 * each chunk straight into the final arrays), posts progress, and returns the
 * cloud marked for transfer; with `source.pack`, packed compact here (the page
 * then gets the packed arrays and the cloud without its float SH). The files a meta.json or .gltf names (an
 * unbundled SOG's .webp, a .gltf's .bin) are fetched relative to the URL, or
 * taken from the files opened with the Blob (fileGetter). Kept apart from scene-load.worker.ts (which only
 * exposes it) so that Node tests run it over a real MessageChannel.
 */
import * as Comlink from 'comlink';
import { ReadFailedError } from '../../scenes/errors';
import type { SceneFileGetter } from '../../scenes/load';
import { generatedScene } from '../../scenes/generate';
import { withShDegree } from '../../scenes/load-options';
import { loadSceneStream } from '../../scenes/stream';
import { checkDeclaredSize } from './error-lines';
import { companionPath, sceneFileUrl } from './scene-files';
import type { SplatCloud } from '../../scenes/splat-cloud';
import { announcedSize, cloudTransferables, ProgressGate, type LoadedScene, type LoadProgress, type LoadSource } from './scene-load-protocol';
import { packScene } from '../gpu-scene/compact-pack';

/** The bytes of a source, and their number when known. */
async function open(source: LoadSource & { kind: 'blob' | 'url' }): Promise<{ stream: ReadableStream<Uint8Array>; total?: number }> {
  if (source.kind === 'blob') return { stream: source.blob.stream(), total: source.blob.size };
  let res: Response;
  try {
    res = await fetch(source.url);
  } catch (e) {
    throw new ReadFailedError(source.name, `fetching ${source.url} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (!res.ok || !res.body) {
    void res.body?.cancel().catch(() => undefined);
    throw new ReadFailedError(source.name, `HTTP ${res.status} ${res.statusText} for ${source.url}`.replace(/\s+/g, ' '));
  }
  const total = announcedSize(res.headers.get('content-length'), res.headers.get('content-encoding'));
  return { stream: res.body, ...(total === undefined ? {} : { total }) };
}

/**
 * Where the files the scene file names come from: fetched beside the URL, or
 * among the Blobs opened with it. A failure is a plain Error whose message
 * says what is missing; the reader wraps it in a line naming the file.
 */
export function fileGetter(source: LoadSource & { kind: 'blob' | 'url' }): SceneFileGetter {
  if (source.kind === 'url') {
    return async (name) => {
      const url = sceneFileUrl(source.url, name);
      const res = await fetch(url);
      if (!res.ok) {
        void res.body?.cancel().catch(() => undefined);
        throw new Error(`HTTP ${res.status} ${res.statusText} for ${url}`.replace(/\s+/g, ' '));
      }
      return new Uint8Array(await res.arrayBuffer());
    };
  }
  const { companions } = source;
  const paths = companions ? Object.keys(companions.files) : [];
  return async (name) => {
    const path = companions ? companionPath(companions.mainPath, name, paths) : null;
    if (path === null || !companions) {
      throw new Error(
        companions
          ? `it is not among the ${paths.length} files opened with ${source.name}`
          : `only ${source.name} was opened: open it with the files beside it (drop its folder, or choose them all)`,
      );
    }
    return new Uint8Array(await companions.files[path]!.arrayBuffer());
  };
}

/** A file's or a URL's scene, parsed as its bytes arrive. */
async function read(source: LoadSource & { kind: 'blob' | 'url' }, progress: ProgressPort): Promise<SplatCloud> {
  const { stream, total } = await open(source);
  const gate = new ProgressGate();
  return loadSceneStream(source.name, stream, {
    ...(total === undefined ? {} : { totalBytes: total }),
    ...(source.options?.maxShDegree === undefined ? {} : { maxShDegree: source.options.maxShDegree }),
    getFile: fileGetter(source),
    onProgress: (p) => {
      // A header claiming more rows than the file holds is refused here, as its first rows
      // are read: the page's own check of the same report (scene-open.ts) races this
      // load's end, which for a small file comes at once with the reader's own wording.
      if (p.declared) checkDeclaredSize(source.name, p.declared, p.totalBytes ?? total);
      if (gate.due(performance.now(), p)) progress.postMessage(p);
    },
  });
}

/** Where progress reports go: the page's end of a MessageChannel. */
export interface ProgressPort {
  postMessage(p: LoadProgress): void;
}

export function sceneLoadApi() {
  return {
    /**
     * Loads one scene, posting LoadProgress reports on `progress` at most
     * every PROGRESS_INTERVAL_MS (and the one that completes the size).
     * Failures reject with the loader's typed error: comlink carries its name
     * and one-line message to the page.
     */
    async load(source: LoadSource, progress: ProgressPort): Promise<LoadedScene> {
      const cloud = source.kind === 'generated' ? withShDegree(generatedScene(source.spec), source.options) : await read(source, progress);
      if (!source.pack && !source.packWith) return Comlink.transfer({ cloud, packed: null }, cloudTransferables(cloud));
      // Packed here, the float SH stays in this worker (gone with it): the page gets 72 B a SH3 splat of it.
      const packed = packScene(cloud, source.packWith);
      const lite: SplatCloud = { ...cloud, sh: new Float32Array(0) };
      return Comlink.transfer({ cloud: lite, packed }, cloudTransferables(lite, packed));
    },
  };
}

export type SceneLoadApi = ReturnType<typeof sceneLoadApi>;
