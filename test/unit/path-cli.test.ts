/**
 * `--path` of bench:frame and render on bad input: one line naming the option, the file,
 * the keyframe and the field, a non-zero exit, before the scene is loaded or the GPU
 * touched (the scene named here does not exist: an error about it would mean the path
 * was checked too late).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fpsArg, pathArg } from '../../bench/cli';

const root = path.resolve(__dirname, '../..');
function run(entry: string, args: string[]) {
  const r = spawnSync(process.execPath, ['scripts/run.mjs', entry, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stderr: r.stderr.split('\n').filter((l) => l && !l.startsWith('Warning:')) };
}

describe('--path on bad input', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splat-path-cli-'));
  const bad = path.join(dir, 'bad.json');
  fs.writeFileSync(
    bad,
    JSON.stringify({
      keyframes: [
        { time: 0, eye: [0, 0, -5], target: [0, 0, 0] },
        { time: 2, eye: [1, 0, -5], target: [0, 0, 0] },
        { time: 2, eye: [2, 0, -5], target: [0, 0, 0] },
      ],
    }),
  );
  const good = path.join(dir, 'good.json');
  fs.writeFileSync(good, JSON.stringify({ keyframes: [{ time: 0, eye: [0, 0, -5], target: [0, 0, 0] }, { time: 1, eye: [1, 0, -5], target: [0, 0, 0] }] }));
  const absentScene = path.join(dir, 'absent.ply');
  const timesError = `--path ${bad}: path: keyframes[2].time: 2 is not after keyframes[1].time 2 (times must increase strictly)`;

  it('pathArg and fpsArg: the file, then keyframe and field; orbit:SECONDS', () => {
    expect(() => pathArg(bad)).toThrow(timesError);
    expect(() => pathArg(path.join(dir, 'none.json'))).toThrow(`--path ${path.join(dir, 'none.json')}: cannot read: ENOENT`);
    expect(pathArg('orbit:6')).toEqual({ kind: 'orbit', name: 'orbit 6 s', seconds: 6 });
    expect(pathArg('orbit')).toMatchObject({ kind: 'orbit', seconds: 8 });
    expect(() => pathArg('orbit:0')).toThrow(/orbit:SECONDS with SECONDS > 0/);
    expect(pathArg(good)).toMatchObject({ kind: 'file', name: 'good.json' });
    expect(fpsArg('2.5')).toBe(2.5);
    expect(() => fpsArg('0')).toThrow(/--fps 0: expected frames a second/);
  });

  it('bench:frame: one line, exit 1, before the scene', () => {
    expect(run('bench/frame.ts', ['--scene', absentScene, '--path', bad])).toEqual({ code: 1, stderr: [timesError] });
    expect(run('bench/frame.ts', ['--scene', absentScene, '--path', good, '--camera', 'eye=0,0,-5 target=0,0,0']).stderr).toEqual([
      '--path and --camera: give one (a path flies many poses, --camera holds one)',
    ]);
    expect(run('bench/frame.ts', ['--scene', absentScene, '--path', good, '--frames', '10']).stderr).toEqual([
      '--frames: not with --path (the path sets the frames: floor(duration x fps) + 1)',
    ]);
  }, 120_000);

  it('render: one line, exit 1, before the scene', () => {
    const out = path.join(dir, 'frames');
    expect(run('bench/render.ts', ['--scene', absentScene, '--path', bad, '--frames-out', out])).toEqual({ code: 1, stderr: [timesError] });
    expect(run('bench/render.ts', ['--scene', absentScene, '--path', good]).stderr).toEqual(['--path: needs --frames-out DIR (one PNG a frame)']);
    expect(run('bench/render.ts', ['--scene', absentScene, '--path', good, '--frames-out', out, '--fps', '0']).stderr).toEqual([
      '--fps 0: expected frames a second, a number > 0 (at most 1000)',
    ]);
    expect(fs.existsSync(out)).toBe(false);
  }, 120_000);
});
