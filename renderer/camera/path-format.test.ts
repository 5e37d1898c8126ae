import { describe, expect, it } from 'vitest';
import { length, normalize, sub } from './camera';
import { orbitPath } from './camera-path';
import {
  CameraPathError,
  decodePathHash,
  encodePathHash,
  parseCameraPath,
  parseCameraPathJson,
  serializeCameraPath,
  type CameraPath,
} from './path-format';

const PATH: CameraPath = parseCameraPath({
  keyframes: [
    { time: 0, eye: [-0.09315, -1.537, -3.348], target: [-0.09315, -1.537, 0.0246], up: [0, -1, 0], fovy: 60 },
    { time: 1.25, eye: [2.5, -1.2, -2], target: [0.1, -1.5, 0.3], up: [0, -1, 0], fovy: 60 },
    { time: 3, eye: [3.1, -0.8, 1.7], target: [0.2, -1.2, 0.5], up: [0.1, -0.99, 0], fovy: 45.5 },
    { time: 4.5, eye: [1e-7, -1, 4], target: [0, -1.5, 0], up: [0.1, -0.99, 0], fovy: 45.5 },
  ],
});

/** The error a call throws (fails the test if it throws none or another kind). */
function errorOf(f: () => unknown): CameraPathError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(CameraPathError);
    return err as CameraPathError;
  }
  throw new Error('expected a CameraPathError');
}

const kf = (time: number, extra: Record<string, unknown> = {}) => ({ time, eye: [0, 0, -5], target: [0, 0, 0], up: [0, 1, 0], fovy: 60, ...extra });

describe('path file (JSON)', () => {
  it('round trips exactly through serializeCameraPath, one keyframe a line', () => {
    const text = serializeCameraPath(PATH);
    expect(parseCameraPathJson(text)).toEqual(PATH);
    expect(text.trimEnd().split('\n')).toHaveLength(4 + PATH.keyframes.length);
    expect(text).toContain('{ "time": 1.25, "eye": [2.5, -1.2, -2], "target": [0.1, -1.5, 0.3], "up": [0, -1, 0], "fovy": 60 }');
    const orbit = orbitPath(PATH.keyframes[0], 6);
    expect(parseCameraPathJson(serializeCameraPath(orbit))).toEqual(orbit);
  });

  it('ignores extra fields; up defaults to (0, 1, 0) and fovy to 60, as --camera', () => {
    const p = parseCameraPath({
      name: 'fly-in',
      keyframes: [
        { time: 0, eye: [0, 0, -5], target: [0, 0, 0], note: 'start', ease: 'none' },
        { time: 2, eye: [0, 0, -3], target: [0, 0, 0], up: [0, -1, 0], fovy: 40 },
      ],
    });
    expect(p.keyframes[0]).toEqual({ time: 0, eye: [0, 0, -5], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 });
    expect(p.keyframes[1]).toEqual({ time: 2, eye: [0, 0, -3], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 40 });
  });

  it('errors name the keyframe and field', () => {
    const cases: [unknown, number | null, string | null, RegExp][] = [
      [[], null, null, /^path: expected an object \{ "keyframes": \[\.\.\.\] \}, got \[\]$/],
      [{ frames: [] }, null, 'keyframes', /^path: keyframes: expected an array of keyframes, got nothing$/],
      [{ keyframes: [kf(0)] }, null, 'keyframes', /^path: keyframes: need at least 2 keyframes, got 1$/],
      [{ keyframes: [kf(0), 7] }, 1, null, /^path: keyframes\[1\]: expected an object/],
      [{ keyframes: [kf(0), kf(1, { time: '1' })] }, 1, 'time', /^path: keyframes\[1\]\.time: expected a finite number of seconds, got "1"$/],
      [{ keyframes: [kf(0), kf(1), kf(1)] }, 2, 'time', /^path: keyframes\[2\]\.time: 1 is not after keyframes\[1\]\.time 1 \(times must increase strictly\)$/],
      [{ keyframes: [kf(2), kf(1)] }, 1, 'time', /not after keyframes\[0\]\.time 2/],
      [{ keyframes: [kf(-1), kf(1)] }, 0, 'time', /^path: keyframes\[0\]\.time: -1 is negative/],
      [{ keyframes: [kf(0), kf(1, { eye: [0, 0] })] }, 1, 'eye', /^path: keyframes\[1\]\.eye: expected \[x, y, z\] \(three numbers\), got \[0,0\]$/],
      [{ keyframes: [kf(0), kf(1, { eye: [0, null, 1] })] }, 1, 'eye', /^path: keyframes\[1\]\.eye: component 1 is null, not a finite number$/],
      [{ keyframes: [kf(0, { target: 'origin' }), kf(1)] }, 0, 'target', /keyframes\[0\]\.target: expected \[x, y, z\]/],
      [{ keyframes: [kf(0), kf(1, { target: [0, 0, -5] })] }, 1, 'target', /^path: keyframes\[1\]\.target: equals eye, so there is no view direction$/],
      [{ keyframes: [kf(0, { up: [0, 0, 2] }), kf(1)] }, 0, 'up', /^path: keyframes\[0\]\.up: parallel to the view direction \(target - eye\)$/],
      [{ keyframes: [kf(0, { up: [0, 0, 0] }), kf(1)] }, 0, 'up', /keyframes\[0\]\.up: is the zero vector/],
      [{ keyframes: [kf(0), kf(1, { fovy: 180 })] }, 1, 'fovy', /^path: keyframes\[1\]\.fovy: 180 is outside \(0, 180\) degrees$/],
      [{ keyframes: [kf(0), kf(1, { fovy: null })] }, 1, 'fovy', /keyframes\[1\]\.fovy: expected a finite number of degrees, got null/],
    ];
    for (const [value, keyframe, field, message] of cases) {
      const e = errorOf(() => parseCameraPath(value));
      expect(e.message, JSON.stringify(value)).toMatch(message);
      expect([e.keyframe, e.field], e.message).toEqual([keyframe, field]);
    }
    // JSON's own infinities do not exist, but 1e999 parses to Infinity.
    const inf = errorOf(() => parseCameraPathJson('{"keyframes":[{"time":0,"eye":[1e999,0,0],"target":[0,0,0]},{"time":1,"eye":[1,0,0],"target":[0,0,0]}]}'));
    expect(inf.message).toBe('path: keyframes[0].eye: component 0 is null, not a finite number');
    const notJson = errorOf(() => parseCameraPathJson('{ keyframes: '));
    expect(notJson.message).toMatch(/^path: not JSON: /);
    expect(notJson.name).toBe('CameraPathError');
  });
});

describe('path URL hash', () => {
  it('round trips within the view hash precision, and re-encodes to the same text', () => {
    const hash = encodePathHash(PATH);
    expect(hash.startsWith('#path=')).toBe(true);
    const back = decodePathHash(hash)!;
    expect(back.keyframes).toHaveLength(PATH.keyframes.length);
    back.keyframes.forEach((k, i) => {
      const o = PATH.keyframes[i];
      expect(k.time).toBeCloseTo(o.time, 3);
      const step = 1e-4 * length(sub(o.target, o.eye));
      for (let c = 0; c < 3; c++) {
        expect(Math.abs(k.eye[c] - o.eye[c])).toBeLessThanOrEqual(step);
        expect(Math.abs(k.target[c] - o.target[c])).toBeLessThanOrEqual(step);
        expect(k.up[c]).toBeCloseTo(normalize(o.up)[c], 4);
      }
      expect(k.fovyDeg).toBeCloseTo(o.fovyDeg, 2);
    });
    expect(encodePathHash(back)).toBe(hash);
  });

  it('is compact: up and fovy only where they change (7, 8, 10 or 11 numbers a keyframe)', () => {
    const hash = encodePathHash(PATH);
    const entries = hash.slice('#path='.length).split(';');
    expect(entries.map((e) => e.split(',').length)).toEqual([10, 7, 11, 7]);
    expect(entries[1]).toBe('1.25,2.5,-1.2,-2,0.1,-1.5,0.3');
    expect(hash.length).toBeLessThan(220);
    // A 16-keyframe orbit (17 keyframes, the last closing it): under 50 characters a keyframe.
    expect(encodePathHash(orbitPath(PATH.keyframes[0], 8)).length).toBeLessThan(17 * 50);
  });

  it('reads among other entries; no path entry is null; a bad one names the keyframe', () => {
    const hash = encodePathHash(PATH);
    expect(decodePathHash(`cam=0,0,-5,0,0,0,0,1,0,60&${hash.slice(1)}&scene=default`)).toEqual(decodePathHash(hash));
    expect(decodePathHash('#cam=0,0,-5,0,0,0,0,1,0,60')).toBeNull();
    expect(decodePathHash('')).toBeNull();
    const bad = (h: string) => errorOf(() => decodePathHash(h));
    expect(bad('#path=0,0,0,-5,0,0,0').message).toMatch(/^path: keyframes: need at least 2 keyframes, got 1$/);
    expect(bad('#path=0,0,0,-5,0,0,0;1,0,0,-4,0,0').message).toMatch(/^path: keyframes\[1\]: expected t,ex,ey,ez,tx,ty,tz.* got 6$/);
    expect(bad('#path=0,0,0,-5,0,0,0;1,0,x,-4,0,0,0')).toMatchObject({ keyframe: 1, field: 'eye' });
    expect(bad('#path=0,0,0,-5,0,0,0;0,0,0,-4,0,0,0')).toMatchObject({ keyframe: 1, field: 'time' });
    expect(bad('#path=0,0,0,-5,0,0,0,0,0,1;1,0,0,-4,0,0,0')).toMatchObject({ keyframe: 0, field: 'up' });
    expect(bad('#path=0,0,0,-5,0,0,0,0,1,0,200;1,0,0,-4,0,0,0')).toMatchObject({ keyframe: 0, field: 'fovy' });
    expect(bad('#path=%E0%A4%A').message).toMatch(/malformed/);
  });

  it('keeps close keyframe times apart with more decimals', () => {
    const close = parseCameraPath({ keyframes: [kf(0), kf(0.0004, { eye: [0, 0, -4] }), kf(1, { eye: [0, 0, -3] })] });
    const back = decodePathHash(encodePathHash(close))!;
    expect(back.keyframes.map((k) => k.time)).toEqual([0, 0.0004, 1]);
  });
});
