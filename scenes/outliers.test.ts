/**
 * Issue 33: a few absurd splats cannot spoil the picture or the others'
 * precision (scenes/robust.ts, applied in SplatSink.finish; the compact layout's
 * ranges in renderer/gpu-scene/compact-pack.ts). Scales beyond what the scene's
 * robust extent makes plausible are dropped and counted; DC colour and SH
 * outliers are clamped to the scene's robust fences and counted; a clean scene
 * (every shared real scene, the generated ones) is left exactly as it was.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compactDecodeOf, packScene } from '../renderer/gpu-scene/compact-pack';
import { generateDefaultScene, generateSynthetic } from './generate';
import { loadScene } from './load';
import { implausibleScales } from './robust';
import { describeShared, readSharedScene } from './ply-fixtures';
import { shCoeffCount, type SplatCloud } from './splat-cloud';
import { loadSceneStream } from './stream';
import { writeSplatPly } from './write-ply';
import { writeSplatFile } from './write-splat';

const ROBUST_REASONS = ['scale implausible', 'colour outlier', 'sh outlier'];

/** The compact ranges a cloud would get from its plain min and max (what they were before issue 33). */
function plainRanges(c: SplatCloud): { dc: [number, number][]; sh: number[] } {
  const K3 = shCoeffCount(c.shDegree) * 3;
  const dc: [number, number][] = [[Infinity, -Infinity], [Infinity, -Infinity], [Infinity, -Infinity]];
  const sh = new Array(Math.max(0, K3 - 3)).fill(0);
  for (let i = 0; i < c.count; i++) {
    for (let ch = 0; ch < 3; ch++) {
      const v = c.sh[i * K3 + ch]!;
      dc[ch]![0] = Math.min(dc[ch]![0], v);
      dc[ch]![1] = Math.max(dc[ch]![1], v);
    }
    for (let h = 3; h < K3; h++) sh[h - 3] = Math.max(sh[h - 3], Math.abs(c.sh[i * K3 + h]!));
  }
  return { dc, sh };
}

/** The compact decode equals the plain ranges: the robust fences did not bind. */
function expectUnchangedRanges(c: SplatCloud): void {
  const d = compactDecodeOf(c);
  const plain = plainRanges(c);
  for (let ch = 0; ch < 3; ch++) {
    expect(d.dcMin[ch]).toBe(plain.dc[ch]![0]);
    expect(d.dcStep[ch]).toBeCloseTo((plain.dc[ch]![1] - plain.dc[ch]![0]) / (ch < 2 ? 2047 : 1023), 12);
  }
  plain.sh.forEach((v, h) => expect(d.shRange[h]).toBe(Math.fround(v)));
  const report = packScene(c).report;
  expect(Object.keys(report.reasons).filter((k) => k !== 'scale under range')).toEqual([]);
}

async function* chunks(b: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < b.length; at += size) yield b.slice(at, at + size);
}

describe('clean scenes are left as they were', () => {
  describeShared('every shared real scene', () => {
    const files = fs.readdirSync('../shared/scenes').filter((f) => f.endsWith('.ply'));
    it.each(files)('%s: no splat dropped or clamped as an outlier; compact ranges from its own min and max', async (f) => {
      const c = await loadScene(readSharedScene(f), f);
      for (const r of ROBUST_REASONS) expect(c.sanitized?.reasons[r], r).toBeUndefined();
      expect(implausibleScales(c)).toBe(0);
      expectUnchangedRanges(c);
    });
  });

  it('the generated scenes (which no loader sanitises) keep their compact ranges', () => {
    for (const c of [generateDefaultScene(20_000), generateSynthetic(20_000, 2), generateSynthetic(300, 5)]) {
      expect(implausibleScales(c)).toBe(0);
      expectUnchangedRanges(c);
    }
  });
});

describe('absurd splats, scene by scene', () => {
  const clean = generateSynthetic(2000, 9);
  const K3 = shCoeffCount(clean.shDegree) * 3;
  const copy = (): SplatCloud => ({ ...clean, positions: clean.positions.slice(), scales: clean.scales.slice(), rotations: clean.rotations.slice(), opacities: clean.opacities.slice(), sh: clean.sh.slice() });

  it.each([
    ['infinite', Infinity],
    ['1e38', 1e38],
    ['log-scale 20', Math.exp(20)],
    ['65504 (already the clamp)', 65504],
  ])('scales of %s in every tenth splat are dropped and counted, in PLY and .splat, whole and streamed', async (_what, value) => {
    const c = copy();
    for (let i = 3; i < c.count; i += 10) c.scales[i * 3 + (i % 3)] = value;
    for (const [name, bytes] of [['s.ply', writeSplatPly(c)], ['s.splat', writeSplatFile(c)]] as const) {
      const got = await loadScene(bytes, name);
      expect(got.count).toBe(1800);
      expect(got.sanitized!.dropped).toBe(200);
      expect(got.sanitized!.reasons['scale implausible']).toBe(200);
      expect(implausibleScales(got)).toBe(0);
      expect(Math.max(...got.scales)).toBeLessThan(100);
      expect(await loadSceneStream(name, chunks(bytes, 65_536), { totalBytes: bytes.length })).toEqual(got);
    }
  }, 30_000);

  it('one splat of log-scale 20 (a grey veil) is dropped; its clamp is not counted twice', async () => {
    const c = copy();
    c.scales.fill(Math.exp(20), 300, 303);
    c.sh[7 * K3] = 1e30; // another splat: DC past the half-float limit, then an outlier
    const got = await loadScene(writeSplatPly(c), 'veil.ply');
    expect(got.count).toBe(1999);
    expect(got.sanitized).toMatchObject({ dropped: 1, clamped: 1 });
    expect(got.sanitized!.reasons).toMatchObject({ 'scale implausible': 1, 'sh out of range': 1, 'colour outlier': 1 });
  });

  it.each([
    ['+-1e30 (no colour left: the channel median)', 1e30, 1.01],
    ['+-1000 (past the fence: clamped to it)', 1000, 16],
  ])('DC colours of %s in every tenth splat: the others keep their compact precision', async (_what, value, most) => {
    const c = copy();
    for (let i = 3; i < c.count; i += 10) c.sh[i * K3 + (i % 3)] = i % 20 === 3 ? value : -value;
    const got = await loadScene(writeSplatPly(c), 'dc.ply');
    expect(got.count).toBe(2000);
    expect(got.sanitized!.reasons['colour outlier']).toBe(200);
    const cleanStep = compactDecodeOf(clean).dcStep;
    const step = compactDecodeOf(got).dcStep;
    // Unguarded, 1e30 is clamped to 65504 and the step grows ~20,000 times; here not at all, or within the fences.
    for (let ch = 0; ch < 3; ch++) expect(step[ch]! / cleanStep[ch]!).toBeLessThan(most);
    // The splats that were not touched keep their colour exactly, and the cloud packs with nothing clamped.
    for (let i = 0; i < got.count; i++) if (i % 10 !== 3) for (let ch = 0; ch < 3; ch++) expect(got.sh[i * K3 + ch]).toBe(clean.sh[i * K3 + ch]);
    expectUnchangedRanges(got);
  });

  it('higher-band SH of 1e30 in every tenth splat: clamped per coefficient, counted, the ranges unstretched', async () => {
    const c = copy();
    for (let i = 3; i < c.count; i += 10) c.sh[i * K3 + 3 + (i % (K3 - 3))] = -1e30;
    const got = await loadScene(writeSplatPly(c), 'sh.ply');
    expect(got.sanitized!.reasons['sh outlier']).toBe(200);
    expect(Math.max(...compactDecodeOf(got).shRange)).toBeLessThan(40);
    expectUnchangedRanges(got);
  });

  it('compact-pack takes robust ranges for a cloud no loader saw: outliers clamped there and counted', () => {
    const c = copy();
    for (let i = 3; i < c.count; i += 10) c.sh[i * K3] = 65504;
    const d = compactDecodeOf(c);
    expect(d.dcStep[0]! * 2047).toBeLessThan(40);
    expect(packScene(c).report.reasons['colour outside range']).toBe(200);
  });
});
