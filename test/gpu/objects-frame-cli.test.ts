/**
 * bench:frame --add / --transform (issue 32): the placed objects reach the timed frames,
 * as a user runs it (scripts/run.mjs in a child process), on tiny generated scenes, two
 * frames at a small size on this adapter (lavapipe).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

describe('bench:frame --add (gpu)', () => {
  it('draws every placed object in each timed frame: the row counts all their splats', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splat-objects-frame-'));
    const json = path.join(dir, 'rows.json');
    const args = ['--scene', 'synthetic:1000', '--add', 'synthetic:500', '--transform', 'translate=3,0,0 scale=0.5', '--size', '64x48', '--frames', '2', '--warmup', '1'];
    const r = spawnSync(process.execPath, ['scripts/run.mjs', 'bench/frame.ts', ...args, '--strategies', 'radix4', '--draw', 'quads,tiles', '--no-coverage', '--json', json], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toContain('objects: 2 in each frame (one sort, one draw), 1500 splats');
    const rows = JSON.parse(fs.readFileSync(json, 'utf8')) as Record<string, any>[];
    expect(rows.map((row) => row.draw ?? 'quads')).toEqual(['quads', 'tiles']);
    for (const row of rows) {
      expect(row.splats).toBe(1500);
      expect(row.frames).toBe(2);
      expect(row.stages.total).toBeGreaterThan(0);
    }
    // The quads row's visible count is read from the GPU's draw arguments: more than the first scene alone.
    expect(rows[0]!.visible).toBeGreaterThan(1000);
    // A --transform needs an --add before it.
    const bad = spawnSync(process.execPath, ['scripts/run.mjs', 'bench/frame.ts', '--scene', 'synthetic:100', '--transform', 'scale=2'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).not.toBe(0);
    expect(`${bad.stdout}${bad.stderr}`).toMatch(/no --add before it/);
  });
});
