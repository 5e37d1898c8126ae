import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const CLI = path.resolve(__dirname, '../../node_modules/.bin/splat-transform');

export interface LodFixture {
  dir: string;
  /** The manifest, DIR/lod/lod-meta.json. */
  meta: string;
  /** Level 0 decoded back by splat-transform (`-L 0`): the full scene as a PLY. */
  full: string;
  /** `splat-transform lod-meta.json --info json`. */
  info: { numGaussians: number; lodCounts: number[]; shBands: number };
}

/**
 * A streamed LOD scene made at test time by splat-transform from `source`
 * (a PLY): levels 1 and 2 decimated to 25% and 6%, small chunks
 * (`--lod-chunk-count 2 --lod-chunk-extent 1 --lod-chunk-min 1`: 2K splats or
 * 1 m a leaf) so a small scene has many leaves and files. One SH iteration, on
 * the CPU: the SH palette's quality does not matter here, its speed does. Never committed.
 */
export function makeLodFixture(source: string): LodFixture {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splat-lod-'));
  const run = (...args: string[]) => execFileSync(CLI, ['-q', '-w', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  run(source, '-d', '25%', 'l1.ply');
  run(source, '-d', '6%', 'l2.ply');
  run(source, '-l', '0', 'l1.ply', '-l', '1', 'l2.ply', '-l', '2', '--lod-chunk-count', '2', '--lod-chunk-extent', '1', '--lod-chunk-min', '1', '-i', '1', '-g', 'cpu', 'lod/lod-meta.json');
  run('lod/lod-meta.json', '-L', '0', 'full.ply');
  const info = JSON.parse(execFileSync(CLI, ['-q', path.join(dir, 'lod/lod-meta.json'), '--info', 'json', 'null'], { encoding: 'utf8' })) as LodFixture['info'];
  return { dir, meta: path.join(dir, 'lod/lod-meta.json'), full: path.join(dir, 'full.ply'), info };
}

export function haveSplatTransform(): boolean {
  return fs.existsSync(CLI);
}
