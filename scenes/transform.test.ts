import { describe, expect, it } from 'vitest';
import { shBasisInto } from './sh';
import { rotateSh, shRotationBands } from './sh-rotate';
import { shCoeffCount, type SplatCloud } from './splat-cloud';
import {
  IDENTITY_TRANSFORM,
  inverseTransformPoint,
  makeTransform,
  multiplyMat4,
  multiplyQuat,
  parseTransform,
  rotationMatrix,
  similarityFromMatrix,
  transformCloud,
  transformMatrix,
  transformPoint,
} from './transform';

/** A deterministic PRNG in [-1, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

const ROT = makeTransform({ rotation: [0.8, 0.3, -0.4, 0.35], translation: [1, -2, 0.5], scale: 1.7 });

function colour(degree: number, dir: number[], sh: ArrayLike<number>, c: number): number {
  const y = shBasisInto(degree, dir[0]!, dir[1]!, dir[2]!, new Float64Array(16));
  let v = 0;
  for (let k = 0; k < shCoeffCount(degree); k++) v += y[k]! * sh[3 * k + c]!;
  return v;
}

function mul3(r: ArrayLike<number>, v: number[]): number[] {
  return [0, 1, 2].map((i) => r[3 * i]! * v[0]! + r[3 * i + 1]! * v[1]! + r[3 * i + 2]! * v[2]!);
}

describe('SH rotation (sh-rotate.ts)', () => {
  it.each([1, 2, 3])('degree %i: the rotated coefficients show along d what the original showed along R^T d', (degree) => {
    const next = rng(7 + degree);
    const K = shCoeffCount(degree);
    const sh = Float32Array.from({ length: K * 3 }, () => next());
    const r = rotationMatrix(ROT.rotation);
    const rotated = rotateSh(sh, 1, degree, r);
    expect(Array.from(rotated.subarray(0, 3))).toEqual(Array.from(sh.subarray(0, 3))); // the DC is unchanged
    for (let s = 0; s < 20; s++) {
      const d = [next(), next(), next()];
      const n = Math.hypot(d[0]!, d[1]!, d[2]!);
      const dir = d.map((x) => x / n);
      // R^T d
      const back = [0, 1, 2].map((j) => r[j]! * dir[0]! + r[3 + j]! * dir[1]! + r[6 + j]! * dir[2]!);
      for (let c = 0; c < 3; c++) expect(colour(degree, dir, rotated, c)).toBeCloseTo(colour(degree, back, sh, c), 5);
    }
  });

  it('band matrices compose as the rotations do, and are orthogonal', () => {
    const a = rotationMatrix(makeTransform({ rotation: [0.9, 0.1, 0.3, -0.2] }).rotation);
    const b = rotationMatrix(makeTransform({ rotation: [0.2, -0.7, 0.4, 0.5] }).rotation);
    const ab = Float64Array.from({ length: 9 }, (_, i) => {
      const row = Math.floor(i / 3), col = i % 3;
      return a[3 * row]! * b[col]! + a[3 * row + 1]! * b[3 + col]! + a[3 * row + 2]! * b[6 + col]!;
    });
    const [A, B, AB] = [shRotationBands(a, 3), shRotationBands(b, 3), shRotationBands(ab, 3)];
    for (let l = 1; l <= 3; l++) {
      const n = 2 * l + 1;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          let prod = 0;
          let gram = 0;
          for (let k = 0; k < n; k++) {
            prod += A[l]![i * n + k]! * B[l]![k * n + j]!;
            gram += A[l]![k * n + i]! * A[l]![k * n + j]!;
          }
          expect(prod).toBeCloseTo(AB[l]![i * n + j]!, 9);
          expect(gram).toBeCloseTo(i === j ? 1 : 0, 9);
        }
      }
    }
  });
});

describe('placing a cloud (transform.ts)', () => {
  it('parses the CLI form and a similarity matrix, and refuses the rest', () => {
    const t = parseTransform('translate=1,-2,0.5 rotate=0.8,0.3,-0.4,0.35 scale=1.7');
    expect(t.translation).toEqual([1, -2, 0.5]);
    expect(t.scale).toBe(1.7);
    t.rotation.forEach((v, i) => expect(v).toBeCloseTo(ROT.rotation[i]!, 12));
    expect(parseTransform('')).toEqual(IDENTITY_TRANSFORM);
    const back = parseTransform(`matrix=${Array.from(transformMatrix(ROT)).join(',')}`);
    back.rotation.forEach((v, i) => expect(v).toBeCloseTo(ROT.rotation[i]!, 9));
    back.translation.forEach((v, i) => expect(v).toBeCloseTo(ROT.translation[i]!, 9));
    expect(back.scale).toBeCloseTo(1.7, 9);
    expect(() => parseTransform('spin=1')).toThrow(/unknown word/);
    expect(() => parseTransform('scale=-1')).toThrow(/scale/);
    expect(() => parseTransform('rotate=0,0,0,0')).toThrow(/zero/);
    expect(() => similarityFromMatrix([2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])).toThrow(/similarity/);
  });

  it('the matrix, the point map, its inverse and the quaternion product agree', () => {
    const m = transformMatrix(ROT);
    const p = [0.3, -1.2, 2.5];
    const q = transformPoint(ROT, p);
    const viaM = [0, 1, 2].map((i) => m[i]! * p[0]! + m[4 + i]! * p[1]! + m[8 + i]! * p[2]! + m[12 + i]!);
    q.forEach((v, i) => expect(v).toBeCloseTo(viaM[i]!, 12));
    inverseTransformPoint(ROT, q).forEach((v, i) => expect(v).toBeCloseTo(p[i]!, 12));
    const id = multiplyMat4(transformMatrix(IDENTITY_TRANSFORM), m);
    id.forEach((v, i) => expect(v).toBe(m[i]));
    // R(a b) = R(a) R(b)
    const a = makeTransform({ rotation: [0.5, 0.5, 0.5, 0.5] }).rotation;
    const ab = rotationMatrix(multiplyQuat(a, ROT.rotation));
    const [ra, rb] = [rotationMatrix(a), rotationMatrix(ROT.rotation)];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(ab[3 * i + j]).toBeCloseTo(ra[3 * i]! * rb[j]! + ra[3 * i + 1]! * rb[3 + j]! + ra[3 * i + 2]! * rb[6 + j]!, 12);
  });

  it('transformCloud moves centres, turns covariances into s^2 R Sigma R^T and rotates the SH', () => {
    const next = rng(3);
    const n = 5;
    const q = Float32Array.from({ length: n * 4 }, () => next());
    for (let i = 0; i < n; i++) {
      const l = Math.hypot(q[4 * i]!, q[4 * i + 1]!, q[4 * i + 2]!, q[4 * i + 3]!);
      for (let k = 0; k < 4; k++) q[4 * i + k] = q[4 * i + k]! / l;
    }
    const cloud: SplatCloud = {
      count: n,
      shDegree: 2,
      positions: Float32Array.from({ length: n * 3 }, () => next() * 3),
      scales: Float32Array.from({ length: n * 3 }, () => 0.05 + Math.abs(next())),
      rotations: q,
      opacities: Float32Array.from({ length: n }, () => Math.abs(next())),
      sh: Float32Array.from({ length: n * 27 }, () => next()),
      bounds: { min: [-3, -3, -3], max: [3, 3, 3] },
      source: { name: 'test', format: 'memory' },
    };
    const out = transformCloud(cloud, ROT);
    const r = rotationMatrix(ROT.rotation);
    const cov = (c: SplatCloud, i: number) => {
      const rr = rotationMatrix([c.rotations[4 * i]!, c.rotations[4 * i + 1]!, c.rotations[4 * i + 2]!, c.rotations[4 * i + 3]!]);
      const s = [c.scales[3 * i]!, c.scales[3 * i + 1]!, c.scales[3 * i + 2]!];
      return Array.from({ length: 9 }, (_, e) => {
        const a = Math.floor(e / 3), b = e % 3;
        return [0, 1, 2].reduce((acc, k) => acc + rr[3 * a + k]! * s[k]! * s[k]! * rr[3 * b + k]!, 0);
      });
    };
    for (let i = 0; i < n; i++) {
      const p = transformPoint(ROT, cloud.positions.subarray(3 * i, 3 * i + 3));
      p.forEach((v, a) => expect(out.positions[3 * i + a]).toBeCloseTo(v, 5));
      const before = cov(cloud, i);
      const after = cov(out, i);
      // s^2 R Sigma R^T
      const expected = Array.from({ length: 9 }, (_, e) => {
        const a = Math.floor(e / 3), b = e % 3;
        let v = 0;
        for (let k = 0; k < 3; k++) for (let m = 0; m < 3; m++) v += r[3 * a + k]! * before[3 * k + m]! * r[3 * b + m]!;
        return ROT.scale * ROT.scale * v;
      });
      after.forEach((v, e) => expect(v).toBeCloseTo(expected[e]!, 4));
      // The colour seen along d is what the original showed along R^T d.
      const dir = [0.6, -0.48, 0.64];
      const back = mul3([r[0]!, r[3]!, r[6]!, r[1]!, r[4]!, r[7]!, r[2]!, r[5]!, r[8]!], dir);
      for (let c = 0; c < 3; c++) expect(colour(2, dir, out.sh.subarray(27 * i), c)).toBeCloseTo(colour(2, back, cloud.sh.subarray(27 * i), c), 4);
    }
    expect(out.opacities).toBe(cloud.opacities);
  });
});
