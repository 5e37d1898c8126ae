/**
 * npm run info -- FILE [--json]
 *
 * Loads a scene file on the CPU (no GPU needed) and prints its format, splat
 * count, SH degree and bounds: a table for people, or with --json exactly one
 * JSON object on stdout for scripts:
 *   { "format", "count", "shDegree", "bounds": { "min": [x,y,z], "max": [x,y,z] } }
 * A file that cannot be read exits 1 with a one-line reason on stderr; a usage
 * error exits 2.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadScene, SceneLoadError } from '../scenes/load';

const USAGE = 'usage: npm run info -- FILE [--json]';

function fail(code: number, message: string): never {
  console.error(message.replace(/\s*[\r\n]+\s*/g, ' '));
  process.exit(code);
}

let parsed;
try {
  parsed = parseArgs({ options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } }, allowPositionals: true, strict: true });
} catch (e) {
  fail(2, `info: ${e instanceof Error ? e.message : String(e)}; ${USAGE}`);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length !== 1) fail(2, `info: expected one FILE, got ${positionals.length}; ${USAGE}`);
const file = positionals[0]!;

let bytes: Buffer;
try {
  bytes = fs.readFileSync(file);
} catch (e) {
  fail(1, `${file}: cannot read: ${e instanceof Error ? e.message : String(e)}`);
}

try {
  const cloud = await loadScene(bytes, path.basename(file));
  const { format } = cloud.source;
  const { min, max } = cloud.bounds;
  if (values.json) {
    console.log(JSON.stringify({ format, count: cloud.count, shDegree: cloud.shDegree, bounds: { min, max } }));
  } else {
    const f = (v: number): string => v.toPrecision(6).padStart(12);
    console.log(`file       ${file}`);
    console.log(`format     ${format}`);
    console.log(`splats     ${cloud.count.toLocaleString('en-US')}`);
    console.log(`SH degree  ${cloud.shDegree}`);
    console.log(`bounds     ${'x'.padStart(12)} ${'y'.padStart(12)} ${'z'.padStart(12)}`);
    console.log(`  min      ${min.map(f).join(' ')}`);
    console.log(`  max      ${max.map(f).join(' ')}`);
  }
} catch (e) {
  if (e instanceof SceneLoadError) fail(1, e.message);
  throw e;
}
