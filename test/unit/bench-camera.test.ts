/**
 * `bench:frame --camera`: the fixed pose is parsed from the form, and a bad
 * argument is one error line naming the option, before any scene or GPU work.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cameraFromArg } from '../../bench/cli';
import { formatCameraArg } from '../../renderer/camera/camera';

const root = path.resolve(__dirname, '../..');

describe('bench:frame --camera', () => {
  it('parses eye, target, up and fovy as given in the issue', () => {
    const pose = cameraFromArg('eye=-0.09315,-1.537,-3.348 target=-0.09315,-1.537,0.0246 up=0,-1,0 fovy=60');
    expect(pose.eye).toEqual([-0.09315, -1.537, -3.348]);
    expect(pose.target).toEqual([-0.09315, -1.537, 0.0246]);
    expect(pose.up).toEqual([0, -1, 0]);
    expect(pose.fovyDeg).toBe(60);
    // The row names the pose in the same form, so the figure can be reproduced.
    expect(cameraFromArg(formatCameraArg(pose))).toEqual(pose);
  });

  it('names the option and the problem for a bad argument', () => {
    expect(() => cameraFromArg('eye=0,0,1')).toThrow(/^--camera "eye=0,0,1": camera: missing target/);
    expect(() => cameraFromArg('eye=0,0,1 target=0,0,1')).toThrow(/--camera .*target equals eye/);
    expect(() => cameraFromArg('eye=0,0,1 target=0,0,0 fovy=200')).toThrow(/--camera .*fovy must be between/);
  });

  it('the program exits non-zero with one line before loading the scene', () => {
    const r = spawnSync(process.execPath, ['scripts/run.mjs', 'bench/frame.ts', '--scene', '/nonexistent.ply', '--camera', 'eye=1,2'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).not.toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l && !l.startsWith('Warning:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^--camera "eye=1,2": camera: bad token "eye=1,2"/);
  });
});
