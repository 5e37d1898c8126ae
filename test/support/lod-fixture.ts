import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
 *
 * Made once per source file, splat-transform version and these arguments: kept in
 * the temp dir under a name of their hash, so that the GPU and the e2e tests (and a
 * second run) share it; written under a temporary name and renamed, so that a test
 * that makes it beside another never reads half of it. Tests only read it.
 */
export function makeLodFixture(source: string): LodFixture {
  const stat = fs.statSync(source);
  const version = (JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../node_modules/@playcanvas/splat-transform/package.json'), 'utf8')) as { version: string }).version;
  const key = createHash('sha256').update(JSON.stringify([path.resolve(source), stat.size, stat.mtimeMs, version, ARGS])).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `splat-lod-${key}`);
  const done = path.join(dir, 'info.json');
  // One maker at a time across the test workers (lod.test.ts and lod-objects.test.ts start
  // side by side): the others wait for its files instead of making them again beside it.
  const unlock = fs.existsSync(done) ? null : lockDir(`${dir}.lock`, done);
  try {
    if (!fs.existsSync(done)) make();
  } finally {
    unlock?.();
  }
  const info = JSON.parse(fs.readFileSync(done, 'utf8')) as LodFixture['info'];
  return { dir, meta: path.join(dir, 'lod/lod-meta.json'), full: path.join(dir, 'full.ply'), info };

  function make(): void {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'splat-lod-part-'));
    const run = (...args: string[]) => execFileSync(CLI, ['-q', '-w', ...args], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    run(source, '-d', '25%', 'l1.ply');
    run(source, '-d', '6%', 'l2.ply');
    run(source, '-l', '0', 'l1.ply', '-l', '1', 'l2.ply', '-l', '2', ...ARGS, 'lod/lod-meta.json');
    run('lod/lod-meta.json', '-L', '0', 'full.ply');
    const info = execFileSync(CLI, ['-q', path.join(work, 'lod/lod-meta.json'), '--info', 'json', 'null'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(work, 'info.json'), info);
    try {
      fs.renameSync(work, dir);
    } catch {
      // Made beside us meanwhile: theirs is as good.
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

/**
 * Takes the lock directory `lock` (mkdir is atomic), waiting while another process holds
 * it, unless `done` appears meanwhile (then null: nothing to make). A lock older than 5
 * minutes is a dead maker's and is taken over. Returns its release.
 */
function lockDir(lock: string, done: string): (() => void) | null {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      fs.mkdirSync(lock);
      return () => fs.rmSync(lock, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (fs.existsSync(done)) return null;
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > 300_000) fs.rmSync(lock, { recursive: true, force: true });
    } catch {
      // Released meanwhile.
    }
    Atomics.wait(nap, 0, 0, 200);
  }
}

/** The LOD step's chunking and SH arguments. */
const ARGS = ['--lod-chunk-count', '2', '--lod-chunk-extent', '1', '--lod-chunk-min', '1', '-i', '1', '-g', 'cpu'];

export function haveSplatTransform(): boolean {
  return fs.existsSync(CLI);
}
