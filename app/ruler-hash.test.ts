import { describe, expect, it } from 'vitest';
import { decodeRulerHash, encodeRulerEntry, formatDistance, sceneDistance, withRulerEntry, type RulerState } from './ruler-hash';

const close = (a: readonly number[], b: readonly number[], tol: number) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);

describe('the ruler in the URL hash', () => {
  it('round-trips two points, the scale and the unit in a short form', () => {
    const r: RulerState = { a: [0.123456789, -1.5, 2], b: [1.987654321, 0.25, -0.333333333], scale: 2.54321987, unit: 'm' };
    const entry = encodeRulerEntry(r);
    expect(entry).toBe('ruler=0.1235,-1.5,2,1.9877,0.25,-0.3333,2.54322,m');
    const back = decodeRulerHash(`#cam=1,2,3,0,0,0,0,-1,0,60&scene=default&${entry}`)!;
    const d = sceneDistance(r.a, r.b);
    expect(close(back.a, r.a, 1e-4 * d)).toBe(true);
    expect(close(back.b, r.b, 1e-4 * d)).toBe(true);
    expect(Math.abs(sceneDistance(back.a, back.b) - d) / d).toBeLessThan(1e-4);
    expect(back.scale).toBeCloseTo(2.54322, 6);
    expect(back.unit).toBe('m');
    // Again: the short form is a fixed point.
    expect(encodeRulerEntry(back)).toBe(entry);
  });

  it('keeps far-off points to their distance, no scale, odd unit names', () => {
    const far: RulerState = { a: [1000.1234, 5000.5, -300], b: [1000.1299, 5000.5, -300], scale: null, unit: '' };
    const back = decodeRulerHash(`#${encodeRulerEntry(far)}`)!;
    expect(back.scale).toBeNull();
    expect(Math.abs(sceneDistance(back.a, back.b) - 0.0065)).toBeLessThan(1e-6);
    const odd: RulerState = { a: [0, 0, 0], b: [1, 0, 0], scale: 0.5, unit: 'ft, in & µm' };
    const entry = encodeRulerEntry(odd);
    expect(entry).not.toMatch(/[ &]/);
    expect(decodeRulerHash(entry)!.unit).toBe('ft, in & µm');
  });

  it('refuses what is not a measurement', () => {
    for (const bad of ['', '#cam=1,2,3', '#ruler=1,2,3', '#ruler=1,2,3,4,5,x', '#ruler=1,2,3,4,5,6,0', '#ruler=1,2,3,4,5,6,-2,m', '#ruler=1,2,3,4,5,6,1,%E0', '#ruler=1,2,3,4,5,6,1,m,9']) {
      expect(decodeRulerHash(bad), bad).toBeNull();
    }
    expect(decodeRulerHash('#ruler=1,2,3,4,5,6')).toEqual({ a: [1, 2, 3], b: [4, 5, 6], scale: null, unit: '' });
  });

  it('puts the entry into a hash, replacing or removing the one there', () => {
    expect(withRulerEntry('#cam=1&scene=x', 'ruler=0,0,0,1,1,1')).toBe('#cam=1&scene=x&ruler=0,0,0,1,1,1');
    expect(withRulerEntry('#cam=1&ruler=9,9,9,9,9,8&scene=x', 'ruler=0,0,0,1,1,1')).toBe('#cam=1&scene=x&ruler=0,0,0,1,1,1');
    expect(withRulerEntry('#cam=1&ruler=9,9,9,9,9,8', null)).toBe('#cam=1');
    expect(withRulerEntry('', null)).toBe('');
  });

  it('formats the distance in scene units, or in the unit of the scale', () => {
    expect(formatDistance(1.23456, null, '')).toBe('1.235 units');
    expect(formatDistance(1.23456, 2, 'm')).toBe('2.469 m');
    expect(formatDistance(0.5, 1, '')).toBe('0.5000');
  });
});
