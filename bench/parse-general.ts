/**
 * npm run bench:parse-general -- [--count N] [--runs N]
 *
 * Times the two decoders of the general PLY route (scenes/ply-general.ts) on
 * the same deterministic files: @loaders.gl/ply given a canonical header and
 * the vertex rows, and our own reader. Files: an N-point binary
 * little-endian point cloud (x y z float, red green blue uchar: 15 bytes a
 * point), the same as ASCII, and an N/10-splat big-endian SH3 file (248
 * bytes a splat). Both decoders run after the same checks (header, layout,
 * ASCII scan), which are included in each time. Figures back
 * LOADERSGL_MAX_BODY_BYTES (scenes/ply-loadersgl.ts).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { buildPly, floatProps, inriaNames, type FixtureElement } from '../scenes/ply-fixtures';
import { readGeneralVertexRows } from '../scenes/ply-general';
import { parsePlyHeader } from '../scenes/ply-header';

const { values } = parseArgs({ options: { count: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '3' } }, strict: true });
const n = Number(values.count);
const runs = Number(values.runs);
if (!Number.isInteger(n) || n < 10 || !Number.isInteger(runs) || runs < 1) {
  console.error('bench:parse-general: --count must be an integer >= 10 and --runs >= 1');
  process.exit(2);
}

const cpus = os.cpus();
console.log(`machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${os.platform()} ${os.arch()}, node ${process.version}`);
console.log(`date:    ${new Date().toISOString()}`);

const pointProps = [...floatProps(['x', 'y', 'z']), ...['red', 'green', 'blue'].map((name) => ({ name, type: 'uchar' }))];
const points: FixtureElement = {
  name: 'vertex',
  properties: pointProps,
  rows: Array.from({ length: n }, (_, i) => [i * 0.001, Math.sin(i), Math.cos(i), i % 256, (i * 7) % 256, (i * 3) % 256]),
};
const m = Math.max(1, Math.round(n / 10));
const names = inriaNames(3);
const splats: FixtureElement = { name: 'vertex', properties: floatProps(names), rows: Array.from({ length: m }, (_, i) => names.map((_, j) => Math.sin(i + j))) };
const files: [string, Uint8Array][] = [
  [`points, binary LE, ${n}`, buildPly('binary_little_endian', [points])],
  [`points, ASCII, ${n}`, buildPly('ascii', [points])],
  [`SH3 splats, binary BE, ${m}`, buildPly('binary_big_endian', [splats])],
];

for (const [label, bytes] of files) {
  const header = parsePlyHeader(bytes, label);
  const vertex = header.elements[0]!;
  const best: Record<string, number> = {};
  for (let r = 0; r < runs; r++) {
    for (const decoder of ['own', 'loaders.gl'] as const) {
      const t0 = performance.now();
      const out = readGeneralVertexRows(bytes, label, header, vertex, decoder);
      const ms = performance.now() - t0;
      if (out.decoder !== decoder || out.rows.length !== vertex.count * vertex.properties.length) throw new Error(`${label}: ${decoder} gave ${out.rows.length} values`);
      best[decoder] = Math.min(best[decoder] ?? Infinity, ms);
    }
  }
  const mb = bytes.length / 1e6;
  const own = best['own']!, theirs = best['loaders.gl']!;
  console.log(`${label} (${mb.toFixed(1)} MB): own ${own.toFixed(0)} ms (${(mb / own * 1000).toFixed(0)} MB/s), loaders.gl ${theirs.toFixed(0)} ms (${(mb / theirs * 1000).toFixed(1)} MB/s), loaders.gl / own = ${(theirs / own).toFixed(1)}x (best of ${runs})`);
}
