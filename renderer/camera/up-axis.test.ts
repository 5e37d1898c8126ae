import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDefaultScene } from '../../scenes/generate';
import { loadScene } from '../../scenes/load';
import { haveSharedScenes, sharedScene } from '../../test/support/shared-scenes';
import { chooseUpAxis, detectUpAxis, upNeedsDetection, upNote } from './up-axis';

/** A z-up scene: a ground disc of radius 3 at z = 0 (most splats), a few things standing on it up to z = 1.6, floaters. */
function zUpScene(seed = 1): Float32Array {
  let s = seed;
  const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const pts: number[] = [];
  for (let i = 0; i < 12_000; i++) {
    const r = 3 * Math.sqrt(rnd());
    const a = 2 * Math.PI * rnd();
    pts.push(r * Math.cos(a), r * Math.sin(a), 0.03 * (rnd() - 0.5));
  }
  for (const [cx, cy, h] of [[-1, 0, 1.6], [1.2, 0.5, 0.8], [0, -1.4, 1.1]] as const) {
    for (let i = 0; i < 2500; i++) pts.push(cx + 0.3 * (rnd() - 0.5), cy + 0.3 * (rnd() - 0.5), h * rnd());
  }
  for (let i = 0; i < 200; i++) pts.push(40 * (rnd() - 0.5), 40 * (rnd() - 0.5), 40 * (rnd() - 0.5));
  return Float32Array.from(pts);
}

/** The same points in the COLMAP frame (y down): (x, y, z) -> (x, -z, y). */
function toColmap(p: Float32Array): Float32Array {
  const out = new Float32Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    out[i] = p[i]!;
    out[i + 1] = -p[i + 2]!;
    out[i + 2] = p[i + 1]!;
  }
  return out;
}

describe('detectUpAxis: the up of a scene whose file says none (issue 34)', () => {
  it('a synthetic z-up scene (ground plane, things standing on it, floaters): +z, and in the COLMAP frame -y', () => {
    const z = detectUpAxis(zUpScene());
    expect(z).toMatchObject({ axis: '+z', detected: true });
    expect(z.why).toMatch(/^flat along z \(0\.\d\d of the other spread\), rising towards \+z$/);
    expect(detectUpAxis(toColmap(zUpScene()))).toMatchObject({ axis: '-y', detected: true });
    // Upside down (a y-up export): +y.
    const yUp = toColmap(zUpScene()).map((v, i) => (i % 3 === 1 ? -v : v));
    expect(detectUpAxis(yUp)).toMatchObject({ axis: '+y', detected: true });
  });

  it('the generated default scene (COLMAP frame) keeps -y', () => {
    expect(detectUpAxis(generateDefaultScene(20_000).positions).axis).toBe('-y');
  });

  it.runIf(haveSharedScenes())('the real scenes, all in the COLMAP frame (y down), keep -y', async () => {
    for (const name of ['biker.compressed.ply', 'guitar.compressed.ply', 'playbot_31k_sh2_reordered.ply', 'inria_sh3_tile_6831.ply', 'inria_sh3_tile_1971.ply']) {
      const cloud = await loadScene(fs.readFileSync(sharedScene(name)), name);
      const up = detectUpAxis(cloud.positions);
      expect(up.axis, `${name}: ${up.why}`).toBe('-y');
    }
    // playbot stands on a flat base: said so, not only defaulted; the inria tiles (top-down grass, flat in z, rising to -z) are no file convention.
    const playbot = detectUpAxis((await loadScene(fs.readFileSync(sharedScene('playbot_31k_sh2_reordered.ply')), 'p')).positions);
    expect(playbot).toMatchObject({ axis: '-y', detected: true });
    const tile = detectUpAxis((await loadScene(fs.readFileSync(sharedScene('inria_sh3_tile_6831.ply')), 't')).positions);
    expect(tile.why).toMatch(/rising towards -z: no file convention/);
  });

  it.runIf(haveSharedScenes())("splat-transform's .spz of playbot opens upright as its PLY does: read in SPZ's own frame it stands upside down, and its up is detected", async () => {
    // splat-transform 3.7 writes the PLY's frame into the .spz unconverted (docs/FORMATS.md); we read SPZ as the format's
    // RUB, turned half round x into our frame: the file's -y up arrives as +y, which detection finds (and the viewer
    // then stands the scene on it), so both open the same way up, seen from behind rather than upside down.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-up-spz-'));
    try {
      const spz = path.join(dir, 'playbot.spz');
      execFileSync(path.resolve(__dirname, '../../node_modules/.bin/splat-transform'), ['-q', '-w', '-g', 'cpu', sharedScene('playbot_31k_sh2_reordered.ply'), spz], { stdio: 'pipe' });
      const ply = await loadScene(fs.readFileSync(sharedScene('playbot_31k_sh2_reordered.ply')), 'playbot.ply');
      const fromSpz = await loadScene(fs.readFileSync(spz), 'playbot.spz');
      expect(fromSpz.count).toBe(ply.count);
      // The same points, half a turn round x apart (SPZ's 12-bit fixed point: within its step).
      let worst = 0;
      for (let i = 0; i < ply.count * 3; i += 3) {
        worst = Math.max(worst, Math.abs(fromSpz.positions[i]! - ply.positions[i]!), Math.abs(fromSpz.positions[i + 1]! + ply.positions[i + 1]!), Math.abs(fromSpz.positions[i + 2]! + ply.positions[i + 2]!));
      }
      expect(worst).toBeLessThan(0.01);
      expect(detectUpAxis(ply.positions)).toMatchObject({ axis: '-y', detected: true });
      expect(detectUpAxis(fromSpz.positions)).toMatchObject({ axis: '+y', detected: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('chooseUpAxis (issue 34): detected vs saved vs link vs user', () => {
  const zUp = { axis: '+z', detected: true, why: 'flat along z' } as const;
  const unclear = { axis: '-y', detected: false, why: 'no flat axis' } as const;

  it('uses the detected axis only when nothing explicit sets it', () => {
    expect(upNeedsDetection({})).toBe(true);
    expect(chooseUpAxis({ detected: zUp })).toEqual({ axis: '+z', source: 'detected' });
    expect(upNote(chooseUpAxis({ detected: zUp }))).toBe('up: +z (detected)');
    expect(upNote(chooseUpAxis({ detected: { axis: '-y', detected: true, why: '' } }))).toBe('up: -y (detected)');
    expect(chooseUpAxis({ detected: unclear })).toEqual({ axis: '-y', source: 'default' });
    expect(chooseUpAxis({ detected: null })).toEqual({ axis: '-y', source: 'default' });
  });

  it('keeps an explicit choice over the detected one: user, then link, then saved', () => {
    expect(upNeedsDetection({ saved: '+y' })).toBe(false);
    expect(chooseUpAxis({ saved: '+y', detected: zUp })).toEqual({ axis: '+y', source: 'saved' });
    expect(chooseUpAxis({ link: '-z', saved: '+y', detected: zUp })).toEqual({ axis: '-z', source: 'link' });
    expect(chooseUpAxis({ user: '-y', link: '-z', saved: '+y', detected: zUp })).toEqual({ axis: '-y', source: 'user' });
    expect(upNote(chooseUpAxis({ user: '-y' }))).toBe('up: -y (chosen)');
    expect(chooseUpAxis({ user: null, link: null, saved: null, detected: zUp }).source).toBe('detected');
  });
});
