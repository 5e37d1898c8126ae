/**
 * npm run bench:parse -- [--count N] [--sh D] [--runs N] [--loadersgl N] [--keep]
 *
 * Times the binary splat PLY fast path on a deterministic synthetic INRIA-layout
 * file (default 1M splats, SH degree 3, 62 float properties = 248 bytes a
 * splat) written to the OS temp directory. The file is read once; each run
 * parses the in-memory bytes (what the browser does with a dropped file).
 * Runs: the aligned body (zero-copy Float32Array view), the same bytes at
 * an odd address (one copy first), and loadSceneStream reading the file in
 * 1 MiB chunks (file reads included). With --loadersgl N it first times
 * @loaders.gl/ply alone on an N-splat file of the same layout, for comparison
 * (it is far slower, and the process's peak memory is sampled around it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadScene } from '../scenes/load';
import { loadSceneStream } from '../scenes/stream';
import { writeSplatPly } from '../scenes/write-ply';
import { computeBounds, shCoeffCount, type ShDegree, type SplatCloud } from '../scenes/splat-cloud';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    sh: { type: 'string', default: '3' },
    runs: { type: 'string', default: '7' },
    loadersgl: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});

function intArg(name: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`bench:parse: --${name} must be an integer in [${min}, ${max}], got "${value}"`);
    process.exit(2);
  }
  return n;
}

const count = intArg('count', values.count, 1);
const shDegree = intArg('sh', values.sh, 0, 3) as ShDegree;
const runs = intArg('runs', values.runs, 5);
const loadersGlCount = values.loadersgl === undefined ? 0 : intArg('loadersgl', values.loadersgl, 1);

/** A deterministic pseudo-random cloud (xorshift32), so every run times the same bytes. */
function syntheticCloud(n: number, degree: ShDegree): SplatCloud {
  let state = 0x9e3779b9;
  const rand = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const K3 = shCoeffCount(degree) * 3;
  const positions = new Float32Array(n * 3);
  const scales = new Float32Array(n * 3);
  const rotations = new Float32Array(n * 4);
  const opacities = new Float32Array(n);
  const sh = new Float32Array(n * K3);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      positions[i * 3 + a] = (rand() - 0.5) * 20;
      scales[i * 3 + a] = 0.001 + rand() * 0.05;
    }
    let len = 0;
    for (let a = 0; a < 4; a++) {
      const q = rand() * 2 - 1;
      rotations[i * 4 + a] = q;
      len += q * q;
    }
    const inv = 1 / Math.sqrt(len || 1);
    for (let a = 0; a < 4; a++) rotations[i * 4 + a]! *= inv;
    opacities[i] = 0.01 + rand() * 0.98;
    for (let j = 0; j < K3; j++) sh[i * K3 + j] = (rand() - 0.5) * (j < 3 ? 2 : 0.2);
  }
  return { count: n, shDegree: degree, positions, scales, rotations, opacities, sh, bounds: computeBounds(positions), source: { name: 'synthetic', format: 'synthetic' } };
}

function writeTemp(n: number, degree: ShDegree): string {
  const file = path.join(os.tmpdir(), `splatview-bench-${n}-sh${degree}.ply`);
  fs.writeFileSync(file, writeSplatPly(syntheticCloud(n, degree)));
  return file;
}

function stats(ms: number[]): { median: number; min: number } {
  const s = [...ms].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { median: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, min: s[0]! };
}

const cpus = os.cpus();
console.log(`machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.arch()}, node ${process.version}`);
console.log(`date:    ${new Date().toISOString()}`);

const temps: string[] = [];

if (loadersGlCount > 0) {
  // Before anything big is allocated, so the peak-RSS growth is loaders.gl's.
  const file = writeTemp(loadersGlCount, shDegree);
  temps.push(file);
  const bytes = fs.readFileSync(file);
  const whole = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const { PLYLoader } = await import('@loaders.gl/ply');
  const rssBefore = process.resourceUsage().maxRSS * 1024;
  const t0 = performance.now();
  const mesh = await PLYLoader.parse(whole, {});
  const ms = performance.now() - t0;
  const rssPeak = process.resourceUsage().maxRSS * 1024;
  const vertices = mesh.header?.vertexCount ?? 0;
  const perMillion = (ms / loadersGlCount) * 1e6;
  console.log(
    `@loaders.gl/ply: ${loadersGlCount} splats (SH${shDegree}, ${(bytes.length / 1e6).toFixed(1)} MB): ${ms.toFixed(0)} ms ` +
      `(${(bytes.length / 1e6 / (ms / 1000)).toFixed(1)} MB/s, ${vertices} vertices), peak RSS grew ${(Math.max(0, rssPeak - rssBefore) / 2 ** 20).toFixed(0)} MiB; ` +
      `linear extrapolation to 1M splats: ${(perMillion / 1000).toFixed(1)} s`,
  );
}

const file = writeTemp(count, shDegree);
temps.push(file);
const bytes = fs.readFileSync(file);
const mb = bytes.length / 1e6;
console.log(`file:    ${file} (${count} splats, SH${shDegree}, ${mb.toFixed(1)} MB)`);

// The same bytes starting at an odd address, so the body is not 4-aligned.
const shifted = new Uint8Array(bytes.length + 1);
shifted.set(bytes, 1);
const unaligned = shifted.subarray(1);

const rows: { name: string; median: number; min: number }[] = [];
for (const [label, input] of [['aligned (zero-copy view)', bytes], ['unaligned (one copy)', unaligned]] as const) {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const cloud = await loadScene(input, path.basename(file));
    times.push(performance.now() - t0);
    if (cloud.count !== count) throw new Error(`parsed ${cloud.count} splats, expected ${count}`);
  }
  rows.push({ name: label, ...stats(times) });
}

{
  // The streaming path as `npm run info` and the worker use it: 1 MiB chunks from the file.
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const cloud = await loadSceneStream(path.basename(file), fs.createReadStream(file, { highWaterMark: 1 << 20 }), { totalBytes: bytes.length });
    times.push(performance.now() - t0);
    if (cloud.count !== count) throw new Error(`streamed ${cloud.count} splats, expected ${count}`);
  }
  rows.push({ name: 'stream (1 MiB file chunks)', ...stats(times) });
}

console.log(`\n${'path'.padEnd(26)} ${'median ms'.padStart(10)} ${'min ms'.padStart(8)} ${'MB/s'.padStart(8)}  (${runs} runs each)`);
for (const r of rows) {
  console.log(`${r.name.padEnd(26)} ${r.median.toFixed(1).padStart(10)} ${r.min.toFixed(1).padStart(8)} ${(mb / (r.median / 1000)).toFixed(0).padStart(8)}`);
}

if (!values.keep) for (const t of temps) fs.rmSync(t, { force: true });
