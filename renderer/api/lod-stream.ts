/**
 * The viewer's side of a streamed LOD scene (renderer/lod): a lod-meta.json
 * opened by URL or among dropped files is streamed under a splat budget
 * instead of loaded whole. Each chunk file (an unbundled SOG) loads in a
 * scene-loader worker of its own (cancel = terminate); each frame the viewer
 * hands the camera to `frame` (frame.ts), which never waits, and adopts the
 * scene it returns when the drawn set changed. Loaded on demand (scene-open.ts
 * imports it when a lod-meta.json opens: a host that never streams does not
 * load it); lod-source.ts says which sources are streamed.
 */
import { checkLodChunk, parseLodMeta, type LodMeta } from '../../scenes/lod-meta';
import type { SplatTransform } from '../../scenes/transform';
import type { FrameCamera } from '../stage/frame-uniforms';
import type { GpuScene } from '../gpu-scene/gpu-scene';
import type { ScenePrecision } from '../gpu-scene/scene-precision';
import { LodScene } from '../lod/lod-scene';
import { lodViewOf } from '../lod/select';
import type { ChunkLoader } from '../lod/streamer';
import { SceneLoader } from './scene-loader';
import { sceneFileUrl, normalizePath } from './scene-files';
import type { LoadSource } from './scene-load-protocol';

export class LodStreamView {

  private constructor(readonly lod: LodScene) {
  }

  get meta(): LodMeta {
    return this.lod.meta;
  }

  /**
   * This frame's LOD work; a new scene for its object when the drawn set changed (the
   * caller takes it: SplatRenderer.setObjectScene). `placed`: the LOD object's transform
   * (the selection sees the camera in its own frame); `others`: splats of the other
   * objects drawn beside it, taken off the budget.
   */
  frame(camera: FrameCamera, placed?: SplatTransform, others = 0): GpuScene | null {
    this.lod.others = others;
    return this.lod.update(lodViewOf(camera, placed));
  }

  /** The splats a frame draws at most: the LOD scene's and the other objects' together. */
  get budget(): number {
    return this.lod.budget;
  }

  set budget(n: number) {
    this.lod.budget = Math.max(1, Math.round(n));
  }

  destroy(): void {
    this.lod.destroy();
  }

  /**
   * Reads the manifest and streams in the set for `camera` (awaiting only the
   * loads, in workers: the page keeps drawing), as the first scene to show.
   *
   * @throws the manifest's typed error (SceneLoadError), or when nothing at all can be drawn
   */
  static async open(
    device: GPUDevice,
    source: LoadSource,
    options: { budget: number; bindingBytes: number; precision?: ScenePrecision; memoryBytes?: number; load?: LoadSource['options']; onError?: (file: string, e: unknown) => void },
    firstCamera: (bound: LodMeta['bound']) => FrameCamera,
  ): Promise<{ view: LodStreamView; first: GpuScene }> {
    const { meta, load } = await openManifest(source, options.load);
    const lod = new LodScene(device, meta, load, {
      budget: options.budget,
      bindingBytes: options.bindingBytes,
      ...(options.precision ? { precision: options.precision } : {}),
      memoryBytes: options.memoryBytes ?? 2 ** 30,
      // Two workers at once: each decodes its WebP textures on its own thread.
      maxInFlight: 2,
      minAssembleMs: 250,
      ...(options.onError ? { onError: options.onError } : {}),
    });
    // First the coarsest level (within the budget): something to show soon, framed on the
    // whole scene; the finer levels stream in while it is drawn.
    lod.budget = Math.min(options.budget, meta.counts[meta.levels - 1]!);
    const first = await lod.settle(lodViewOf(firstCamera(meta.bound)), () => new Promise((r) => setTimeout(r, 16)));
    lod.budget = options.budget;
    if (!first) {
      lod.destroy();
      throw new Error(`${meta.name}: no chunk of it could be loaded for this view`);
    }
    return { view: new LodStreamView(lod), first };
  }
}

/** The manifest's bytes and a loader of its chunks, by URL or from the files dropped with it. */
async function openManifest(source: LoadSource, options: LoadSource['options']): Promise<{ meta: LodMeta; load: ChunkLoader }> {
  if (source.kind === 'url') {
    const url = new URL(source.url, globalThis.location?.href).href;
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText} for ${url}`);
    const meta = parseLodMeta(new Uint8Array(await res.arrayBuffer()), url.split('/').pop() ?? 'lod-meta.json');
    return { meta, load: chunkLoader(meta, (path) => ({ kind: 'url', name: path, url: sceneFileUrl(url, path), ...(options ? { options } : {}) })) };
  }
  if (source.kind !== 'blob') throw new Error('a streamed LOD scene comes from a URL or files');
  const mainPath = normalizePath(source.companions?.mainPath ?? source.name);
  const meta = parseLodMeta(new Uint8Array(await source.blob.arrayBuffer()), mainPath);
  const files = source.companions?.files ?? {};
  const dir = mainPath.slice(0, mainPath.lastIndexOf('/') + 1);
  return {
    meta,
    load: chunkLoader(meta, (path) => {
      const chunkPath = normalizePath(dir + path);
      const blob = files[chunkPath];
      if (!blob) throw new Error(`${meta.name}: '${chunkPath}' is not among the files opened with it (open the whole folder)`);
      return { kind: 'blob', name: chunkPath, blob, companions: { mainPath: chunkPath, files }, ...(options ? { options } : {}) };
    }),
  };
}

/**
 * Each chunk in a worker of its own (SceneLoader: cancel terminates it), packed there
 * under the pool's ranges once it has them, checked against the manifest's ranges.
 */
function chunkLoader(meta: LodMeta, sourceOf: (path: string) => LoadSource): ChunkLoader {
  return async (file, signal, packWith) => {
    const loader = new SceneLoader();
    const stop = () => loader.cancel();
    signal.addEventListener('abort', stop);
    try {
      const chunk = await loader.load({ ...sourceOf(meta.filenames[file]!), ...(packWith ? { packWith } : {}) }, () => {});
      checkLodChunk(meta, file, chunk.cloud);
      return chunk;
    } finally {
      signal.removeEventListener('abort', stop);
    }
  };
}
