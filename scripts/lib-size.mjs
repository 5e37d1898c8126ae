// What a host page loads from dist-lib/ (npm run build:lib) for one entry: the
// entry and every chunk it imports statically, gzipped (level 9) one by one as
// a server would send them. Chunks imported on demand (import()) and workers
// are listed apart: they load only when used (a scene load).
// Usage: node scripts/lib-size.mjs [--doc docs/API.md] [entry.js ...]   (default: index.js element.js)
// --doc FILE: also writes the figures into FILE between the lines
// `<!-- lib-size: start -->` and `<!-- lib-size: end -->` (npm run build:lib does, for
// docs/API.md: the figures there are this script's output, never copied by hand).
// LIB_DIR=DIR measures another build than dist-lib/.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const DIR = process.env.LIB_DIR ? path.resolve(process.env.LIB_DIR) : path.resolve(import.meta.dirname, '../dist-lib');
const gz = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;

function closure(entry) {
  const seen = new Set();
  const lazy = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    const dir = path.dirname(file);
    for (const m of text.matchAll(/(?:^|[;\n}])\s*(?:import|export)\s*(?:[^'"();]*?from\s*)?["'](\.{1,2}\/[^"']+)["']/g)) visit(path.resolve(dir, m[1]));
    for (const m of text.matchAll(/import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)) lazy.add(path.resolve(dir, m[1]));
    for (const m of text.matchAll(/["'](?:\.\/|\/)?(assets\/[^"']+\.js)["']/g)) lazy.add(path.resolve(DIR, m[1]));
  };
  visit(path.resolve(DIR, entry));
  for (const f of seen) lazy.delete(f);
  return { files: [...seen], lazy: [...lazy].filter((f) => fs.existsSync(f)) };
}

const args = process.argv.slice(2);
const docAt = args.indexOf('--doc');
const doc = docAt >= 0 ? args.splice(docAt, 2)[1] : null;
const entries = args.length ? args : ['index.js', 'element.js'];
/** What each on-demand file is, by the start of its name (the rest is Vite's hash). */
const WHAT = [
  [/^assets\/scene-load\.worker-/, 'the scene loader\'s worker: with the first scene file or URL'],
  [/^assets\/cpu-sort\.worker-/, "the `cpu` sort's worker: when that sort is chosen"],
  [/^lod-stream-/, 'streamed LOD (lod-stream.ts, renderer/lod): when a lod-meta.json opens'],
  [/^scene-load-job-/, "the on-thread loader: in Node only (the browser's is the worker)"],
  [/^export-/, 'the writers of Viewer.export (scenes/export.ts: PLY, SPZ): with the first export'],
];
const rows = [];
const lazyAll = new Map();
for (const entry of entries) {
  const { files, lazy } = closure(entry);
  const total = files.reduce((s, f) => s + gz(f), 0);
  console.log(`${entry}: ${kb(total)} gzip in ${files.length} files (${files.map((f) => path.relative(DIR, f)).join(', ')})`);
  rows.push({ entry, total, files: files.length });
  for (const f of lazy) {
    console.log(`  on demand: ${path.relative(DIR, f)} ${kb(gz(f))} gzip`);
    lazyAll.set(path.relative(DIR, f), gz(f));
  }
}

if (doc) {
  const START = '<!-- lib-size: start -->';
  const END = '<!-- lib-size: end -->';
  const text = fs.readFileSync(doc, 'utf8');
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) {
    console.error(`${doc}: no '${START}' ... '${END}' lines to write the sizes between`);
    process.exit(1);
  }
  const lines = [
    START,
    '<!-- Written by `node scripts/lib-size.mjs --doc docs/API.md` (the end of `npm run build:lib`): edit the script, not these lines. -->',
    '',
    '| what a page loads | gzip |',
    '|---|---|',
    ...rows.map((r) => `| \`${r.entry}\` and its static imports (${r.files} files) | ${kb(r.total)} |`),
    ...[...lazyAll].map(([f, n]) => {
      const what = WHAT.find(([re]) => re.test(f))?.[1] ?? 'loaded on demand';
      return `| on demand: ${what} | ${kb(n)} |`;
    }),
    END,
  ];
  fs.writeFileSync(doc, text.slice(0, a) + lines.join('\n') + text.slice(b + END.length));
  console.log(`wrote the sizes into ${doc}`);
}
