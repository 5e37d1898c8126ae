import { describe, expect, it } from 'vitest';
import { generateDefaultScene, generateSynthetic, rotateX180 } from './generate';
import { shCoeffCount, type SplatCloud } from './splat-cloud';

function bytesEqual(a: SplatCloud, b: SplatCloud): boolean {
  const arrays = (c: SplatCloud) => [c.positions, c.scales, c.rotations, c.opacities, c.sh];
  return arrays(a).every((x, i) => Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(arrays(b)[i].buffer, arrays(b)[i].byteOffset, arrays(b)[i].byteLength)));
}

/** Structural checks every generated cloud must pass. */
function checkCloud(c: SplatCloud, n: number) {
  expect(c.count).toBe(n);
  expect(c.shDegree).toBe(3);
  expect(c.positions.length).toBe(n * 3);
  expect(c.scales.length).toBe(n * 3);
  expect(c.rotations.length).toBe(n * 4);
  expect(c.opacities.length).toBe(n);
  expect(c.sh.length).toBe(n * shCoeffCount(3) * 3);
  // plain loops collecting failures (one expect per property keeps this fast)
  let nonFinite = 0, badQuat = 0, badOpacity = 0, badScale = 0, outside = 0;
  for (const a of [c.positions, c.scales, c.rotations, c.opacities, c.sh]) {
    for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) nonFinite++;
  }
  for (let i = 0; i < n; i++) {
    const q = c.rotations.subarray(i * 4, i * 4 + 4);
    if (!(Math.abs(Math.hypot(q[0], q[1], q[2], q[3]) - 1) < 1e-5)) badQuat++;
    if (!(c.opacities[i] > 0 && c.opacities[i] <= 1)) badOpacity++;
    for (let a = 0; a < 3; a++) {
      if (!(c.scales[i * 3 + a] > 0)) badScale++;
      const v = c.positions[i * 3 + a];
      if (!(v >= c.bounds.min[a] && v <= c.bounds.max[a])) outside++;
    }
  }
  expect({ nonFinite, badQuat, badOpacity, badScale, outside }).toEqual({ nonFinite: 0, badQuat: 0, badOpacity: 0, badScale: 0, outside: 0 });
}

/** RMS of the rest coefficients of band l (1..3) over the cloud. */
function bandRms(c: SplatCloud, l: number): number {
  let s = 0, m = 0;
  for (let i = 0; i < c.count; i++) {
    for (let k = l * l; k < (l + 1) * (l + 1); k++) {
      for (let ch = 0; ch < 3; ch++) {
        const v = c.sh[(i * 16 + k) * 3 + ch];
        s += v * v;
        m++;
      }
    }
  }
  return Math.sqrt(s / m);
}

describe('generateDefaultScene', () => {
  const scene = generateDefaultScene(3000);

  it('has the requested count, valid splats, SH degree 3 with non-zero rest bands', () => {
    checkCloud(scene, 3000);
    for (const l of [1, 2, 3]) expect(bandRms(scene, l)).toBeGreaterThan(0.01);
    expect(scene.source).toEqual({ name: 'default', format: 'generated' });
  });

  it('is deterministic', () => {
    expect(bytesEqual(scene, generateDefaultScene(3000))).toBe(true);
  });

  it('defaults to 60,000 splats and accepts other counts', () => {
    expect(generateDefaultScene().count).toBe(60_000);
    checkCloud(generateDefaultScene(10), 10);
    expect(generateDefaultScene(0).count).toBe(0);
  });

  it('is stored in the COLMAP frame: the ground at y = 0, everything else above it (negative y)', () => {
    expect(scene.bounds.max[1]).toBeLessThan(0.05);
    expect(scene.bounds.min[1]).toBeLessThan(-2.5); // the knot's top
    // a large share of the splats lie on the ground plane y = 0
    let ground = 0;
    for (let i = 0; i < scene.count; i++) if (Math.abs(scene.positions[i * 3 + 1]) < 0.05) ground++;
    expect(ground / scene.count).toBeGreaterThan(0.25);
  });
});

describe('generateSynthetic', () => {
  const n = 20_000;
  const a = generateSynthetic(n, 7);

  it('has the requested count and valid splats', () => {
    checkCloud(a, n);
    expect(a.source).toEqual({ name: `synthetic:${n}`, format: 'generated' });
  });

  it('is deterministic per seed, different across seeds', () => {
    expect(bytesEqual(a, generateSynthetic(n, 7))).toBe(true);
    expect(bytesEqual(a, generateSynthetic(n, 8))).toBe(false);
    expect(bytesEqual(generateSynthetic(100), generateSynthetic(100, 1))).toBe(true);
  });

  it('has SH degree 3 with small, non-zero rest bands decreasing with the band', () => {
    const r = [1, 2, 3].map((l) => bandRms(a, l));
    expect(r[0]).toBeGreaterThan(0.15);
    expect(r[0]).toBeLessThan(0.5);
    expect(r[1]).toBeLessThan(r[0]);
    expect(r[2]).toBeLessThan(r[1]);
    expect(r[2]).toBeGreaterThan(0.03);
  });

  it('has the bimodal opacity and the anisotropy of trained scenes', () => {
    let low = 0, high = 0;
    for (let i = 0; i < n; i++) {
      if (a.opacities[i] < 0.1) low++;
      if (a.opacities[i] > 0.9) high++;
    }
    // trained scenes: 17-50% above 0.9, up to ~30% below 0.1; the middle is thin
    expect(low / n).toBeGreaterThan(0.2);
    expect(high / n).toBeGreaterThan(0.2);
    expect((n - low - high) / n).toBeLessThan(0.5);
    const ratios = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const s = [a.scales[i * 3], a.scales[i * 3 + 1], a.scales[i * 3 + 2]];
      ratios[i] = Math.max(...s) / Math.min(...s);
    }
    ratios.sort();
    const median = ratios[n >> 1];
    expect(median).toBeGreaterThan(10); // trained scenes: 25-34
    expect(median).toBeLessThan(60);
  });

  it('handles tiny counts', () => {
    checkCloud(generateSynthetic(1, 3), 1);
    expect(generateSynthetic(0).count).toBe(0);
  });
});

describe('rotateX180', () => {
  it('flips y and z of positions, conjugates rotations, and is its own inverse', () => {
    const c = generateSynthetic(50, 2);
    const f = rotateX180(c);
    expect(f.positions[0]).toBe(c.positions[0]);
    expect(f.positions[1]).toBe(-c.positions[1]);
    expect(f.positions[2]).toBe(-c.positions[2]);
    expect(Array.from(f.rotations.subarray(0, 4))).toEqual([c.rotations[0], c.rotations[1], -c.rotations[2], -c.rotations[3]]);
    expect(bytesEqual(rotateX180(f), c)).toBe(true);
    // the input is left alone
    expect(bytesEqual(c, generateSynthetic(50, 2))).toBe(true);
  });
});
