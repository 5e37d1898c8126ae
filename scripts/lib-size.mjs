// What a host page loads from dist-lib/ (npm run build:lib) for one entry: the
// entry and every chunk it imports statically, gzipped (level 9) one by one as
// a server would send them. Chunks imported on demand (import()) and workers
// are listed apart: they load only when used (a scene load).
// Usage: node scripts/lib-size.mjs [entry.js ...]   (default: index.js element.js)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const DIR = path.resolve(import.meta.dirname, '../dist-lib');
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

const entries = process.argv.slice(2).length ? process.argv.slice(2) : ['index.js', 'element.js'];
for (const entry of entries) {
  const { files, lazy } = closure(entry);
  const total = files.reduce((s, f) => s + gz(f), 0);
  console.log(`${entry}: ${kb(total)} gzip in ${files.length} files (${files.map((f) => path.relative(DIR, f)).join(', ')})`);
  for (const f of lazy) console.log(`  on demand: ${path.relative(DIR, f)} ${kb(gz(f))} gzip`);
}
