import fs from 'node:fs';
import path from 'node:path';
import { loadSceneStream } from '../scenes/stream';
import { generateDefaultScene, generateSynthetic } from '../scenes/generate';
import { parseShDegree, withShDegree } from '../scenes/load-options';
import type { ShDegree, SplatCloud } from '../scenes/splat-cloud';
import { parseCameraArg, type CameraPose } from '../renderer/camera/camera';
import { parseDrawShape, type DrawShape } from '../renderer/draw/quads/quads-draw';

/** Shared command-line helpers of the headless programs. */

/**
 * The `--scene` argument of the headless programs: a scene file path, `default`
 * (the built-in generated scene), `default:N` or `synthetic:N` (generated, N splats).
 * A file is streamed from disk (scenes/stream.ts): a binary splat PLY, a .splat or
 * a gzip .spz never sits whole in memory next to its arrays. `maxShDegree` (`--sh N`) drops the higher SH
 * bands while parsing; a generated scene is cut to it after generation.
 */
export async function sceneFromArg(arg: string, options: { maxShDegree?: ShDegree } = {}): Promise<SplatCloud> {
  const m = /^(default|synthetic)(?::(\d+))?$/.exec(arg);
  if (m) {
    const n = m[2] ? Number(m[2]) : undefined;
    if (m[1] === 'default') return withShDegree(generateDefaultScene(n), options);
    if (n === undefined) throw new Error(`--scene ${arg}: synthetic needs a count, e.g. synthetic:1000000`);
    return withShDegree(generateSynthetic(n), options);
  }
  let size: number;
  try {
    size = fs.statSync(arg).size;
  } catch (err) {
    throw new Error(`${arg}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  // The files a meta.json, .gltf or lod-meta.json names are read from beside it.
  const getFile = async (name: string): Promise<Uint8Array> => fs.promises.readFile(path.join(path.dirname(arg), name));
  return loadSceneStream(path.basename(arg), fs.createReadStream(arg, { highWaterMark: 1 << 20 }), { totalBytes: size, getFile, ...options });
}

/** `--sh N`: the SH degree to load with (0..3), or undefined when not given. */
export function shArg(value: string | undefined): ShDegree | undefined {
  return value === undefined ? undefined : parseShDegree(value, '--sh');
}

/** Runs a CLI main: any error becomes one line on stderr and exit code 1. */
export function runCli(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}

/** `--size WxH`. */
export function parseSize(s: string): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(s);
  if (!m || +m[1] < 1 || +m[2] < 1 || +m[1] > 8192 || +m[2] > 8192) throw new Error(`--size ${s}: expected WxH, e.g. 1280x720`);
  return { width: +m[1], height: +m[2] };
}

/** `--background R,G,B` in 0..1. */
export function parseRgb(s: string): [number, number, number] {
  const v = s.split(',').map(Number);
  if (v.length !== 3 || v.some((x) => !Number.isFinite(x) || x < 0 || x > 1)) throw new Error(`--background ${s}: expected R,G,B in 0..1`);
  return [v[0], v[1], v[2]];
}

/** A comma-separated list of numbers >= 0 (e.g. `--min-contribution 0,0.75,3`); errors name the option. */
export function nonNegativeList(flag: string, s: string): number[] {
  return s.split(',').map((x) => {
    const v = Number(x.trim());
    if (!(v >= 0 && Number.isFinite(v))) throw new Error(`${flag} ${s}: expected numbers >= 0, comma-separated`);
    return v;
  });
}

/**
 * `--camera "eye=X,Y,Z target=X,Y,Z [up=X,Y,Z] [fovy=DEG]"`: a fixed pose (parseCameraArg),
 * with the option named in the error.
 */
export function cameraFromArg(s: string): CameraPose {
  try {
    return parseCameraArg(s);
  } catch (err) {
    throw new Error(`--camera ${JSON.stringify(s)}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `--geometry LIST` (comma-separated draw shapes) with `--cut` applied to each; errors name the option. */
export function drawShapesFromArg(list: string, cut: boolean): DrawShape[] {
  const items = list.split(',').filter((x) => x.trim() !== '');
  if (!items.length) throw new Error(`--geometry ${JSON.stringify(list)}: no draw shape given`);
  try {
    return items.map((x) => parseDrawShape(x, cut));
  } catch (err) {
    throw new Error(`--geometry: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `--budget N`: a splat budget, a whole number >= 1 (1,000,000 and 1e6 read too). */
export function budgetArg(value: string): number {
  const n = Number(value.replace(/[,_]/g, ''));
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`--budget ${value}: expected a whole number of splats >= 1`);
  return n;
}
