/**
 * The scene loader's worker (started by scene-loader.ts, one per load): runs
 * scene-load-job.ts off the page's main thread, exposed with comlink.
 */
import * as Comlink from 'comlink';
import { sceneLoadApi } from './scene-load-job';

Comlink.expose(sceneLoadApi());
