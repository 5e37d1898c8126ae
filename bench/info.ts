/**
 * npm run info -- FILE [--json] [--sh N] [--memory-budget BYTES]
 *
 * Loads a scene file on the CPU (no GPU needed) and prints its format, splat
 * count, SH degree, bounds and what the loader dropped or clamped: a table
 * for people, or with --json exactly one JSON object on stdout for scripts:
 *   { "format", "count", "shDegree", "bounds": { "min": [x,y,z], "max": [x,y,z] },
 *     "sanitized": { "dropped", "clamped", "reasons": { REASON: splats } },
 *     "gpu": { "sceneBytesPerSplat": { "full", "compact" }, "sceneBytes": { "full", "compact" },
 *              "compactPacking": { "dropped", "clamped", "reasons" } } }
 * gpu: what the renderer keeps resident for the scene (its centres, covariances and
 * SH buffers; renderer/gpu-scene/scene-precision.ts) at each precision, and what
 * packing it compact (the default) clamps (e.g. scales under its log-scale range).
 * The file is read as a stream (scenes/stream.ts), so a binary splat PLY
 * never sits whole in memory next to its arrays. --sh N loads with SH degree N
 * at most (the higher bands dropped while parsing; `shDegree` is then the kept one).
 * --memory-budget BYTES (e.g. 600MB, 4GB): the most memory the load may need
 * (LoadOptions.memoryBudget, default 4 GB); a file that needs more is refused.
 * The files a meta.json, .gltf or lod-meta.json names are read from its folder
 * only, regular files only (scenes/references-node.ts).
 * Every failure prints exactly one line on stderr: a file problem (a
 * SceneLoadError) exits 1, any other error exits 3 ("internal error"), a
 * usage error exits 2. Nothing but the JSON reaches stdout with --json:
 * console output of libraries is sent to stderr while loading.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SceneLoadError } from '../scenes/errors';
import { compactDecodeOf, packCompact, PackTally } from '../renderer/gpu-scene/compact-pack';
import { PRECISIONS, sceneBytesPerSplat, sceneLayout, type ScenePrecision } from '../renderer/gpu-scene/scene-precision';
import { describeSanitized } from '../scenes/sanitize';
import type { SanitizeReport, SplatCloud } from '../scenes/splat-cloud';
import { loadSceneStream } from '../scenes/stream';
import { parseBytes, parseShDegree } from '../scenes/load-options';
import { nodeSceneFileGetter } from '../scenes/references-node';
import type { ShDegree } from '../scenes/splat-cloud';

// --memory-budget is left out of the one-line usage (test/unit/cli.test.ts pins it); the module comment documents it.
const USAGE = 'usage: npm run info -- FILE [--json] [--sh N]';

function fail(code: number, message: string): never {
  process.stderr.write(`${message.replace(/\s*[\r\n]+\s*/g, ' ')}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ options: { json: { type: 'boolean', default: false }, sh: { type: 'string' }, 'memory-budget': { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } }, allowPositionals: true, strict: true });
  } catch (e) {
    fail(2, `info: ${e instanceof Error ? e.message : String(e)}; ${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length !== 1) fail(2, `info: expected one FILE, got ${positionals.length}; ${USAGE}`);
  const file = positionals[0]!;
  let maxShDegree: ShDegree | undefined;
  let memoryBudget: number | undefined;
  try {
    maxShDegree = values.sh === undefined ? undefined : parseShDegree(values.sh, '--sh');
    memoryBudget = values['memory-budget'] === undefined ? undefined : parseBytes(values['memory-budget'], '--memory-budget');
  } catch (e) {
    fail(2, `info: ${e instanceof Error ? e.message : String(e)}; ${USAGE}`);
  }

  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (e) {
    fail(1, `${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  // Libraries' console output must not mix into stdout (the JSON): send it to stderr while loading.
  const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn };
  const toStderr = (...args: unknown[]): void => void process.stderr.write(`${args.map(String).join(' ').replace(/[\r\n]+/g, ' ')}\n`);
  Object.assign(console, { log: toStderr, info: toStderr, debug: toStderr, warn: toStderr });
  let cloud;
  try {
    // The files a meta.json, .gltf or lod-meta.json names: from its folder only, regular files only.
    const load = { ...(maxShDegree === undefined ? {} : { maxShDegree }), ...(memoryBudget === undefined ? {} : { memoryBudget }) };
    const getFile = nodeSceneFileGetter(file, load);
    cloud = await loadSceneStream(path.basename(file), fs.createReadStream(file, { highWaterMark: 1 << 20 }), { totalBytes: size, getFile, ...load });
  } finally {
    Object.assign(console, saved);
  }
  const { format } = cloud.source;
  const { min, max } = cloud.bounds;
  const sanitized = cloud.sanitized ?? { dropped: 0, clamped: 0, reasons: {} };
  const gpu = gpuFigures(cloud);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ format, count: cloud.count, shDegree: cloud.shDegree, bounds: { min, max }, sanitized, gpu })}\n`);
  } else {
    const f = (v: number): string => v.toPrecision(6).padStart(12);
    const lines = [
      `file       ${file}`,
      `format     ${format}`,
      `splats     ${cloud.count.toLocaleString('en-US')}`,
      `SH degree  ${cloud.shDegree}`,
      `bounds     ${'x'.padStart(12)} ${'y'.padStart(12)} ${'z'.padStart(12)}`,
      `  min      ${min.map(f).join(' ')}`,
      `  max      ${max.map(f).join(' ')}`,
      `sanitized  ${describeSanitized(sanitized)}`,
      `GPU scene  ${PRECISIONS.map((p) => `${p} ${gpu.sceneBytesPerSplat[p]} B a splat (${(gpu.sceneBytes[p] / 1e6).toFixed(1)} MB)`).join(', ')}`,
      `compact    ${describeSanitized(gpu.compactPacking)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

/** The resident scene's bytes by precision, and what the compact packing clamps (packed in slices, as the upload). */
function gpuFigures(cloud: SplatCloud): { sceneBytesPerSplat: Record<ScenePrecision, number>; sceneBytes: Record<ScenePrecision, number>; compactPacking: SanitizeReport } {
  const per = (p: ScenePrecision) => sceneBytesPerSplat(cloud.shDegree, p);
  const d = compactDecodeOf(cloud);
  const stride = sceneLayout(cloud.shDegree, 'compact').shStride;
  const tally = new PackTally();
  const SLICE = 1 << 16;
  for (let first = 0; first < cloud.count; first += SLICE) packCompact(cloud, d, stride, first, Math.min(cloud.count, first + SLICE), undefined, tally);
  return {
    sceneBytesPerSplat: { full: per('full'), compact: per('compact') },
    sceneBytes: { full: per('full') * cloud.count, compact: per('compact') * cloud.count },
    compactPacking: tally.report(),
  };
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    if (e instanceof SceneLoadError) fail(1, e.message);
    fail(3, `info: internal error: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  },
);
