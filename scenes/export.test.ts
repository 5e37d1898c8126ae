/**
 * exportObject (issue 32): a cropped, rotated, scaled object written as PLY and SPZ
 * loads back (scenes/load.ts) with the cropped set's count, where the object showed it;
 * PlayCanvas's splat-transform (a devDependency, no network) reads both files back with
 * the same count.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCrop, cropCloud, cropKeeps, croppedBounds } from './crop';
import { exportObject, placedCloud, spzFractionalBits } from './export';
import { generateSynthetic } from './generate';
import { loadScene } from './load';
import { makeTransform, transformCloud } from './transform';

const SPLAT_TRANSFORM = path.resolve(__dirname, '../node_modules/.bin/splat-transform');

/** A synthetic SH3 scene, a crop through its middle, and a turn about no coordinate axis with a scale and a shift. */
function fixture() {
  const cloud = generateSynthetic(3000);
  const b = cloud.bounds;
  const mid = [0, 1, 2].map((a) => (b.min[a]! + b.max[a]!) / 2);
  const crop = checkCrop({ min: [b.min[0], mid[1]! - 0.3 * (b.max[1] - b.min[1]), -Infinity], max: [mid[0]!, Infinity, b.max[2]] });
  const transform = makeTransform({ rotation: [0.82, 0.31, -0.42, 0.25], scale: 1.7, translation: [2, -1, 0.5] });
  return { cloud, crop, transform };
}

/** splat-transform's count of a file: converted to a PLY, whose header says it. */
function splatTransformCount(file: string): number {
  const out = path.join(path.dirname(file), `${path.basename(file)}.back.ply`);
  execFileSync(SPLAT_TRANSFORM, ['-q', '-w', file, out], { stdio: 'pipe', timeout: 120_000 });
  const head = fs.readFileSync(out).subarray(0, 4096).toString('latin1');
  const m = /element vertex (\d+)/.exec(head);
  if (!m) throw new Error(`splat-transform wrote no vertex count into ${out}`);
  return Number(m[1]);
}

describe('crop', () => {
  it('keeps the splats whose centre is inside the box, faces included', () => {
    const crop = checkCrop({ min: [0, 0, 0], max: [1, 1, 1] });
    expect(cropKeeps(crop, 0, 1, 0.5)).toBe(true);
    expect(cropKeeps(crop, 1.0001, 0.5, 0.5)).toBe(false);
    expect(cropKeeps(null, 1e30, 0, 0)).toBe(true);
    const { cloud, crop: c } = fixture();
    const kept = cropCloud(cloud, c);
    expect(kept.count).toBeGreaterThan(100);
    expect(kept.count).toBeLessThan(cloud.count);
    expect(kept.sh.length).toBe(kept.count * 48);
    const b = croppedBounds(cloud.bounds, c);
    for (let i = 0; i < kept.count; i++) for (let a = 0; a < 3; a++) expect(kept.positions[3 * i + a]! >= b.min[a]! && kept.positions[3 * i + a]! <= b.max[a]!).toBe(true);
  });

  it('refuses a box turned inside out or not of numbers', () => {
    expect(() => checkCrop({ min: [0, 2, 0], max: [1, 1, 1] })).toThrow(/axis y/);
    expect(() => checkCrop({ min: [0, NaN, 0], max: [1, 1, 1] })).toThrow(RangeError);
    expect(() => checkCrop({ min: [0, 0], max: [1, 1, 1] })).toThrow(RangeError);
  });
});

describe('exportObject', () => {
  it.each(['ply', 'spz'] as const)('%s of a cropped, rotated, scaled object loads back with the cropped count, where it was placed', async (format) => {
    const { cloud, crop, transform } = fixture();
    const want = transformCloud(cropCloud(cloud, crop), transform);
    const bytes = exportObject(cloud, transform, crop, format);
    const back = await loadScene(bytes, `object.${format}`);
    expect(back.count).toBe(want.count);
    expect(back.shDegree).toBe(3);
    // SPZ: 24-bit fixed point centres, 8-bit colours and bands; PLY: float32 as written.
    const tol = format === 'ply' ? 1e-5 : 2 ** -spzFractionalBits(want) + 1e-6;
    let worst = 0;
    for (let i = 0; i < want.positions.length; i++) worst = Math.max(worst, Math.abs(back.positions[i]! - want.positions[i]!));
    expect(worst).toBeLessThanOrEqual(tol);
    if (format === 'ply') {
      let shWorst = 0;
      for (let i = 0; i < want.sh.length; i++) shWorst = Math.max(shWorst, Math.abs(back.sh[i]! - want.sh[i]!));
      expect(shWorst).toBeLessThan(1e-5);
    }
  });

  it('without crop or transform writes the cloud as it is', async () => {
    const { cloud } = fixture();
    expect(placedCloud(cloud)).toBe(cloud);
    const back = await loadScene(exportObject(cloud, null, null, 'ply'), 'same.ply');
    expect(back.count).toBe(cloud.count);
    expect(Array.from(back.positions.subarray(0, 30))).toEqual(Array.from(cloud.positions.subarray(0, 30)));
  });

  it('refuses a cloud without its SH (a packed scene\'s lite cloud) and an unknown format', () => {
    const { cloud } = fixture();
    expect(() => exportObject({ ...cloud, sh: new Float32Array(0) }, null, null, 'ply')).toThrow(/SH holds 0 numbers/);
    expect(() => exportObject(cloud, null, null, 'obj' as 'ply')).toThrow(/expected 'ply' or 'spz'/);
  });

  it('PlayCanvas splat-transform reads the exported PLY and SPZ back with the cropped count', () => {
    const { cloud, crop, transform } = fixture();
    const count = cropCloud(cloud, crop).count;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splat-export-'));
    try {
      const counts: string[] = [];
      for (const format of ['ply', 'spz'] as const) {
        const file = path.join(dir, `object.${format}`);
        fs.writeFileSync(file, exportObject(cloud, transform, crop, format));
        const n = splatTransformCount(file);
        counts.push(`${format} ${n}`);
        expect(n, format).toBe(count);
      }
      console.log(`splat-transform read back: ${counts.join(', ')} of ${count} cropped (${cloud.count} in all)`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
