import { describe, expect, it } from 'vitest';
import { generateSynthetic } from '../../scenes/generate';
import { shCoeffCount, type SplatCloud } from '../../scenes/splat-cloud';
import { compactDecodeOf, decodeCompact, decodeRotation, encodeRotation, LOG_SCALE_SPAN, packCompact, PackTally, shCode, shValue, streamedDecode } from './compact-pack';
import { sceneBytesPerSplat, sceneLayout } from './scene-precision';

/** Packs and decodes `cloud` as the GPU sees it. */
function roundTrip(cloud: SplatCloud, tally = new PackTally()) {
  const d = compactDecodeOf(cloud);
  const stride = sceneLayout(cloud.shDegree, 'compact').shStride;
  const packed = packCompact(cloud, d, stride, 0, cloud.count, undefined, tally);
  return { d, packed, back: decodeCompact(packed, d, cloud, stride) };
}

/** The angle between two unit quaternions (q and -q the same rotation). */
function angle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const dot = Math.abs(a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]! + a[3]! * b[3]!);
  return 2 * Math.acos(Math.min(1, dot));
}

describe('compact resident format: bytes a splat', () => {
  it('72 B at SH3 (issue 17: <= 72), half of full at every degree or less', () => {
    expect([0, 1, 2, 3].map((d) => sceneBytesPerSplat(d, 'compact'))).toEqual([28, 36, 52, 72]);
    expect([0, 1, 2, 3].map((d) => sceneBytesPerSplat(d, 'full'))).toEqual([56, 72, 104, 144]);
  });
});

describe('compact packing round trip', () => {
  it('error bounds on a synthetic SH3 cloud: positions exact, rotation, scale, colour, opacity and SH within their steps', () => {
    const cloud = generateSynthetic(5000, 3);
    const { d, back } = roundTrip(cloud);
    const K3 = shCoeffCount(3) * 3;
    expect(back.positions).toEqual(cloud.positions);
    let rot = 0, scale = 0, op = 0, dc = 0, rest = 0;
    for (let i = 0; i < cloud.count; i++) {
      rot = Math.max(rot, angle(cloud.rotations.subarray(4 * i, 4 * i + 4), back.rotations.subarray(4 * i, 4 * i + 4)));
      for (let a = 0; a < 3; a++) scale = Math.max(scale, Math.abs(Math.log(back.scales[3 * i + a]! / cloud.scales[3 * i + a]!)));
      op = Math.max(op, Math.abs(back.opacities[i]! - cloud.opacities[i]!));
      for (let c = 0; c < 3; c++) dc = Math.max(dc, Math.abs(back.sh[i * K3 + c]! - cloud.sh[i * K3 + c]!) / d.dcStep[c]!);
      for (let h = 3; h < K3; h++) {
        const v = cloud.sh[i * K3 + h]!, r = d.shRange[h - 3]!;
        // The square law's step at v: about 2 sqrt(R |v|) / 127 (and R / 127^2 at zero).
        const bound = (Math.sqrt(r * Math.abs(v)) + Math.sqrt(r) / 127) / 127 + 1e-6;
        rest = Math.max(rest, Math.abs(back.sh[i * K3 + h]! - v) / bound);
      }
    }
    // 10-bit smallest three: a component within 1/1022 / sqrt 2 of its value; the angle ~2x that, with the
    // largest component's error on top.
    expect(rot).toBeLessThan(0.004);
    // Log-scales: half the z axis's 10-bit step.
    expect(scale).toBeLessThanOrEqual(d.lsRange[2] / 2 + 1e-6);
    expect(op).toBeLessThanOrEqual(0.5 / 255 + 1e-7);
    expect(dc).toBeLessThanOrEqual(0.5 + 1e-6);
    expect(rest).toBeLessThanOrEqual(1);
  });

  it('rotation codes: the identity, each axis largest, q and -q alike, unnormalised input', () => {
    for (const q of [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, -1, 0], [0, 0, 0, 1], [0.5, -0.5, 0.5, -0.5], [3, 4, 0, 0], [-0.1, 0.2, 0.9, -0.3]]) {
      const len = Math.hypot(...q);
      const unit = q.map((v) => v / len);
      const back = decodeRotation(encodeRotation(q[0]!, q[1]!, q[2]!, q[3]!));
      expect(angle(unit, back), JSON.stringify(q)).toBeLessThan(0.004);
      expect(Math.hypot(...back)).toBeCloseTo(1, 6);
    }
    expect(encodeRotation(0, 0, 0, 0)).toBe(-1);
    expect(encodeRotation(NaN, 0, 0, 1)).toBe(-1);
    expect(encodeRotation(Infinity, 0, 0, 0)).toBe(-1);
  });

  it('SH codes: zero exact, the range ends exact, monotonic, clamped beyond the range', () => {
    expect(shValue(shCode(0, 2), 2)).toBe(0);
    expect(shValue(shCode(2, 2), 2)).toBe(2);
    expect(shValue(shCode(-2, 2), 2)).toBe(-2);
    expect(shCode(5, 2)).toBe(255);
    expect(shCode(-5, 2)).toBe(1);
    expect(shCode(1, 0)).toBe(128); // a coefficient zero in every splat
    let last = -Infinity;
    for (let v = -2; v <= 2; v += 0.01) {
      const x = shValue(shCode(v, 2), 2);
      expect(x).toBeGreaterThanOrEqual(last);
      last = x;
    }
  });

  it('edge cases: zero scale, huge scale, NaN input: nothing non-finite is packed, and each is counted', () => {
    const cloud = generateSynthetic(8); // SH3: 48 coefficients a splat
    cloud.scales[0] = 0; // zero scale (log -Inf): clamped up to the range's floor
    cloud.scales[3] = 65504; // the loaders' largest: the range's top
    cloud.scales[6] = NaN;
    cloud.rotations.fill(0, 8, 12); // degenerate: the identity
    cloud.opacities[3] = NaN;
    cloud.sh[5 * 48 + 4] = NaN;
    cloud.sh[4 * 48 + 1] = Infinity; // a DC term: kept out of the range, replaced
    cloud.positions[3 * 6 + 1] = Infinity;
    const tally = new PackTally();
    const { d, packed, back } = roundTrip(cloud, tally);
    for (const a of [back.positions, back.scales, back.rotations, back.opacities, back.sh]) {
      expect(a.every(Number.isFinite)).toBe(true);
    }
    expect([...d.dcMin, ...d.dcStep, ...d.lsRange, ...d.shRange].every(Number.isFinite)).toBe(true);
    // The range keeps the huge scale and spans at most LOG_SCALE_SPAN below it.
    expect(d.lsRange[0]).toBeGreaterThanOrEqual(Math.log(65504) - LOG_SCALE_SPAN - 1e-9);
    expect(back.scales[3]! / 65504).toBeCloseTo(1, 2);
    expect(back.scales[0]).toBeCloseTo(Math.exp(d.lsRange[0]), 12);
    expect(Array.from(back.rotations.subarray(8, 12))).toEqual([1, 0, 0, 0]);
    expect(back.opacities[3]).toBe(0);
    expect(back.opacities[6]).toBe(0); // a non-finite position: drawn nowhere
    expect(packed.centers[4 * 6 + 1]).toBe(0);
    expect(tally.report()).toEqual({
      dropped: 1,
      clamped: 5,
      reasons: { 'scale under range': 1, 'non-finite scale': 1, 'degenerate rotation': 1, 'non-finite opacity': 1, 'non-finite sh': 2, 'non-finite position': 1 },
    });
  });

  it('a cloud whose values are all equal (no range) packs and decodes to them', () => {
    const cloud = generateSynthetic(4);
    for (let i = 0; i < 4; i++) {
      cloud.scales.set([0.01, 0.01, 0.01], 3 * i);
      cloud.sh.set(cloud.sh.subarray(0, 48), 48 * i);
    }
    const { back } = roundTrip(cloud);
    for (let i = 0; i < 4; i++) {
      expect(back.scales[3 * i]).toBeCloseTo(0.01, 9);
      for (let h = 0; h < 48; h++) expect(back.sh[48 * i + h]).toBeCloseTo(cloud.sh[h]!, 6);
    }
  });
});

describe('streamed ranges (a LOD scene: one set for every chunk, fixed at the first)', () => {
  /** A copy of `cloud` (its arrays copied), changed by `edit`. */
  const edited = (cloud: SplatCloud, edit: (c: SplatCloud) => void): SplatCloud => {
    const c = { ...cloud, positions: cloud.positions.slice(), scales: cloud.scales.slice(), sh: cloud.sh.slice(), opacities: cloud.opacities.slice(), rotations: cloud.rotations.slice() };
    edit(c);
    return c;
  };
  const first = generateSynthetic(2000, 7);
  const d = streamedDecode(first);
  const own = compactDecodeOf(first);
  const stride = sceneLayout(3, 'compact').shStride;
  const K3 = shCoeffCount(3) * 3;
  const pack = (cloud: SplatCloud) => {
    const tally = new PackTally();
    packCompact(cloud, d, stride, 0, cloud.count, undefined, tally);
    return tally;
  };

  it('wider than the first chunk\'s own: colour by half its span a side, log-scales 4 below and 1 above, SH 1.5x', () => {
    for (let c = 0; c < 3; c++) {
      const steps = c < 2 ? 2047 : 1023;
      const span = own.dcStep[c]! * steps;
      expect(d.dcMin[c]).toBeCloseTo(own.dcMin[c]! - 0.5 * Math.max(span, 1), 5);
      expect(d.dcStep[c]! * steps).toBeCloseTo(span + Math.max(span, 1), 5);
    }
    expect(d.lsRange[0]).toBeCloseTo(own.lsRange[0] - 4, 5);
    expect(d.lsRange[0] + d.lsRange[1] * 2047).toBeCloseTo(own.lsRange[0] + own.lsRange[1] * 2047 + 1, 5);
    for (let k = 0; k < K3 - 3; k++) expect(d.shRange[k]).toBeGreaterThanOrEqual(1.5 * own.shRange[k]! * (1 - 1e-6));
  });

  it('the first chunk and a finer one within the widening pack with nothing clamped', () => {
    expect(pack(first).report()).toEqual({ dropped: 0, clamped: 0, reasons: {} });
    // Splats 20x smaller (e^3) than the first chunk's smallest, colours a quarter span past its ends.
    const finer = edited(first, (c) => {
      const min = Math.min(...c.scales);
      c.scales.set([min / 20, min / 20, min / 20], 0);
      c.sh[0] = own.dcMin[0]! - 0.25 * own.dcStep[0]! * 2047;
    });
    expect(pack(finer).clamped).toBe(0);
  });

  it('values past the widened ranges are clamped and counted, by reason (a splat once)', () => {
    const past = edited(first, (c) => {
      c.sh[0] = d.dcMin[0]! - 1; // colour below
      c.sh[3] = 2 * d.shRange[0]!; // SH past R
      c.scales.set([Math.exp(d.lsRange[0] - 3), 1, 1], 0); // one scale under, none over (e^0 = 1 inside)
      const hi = d.lsRange[0] + d.lsRange[1] * 2047;
      c.scales.set([Math.exp(hi + 2), 1, 1], 3); // splat 1: a scale over
    });
    const t = pack(past);
    expect(t.report()).toEqual({
      dropped: 0,
      clamped: 2,
      reasons: { 'colour outside range': 1, 'sh outside range': 1, 'scale under range': 1, 'scale over range': 1 },
    });
  });
});

