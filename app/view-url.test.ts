import { describe, expect, it } from 'vitest';
import { type CameraPose, length, normalize, sub } from '../renderer/camera/camera';
import { decodeViewHash, decodeViewState, encodeViewHash, readSceneParam, sceneIdIsUrl, viewAppliesTo } from './view-url';

function direction(p: CameraPose) {
  return normalize(sub(p.target, p.eye));
}

describe('encodeViewHash / decodeViewHash', () => {
  it('writes a compact #cam= list of ten numbers', () => {
    const hash = encodeViewHash({ eye: [0, 0, -3.4641016151377544], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 60 });
    expect(hash).toBe('#cam=0,0,-3.4641,0,0,0,0,-1,0,60');
  });

  it('round-trips a pose to within ~1e-4 of the eye-target distance', () => {
    const pose: CameraPose = { eye: [1.234567, -2.345678, 3.456789], target: [0.1, 0.2, -0.3], up: [0.1, -0.98, 0.05], fovyDeg: 47.123 };
    const back = decodeViewHash(encodeViewHash(pose));
    expect(back).not.toBeNull();
    const d = length(sub(pose.target, pose.eye));
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(back!.eye[i] - pose.eye[i])).toBeLessThanOrEqual(1e-4 * d);
      expect(Math.abs(back!.target[i] - pose.target[i])).toBeLessThanOrEqual(1e-4 * d);
      expect(Math.abs(back!.up[i] - normalize(pose.up)[i])).toBeLessThanOrEqual(1e-4);
    }
    expect(back!.fovyDeg).toBeCloseTo(47.12, 9);
  });

  it('keeps the view direction of a close-up far from the origin', () => {
    // 5 significant digits would turn both points into 1000.1 and lose the direction entirely.
    const pose: CameraPose = { eye: [1000.123, 2000.456, -500.789], target: [1000.153, 2000.44, -500.76], up: [0, -1, 0], fovyDeg: 60 };
    const back = decodeViewHash(encodeViewHash(pose))!;
    const a = direction(pose);
    const b = direction(back);
    const angle = Math.acos(Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]));
    expect(angle).toBeLessThan(1e-3);
  });

  it('accepts the hash without "#", with other entries, and with spaces or exponents', () => {
    const expected: CameraPose = { eye: [1, 2, 3], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 50 };
    expect(decodeViewHash('cam=1,2,3,0,0,0,0,1,0,50')).toEqual(expected);
    expect(decodeViewHash('#foo=bar&cam=1,2,3,0,0,0,0,1,0,50&x')).toEqual(expected);
    expect(decodeViewHash('#cam=1e0,%202,3,0,0,0,0,1,0,5e1')).toEqual(expected);
  });

  it.each([
    '',
    '#',
    '#cam',
    '#cam=',
    '#camera=1,2,3,0,0,0,0,1,0,50',
    '#cam=1,2,3',
    '#cam=1,2,3,0,0,0,0,1,0,50,7',
    '#cam=a,b,c,d,e,f,g,h,i,j',
    '#cam=1,2,3,0,0,0,0,1,0,',
    '#cam=1,2,3,0,0,0,0,1,0,NaN',
    '#cam=Infinity,2,3,0,0,0,0,1,0,50',
    '#cam=0x10,2,3,0,0,0,0,1,0,50',
    '#cam=1,2,3,0,0,0,0,1,0,0',
    '#cam=1,2,3,0,0,0,0,1,0,180',
    '#cam=1,2,3,1,2,3,0,1,0,50',
    '#cam=1,2,3,0,0,0,0,0,0,50',
    '#cam=0,5,0,0,0,0,0,1,0,50',
    '#cam=%E0%A4%A',
  ])('decodes %j to null', (hash) => {
    expect(decodeViewHash(hash)).toBeNull();
  });

  it('is not fooled by non-strings', () => {
    expect(decodeViewHash(undefined as unknown as string)).toBeNull();
    expect(readSceneParam(null as unknown as string)).toBeNull();
  });
});

describe('readSceneParam', () => {
  it('reads ?scene=URL', () => {
    expect(readSceneParam('?scene=scenes/garden.ply')).toBe('scenes/garden.ply');
    expect(readSceneParam('?a=1&scene=https%3A%2F%2Fexample.org%2Fx.ply%3Fv%3D1%262')).toBe('https://example.org/x.ply?v=1&2');
    expect(readSceneParam('scene=a.ply')).toBe('a.ply');
    expect(readSceneParam('?scene=%20b.ply%20')).toBe('b.ply');
  });

  it('gives null when absent or empty', () => {
    expect(readSceneParam('')).toBeNull();
    expect(readSceneParam('?')).toBeNull();
    expect(readSceneParam('?other=1')).toBeNull();
    expect(readSceneParam('?scene=')).toBeNull();
    expect(readSceneParam('?scene=%20')).toBeNull();
  });
});

describe('scene identity in the hash', () => {
  const pose: CameraPose = { eye: [1, 2, 3], target: [0, 0.5, 0], up: [0, -1, 0], fovyDeg: 45 };

  it('round-trips every field: eye, target, up, FOV and the scene', () => {
    const scene = 'https://example.org/scenes/a b&c.ply?x=1#y';
    const hash = encodeViewHash(pose, scene);
    const back = decodeViewState(hash)!;
    expect(back.scene).toBe(scene);
    expect(back.pose).toEqual(pose);
    expect(back.pose.fovyDeg).toBe(45);
    // A second round trip writes the same text (what the page compares against).
    expect(encodeViewHash(back.pose, back.scene)).toBe(hash);
  });

  it('a hash without a scene applies to any scene; with one, only to that scene', () => {
    const anyScene = decodeViewState(encodeViewHash(pose))!;
    expect(anyScene.scene).toBeNull();
    expect(viewAppliesTo(anyScene, 'default')).toBe(true);
    const forFile = decodeViewState(encodeViewHash(pose, 'file:garden.ply'))!;
    expect(viewAppliesTo(forFile, 'file:garden.ply')).toBe(true);
    expect(viewAppliesTo(forFile, 'default')).toBe(false);
    expect(viewAppliesTo(forFile, 'default:3000')).toBe(false);
  });

  it('a scene entry alone is no view', () => {
    expect(decodeViewState('#scene=default')).toBeNull();
  });

  it('tells scene URLs from generated scenes and local files', () => {
    expect(sceneIdIsUrl('https://x.org/a.ply')).toBe(true);
    expect(sceneIdIsUrl('/scenes/a.ply')).toBe(true);
    expect(sceneIdIsUrl('scenes/a.ply')).toBe(true);
    expect(sceneIdIsUrl('default')).toBe(false);
    expect(sceneIdIsUrl('default:3000')).toBe(false);
    expect(sceneIdIsUrl('synthetic:100000')).toBe(false);
    expect(sceneIdIsUrl('file:a.ply')).toBe(false);
  });
});
