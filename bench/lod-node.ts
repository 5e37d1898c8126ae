/**
 * A streamed LOD scene (lod-meta.json) in the Node programs and tests: the
 * manifest read from disk, its chunk files loaded from beside it, and the set
 * for one view streamed in and assembled (LodScene.settle) for the renderer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadLodFile, looksLikeLodMeta, parseLodMeta, type LodMeta } from '../scenes/lod-meta';
import type { LoadOptions } from '../scenes/load-options';
import type { FrameCamera } from '../renderer/stage/frame-uniforms';
import type { GpuScene } from '../renderer/gpu-scene/gpu-scene';
import { LodScene, type LodSceneOptions } from '../renderer/lod/lod-scene';
import { lodViewOf } from '../renderer/lod/select';
import type { ChunkLoader } from '../renderer/lod/streamer';
import { packScene } from '../renderer/gpu-scene/compact-pack';

/** Whether the file at `file` is a lod-meta.json (by content). */
export function isLodMetaFile(file: string): boolean {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = new Uint8Array(4096);
      const n = fs.readSync(fd, head, 0, head.length, 0);
      return looksLikeLodMeta(head.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** The manifest at `file` and a loader of its chunks from the files beside it. */
export function openLodMeta(file: string, options?: LoadOptions): { meta: LodMeta; load: ChunkLoader } {
  const meta = parseLodMeta(fs.readFileSync(file), path.basename(file));
  const dir = path.dirname(file);
  // Packed here under the pool's ranges once it has them, where the page packs in the loader's worker.
  const load: ChunkLoader = async (f, signal, packWith) => {
    const cloud = await loadLodFile(meta, f, async (p) => {
      signal.throwIfAborted();
      return fs.promises.readFile(path.join(dir, p), { signal });
    }, options);
    if (!packWith) return { cloud, packed: null };
    return { cloud: { ...cloud, sh: new Float32Array(0) }, packed: packScene(cloud, packWith) };
  };
  return { meta, load };
}

/** Streams in and assembles the set the selector chooses for `cam` within `budget` (waits for the loads). */
export async function settledLodScene(
  device: GPUDevice,
  file: string,
  cam: FrameCamera,
  options: Omit<LodSceneOptions, 'onError'> & { load?: LoadOptions },
): Promise<{ lod: LodScene; scene: GpuScene | null; errors: string[] }> {
  const { meta, load } = openLodMeta(file, options.load);
  const errors: string[] = [];
  const lod = new LodScene(device, meta, load, { ...options, onError: (f, e) => errors.push(`${f}: ${e instanceof Error ? e.message : String(e)}`) });
  const scene = await lod.settle(lodViewOf(cam), () => new Promise((r) => setImmediate(r)));
  return { lod, scene, errors };
}
