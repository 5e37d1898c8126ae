/**
 * The scene loader's worker (started by scene-loader.ts, one per load): runs scene-load-job.ts off the page's main
 * thread, exposed with comlink. SOG's WebP textures decode with the browser's
 * own decoder here (browser-webp.ts says why), not the wasm default.
 */
import * as Comlink from 'comlink';
import { setWebpDecoder } from '../../scenes/webp';
import { browserWebpDecoder } from './browser-webp';
import { sceneLoadApi } from './scene-load-job';

setWebpDecoder(browserWebpDecoder());
Comlink.expose(sceneLoadApi());
