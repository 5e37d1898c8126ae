/**
 * The headless programs flying a camera path on this adapter (lavapipe), as a user runs
 * them (scripts/run.mjs in a child process), on a tiny generated scene at 3 fps and a
 * small size so that each runs in seconds:
 * - bench:frame --path: a row per run with the path's frames, `max` per stage, each
 *   frame's GPU times against its path time, and the slowest second named;
 * - render --path --frames-out: one PNG a frame from time 0 to the last keyframe's,
 *   the first and the last the very images --camera renders of the first and last
 *   keyframe's poses, the ones between moving.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { formatCameraArg } from '../../renderer/camera/camera';
import { parseCameraPath, serializeCameraPath } from '../../renderer/camera/camera-path';

const root = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splat-path-gpu-'));
const SCENE = 'default:2000';

// Round the generated scene (ground at y = 0, y down), 2 s, unevenly spaced.
const FLIGHT = parseCameraPath({
  keyframes: [
    { time: 0, eye: [0, -2, -8], target: [0, -0.5, 0], up: [0, -1, 0], fovy: 60 },
    { time: 0.5, eye: [5, -2.5, -5], target: [0, -0.5, 0], up: [0, -1, 0], fovy: 55 },
    { time: 2, eye: [6, -1.5, 3], target: [0.5, -0.8, 0.5], up: [0, -1, 0], fovy: 50 },
  ],
});
const pathFile = path.join(dir, 'flight.json');
fs.writeFileSync(pathFile, serializeCameraPath(FLIGHT));

function run(entry: string, args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['scripts/run.mjs', entry, ...args], { cwd: root, encoding: 'utf8', timeout: 170_000 });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

describe('camera path in the headless programs (gpu)', () => {
  it('bench:frame --path: max per stage, per-frame GPU times against path time, the slowest second', () => {
    const json = path.join(dir, 'rows.json');
    const r = run('bench/frame.ts', ['--scene', SCENE, '--path', pathFile, '--fps', '3', '--size', '96x64', '--warmup', '1', '--strategies', 'radix4', '--no-coverage', '--json', json]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('path: flight.json, 3 keyframes, 0-2 s at 3 fps: 7 frames');
    expect(r.out).toMatch(/^ {2}radix4 \S+: max ms: project [\d.]+, sort [\d.]+, draw [\d.]+, total [\d.]+$/m);
    expect(r.out).toMatch(/^ {2}radix4 \S+: slowest second: [01]\.0-[12]\.0 s, [\d.]+ ms median, stage (project|sort|draw)$/m);
    const rows = JSON.parse(fs.readFileSync(json, 'utf8')) as Record<string, any>[];
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row.camera).toBe('path flight.json, 2 s at 3 fps');
    expect(row.frames).toBe(7);
    for (const s of ['project', 'sort', 'draw', 'total']) {
      expect(row.max[s]).toBeGreaterThanOrEqual(row.p95[s]);
      expect(row.p95[s]).toBeGreaterThanOrEqual(row.stages[s]);
    }
    expect(row.path).toMatchObject({ name: 'flight.json', fps: 3, duration: 2 });
    const frames = row.path.frames as { time: number; total: number; project: number; sort: number; draw: number }[];
    expect(frames.map((f) => f.time)).toEqual([0, 0.333333, 0.666667, 1, 1.333333, 1.666667, 2]);
    for (const f of frames) {
      expect(f.total).toBeGreaterThan(0);
      expect(f.project + f.sort + f.draw).toBeCloseTo(f.total, 6);
    }
    expect(Math.max(...frames.map((f) => f.total))).toBe(row.max.total);
    const slow = row.path.slowestSecond;
    expect([0, 1]).toContain(slow.from);
    expect(slow.to).toBe(slow.from + 1);
    expect(slow.frames).toBe(slow.from === 0 ? 3 : 4); // the frame at 2.0 s joins the last second
  });

  it('render --path --frames-out: frame-00000.png .. at 0 .. 2 s; the ends are the keyframes as --camera draws them', () => {
    const out = path.join(dir, 'frames');
    const size = ['--size', '96x64'];
    const r = run('bench/render.ts', ['--scene', SCENE, '--path', pathFile, '--fps', '3', ...size, '--frames-out', out]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/path flight\.json, 7 frames at 3 fps \(0-2\.000 s\), 96x64/);
    const names = fs.readdirSync(out).sort();
    expect(names).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `frame-0000${i}.png`));
    const images = names.map((n) => PNG.sync.read(fs.readFileSync(path.join(out, n))));
    for (const im of images) expect([im.width, im.height]).toEqual([96, 64]);
    // The ends: the first and last keyframes' poses, rendered alone with --camera.
    const ends = [FLIGHT.keyframes[0], FLIGHT.keyframes[2]].map((k, i) => {
      const file = path.join(dir, `end-${i}.png`);
      const one = run('bench/render.ts', ['--scene', SCENE, '--camera', formatCameraArg(k), ...size, '--out', file]);
      expect(one.code, one.out).toBe(0);
      return PNG.sync.read(fs.readFileSync(file));
    });
    expect(diff(images[0], ends[0])).toBe(0);
    expect(diff(images[6], ends[1])).toBe(0);
    // Moving: every frame differs from the one before, and no frame is empty.
    for (let i = 1; i < images.length; i++) expect(diff(images[i], images[i - 1]), `frame ${i}`).toBeGreaterThan(1);
    for (const im of images) expect(mean(im)).toBeGreaterThan(5);
  });
});

/** Mean absolute RGB difference of two images (0..255). */
function diff(a: PNG, b: PNG): number {
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) if ((i & 3) !== 3) sum += Math.abs(a.data[i] - b.data[i]);
  return sum / ((a.data.length / 4) * 3);
}

function mean(a: PNG): number {
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) if ((i & 3) !== 3) sum += a.data[i];
  return sum / ((a.data.length / 4) * 3);
}
