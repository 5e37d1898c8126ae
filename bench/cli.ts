import fs from 'node:fs';
import path from 'node:path';
import { loadSceneStream } from '../scenes/stream';
import { generateDefaultScene, generateSynthetic } from '../scenes/generate';
import { parseShDegree, withShDegree } from '../scenes/load-options';
import { nodeSceneFileGetter } from '../scenes/references-node';
import type { ShDegree, SplatCloud } from '../scenes/splat-cloud';
import { IDENTITY_TRANSFORM, parseTransform, type SplatTransform } from '../scenes/transform';
import { parseCameraArg, type CameraPose } from '../renderer/camera/camera';
import { orbitPath, parseCameraPathJson, type CameraPath } from '../renderer/camera/camera-path';
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
  // The files a meta.json, .gltf or lod-meta.json names: from its folder only, regular files only (issue 33).
  const getFile = nodeSceneFileGetter(arg, options);
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

/** `--path`: a path file read and validated, or the orbit preset (resolved once the scene's framing is known). */
export type PathArg = { kind: 'file'; name: string; path: CameraPath } | { kind: 'orbit'; name: string; seconds: number };

/**
 * `--path FILE|orbit[:SECONDS]`: a camera path file (docs/PATHS.md), read and validated
 * here, before any scene or GPU work; or `orbit:SECONDS` (default 8), the orbit preset
 * around the program's default view. Errors are one line naming the option and the file,
 * then the keyframe and field (`--path walk.json: path: keyframes[2].time: ...`).
 */
export function pathArg(value: string): PathArg {
  const orbit = /^orbit(?::(.*))?$/.exec(value);
  if (orbit) {
    const seconds = orbit[1] === undefined ? 8 : Number(orbit[1]);
    if (!(seconds > 0 && Number.isFinite(seconds))) throw new Error(`--path ${value}: expected orbit:SECONDS with SECONDS > 0`);
    return { kind: 'orbit', name: `orbit ${seconds} s`, seconds };
  }
  let text: string;
  try {
    text = fs.readFileSync(value, 'utf8');
  } catch (err) {
    throw new Error(`--path ${value}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return { kind: 'file', name: path.basename(value), path: parseCameraPathJson(text) };
  } catch (err) {
    throw new Error(`--path ${value}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The camera path of a `--path` argument; `framing` (the program's default view) is what the orbit goes round. */
export function resolvePathArg(arg: PathArg, framing: CameraPose): CameraPath {
  return arg.kind === 'file' ? arg.path : orbitPath(framing, arg.seconds);
}

/** `--fps N`: frames a second along a path, a number > 0 (at most 1000). */
export function fpsArg(value: string): number {
  const fps = Number(value);
  if (!(fps > 0 && fps <= 1000)) throw new Error(`--fps ${value}: expected frames a second, a number > 0 (at most 1000)`);
  return fps;
}

/** One `--add FILE` of `npm run render`, placed by the `--transform` after it (the identity without one). */
export interface PlacedAdd {
  scene: string;
  transform: SplatTransform;
}

/**
 * `--add FILE [--transform "translate=X,Y,Z rotate=W,X,Y,Z scale=S"]`, repeated: the objects
 * placed beside `--scene` (issue 32), in the order given, each `--transform` placing the
 * `--add` before it (scenes/transform.ts parseTransform; also `matrix=` 16 numbers,
 * column-major). From parseArgs' tokens (`tokens: true`): the pairing is by position.
 * @throws Error for a --transform with no --add before it, or two for one --add
 */
export function placedAddsArg(tokens: readonly { kind: string; name?: string; value?: string | undefined }[]): PlacedAdd[] {
  const adds: (PlacedAdd & { placed: boolean })[] = [];
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    if (t.name === 'add') adds.push({ scene: t.value ?? '', transform: IDENTITY_TRANSFORM, placed: false });
    else if (t.name === 'transform') {
      const last = adds[adds.length - 1];
      if (!last) throw new Error(`--transform ${t.value}: no --add before it (each --transform places the --add before it; --scene stays at the identity)`);
      if (last.placed) throw new Error(`--transform ${t.value}: a second --transform for --add ${last.scene}`);
      try {
        last.transform = parseTransform(t.value ?? '');
      } catch (err) {
        throw new Error(`--transform ${t.value}: ${err instanceof Error ? err.message : String(err)}`);
      }
      last.placed = true;
    }
  }
  return adds.map(({ scene, transform }) => ({ scene, transform }));
}

/** The box round several boxes (the objects of `--scene` and its `--add`s, as placed). */
export { unionBounds } from '../scenes/splat-cloud';
