import { SH_C0, shBasisInto } from './sh';
import { computeBounds, type SplatCloud } from './splat-cloud';
import {
  BAND_OF,
  GOLDEN_ANGLE,
  Rng,
  Writer,
  cross,
  dot,
  emptyCloud,
  fibonacciDir,
  flipYZInPlace,
  hsv,
  lobeWeights,
  normalize3,
  projectToSH,
  quatFromAxes,
  splitCount,
  tangentFrame,
  type V3,
} from './generate-kit';

/**
 * The built-in default scene (about `count` splats, default 60,000; SH degree 3),
 * built to show at a glance that splatting, sorting and SH work:
 *
 *  - a checkered ground disc of flat, anisotropic splats (radius 4.5);
 *  - a trefoil torus knot standing on it, a tube of splats elongated along the
 *    curve, rainbow hue along its length, baked diffuse shading and a white
 *    view-dependent sheen (a zonal SH lobe around each splat's mirror direction);
 *  - on the right a "chameleon" sphere whose hue turns as you orbit it (its
 *    colour is an SH function of the view direction: red seen from the front,
 *    green and blue from 120 and 240 degrees around);
 *  - on the left three nested translucent shells (cyan, magenta, yellow core):
 *    wrong depth ordering shows at once.
 *
 * Frame: the scene is designed y-up and stored in the COLMAP frame like a
 * trained scene (y down, z forward; the ground is at y = 0 and the objects
 * stand at negative y). The viewer's default "turn COLMAP upright" shows it
 * upright; without it, look along +z with up = (0, -1, 0) from about
 * eye = (0, -2.2, -8.5), target = (0, -1.2, 0). Deterministic.
 */
export function generateDefaultScene(count = 60_000): SplatCloud {
  count = Math.max(0, Math.floor(count));
  const cloud = emptyCloud(count, 3);
  const w = new Writer(cloud);
  const rng = new Rng(0x5eed);
  const [nGround, nKnot, nSphere, nShells] = splitCount(count, [0.3, 0.35, 0.15, 0.2]);
  const light = normalize3([0.45, 0.8, 0.55]);
  const sh = new Float64Array(48);
  const basis = new Float64Array(16);
  const dcOf = (c: number) => (c - 0.5) / SH_C0;

  // Ground: sunflower-spiral disc, checkered, flat splats (thin along y), fading out at the rim.
  {
    const R = 4.5;
    const spacing = Math.sqrt((Math.PI * R * R) / Math.max(1, nGround));
    const cream: V3 = [0.93, 0.87, 0.74];
    const slate: V3 = [0.13, 0.2, 0.36];
    const cell = 0.75;
    for (let i = 0; i < nGround; i++) {
      const r = R * Math.sqrt((i + 0.5) / nGround);
      const a = i * GOLDEN_ANGLE;
      const x = r * Math.cos(a) + 0.3 * spacing * rng.normal();
      const z = r * Math.sin(a) + 0.3 * spacing * rng.normal();
      const odd = (Math.floor(x / cell) + Math.floor(z / cell)) & 1;
      const base = odd ? slate : cream;
      const shade = 0.85 + 0.15 * rng.next();
      sh.fill(0);
      for (let ch = 0; ch < 3; ch++) sh[ch] = dcOf(base[ch] * shade);
      // elongated along a random in-plane direction; thin along the normal (y)
      const [t, b, n] = tangentFrame([0, 1, 0], rng.range(0, Math.PI));
      const q = quatFromAxes(t, b, n);
      const edge = Math.min(1, (R - r) / (0.15 * R));
      w.push([x, 0, z], [1.1 * spacing, 0.55 * spacing, 0.06 * spacing], q, 0.95 * Math.max(0.05, edge), sh);
    }
  }

  // Trefoil torus knot, standing in the xy plane (facing the +z viewer).
  {
    const centre: V3 = [0, 1.85, 0];
    const Rk = 1.0, rk = 0.45, tube = 0.14;
    const curve = (t: number): V3 => {
      const a = 2 * Math.PI * t;
      const rr = Rk + rk * Math.cos(3 * a);
      return [rr * Math.cos(2 * a), rr * Math.sin(2 * a), rk * Math.sin(3 * a)];
    };
    const length = 17.6; // of this curve, to within a few percent
    const spacing = Math.sqrt((length * 2 * Math.PI * tube) / Math.max(1, nKnot));
    const lobe = lobeWeights(6);
    for (let i = 0; i < nKnot; i++) {
      const t = (i + rng.next()) / nKnot;
      const c0 = curve(t), c1 = curve(t + 1e-4);
      const T = normalize3([c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]]);
      // a normal to the curve: the component of (c - knot axis) orthogonal to T
      const Nraw: V3 = [c0[0], c0[1], c0[2]];
      const d = dot(Nraw, T);
      const N = normalize3([Nraw[0] - d * T[0], Nraw[1] - d * T[1], Nraw[2] - d * T[2]]);
      const B = cross(T, N);
      const phi = i * GOLDEN_ANGLE * 7 + rng.normal() * 0.05;
      const radial = normalize3([
        Math.cos(phi) * N[0] + Math.sin(phi) * B[0],
        Math.cos(phi) * N[1] + Math.sin(phi) * B[1],
        Math.cos(phi) * N[2] + Math.sin(phi) * B[2],
      ]);
      const circ = cross(radial, T);
      const rho = tube * (0.92 + 0.08 * rng.next());
      const p: V3 = [
        centre[0] + c0[0] + rho * radial[0],
        centre[1] + c0[1] + rho * radial[1],
        centre[2] + c0[2] + rho * radial[2],
      ];
      const hue = (2 * t) % 1;
      const diffuse = 0.3 + 0.7 * Math.max(0, dot(radial, light));
      const base = hsv(hue, 0.8, 1).map((v) => v * diffuse) as V3;
      sh.fill(0);
      for (let ch = 0; ch < 3; ch++) sh[ch] = dcOf(base[ch]);
      // sheen: h(dir . m) with m the mirror of the light in the surface
      // (a highlight when the view direction reflects onto the light), zero-mean
      // (bands 1..3 only) so that the base colour is the average
      const ln = dot(light, radial);
      const m = normalize3([
        2 * ln * radial[0] - light[0],
        2 * ln * radial[1] - light[1],
        2 * ln * radial[2] - light[2],
      ]);
      const axis: V3 = [-m[0], -m[1], -m[2]]; // dir points from the eye to the splat
      shBasisInto(3, axis[0], axis[1], axis[2], basis);
      const amp = 0.9;
      for (let k = 1; k < 16; k++) for (let ch = 0; ch < 3; ch++) sh[k * 3 + ch] += amp * lobe[BAND_OF[k]] * basis[k];
      w.push(p, [1.6 * spacing, 0.9 * spacing, 0.25 * spacing], quatFromAxes(T, circ, radial), 0.9, sh);
    }
  }

  // Chameleon sphere: one SH colour function of the view direction for all its
  // splats (hue = azimuth of the view direction), times baked diffuse shading.
  {
    const centre: V3 = [2.9, 0.85, 0.4];
    const R = 0.8;
    const spacing = Math.sqrt((4 * Math.PI * R * R) / Math.max(1, nSphere));
    // the view direction d points from the eye to the splat: seen from +z
    // (d = -z) the hue is 0 (red); orbiting by 120 degrees gives green, 240 blue
    const F = projectToSH((d) => hsv(((Math.atan2(-d[0], -d[2]) / (2 * Math.PI)) % 1 + 1) % 1, 0.9, 1));
    for (let i = 0; i < nSphere; i++) {
      const n = fibonacciDir(i, nSphere);
      const [t, b] = tangentFrame(n, rng.range(0, Math.PI));
      const p: V3 = [centre[0] + R * n[0], centre[1] + R * n[1], centre[2] + R * n[2]];
      const shade = 0.35 + 0.65 * Math.max(0, dot(n, light));
      // colour(d) = shade * F(d): SH is linear, so scale all coefficients of
      // (F - 0.5) and fix the DC so that 0.5 + ... = shade * F
      for (let k = 0; k < 48; k++) sh[k] = shade * F[k];
      for (let ch = 0; ch < 3; ch++) sh[ch] += (shade - 1) * 0.5 / SH_C0;
      w.push(p, [1.0 * spacing, 0.7 * spacing, 0.08 * spacing], quatFromAxes(t, b, n), 0.95, sh);
    }
  }

  // Nested translucent shells: cyan (outer), magenta, and a yellow opaque core.
  {
    const centre: V3 = [-2.9, 0.9, 0.4];
    const shells: { r: number; rgb: V3; opacity: number; share: number }[] = [
      { r: 0.85, rgb: [0.1, 0.85, 0.95], opacity: 0.07, share: 0.45 },
      { r: 0.58, rgb: [0.95, 0.15, 0.75], opacity: 0.12, share: 0.33 },
      { r: 0.3, rgb: [1.0, 0.85, 0.1], opacity: 0.95, share: 0.22 },
    ];
    const counts = splitCount(nShells, shells.map((s) => s.share));
    shells.forEach((s, si) => {
      const ns = counts[si];
      const spacing = Math.sqrt((4 * Math.PI * s.r * s.r) / Math.max(1, ns));
      for (let i = 0; i < ns; i++) {
        const n = fibonacciDir(i, ns);
        const [t, b] = tangentFrame(n, rng.range(0, Math.PI));
        const p: V3 = [centre[0] + s.r * n[0], centre[1] + s.r * n[1], centre[2] + s.r * n[2]];
        const shade = 0.55 + 0.45 * Math.max(0, dot(n, light));
        sh.fill(0);
        for (let ch = 0; ch < 3; ch++) sh[ch] = dcOf(s.rgb[ch] * shade);
        w.push(p, [1.2 * spacing, 0.6 * spacing, 0.1 * spacing], quatFromAxes(t, b, n), s.opacity, sh);
      }
    });
  }

  flipYZInPlace(cloud); // designed y-up; stored in the COLMAP frame
  cloud.bounds = computeBounds(cloud.positions);
  cloud.source = { name: 'default', format: 'generated' };
  return cloud;
}
