#!/usr/bin/env node
/**
 * Writes the streamed-LOD benchmark scene: a grid of translated copies of one
 * real scene over about --extent metres (x and z; the PLY frame's y is
 * vertical), at least --splats splats at level 0, and two decimated levels
 * (25% and 6% of the source, decimated once and copied like it), as
 * splat-transform's lod-meta.json and SOG chunk files.
 *
 *   node bench/make-lod-grid.mjs --source ../shared/scenes/biker.compressed.ply --out /tmp/lod-grid
 *        [--splats 30000000] [--extent 200] [--scale 4] [-- extra splat-transform options]
 *
 * Needs only node and the @playcanvas/splat-transform package
 * (node_modules/.bin/splat-transform, or --cli PATH: an executable, or the
 * package's bin/cli.mjs, run with this node); no network. Each step writes a
 * temporary name and renames it when done, and a step whose output exists is
 * skipped: a run cut short (a time limit) goes on where it stopped. Writes
 * OUT/l0.ply (the source as a plain PLY), OUT/l1.ply and OUT/l2.ply (decimated), OUT/grid0..2.ply
 * (each level's grid: about 70 bytes a splat at SH 0, 250 at SH 3; delete them after) and OUT/lod/lod-meta.json
 * with its files; then: npm run bench:frame -- --scene OUT/lod/lod-meta.json --budget 2000000
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: {
    source: { type: 'string' },
    out: { type: 'string' },
    splats: { type: 'string', default: '30000000' },
    extent: { type: 'string', default: '200' },
    scale: { type: 'string', default: '4' },
    cli: { type: 'string', default: path.resolve('node_modules', '.bin', 'splat-transform') },
  },
  allowPositionals: true,
});
if (!values.source || !values.out) {
  console.error('usage: node bench/make-lod-grid.mjs --source SCENE.ply --out DIR [--splats N] [--extent M] [--scale S] [-- splat-transform options]');
  process.exit(2);
}
const target = Number(values.splats), extent = Number(values.extent), scale = Number(values.scale);
if (!(target > 0 && extent > 0 && scale > 0)) throw new Error('--splats, --extent and --scale must be positive numbers');
if (!fs.existsSync(values.cli)) throw new Error(`${values.cli}: no splat-transform (give --cli PATH)`);

/** The vertex count a PLY header declares (plain and compressed PLY both declare it). */
function plyVertexCount(file) {
  const fd = fs.openSync(file, 'r');
  const head = Buffer.alloc(1 << 16);
  const n = fs.readSync(fd, head, 0, head.length, 0);
  fs.closeSync(fd);
  const m = /\nelement vertex (\d+)\r?\n/.exec(head.subarray(0, n).toString('latin1'));
  if (!m) throw new Error(`${file}: no "element vertex N" in its header (a PLY source is needed)`);
  return Number(m[1]);
}

const source = path.resolve(values.source);
const out = path.resolve(values.out);
fs.mkdirSync(out, { recursive: true });
const perCopy = plyVertexCount(source);
const copies = Math.ceil(target / perCopy);
const side = Math.ceil(Math.sqrt(copies));
const rows = Math.ceil(copies / side);
const spacing = extent / Math.max(1, side - 1);
console.log(`${path.basename(source)}: ${perCopy.toLocaleString('en-US')} splats; ${copies} copies (${side} x ${rows}, ${spacing.toFixed(2)} m apart, scaled ${scale}x): ${(copies * perCopy).toLocaleString('en-US')} splats at level 0`);

// A JavaScript CLI (a copy of the package without its bin link) runs under this node.
const cli = path.resolve(values.cli);
const [command, ...lead] = /\.[cm]?js$/.test(cli) ? [process.execPath, cli] : [cli];
/**
 * Runs splat-transform to write `output` (skipped when it exists), through a temporary
 * name renamed when done; `target(part)` is the path the CLI is given (the part itself,
 * or a file inside it when the output is a directory).
 */
const run = (args, output, target = (part) => part) => {
  if (fs.existsSync(output)) {
    console.log(`${path.relative(out, output)}: already written`);
    return;
  }
  const part = partName(output);
  fs.rmSync(part, { recursive: true, force: true });
  const t0 = Date.now();
  execFileSync(command, [...lead, ...args, target(part)], { stdio: 'inherit', cwd: out });
  fs.renameSync(part, output);
  console.log(`  (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
};
/** grid0.ply -> grid0.part.ply (splat-transform picks the format by extension); a directory -> dir.part. */
const partName = (output) => (path.extname(output) ? output.replace(/(\.[a-z]+)$/, '.part$1') : `${output}.part`);
// The source as a plain PLY (splat-transform merges only inputs of one coordinate space:
// a compressed PLY beside plain ones is refused) and its decimated levels, once; the grid copies them.
const l0 = path.join(out, 'l0.ply'), l1 = path.join(out, 'l1.ply'), l2 = path.join(out, 'l2.ply');
run(['-w', source], l0);
run(['-w', l0, '-d', '25%'], l1);
run(['-w', l0, '-d', '6%'], l2);

// Each level's grid merged into one PLY (the LOD writer refuses inputs whose pending
// transforms differ, so the copies' translations are baked here), then the LOD output.
const grids = [l0, l1, l2].map((file, level) => {
  const grid = path.join(out, `grid${level}.ply`);
  const args = ['-w'];
  for (let k = 0; k < copies; k++) {
    const x = (k % side) * spacing - extent / 2;
    const z = Math.floor(k / side) * spacing - ((rows - 1) * spacing) / 2;
    args.push(file, '-s', String(scale), '-t', `${x.toFixed(3)},0,${z.toFixed(3)}`);
  }
  run(args, grid);
  return grid;
});
// The LOD output is a directory (lod-meta.json and its chunk folders): written as lod.part/, renamed whole.
run(['-w', grids[0], '-l', '0', grids[1], '-l', '1', grids[2], '-l', '2', ...positionals], path.join(out, 'lod'), (part) => path.join(part, 'lod-meta.json'));
console.log(`wrote ${path.join(out, 'lod', 'lod-meta.json')}\nnext: npm run bench:frame -- --scene ${path.join(out, 'lod', 'lod-meta.json')} --budget 2000000`);
