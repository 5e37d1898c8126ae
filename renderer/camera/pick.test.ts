import { describe, expect, it } from 'vitest';
import { projectionMatrix, viewMatrix, type Vec3 } from './camera';
import { pickSplat, type PickCamera, type PickScene } from './pick';

function scene(splats: { at: Vec3; scale: number; opacity: number }[]): PickScene {
  return {
    count: splats.length,
    positions: Float32Array.from(splats.flatMap((s) => s.at)),
    scales: Float32Array.from(splats.flatMap((s) => [s.scale, s.scale, s.scale])),
    opacities: Float32Array.from(splats.map((s) => s.opacity)),
  };
}

// Camera at the origin looking down -z (gl-matrix lookAt), 200 x 100 px, 60 degrees.
const cam: PickCamera = {
  view: viewMatrix({ eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], fovyDeg: 60 }),
  proj: projectionMatrix(60, 2, 0.1, 100),
  width: 200,
  height: 100,
  near: 0.1,
  far: 100,
};

describe('pickSplat (double-click focus, CPU pick from the scene data)', () => {
  it('picks the opaque splat behind a faint floater on the same ray', () => {
    const s = scene([
      { at: [0, 0, -2], scale: 0.05, opacity: 0.1 }, // floater in front
      { at: [0, 0, -5], scale: 0.2, opacity: 0.95 }, // the surface
    ]);
    const hit = pickSplat(s, cam, 100, 50)!;
    expect(hit.index).toBe(1);
    expect(hit.point).toEqual([0, 0, -5]);
    expect(hit.depth).toBeCloseTo(5, 5);
  });

  it('an opaque splat in front hides the one behind', () => {
    const s = scene([
      { at: [0, 0, -2], scale: 0.1, opacity: 0.99 },
      { at: [0, 0, -5], scale: 0.2, opacity: 0.99 },
    ]);
    expect(pickSplat(s, cam, 100, 50)!.index).toBe(0);
  });

  it('maps pixels as the draw does: +x right, +y up on screen', () => {
    // A splat up and to the right lands in the top-right quadrant of the image.
    const s = scene([{ at: [1, 0.5, -4], scale: 0.05, opacity: 0.9 }]);
    const f = cam.proj[5] * 50; // focal length in px
    const x = 100 + (cam.proj[0] * 100 * 1) / 4;
    const y = 50 - (f * 0.5) / 4;
    expect(pickSplat(s, cam, x, y)?.index).toBe(0);
    expect(pickSplat(s, cam, 200 - x, y)).toBeNull();
    expect(pickSplat(s, cam, x, 100 - y)).toBeNull();
  });

  it('nothing under the cursor, or only behind the camera: null', () => {
    const s = scene([
      { at: [0, 0, 3], scale: 1, opacity: 1 }, // behind
      { at: [5, 0, -5], scale: 0.05, opacity: 1 }, // off to the side
    ]);
    expect(pickSplat(s, cam, 100, 50)).toBeNull();
  });

  it('respects the splat scale factor of the draw', () => {
    const s = scene([{ at: [0.3, 0, -5], scale: 0.05, opacity: 1 }]);
    expect(pickSplat(s, cam, 100, 50)).toBeNull();
    expect(pickSplat(s, cam, 100, 50, 4)?.index).toBe(0);
  });
});
