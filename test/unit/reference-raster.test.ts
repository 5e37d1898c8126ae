import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { computeBounds, type SplatCloud } from '../../scenes/splat-cloud';
import { makeCameraFrame, projectSplat, SH_C0, type CameraSpec } from '../reference/forward-model';
import { generateDefaultScene, rotateX180 } from '../../scenes/generate';
import { maxAbsError, psnr, rasterizeReference, toPng } from '../reference/raster';

interface TestSplat {
  pos: [number, number, number];
  scale: number; // isotropic
  opacity: number;
  rgb: [number, number, number]; // degree-0 colour
}

/** A degree-0 cloud: dc = (rgb - 0.5) / C0 so that 0.5 + C0 dc = rgb. */
function cloudOf(splats: TestSplat[]): SplatCloud {
  const n = splats.length;
  const positions = new Float32Array(n * 3);
  const scales = new Float32Array(n * 3);
  const rotations = new Float32Array(n * 4);
  const opacities = new Float32Array(n);
  const sh = new Float32Array(n * 3);
  splats.forEach((s, i) => {
    positions.set(s.pos, i * 3);
    scales.set([s.scale, s.scale, s.scale], i * 3);
    rotations.set([1, 0, 0, 0], i * 4);
    opacities[i] = s.opacity;
    sh.set(s.rgb.map((c) => (c - 0.5) / SH_C0), i * 3);
  });
  return { count: n, shDegree: 0, positions, scales, rotations, opacities, sh, bounds: computeBounds(positions), source: { name: 'test', format: 'generated' } };
}

// 21 x 21 pixels, fovy 90: fy = 21 / (2 tan 45) = 10.5; the camera at the origin looks down -z,
// so a splat on the axis projects to (10.5, 10.5), the centre of pixel (10, 10).
const CAM: CameraSpec = { eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], fovyDeg: 90, near: 0.1, far: 100 };
const OPTS = { width: 21, height: 21, shDegree: 0, splatScale: 1, background: [0.2, 0.2, 0.2] as [number, number, number] };

const px = (img: Float32Array, x: number, y: number, w = 21) => Array.from(img.subarray((y * w + x) * 3, (y * w + x) * 3 + 3));

describe('reference rasteriser', () => {
  // Listed front first: the rasteriser must sort them back to front.
  const front: TestSplat = { pos: [0, 0, -2], scale: 0.5, opacity: 0.6, rgb: [0, 1, 0] };
  const back: TestSplat = { pos: [0, 0, -4], scale: 0.4, opacity: 0.8, rgb: [1, 0, 0] };
  const behindCamera: TestSplat = { pos: [0, 0, 1], scale: 0.5, opacity: 1, rgb: [0, 0, 1] };

  it('blends two translucent splats back to front at the centre pixel', () => {
    const out = rasterizeReference(cloudOf([front, back, behindCamera]), CAM, OPTS);
    expect(out.drawn).toBe(2); // the one behind the camera is culled
    // centre pixel: dx = 0 -> alpha = opacity.
    //   back red 0.8:    acc = (0.8, 0, 0, 0.8)
    //   front green 0.6: acc = (0.6*0 + 0.4*0.8, 0.6*1, 0, 0.6 + 0.4*0.8) = (0.32, 0.6, 0, 0.92)
    //   over grey 0.2:   rgb = acc + 0.08 * 0.2 = (0.336, 0.616, 0.016)
    const c = px(out.rgb, 10, 10);
    expect(c[0]).toBeCloseTo(0.336, 6);
    expect(c[1]).toBeCloseTo(0.616, 6);
    expect(c[2]).toBeCloseTo(0.016, 6);
    expect(out.alpha[10 * 21 + 10]).toBeCloseTo(0.92, 6);
  });

  it('uses the projected 2D covariance one pixel off centre', () => {
    const out = rasterizeReference(cloudOf([front, back]), CAM, OPTS);
    // pixel (11, 10): dx = 1, dy = 0.
    //   back:  cov = (10.5 * 0.4 / 4)^2 + 0.3 = 1.05^2 + 0.3 = 1.4025, power = 1 / 1.4025
    //   front: cov = (10.5 * 0.5 / 2)^2 + 0.3 = 2.625^2 + 0.3 = 7.190625, power = 1 / 7.190625
    const ab = 0.8 * Math.exp(-0.5 / 1.4025); // 0.8 e^-0.35651 = 0.56018
    const af = 0.6 * Math.exp(-0.5 / 7.190625); // 0.6 e^-0.06954 = 0.55970
    const acc = [(1 - af) * ab, af, 0];
    const a = af + (1 - af) * ab;
    const c = px(out.rgb, 11, 10);
    for (let k = 0; k < 3; k++) expect(c[k]).toBeCloseTo(acc[k] + (1 - a) * 0.2, 6);
    // symmetric about the centre (isotropic splats on the axis)
    expect(maxAbsError(px(out.rgb, 9, 10), c)).toBeLessThan(1e-6);
    expect(maxAbsError(px(out.rgb, 10, 9), c)).toBeLessThan(1e-6);
    // a corner pixel is outside both 3-sigma footprints: background, alpha 0
    //   front radius = 3 sqrt(7.190625) = 8.04 px; corner (0,0) is ~14.1 px away
    expect(px(out.rgb, 0, 0)).toEqual([0.2, 0.2, 0.2].map(Math.fround));
    expect(out.alpha[0]).toBe(0);
  });

  it('an opaque splat in front hides the one behind at its centre', () => {
    const opaque: TestSplat = { ...front, opacity: 1, rgb: [0.25, 0.5, 0.75] };
    const out = rasterizeReference(cloudOf([back, opaque]), CAM, OPTS);
    // alpha = 1 at dx = 0: acc = (0.25, 0.5, 0.75, 1) whatever lies behind
    const c = px(out.rgb, 10, 10);
    expect(maxAbsError(c, [0.25, 0.5, 0.75])).toBeLessThan(1e-6);
    // swapping their depths shows the red one in front instead
    const swapped = rasterizeReference(cloudOf([{ ...back, pos: [0, 0, -1], opacity: 1 }, opaque]), CAM, OPTS);
    expect(maxAbsError(px(swapped.rgb, 10, 10), [1, 0, 0])).toBeLessThan(1e-6);
  });

  it('puts an upward offset in the upper half of the image (row 0 is the top)', () => {
    const up: TestSplat = { pos: [0, 1, -2], scale: 0.1, opacity: 1, rgb: [1, 1, 1] };
    // ndc_y = 1/2 / tan45 = 0.5 -> y_pix = (0.5 - 0.25) * 21 = 5.25 -> pixel row 4 (centre 4.5) or 5 (5.5)
    const out = rasterizeReference(cloudOf([up]), CAM, { ...OPTS, background: [0, 0, 0] });
    expect(out.alpha[5 * 21 + 10]).toBeGreaterThan(0.5);
    expect(out.alpha[15 * 21 + 10]).toBe(0);
  });

  it('psnr, maxAbsError and toPng', () => {
    expect(psnr([0, 0.5, 1], [0, 0.5, 1])).toBe(Infinity);
    // mse = 0.1^2 / 1 = 0.01 -> 20 dB
    expect(psnr([0.1], [0])).toBeCloseTo(20, 9);
    expect(maxAbsError([0, 1, 2], [0, 1.5, 1.75])).toBe(0.5);
    const png = PNG.sync.read(toPng(Float32Array.of(1, 0, 0.5, -1, 2, 0.2), 2, 1));
    expect([png.width, png.height]).toEqual([2, 1]);
    expect(Array.from(png.data)).toEqual([255, 0, 128, 255, 0, 255, 51, 255]);
  });
});

describe('reference rasteriser on the default scene', () => {
  const scene = generateDefaultScene(20_000);
  // The default scene is in the COLMAP frame: look along +z with up = -y.
  const orbit = (deg: number): CameraSpec => {
    const a = (deg * Math.PI) / 180;
    return { eye: [8.5 * Math.sin(a), -2.2, -8.5 * Math.cos(a)], target: [0, -1.2, 0], up: [0, -1, 0], fovyDeg: 50, near: 0.1, far: 100 };
  };
  const size = { width: 96, height: 72, background: [0, 0, 0] as [number, number, number] };

  it('renders the same image after rotating scene and camera by 180 degrees about x (SH included)', () => {
    const cam = orbit(30);
    const a = rasterizeReference(scene, cam, size);
    const flip = (v: ArrayLike<number>) => [v[0], -v[1], -v[2]];
    const b = rasterizeReference(rotateX180(scene), { ...cam, eye: flip(cam.eye), target: flip(cam.target), up: flip(cam.up) }, size);
    expect(a.drawn).toBeGreaterThan(15_000);
    expect(maxAbsError(a.rgb, b.rgb)).toBeLessThan(1e-4);
  });

  it("shows view-dependent colour: the chameleon sphere's hue turns as the camera orbits", () => {
    // the sphere's centre: designed at (2.9, 0.85, 0.4) y-up, stored as (2.9, -0.85, -0.4)
    const centre = [2.9, -0.85, -0.4];
    const sample = (deg: number) => {
      const cam = orbit(deg);
      const img = rasterizeReference(scene, cam, size);
      const p = projectSplat(makeCameraFrame(cam, size.width, size.height), centre, [0, 0, 0, 0, 0, 0])!;
      return px(img.rgb, Math.floor(p.center[0]), Math.floor(p.center[1]), size.width);
    };
    const dominant = (c: number[]) => c.indexOf(Math.max(...c));
    // front: red; 120 degrees around: green; 240: blue
    expect(dominant(sample(0))).toBe(0);
    expect(dominant(sample(120))).toBe(1);
    expect(dominant(sample(240))).toBe(2);
  });
});
