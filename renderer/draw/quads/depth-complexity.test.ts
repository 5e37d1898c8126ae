import { describe, expect, it } from 'vitest';
import { computeBounds, type SplatCloud } from '../../../scenes/splat-cloud';
import { frameCamera } from '../../camera/frame-camera';
import { estimateLayers } from './depth-complexity';

/** n isotropic splats of scale s and opacity o at the given positions. */
function cloudOf(points: [number, number, number][], s: number, o: number): SplatCloud {
  const n = points.length;
  const positions = new Float32Array(points.flat());
  return {
    count: n,
    shDegree: 0,
    positions,
    scales: new Float32Array(3 * n).fill(s),
    rotations: new Float32Array(4 * n).map((_, i) => (i % 4 === 0 ? 1 : 0)),
    opacities: new Float32Array(n).fill(o),
    sh: new Float32Array(3 * n),
    bounds: computeBounds(positions),
    source: { name: 'test', format: 'test' },
  };
}

const W = 400, H = 300;
const pose = { eye: [0, 0, -5] as [number, number, number], target: [0, 0, 0] as [number, number, number], up: [0, -1, 0] as [number, number, number], fovyDeg: 60 };
const focal = H / (2 * Math.tan(Math.PI / 6));

describe('estimateLayers', () => {
  it('sums the contour ellipses of splats facing the camera: 9 pi (sigma^2 + 0.3) px^2 each at opacity 1', () => {
    const s = 0.05;
    // 200 splats on the view axis's plane z = 0, all on screen, distance 5.
    const pts: [number, number, number][] = [];
    for (let i = 0; i < 200; i++) pts.push([((i % 20) - 10) * 0.1, (Math.floor(i / 20) - 5) * 0.1, 0]);
    const cloud = cloudOf(pts, s, 1);
    const cam = frameCamera(pose, W, H, cloud.bounds);
    const sigma = (focal * s) / 5;
    // Off-axis splats are a little larger (the Jacobian's x/d^2 terms): within 5%.
    const expected = (200 * 9 * Math.PI * (sigma * sigma + 0.3)) / (W * H);
    const got = estimateLayers(cloud, cam);
    expect(got).toBeGreaterThan(expected * 0.99);
    expect(got).toBeLessThan(expected * 1.05);
  });

  it('the 1/255 contour shrinks with opacity; splats behind the camera, off screen or invisible add nothing', () => {
    const s = 0.05;
    const sigma = (focal * s) / 5;
    const faint = cloudOf([[0, 0, 0]], s, 0.05);
    const cam = frameCamera(pose, W, H, faint.bounds);
    const r2 = 2 * Math.log(255 * 0.05);
    expect(estimateLayers(faint, cam)).toBeCloseTo((Math.PI * r2 * (sigma * sigma + 0.3)) / (W * H), 6);
    const none = cloudOf([[0, 0, -10], [50, 0, 0], [0, 0, 0]], s, 1);
    none.opacities[2] = 0.001;
    expect(estimateLayers(none, frameCamera(pose, W, H, none.bounds))).toBe(0);
  });

  it('scales a strided sample to the whole cloud', () => {
    const pts: [number, number, number][] = [];
    for (let i = 0; i < 100_000; i++) pts.push([Math.sin(i) * 0.5, Math.cos(i * 1.7) * 0.5, (i % 7) * 0.01]);
    const cloud = cloudOf(pts, 0.02, 0.9);
    const cam = frameCamera(pose, W, H, cloud.bounds);
    const full = estimateLayers(cloud, cam, 1, cloud.count);
    const sampled = estimateLayers(cloud, cam);
    expect(Math.abs(sampled - full) / full).toBeLessThan(0.05);
    // splatScale 2 quadruples sigma^2.
    expect(estimateLayers(cloud, cam, 2)).toBeGreaterThan(sampled * 2);
  });
});
