import { describe, expect, it } from 'vitest';
import { chooseStrategy, isExact, softwareAdapterNote, startingStrategy, trialCandidates, type StrategyTiming } from './auto-strategy';

const traits = {
  radix4: { name: 'radix4', stable: true, lagsCamera: false },
  radix16: { name: 'radix16', stable: true, lagsCamera: false },
  onesweep: { name: 'onesweep', stable: true, lagsCamera: false },
  bitonic: { name: 'bitonic', stable: false, lagsCamera: false },
  cpu: { name: 'cpu', stable: true, lagsCamera: true },
};
const all = Object.values(traits);
const timed = (t: keyof typeof traits, ms: number[]): StrategyTiming => ({ ...traits[t], ms });

describe("auto's choice given measured times", () => {
  it('SwiftShader, 60k splats (the issue\'s figures): onesweep, never radix4', () => {
    const c = chooseStrategy(
      [timed('radix4', [1459, 1460]), timed('radix16', [352, 350]), timed('onesweep', [249, 251]), timed('bitonic', [297]), timed('cpu', [4.7])],
      60_000,
    )!;
    expect(c.name).toBe('onesweep');
    expect(c.ranked.map((r) => r.name)).toEqual(['onesweep', 'radix16', 'radix4']);
    expect(c.reason).toBe('onesweep: fastest exact sort on this GPU (250 ms; radix16 351, radix4 1,460) for 60,000 splats');
  });

  it('never picks an unstable or camera-lagging strategy, however fast', () => {
    const c = chooseStrategy([timed('bitonic', [0.1]), timed('cpu', [0.05]), timed('radix4', [2])])!;
    expect(c.name).toBe('radix4');
    expect(isExact(traits.bitonic)).toBe(false);
    expect(isExact(traits.cpu)).toBe(false);
  });

  it('goes by the median, so one spike does not decide', () => {
    const c = chooseStrategy([timed('radix16', [0.5, 9, 0.5]), timed('onesweep', [0.6, 0.6, 0.6])])!;
    expect(c.name).toBe('radix16');
    expect(c.ms).toBe(0.5);
  });

  it('says which times were measured on fewer keys and scaled, each from its own count', () => {
    const c = chooseStrategy([{ ...timed('radix16', [169]), timedAt: 10_651 }, { ...timed('onesweep', [1801]), timedAt: 4096 }], 60_000, 'GPU timestamps')!;
    expect(c.reason).toBe('radix16: fastest exact sort on this GPU (169 ms; onesweep 1,801) for 60,000 splats, GPU timestamps; timed at fewer keys and scaled: radix16 10,651, onesweep 4,096; radix4 is not timed: the required reference sort, slowest on every adapter measured');
    // The winner timed at the whole count: only the loser is named.
    const d = chooseStrategy([timed('radix16', [169]), { ...timed('onesweep', [1801]), timedAt: 4096 }], 60_000, 'GPU timestamps')!;
    expect(d.reason).toMatch(/GPU timestamps; timed at fewer keys and scaled: onesweep 4,096(; radix4 is not timed: the required reference sort, slowest on every adapter measured)?$/);
    expect(chooseStrategy([timed('radix16', [1])], 10_000, 'GPU timestamps')!.reason).not.toMatch(/scaled/);
  });

  it('a strategy that failed to time (no finite value) is skipped; none at all gives null', () => {
    expect(chooseStrategy([timed('onesweep', [NaN]), timed('radix4', [3])])!.name).toBe('radix4');
    expect(chooseStrategy([timed('onesweep', [])])).toBeNull();
    expect(chooseStrategy([])).toBeNull();
  });

  it('ties go to the registry order', () => {
    expect(chooseStrategy([timed('radix16', [1]), timed('radix4', [1])])!.name).toBe('radix16');
  });

  it('says how the times were taken when told', () => {
    expect(chooseStrategy([timed('radix4', [0.123])], 1000, 'GPU timestamps')!.reason).toBe(
      'radix4: fastest exact sort on this GPU (0.123 ms) for 1,000 splats, GPU timestamps',
    );
  });
});

describe('the strategy to start with', () => {
  const subgroups = new Set(['subgroups']);
  it('on SwiftShader: the fastest there, not radix4', () => {
    const swiftshader = { vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader Device (Subzero)' };
    expect(startingStrategy(swiftshader, new Set(), all)).toBe('radix16');
    expect(startingStrategy(swiftshader, new Set(), [traits.radix4, traits.radix16])).toBe('radix16');
    expect(softwareAdapterNote(swiftshader)).toMatch(/^Software GPU \(google swiftshader SwiftShader Device \(Subzero\)\): .*slow/);
  });
  it('on hardware: the adapter-based default (onesweep on NVIDIA with subgroups, radix4 elsewhere)', () => {
    expect(startingStrategy({ vendor: 'nvidia', architecture: 'ada' }, subgroups, all)).toBe('onesweep');
    expect(startingStrategy({ vendor: 'apple', architecture: 'metal-3' }, subgroups, all)).toBe('radix4');
    expect(softwareAdapterNote({ vendor: 'nvidia' })).toBeNull();
  });
  it('falls back to an exact strategy the device has', () => {
    expect(startingStrategy({ vendor: 'apple' }, subgroups, [traits.bitonic, traits.radix16])).toBe('radix16');
  });
});

describe("what auto's trial times", () => {
  const names = (c: { name: string }[]) => c.map((s) => s.name);
  it('a GPU: every exact strategy, the one drawing now first, the rest in registry order', () => {
    expect(names(trialCandidates(all, 'onesweep', false))).toEqual(['onesweep', 'radix16']);
  });
  it('a software adapter: the one drawing now first, then the software order, radix4 not timed', () => {
    expect(names(trialCandidates(all, 'onesweep', true))).toEqual(['onesweep', 'radix16']);
    expect(names(trialCandidates(all, 'radix16', true))).toEqual(['radix16', 'onesweep']);
  });
  it('radix4 is never timed (issue 34), even drawing with it now, unless nothing else is exact', () => {
    expect(names(trialCandidates(all, 'radix4', true))).toEqual(['radix16', 'onesweep']);
    expect(names(trialCandidates(all, 'radix4', false))).toEqual(['radix16', 'onesweep']);
    expect(names(trialCandidates([traits.radix4, traits.cpu], 'radix4', false))).toEqual(['radix4']);
  });
});

