#!/usr/bin/env node
// Runs a TypeScript entry of bench/ in Node: bundles it with esbuild the way Vite
// and gpu-kit see it (`import x from './k.wgsl?raw'` becomes a string), then imports
// the bundle. Usage: node scripts/run.mjs bench/render.ts [args...]
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) { console.error('usage: node scripts/run.mjs ENTRY.ts [args...]'); process.exit(2); }

const raw = {
  name: 'raw',
  setup(b) {
    b.onResolve({ filter: /\?raw$/ }, (a) => ({ path: path.resolve(a.resolveDir, a.path.replace(/\?raw$/, '')), namespace: 'raw' }));
    b.onLoad({ filter: /.*/, namespace: 'raw' }, (a) => ({ contents: fs.readFileSync(a.path, 'utf8'), loader: 'text' }));
  },
};
const outDir = path.resolve('node_modules/.cache/splat-run');
const outfile = path.join(outDir, path.basename(entry).replace(/\.[cm]?[jt]s$/, '') + '.mjs');
await esbuild.build({
  entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node20',
  outfile, packages: 'external', plugins: [raw], logLevel: 'warning', sourcemap: 'inline',
});
process.argv = [process.argv[0], path.resolve(entry), ...rest];
await import(pathToFileURL(outfile).href);
