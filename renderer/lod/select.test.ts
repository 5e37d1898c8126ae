import { describe, expect, it } from 'vitest';
import { frameCamera } from '../camera/frame-camera';
import { makeTransform, rotationMatrix, transformBounds, transformPoint } from '../../scenes/transform';
import { boxInFrustum, drawableLevels, leafError, lodViewOf, selectLods, type LodLeafCounts, type LodView } from './select';

/** A leaf: a unit cube at x = `x`, with counts per level. */
const leaf = (x: number, counts: number[], size = 1): LodLeafCounts => ({ bound: { min: [x, 0, 0], max: [x + size, size, size] }, counts });
const everywhere = (eye: number[]): LodView => ({ eye, viewProj: null, focalPx: 500 });

/** A seeded generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sumOf = (leaves: LodLeafCounts[], levels: Int8Array) => leaves.reduce((s, l, i) => s + (levels[i]! >= 0 ? l.counts[levels[i]!]! : 0), 0);

describe('selectLods', () => {
  it('never exceeds the budget, and reports the splats it chose (random trees, views and budgets)', () => {
    const r = rng(7);
    for (let t = 0; t < 200; t++) {
      const leaves = Array.from({ length: 1 + Math.floor(r() * 40) }, () => {
        const c0 = 1 + Math.floor(r() * 5000);
        const c1 = r() < 0.2 ? 0 : Math.ceil(c0 / 4), c2 = Math.ceil(c0 / 16);
        return leaf(r() * 100 - 50, [c0, c1, c2], 0.5 + r() * 5);
      });
      const budget = Math.floor(r() * 60000);
      const sel = selectLods(leaves, everywhere([r() * 100 - 50, r() * 10, -20]), budget);
      expect(sel.splats).toBeLessThanOrEqual(budget);
      expect(sumOf(leaves, sel.levels)).toBe(sel.splats);
      for (let i = 0; i < leaves.length; i++) if (sel.levels[i]! >= 0) expect(leaves[i]!.counts[sel.levels[i]!]).toBeGreaterThan(0);
    }
  });

  it('draws every leaf at its finest level when the budget holds the finest level', () => {
    const leaves = [leaf(0, [100, 25, 6]), leaf(10, [80, 20, 5]), leaf(-30, [50, 0, 3])];
    const sel = selectLods(leaves, everywhere([0, 0, -5]), 230);
    expect([...sel.levels]).toEqual([0, 0, 0]);
    expect(sel.splats).toBe(230);
  });

  it('refines the nearer of two equal leaves first', () => {
    const leaves = [leaf(50, [1000, 250, 60]), leaf(2, [1000, 250, 60])];
    const sel = selectLods(leaves, everywhere([0, 0, -3]), 1100);
    expect(sel.levels[1]).toBe(0);
    expect(sel.levels[0]).toBe(2);
    expect(sel.splats).toBe(1060);
  });

  it('gives the coarsest level to the nearest leaves first when even that does not fit all', () => {
    const leaves = [leaf(30, [100, 10]), leaf(0, [100, 10]), leaf(10, [100, 10]), leaf(20, [100, 10])];
    const sel = selectLods(leaves, everywhere([-5, 0, 0]), 25);
    expect([...sel.levels]).toEqual([-1, 1, 1, -1]);
  });

  it('skips a level a leaf lacks', () => {
    const sel = selectLods([leaf(0, [100, 0, 10])], everywhere([0, 0, -2]), 100);
    expect([...sel.levels]).toEqual([0]);
    expect(selectLods([leaf(0, [100, 0, 10])], everywhere([0, 0, -2]), 99).levels[0]).toBe(2);
  });

  it('spends the budget on the view first: leaves behind the camera get what is left, coarsest', () => {
    const pose = { eye: [0, 0, 0] as [number, number, number], target: [0, 0, 10] as [number, number, number], up: [0, 1, 0] as [number, number, number], fovyDeg: 60 };
    const view = lodViewOf(frameCamera(pose, 640, 480, { min: [-50, -50, -50], max: [50, 50, 50] }));
    const ahead = { bound: { min: [-1, -1, 5], max: [1, 1, 7] } as LodLeafCounts['bound'], counts: [1000, 100] };
    const behind = { bound: { min: [-1, -1, -3], max: [1, 1, -1] } as LodLeafCounts['bound'], counts: [1000, 100] };
    const tight = selectLods([behind, ahead], view, 1000);
    expect([...tight.visible]).toEqual([0, 1]);
    expect([...tight.levels]).toEqual([-1, 0]);
    const loose = selectLods([behind, ahead], view, 1100);
    expect([...loose.levels]).toEqual([1, 0]);
  });

  it('error falls with distance and with more splats', () => {
    const l = leaf(0, [1000, 125]);
    expect(leafError(l, 0, 10, 500)).toBeLessThan(leafError(l, 1, 10, 500));
    expect(leafError(l, 0, 20, 500)).toBeCloseTo(leafError(l, 0, 10, 500) / 2, 9);
  });
});

describe('lodViewOf a placed scene', () => {
  it('sees the camera in the object\'s own frame: the same choice as the camera moved back by the inverse', () => {
    const leaves: LodLeafCounts[] = [];
    for (let i = 0; i < 4; i++) for (let k = 0; k < 4; k++) leaves.push({ bound: { min: [i * 4 - 8, -1, k * 4 - 8], max: [i * 4 - 6, 1, k * 4 - 6] }, counts: [1000, 250, 60] });
    const objBounds = { min: [-8, -1, -8], max: [8, 1, 8] } as LodLeafCounts['bound'];
    const t = makeTransform({ rotation: [0.8, 0.3, -0.4, 0.2], scale: 2, translation: [10, -3, 5] });
    const r = rotationMatrix(t.rotation);
    const up = [r[3]!, r[4]!, r[5]!] as [number, number, number];
    const inObject = { eye: [3, 2, -14] as [number, number, number], target: [0, 0, 0] as [number, number, number], up: [0, 1, 0] as [number, number, number], fovyDeg: 50 };
    const inWorld = { eye: transformPoint(t, inObject.eye), target: transformPoint(t, inObject.target), up, fovyDeg: 50 };
    const placed = lodViewOf(frameCamera(inWorld, 640, 480, transformBounds(t, objBounds)), t);
    const own = lodViewOf(frameCamera(inObject, 640, 480, objBounds));
    for (let a = 0; a < 3; a++) expect(placed.eye[a]!).toBeCloseTo(inObject.eye[a], 9);
    const a = selectLods(leaves, placed, 5000);
    const b = selectLods(leaves, own, 5000);
    expect([...a.visible]).toEqual([...b.visible]);
    expect([...a.visible]).toContain(0); // some leaves out of view: the frustum test matters
    expect([...a.levels]).toEqual([...b.levels]);
    a.distance.forEach((d, i) => expect(d).toBeCloseTo(b.distance[i]!, 6));
    // Not placed: the world camera against the leaves' own coordinates is another choice.
    expect([...selectLods(leaves, lodViewOf(frameCamera(inWorld, 640, 480, transformBounds(t, objBounds))), 5000).visible]).not.toEqual([...a.visible]);
  });
});

describe('boxInFrustum', () => {
  it('sees a box ahead, not one behind, beside or below the view', () => {
    const pose = { eye: [0, 0, 0] as [number, number, number], target: [0, 0, 10] as [number, number, number], up: [0, 1, 0] as [number, number, number], fovyDeg: 60 };
    const vp = lodViewOf(frameCamera(pose, 640, 480, { min: [-50, -50, -50], max: [50, 50, 50] })).viewProj!;
    const b = (x: number, y: number, z: number) => ({ min: [x - 0.5, y - 0.5, z - 0.5] as [number, number, number], max: [x + 0.5, y + 0.5, z + 0.5] as [number, number, number] });
    expect(boxInFrustum(b(0, 0, 10), vp)).toBe(true);
    expect(boxInFrustum(b(0, 0, -10), vp)).toBe(false);
    expect(boxInFrustum(b(30, 0, 10), vp)).toBe(false);
    expect(boxInFrustum(b(-30, 0, 10), vp)).toBe(false);
    expect(boxInFrustum(b(0, 30, 10), vp)).toBe(false);
    expect(boxInFrustum(b(0, -30, 10), vp)).toBe(false);
    // A box around the eye is seen.
    expect(boxInFrustum({ min: [-1, -1, -1], max: [1, 1, 1] }, vp)).toBe(true);
  });
});

describe('drawableLevels', () => {
  it('draws the chosen level when resident, else a coarser resident one, else nothing; never more splats than chosen', () => {
    const leaves = [leaf(0, [100, 25, 6]), leaf(2, [100, 25, 6]), leaf(4, [100, 25, 6]), leaf(6, [100, 25, 6])];
    const chosen = Int8Array.from([0, 0, 1, 2]);
    const resident = (i: number, l: number) => (i === 0 && l === 0) || (i === 1 && l === 2) || (i === 2 && l === 0);
    const out = drawableLevels(leaves, chosen, resident);
    expect([...out]).toEqual([0, 2, -1, -1]);
    expect(sumOf(leaves, out)).toBeLessThanOrEqual(sumOf(leaves, chosen));
  });
});
