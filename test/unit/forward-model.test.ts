import { describe, expect, it } from 'vitest';
import {
  blendOver,
  compositeOverBackground,
  covariance3D,
  CUTOFF_POWER,
  antialiasFactor,
  depthKey,
  effectiveOpacity,
  evalSH,
  floatBitsAsU32,
  floatToOrderedKey,
  fragmentAlpha,
  gaussianPower,
  lambdaMax,
  makeCameraFrame,
  projectCovariance,
  projectSplat,
  quatToMat3,
  SH_C0,
  SH_C1,
  shBasis,
  shColor,
  viewDirection,
  type CameraSpec,
} from '../reference/forward-model';

const S = Math.SQRT1_2; // sin 45 = cos 45

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, digits = 6) {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i]).toBeCloseTo(expected[i], digits);
}

// A camera at the origin looking down -z: V = identity. fovy = 90 deg, so
// tan(fovy/2) = 1 and with H = 200: fy = fx = 200 / (2 * 1) = 100.
const ORIGIN_CAM: CameraSpec = { eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], fovyDeg: 90, near: 0.1, far: 100 };

describe('spherical harmonics', () => {
  it('degree 0 is 0.5 + C0 * dc, clamped at 0 but not at 1', () => {
    // dc = (1, -1, 2): 0.5 + 0.28209479177387814 * (1, -1, 2)
    //   = (0.78209479177387814, 0.21790520822612186, 1.0641895835477563)
    const c = shColor(0, [0, 0, 1], [1, -1, 2]);
    expectClose(c, [0.7820947917738781, 0.21790520822612186, 1.0641895835477563], 12);
    // dc = -2: 0.5 - 0.5641895835477563 = -0.064 -> clamped to 0
    expect(shColor(0, [1, 0, 0], [-2, -2, -2])).toEqual([0, 0, 0]);
    // the direction does not matter at degree 0
    expect(shColor(0, [0.6, 0.8, 0], [1, -1, 2])).toEqual(c);
  });

  // Degree 1 with k0 = 0 and one unit coefficient per channel:
  //   k1 (basis -C1*y) feeds red, k2 (basis C1*z) green, k3 (basis -C1*x) blue.
  const deg1 = [0, 0, 0, /*k1*/ 1, 0, 0, /*k2*/ 0, 1, 0, /*k3*/ 0, 0, 1];
  it('degree 1 follows the reference signs (-C1 y, +C1 z, -C1 x)', () => {
    // C1 = 0.4886025119029199
    // dir +z: raw = (0, C1, 0)  -> colour (0.5, 0.9886025119029199, 0.5)
    expectClose(shColor(1, [0, 0, 1], deg1), [0.5, 0.9886025119029199, 0.5], 12);
    // dir +x: raw = (0, 0, -C1) -> colour (0.5, 0.5, 0.0113974880970801)
    expectClose(shColor(1, [1, 0, 0], deg1), [0.5, 0.5, 0.0113974880970801], 12);
    // dir +y: raw = (-C1, 0, 0) -> colour (0.0113974880970801, 0.5, 0.5)
    expectClose(shColor(1, [0, 1, 0], deg1), [0.0113974880970801, 0.5, 0.5], 12);
    // dir -y: raw = (+C1, 0, 0)
    expectClose(evalSH(1, [0, -1, 0], deg1), [SH_C1, 0, 0], 12);
    // dir (1,1,1)/sqrt3: raw = (-C1/sqrt3, +C1/sqrt3, -C1/sqrt3); C1/sqrt3 = sqrt(3/4pi)/sqrt3 = sqrt(1/4pi) = C0
    const d = 1 / Math.sqrt(3);
    expectClose(evalSH(1, [d, d, d], deg1), [-SH_C0, SH_C0, -SH_C0], 12);
  });

  it('evaluating a lower degree uses only the first (degree+1)^2 coefficients', () => {
    const coeffs = Array.from({ length: 48 }, (_, i) => Math.sin(i * 1.7) * 0.4);
    const dir = viewDirection([0.3, -0.5, 0.8], [0, 0, 0]);
    expectClose(evalSH(1, dir, coeffs), evalSH(1, dir, coeffs.slice(0, 12)), 14);
    // and the offset addresses splat i in a coefficient-major array (K = 16)
    const two = [...coeffs.map(() => 0), ...coeffs];
    expectClose(evalSH(3, dir, two, 16 * 3), evalSH(3, dir, coeffs), 14);
  });

  // Independent check of degree 3: real SH from associated Legendre functions
  // (with the Condon-Shortley phase, which is the reference's sign convention),
  //   Y_l^m = sqrt2 K_l^|m| P_l^|m|(cos th) cos(m phi)     m > 0
  //   Y_l^0 = K_l^0 P_l^0(cos th)
  //   Y_l^m = sqrt2 K_l^|m| P_l^|m|(cos th) sin(|m| phi)   m < 0
  //   K_l^m = sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!), index k = l^2 + l + m.
  function legendre(l: number, m: number, x: number): number {
    // P_m^m = (-1)^m (2m-1)!! (1-x^2)^(m/2); P_{m+1}^m = x (2m+1) P_m^m; upward recurrence in l.
    let pmm = 1;
    const sx = Math.sqrt(Math.max(0, 1 - x * x));
    for (let i = 1; i <= m; i++) pmm *= -(2 * i - 1) * sx;
    if (l === m) return pmm;
    let pmm1 = x * (2 * m + 1) * pmm;
    if (l === m + 1) return pmm1;
    let pll = 0;
    for (let ll = m + 2; ll <= l; ll++) {
      pll = ((2 * ll - 1) * x * pmm1 - (ll + m - 1) * pmm) / (ll - m);
      pmm = pmm1;
      pmm1 = pll;
    }
    return pll;
  }
  const fact = (n: number): number => (n <= 1 ? 1 : n * fact(n - 1));
  function realSH(l: number, m: number, dir: number[]): number {
    const am = Math.abs(m);
    const K = Math.sqrt(((2 * l + 1) / (4 * Math.PI)) * (fact(l - am) / fact(l + am)));
    const phi = Math.atan2(dir[1], dir[0]);
    const P = legendre(l, am, dir[2]);
    if (m === 0) return K * P;
    return Math.SQRT2 * K * P * (m > 0 ? Math.cos(m * phi) : Math.sin(am * phi));
  }

  it('the degree-3 basis equals real SH built from associated Legendre functions', () => {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    for (let trial = 0; trial < 50; trial++) {
      const dir = viewDirection([rnd(), rnd(), rnd()], [0, 0, 0]);
      const basis = shBasis(3, dir);
      for (let l = 0; l <= 3; l++) {
        for (let m = -l; m <= l; m++) expect(basis[l * l + l + m]).toBeCloseTo(realSH(l, m, dir), 12);
      }
      // and the full colour with random coefficients
      const coeffs = Array.from({ length: 48 }, () => rnd());
      const expected = [0, 1, 2].map((c) => {
        let s = 0;
        for (let l = 0; l <= 3; l++) for (let m = -l; m <= l; m++) s += realSH(l, m, dir) * coeffs[(l * l + l + m) * 3 + c];
        return Math.max(0, 0.5 + s);
      });
      expectClose(shColor(3, dir, coeffs), expected, 12);
    }
  });

  it('rejects degrees outside 0..3', () => {
    expect(() => shBasis(4, [0, 0, 1])).toThrow(RangeError);
  });
});

describe('3D covariance', () => {
  it('axis-aligned: diag(scale^2)', () => {
    // identity quaternion, scale (1, 2, 3) -> [xx, xy, xz, yy, yz, zz] = [1, 0, 0, 4, 0, 9]
    expectClose(covariance3D([1, 2, 3], [1, 0, 0, 0]), [1, 0, 0, 4, 0, 9]);
    // an unnormalised quaternion is normalised: (2, 0, 0, 0) is the identity
    expectClose(covariance3D([1, 2, 3], [2, 0, 0, 0]), [1, 0, 0, 4, 0, 9]);
    // splatScale multiplies the scales: (2 * (1, 2, 3))^2 = (4, 16, 36)
    expectClose(covariance3D([1, 2, 3], [1, 0, 0, 0], 2), [4, 0, 0, 16, 0, 36]);
  });

  it('90 degrees about z swaps the x and y variances', () => {
    // q = (cos45, 0, 0, sin45): R = [[0,-1,0],[1,0,0],[0,0,1]] takes local x to world y,
    // so world x carries local y's variance 4 and world y local x's 1.
    expectClose(quatToMat3([S, 0, 0, S]), [0, -1, 0, 1, 0, 0, 0, 0, 1], 12);
    expectClose(covariance3D([1, 2, 3], [S, 0, 0, S]), [4, 0, 0, 1, 0, 9]);
  });

  it('90 degrees about x swaps the y and z variances', () => {
    // q = (cos45, sin45, 0, 0): R = [[1,0,0],[0,0,-1],[0,1,0]]: local y -> world z, local z -> world -y
    expectClose(covariance3D([1, 2, 3], [S, S, 0, 0]), [1, 0, 0, 9, 0, 4]);
  });

  it('45 degrees about y mixes x and z', () => {
    // R_y(45) = [[c,0,s],[0,1,0],[-s,0,c]], c = s = sqrt(1/2); scale (0.2, 0.1, 0.05):
    //   xx = c^2 0.04 + s^2 0.0025 = 0.02125,  xz = c s (0.0025 - 0.04) = -0.01875,
    //   zz = s^2 0.04 + c^2 0.0025 = 0.02125,  yy = 0.01,  xy = yz = 0
    const h = (22.5 * Math.PI) / 180;
    expectClose(covariance3D([0.2, 0.1, 0.05], [Math.cos(h), 0, Math.sin(h), 0]), [0.02125, 0, -0.01875, 0.01, 0, 0.02125], 8);
  });
});

describe('projection', () => {
  it('camera basics: focal length and centre', () => {
    const f = makeCameraFrame(ORIGIN_CAM, 200, 200);
    expect(f.fy).toBeCloseTo(100, 5);
    expect(f.fx).toBe(f.fy);
    // the camera at the origin looking down -z: the view matrix is the identity
    expectClose(f.view, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    // a wider image: fx stays fy (square pixels), tan(fovx/2) = 1 * 400/200 = 2
    const w = makeCameraFrame(ORIGIN_CAM, 400, 200);
    expect(w.fx).toBeCloseTo(100, 5);
    expect(w.tanHalfFovX).toBeCloseTo(2, 6);
    // p = (1, 0, -2): x_pix = 400/2 + fx * 1/2 = 250, y_pix = 100
    const p = projectSplat(w, [1, 0, -2], covariance3D([0.1, 0.1, 0.1], [1, 0, 0, 0]))!;
    expectClose(p.center, [250, 100], 4);
  });

  it('isotropic splat straight ahead: cov2D = (f s / d)^2 + 0.3 on the diagonal', () => {
    const f = makeCameraFrame(ORIGIN_CAM, 200, 200);
    // s = 0.1 at (0, 0, -2): d = 2, (100 * 0.1 / 2)^2 = 25, + 0.3 = 25.3
    const p = projectSplat(f, [0, 0, -2], covariance3D([0.1, 0.1, 0.1], [1, 0, 0, 0]))!;
    expect(p).not.toBeNull();
    expect(p.depth).toBeCloseTo(2, 12);
    expectClose(p.cov2D, [25.3, 0, 25.3], 5);
    expectClose(p.conic, [1 / 25.3, 0, 1 / 25.3], 8);
    // radius = 3 sqrt(25.3) = 15.0896...
    expect(p.radius).toBeCloseTo(3 * Math.sqrt(25.3), 5);
    expectClose(p.center, [100, 100], 5);
    expect(p.key).toBe(depthKey(2));

    // the same from a camera at (0, 0, 5) looking at the origin: d = 5,
    // (100 * 0.1 / 5)^2 = 4, + 0.3 = 4.3
    const g = makeCameraFrame({ ...ORIGIN_CAM, eye: [0, 0, 5], target: [0, 0, 0] }, 200, 200);
    const q = projectSplat(g, [0, 0, 0], covariance3D([0.1, 0.1, 0.1], [1, 0, 0, 0]))!;
    expect(q.depth).toBeCloseTo(5, 6);
    expectClose(q.cov2D, [4.3, 0, 4.3], 5);
  });

  it('uses the rotation of the view: looking down -x, image x is world -z', () => {
    // eye (5,0,0) -> origin, up +y: view z = +x, view x = up x z = (0,0,-1), view y = (0,1,0).
    // axis-aligned scale (0.1, 0.2, 0.3) at the origin, d = 5, f/d = 20:
    //   cov_xx = 400 * 0.3^2 + 0.3 = 36.3, cov_yy = 400 * 0.2^2 + 0.3 = 16.3
    const f = makeCameraFrame({ ...ORIGIN_CAM, eye: [5, 0, 0], target: [0, 0, 0] }, 200, 200);
    const p = projectSplat(f, [0, 0, 0], covariance3D([0.1, 0.2, 0.3], [1, 0, 0, 0]))!;
    expectClose(p.cov2D, [36.3, 0, 16.3], 4);
  });

  it('tilted splat off-axis (hand-computed J W Sigma W^T J^T)', () => {
    const f = makeCameraFrame(ORIGIN_CAM, 200, 200);
    // Sigma from the 45-degree case above: xx = zz = 0.02125, xz = -0.01875, yy = 0.01.
    // p = (1, 1, -2): d = 2, tx/d = ty/d = 0.5 (inside the 1.3 clamp),
    //   J = [[100/2, 0, 100*1/4], [0, -100/2, -100*1/4]] = [[50, 0, 25], [0, -50, -25]], Wv = I.
    //   a = 2500 xx + 2*50*25 xz + 625 zz = 53.125 - 46.875 + 13.28125 = 19.53125 (+0.3)
    //   b = J0 Sigma J1^T = 50*(-25 xz) + 25*(-25 zz) = 23.4375 - 13.28125 = 10.15625
    //   c = 2500 yy + 625 zz = 25 + 13.28125 = 38.28125 (+0.3)
    const h = (22.5 * Math.PI) / 180;
    const p = projectSplat(f, [1, 1, -2], covariance3D([0.2, 0.1, 0.05], [Math.cos(h), 0, Math.sin(h), 0]))!;
    const a = 19.83125, b = 10.15625, c = 38.58125;
    expectClose(p.cov2D, [a, b, c], 4);
    const det = a * c - b * b; // 765.1... - 103.15... = 661.96...
    expectClose(p.conic, [c / det, -b / det, a / det], 6);
    // lambda_max = mid + sqrt(mid^2 - det), mid = (a + c)/2
    const mid = (a + c) / 2;
    expect(p.radius).toBeCloseTo(3 * Math.sqrt(mid + Math.sqrt(mid * mid - det)), 4);
    expect(lambdaMax([a, b, c])).toBeCloseTo(mid + Math.sqrt(mid * mid - det), 9);
    // centre: ndc = (0.5, 0.5) -> pixels ((0.75) 200, (0.5 - 0.25) 200) = (150, 50)
    expectClose(p.center, [150, 50], 4);
    // every offset with power <= 9 lies within the radius (the quad covers the footprint)
    for (let t = 0; t < 360; t += 5) {
      const ang = (t * Math.PI) / 180;
      const ux = Math.cos(ang), uy = Math.sin(ang);
      const r9 = Math.sqrt(CUTOFF_POWER / gaussianPower(p.conic, ux, uy));
      expect(r9).toBeLessThanOrEqual(p.radius + 1e-9);
    }
  });

  it('clamps tx/d to 1.3 tan(fovx/2) in the Jacobian', () => {
    const f = makeCameraFrame(ORIGIN_CAM, 200, 200);
    // tView = (10, 0, -2): tx/d = 5 -> clamped to 1.3 -> tx = 2.6; J0 = [50, 0, 100*2.6/4 = 65].
    // isotropic 0.1: a = 0.01 (50^2 + 65^2) + 0.3 = 0.01 * 6725 + 0.3 = 67.55 (unclamped: 181.55)
    const p = projectCovariance(covariance3D([0.1, 0.1, 0.1], [1, 0, 0, 0]), [10, 0, -2], f)!;
    expect(p.cov2D[0]).toBeCloseTo(67.55, 4);
    expect(p.cov2D[2]).toBeCloseTo(25.3, 4);
  });

  it('culls behind the near plane and far outside the frustum', () => {
    const f = makeCameraFrame(ORIGIN_CAM, 200, 200);
    const cov = covariance3D([0.1, 0.1, 0.1], [1, 0, 0, 0]);
    expect(projectSplat(f, [0, 0, 1], cov)).toBeNull(); // behind
    expect(projectSplat(f, [0, 0, -0.1], cov)).toBeNull(); // d == near
    expect(projectSplat(f, [0, 0, -0.11], cov)).not.toBeNull();
    // at d = 1, ndc_x = x (tan = 1, aspect 1)
    expect(projectSplat(f, [1.29, 0, -1], cov)).not.toBeNull();
    expect(projectSplat(f, [1.31, 0, -1], cov)).toBeNull();
    expect(projectSplat(f, [0, -1.31, -1], cov)).toBeNull();
    // a degenerate (zero) covariance is still drawn thanks to the low-pass: cov2D = 0.3 I
    const z = projectSplat(f, [0, 0, -1], [0, 0, 0, 0, 0, 0])!;
    expectClose(z.cov2D, [0.3, 0, 0.3], 9);
  });
});

describe('fragments, blending and keys', () => {
  it('alpha = opacity exp(-power/2) with the 3-sigma and 1/255 cut-offs', () => {
    const conic: [number, number, number] = [0.25, 0, 0.25]; // cov2D = 4 I
    // dx = 2: power = 0.25 * 4 = 1 -> 0.8 e^-0.5 = 0.48522...
    expect(fragmentAlpha(0.8, conic, 2, 0)).toBeCloseTo(0.8 * Math.exp(-0.5), 12);
    // dx = 6: power = 9 exactly -> still counts: 0.8 e^-4.5 = 0.008887 > 1/255
    expect(fragmentAlpha(0.8, conic, 6, 0)).toBeCloseTo(0.8 * Math.exp(-4.5), 12);
    expect(fragmentAlpha(0.8, conic, 6.01, 0)).toBe(0); // power > 9
    // 0.3 e^-4.5 = 0.0033 < 1/255 = 0.0039 -> nothing
    expect(fragmentAlpha(0.3, conic, 6, 0)).toBe(0);
    // no 0.99 cap: opacity 1 at the centre gives alpha 1
    expect(fragmentAlpha(1, conic, 0, 0)).toBe(1);
    // off-diagonal term: conic [1, 0.5, 1], (1, 1): 1 + 2*0.5 + 1 = 3
    expect(gaussianPower([1, 0.5, 1], 1, 1)).toBe(3);
  });

  it('premultiplied over, then straight colour over the background', () => {
    const acc = new Float32Array(4);
    blendOver(acc, 0, [1, 0, 0], 0.5); // (0.5, 0, 0, 0.5)
    blendOver(acc, 0, [0, 1, 0], 0.5); // (0.25, 0.5, 0, 0.75)
    expectClose(acc, [0.25, 0.5, 0, 0.75], 7);
    // over white: rgb + (1 - 0.75) * 1 = (0.5, 0.75, 0.25)
    expectClose(compositeOverBackground([acc[0], acc[1], acc[2]], acc[3], [1, 1, 1]), [0.5, 0.75, 0.25], 7);
  });

  it('depth keys sort back to front', () => {
    // bits(1.0) = 0x3F800000 -> key 0xFFFFFFFF - 0x3F800000 = 0xC07FFFFF
    expect(floatBitsAsU32(1)).toBe(0x3f800000);
    expect(depthKey(1)).toBe(0xc07fffff);
    // bits(2.0) = 0x40000000 -> 0xBFFFFFFF < key(1): the farther splat sorts first
    expect(depthKey(2)).toBe(0xbfffffff);
    const depths = [0.11, 0.5, 1, 1.0000001, 3.7, 100, 1e6];
    for (let i = 1; i < depths.length; i++) expect(depthKey(depths[i])).toBeLessThan(depthKey(depths[i - 1]));
    expect(depthKey(0.5)).toBeLessThanOrEqual(0xffffffff);
  });

  it('floatToOrderedKey preserves the order of all floats', () => {
    expect(floatToOrderedKey(0)).toBe(0x80000000);
    expect(floatToOrderedKey(1)).toBe(0xbf800000);
    expect(floatToOrderedKey(-1)).toBe(0x407fffff); // ~0xBF800000
    const xs = [-Infinity, -1e30, -2, -1, -1e-30, 0, 1e-30, 1, 2, 1e30, Infinity];
    for (let i = 1; i < xs.length; i++) expect(floatToOrderedKey(xs[i])).toBeGreaterThan(floatToOrderedKey(xs[i - 1]));
  });
});

describe('the anti-aliased mode (Mip-Splatting 2D filter)', () => {
  const f = makeCameraFrame(ORIGIN_CAM, 200, 200);

  it('isotropic splats: the factor is det-before / det-after = raw / (raw + 0.3) per axis', () => {
    // s = 0.1 at d = 2: raw (100 * 0.1 / 2)^2 = 25 on the diagonal: sqrt(25^2 / 25.3^2) = 25 / 25.3
    const big = projectSplat(f, [0, 0, -2], covariance3D([0.1, 0.1, 0.1], [1, 0, 0, 0]))!;
    expect(big.aaFactor).toBeCloseTo(25 / 25.3, 6);
    // sub-pixel: s = 0.002 at d = 2: raw 0.01 px^2: 0.01 / 0.31, the splat is dimmed ~31x
    const tiny = projectSplat(f, [0, 0, -2], covariance3D([0.002, 0.002, 0.002], [1, 0, 0, 0]))!;
    expectClose(tiny.cov2D, [0.31, 0, 0.31], 6);
    expect(tiny.aaFactor).toBeCloseTo(0.01 / 0.31, 6);
    expect(effectiveOpacity(0.8, tiny, true)).toBeCloseTo((0.8 * 0.01) / 0.31, 6);
    expect(effectiveOpacity(0.8, tiny, false)).toBe(0.8);
    expect(effectiveOpacity(0.8, tiny)).toBe(0.8); // off by default
  });

  it('keeps the alpha integrated over the screen: opacity' + "'" + 's 2 pi sqrt(det) is that of the unfiltered splat', () => {
    // anisotropic and rotated: raw = R diag(25, 0.04) R^T for a 30 degree roll about the view axis
    const a = Math.PI / 6;
    const p = projectSplat(f, [0, 0, -2], covariance3D([0.1, 0.004, 0.05], [Math.cos(a / 2), 0, 0, Math.sin(a / 2)]))!;
    const [ca, cb, cc] = p.cov2D;
    const det0 = (ca - 0.3) * (cc - 0.3) - cb * cb;
    // (the covariance is stored as f32: a few ulps of 25 on the diagonal)
    expect(det0).toBeCloseTo(25 * 0.04, 4);
    expect(p.aaFactor).toBeCloseTo(Math.sqrt((25 * 0.04) / (25.3 * 0.34)), 4); // eigenvalues 25.3, 0.34 after
    expect(0.7 * p.aaFactor * Math.sqrt(p.det)).toBeCloseTo(0.7 * Math.sqrt(det0), 9);
  });

  it('0 when the det before the low-pass is <= 0 (a splat flat in the view)', () => {
    expect(antialiasFactor([0.3, 0, 5.3])).toBe(0); // raw (0, 0, 5): det 0
    expect(antialiasFactor([1.3, 2, 4.3])).toBe(0); // raw (1, 2, 4): det -3 (not a covariance)
    expect(antialiasFactor([1.3, 0, 1.3])).toBeCloseTo(1 / 1.3, 12);
  });
});
