/**
 * The headless programs on bad input: a non-zero exit and one line naming the
 * problem. And `info --json` prints exactly one object of the documented shape.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { haveSharedScenes, sharedScene } from '../support/shared-scenes';

const root = path.resolve(__dirname, '../..');
function run(entry: string, args: string[]) {
  const r = spawnSync(process.execPath, ['scripts/run.mjs', entry, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.split('\n').filter((l) => l && !l.startsWith('Warning:')) };
}

describe('CLI on bad input', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splat-cli-'));
  const notPly = path.join(dir, 'notes.ply');
  fs.writeFileSync(notPly, 'hello, this is not a PLY file\n');

  it('info exits non-zero with one line naming the file and the problem', () => {
    const r = run('bench/info.ts', [notPly]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(/^notes\.ply: not-ply/);
  });

  it('render exits non-zero for a missing file, before touching the GPU', () => {
    const r = run('bench/render.ts', ['--scene', path.join(dir, 'absent.ply'), '--out', path.join(dir, 'x.png')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toEqual([`${path.join(dir, 'absent.ply')}: cannot read: ENOENT`]);
  });

  it.runIf(haveSharedScenes())('info --json prints { format, count, shDegree, bounds }', () => {
    const r = run('bench/info.ts', [sharedScene('inria_sh3_tile_111.ply'), '--json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(Object.keys(info).sort()).toEqual(['bounds', 'count', 'format', 'shDegree']);
    expect(info).toMatchObject({ format: 'ply', count: 111, shDegree: 3 });
    expect(info.bounds.min).toHaveLength(3);
  });
});
