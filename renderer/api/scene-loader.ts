/**
 * Loads scenes in a Web Worker so that the page keeps drawing the scene on
 * screen: the worker (scene-load.worker.ts running scene-load-job.ts) reads the bytes as they arrive,
 * parses them and transfers the typed arrays back; progress comes in bytes
 * and splats. Each load has its own worker, terminated when the load ends:
 * cancelling is terminating, which stops the read and frees whatever the
 * worker had decoded at once, and a finished load leaves nothing behind.
 */
import * as Comlink from 'comlink';
import { reviveLoadError, type LoadedScene, type LoadProgress, type LoadSource } from './scene-load-protocol';
import type { SceneLoadApi } from './scene-load-job';

export type { LoadProgress, LoadSource } from './scene-load-protocol';

/** The load was cancelled (by the user, or by a newer load): not a problem of the file. */
export class SceneLoadCancelled extends Error {
  override name = 'SceneLoadCancelled';
  constructor(readonly sceneName: string) {
    super(`${sceneName}: loading cancelled`);
  }
}

interface InFlight {
  name: string;
  worker: { terminate(): void };
  fail: (e: unknown) => void;
}

export class SceneLoader {
  private current: InFlight | null = null;

  /**
   * Loads one scene; a load already in flight is cancelled first.
   *
   * @returns the cloud (and, with `source.pack`, the packed scene), their arrays transferred from the worker
   * @throws the loader's typed error (as an Error with its name and one-line
   *   message), SceneLoadCancelled when cancelled, or an Error when the
   *   worker itself fails to start
   */
  async load(source: LoadSource, onProgress: (p: LoadProgress) => void): Promise<LoadedScene> {
    this.cancel();
    if (typeof Worker === 'undefined') return this.loadHere(source, onProgress);
    const worker = new Worker(new URL('./scene-load.worker.ts', import.meta.url), { type: 'module', name: 'scene-load' });
    const api = Comlink.wrap<SceneLoadApi>(worker);
    let fail!: (e: unknown) => void;
    // Settles only by cancel() or a worker that dies: comlink's promise would wait forever then.
    const stopped = new Promise<never>((_, reject) => (fail = reject));
    const flight: InFlight = { name: source.name, worker, fail };
    this.current = flight;
    worker.addEventListener('error', (e) => {
      e.preventDefault();
      fail(new Error(`${source.name}: the scene loader's worker failed: ${e.message || 'it could not start'}`));
    });
    // Progress comes on a channel of its own (closed when the load ends), not through a comlink proxy,
    // which would keep a listener alive after the worker is gone.
    const progress = new MessageChannel();
    progress.port1.onmessage = (e: MessageEvent<LoadProgress>) => {
      if (this.current === flight) onProgress(e.data);
    };
    try {
      return await Promise.race([api.load(source, Comlink.transfer(progress.port2, [progress.port2])), stopped]);
    } catch (e) {
      // Comlink brings an error's name and message only: the loader's typed error again (reviveLoadError).
      throw reviveLoadError(e);
    } finally {
      worker.terminate();
      progress.port1.close();
      if (this.current === flight) this.current = null;
    }
  }

  /**
   * Where there are no workers (Node): the same job on this thread. A cancel
   * rejects the load at once; the parse it started runs on to its end, unused.
   */
  private async loadHere(source: LoadSource, onProgress: (p: LoadProgress) => void): Promise<LoadedScene> {
    let fail!: (e: unknown) => void;
    const stopped = new Promise<never>((_, reject) => (fail = reject));
    const flight: InFlight = { name: source.name, worker: { terminate: () => undefined }, fail };
    this.current = flight;
    const progress = { postMessage: (p: LoadProgress) => this.current === flight && onProgress(p) };
    try {
      // Imported here only: the parsers stay out of the page's bundle (the worker has them).
      const { sceneLoadApi } = await import('./scene-load-job');
      return await Promise.race([sceneLoadApi().load(source, progress), stopped]);
    } finally {
      if (this.current === flight) this.current = null;
    }
  }

  /** Stops the load in flight, if any: its promise rejects with SceneLoadCancelled. */
  cancel(): void {
    this.stop((name) => new SceneLoadCancelled(name));
  }

  /** Stops the load in flight, if any: its promise rejects with `reason(its name)`. */
  stop(reason: (name: string) => unknown): void {
    const flight = this.current;
    if (!flight) return;
    this.current = null;
    flight.worker.terminate();
    flight.fail(reason(flight.name));
  }
}
