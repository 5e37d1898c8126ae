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

// Each case spawns node processes: past vitest's 5 s default on a loaded 2-core machine (CI saw 6.9 s).
describe('CLI on bad input', { timeout: 60_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splat-cli-'));
  const notPly = path.join(dir, 'notes.ply');
  fs.writeFileSync(notPly, 'hello, this is not a PLY file\n');

  it('info exits non-zero with one line naming the file and the problem', () => {
    const r = run('bench/info.ts', [notPly]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(/^notes\.ply: unknown-format: /);
  });

  it('render exits non-zero for a missing file, before touching the GPU', () => {
    const r = run('bench/render.ts', ['--scene', path.join(dir, 'absent.ply'), '--out', path.join(dir, 'x.png')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toEqual([`${path.join(dir, 'absent.ply')}: cannot read: ENOENT`]);
  });

  it.runIf(haveSharedScenes())('info --json prints { format, count, shDegree, bounds, sanitized, gpu }', () => {
    const r = run('bench/info.ts', [sharedScene('inria_sh3_tile_111.ply'), '--json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(Object.keys(info).sort()).toEqual(['bounds', 'count', 'format', 'gpu', 'sanitized', 'shDegree']);
    // The resident scene at SH3: 144 B a splat full, 72 compact (issue 17).
    expect(info.gpu).toEqual({
      sceneBytesPerSplat: { full: 144, compact: 72 },
      sceneBytes: { full: 111 * 144, compact: 111 * 72 },
      compactPacking: { dropped: 0, clamped: 0, reasons: {} },
    });
    expect(info.sanitized).toEqual({ dropped: 0, clamped: 0, reasons: {} });
    expect(info).toMatchObject({ format: 'ply', count: 111, shDegree: 3 });
    expect(info.bounds.min).toHaveLength(3);
  });

  it.runIf(haveSharedScenes())('--sh N: info loads with SH degree N at most; a bad N is one line, exit 2 (info) or 1 (render), before any GPU', () => {
    const r = run('bench/info.ts', [sharedScene('inria_sh3_tile_111.ply'), '--json', '--sh', '1']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'ply', count: 111, shDegree: 1 });
    const bad = run('bench/info.ts', [sharedScene('inria_sh3_tile_111.ply'), '--sh', '4']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toEqual(['info: --sh 4: expected an SH degree 0, 1, 2 or 3; usage: npm run info -- FILE [--json] [--sh N]']);
    const render = run('bench/render.ts', ['--scene', sharedScene('inria_sh3_tile_111.ply'), '--out', path.join(dir, 'x.png'), '--sh', 'x']);
    expect(render.code).toBe(1);
    expect(render.stderr).toEqual(['--sh x: expected an SH degree 0, 1, 2 or 3']);
  });

  it('info prints a line for .splat, .spz and a scene with dropped splats (and --json fields for them)', async () => {
    const { generateSynthetic } = await import('../../scenes/generate');
    const { writeSplatFile } = await import('../../scenes/write-splat');
    const { writeSpz } = await import('../../scenes/write-spz');
    const { writeSplatPly } = await import('../../scenes/write-ply');
    const c = generateSynthetic(64);
    const files: [string, Uint8Array, string][] = [
      ['a.splat', writeSplatFile(c), 'splat'],
      ['b.spz', writeSpz(c, { version: 2 }), 'spz-v2'],
      ['c.spz', writeSpz(c, { version: 4 }), 'spz-v4'],
    ];
    const nan = c.positions.slice();
    nan[0] = NaN;
    files.push(['d.ply', writeSplatPly({ ...c, positions: nan }), 'ply']);
    for (const [name, bytes, format] of files) {
      const f = path.join(dir, name);
      fs.writeFileSync(f, bytes);
      const text = run('bench/info.ts', [f]);
      expect(text.code, text.stderr.join('\n')).toBe(0);
      expect(text.stdout).toContain(`format     ${format}\n`);
      const json = JSON.parse(run('bench/info.ts', [f, '--json']).stdout);
      expect(json.format).toBe(format);
      if (name === 'd.ply') {
        expect(json.count).toBe(63);
        expect(json.sanitized).toEqual({ dropped: 1, clamped: 0, reasons: { 'non-finite position': 1 } });
        expect(text.stdout).toContain('sanitized  1 dropped, 0 clamped (non-finite position: 1)');
      }
    }
  }, 120_000);
});
