import { describe, expect, it } from 'vitest';
import { AutoPicks } from './auto-picks';
import { AutoRun } from './auto-run';
import type { AutoChoice } from './auto-strategy';

const hooks = (active = true) => ({ frameDone: async () => undefined, noted: () => undefined, apply: () => undefined, active: () => active });
const fakeDevice = (label: string) => ({ label }) as unknown as GPUDevice;

describe('AutoRun across a lost device', () => {
  it('a measurement wanted when the device is lost is wanted again on the new device, and the hold on frames ends', () => {
    const auto = new AutoRun(fakeDevice('a'), [], hooks());
    auto.wanted = true;
    auto.holding = true;
    auto.deviceLost();
    // Nothing measured on the lost device, frames not held.
    expect(auto.wanted).toBe(false);
    expect(auto.holding).toBe(false);
    auto.deviceChanged(fakeDevice('b'));
    expect(auto.wanted).toBe(true);
  });

  it('nothing wanted before the loss, nothing wanted after; nor when auto is no longer the setting', () => {
    const idle = new AutoRun(fakeDevice('a'), [], hooks());
    idle.deviceLost();
    idle.deviceChanged(fakeDevice('b'));
    expect(idle.wanted).toBe(false);
    const inactive = new AutoRun(fakeDevice('a'), [], hooks(false));
    inactive.wanted = true;
    inactive.deviceLost();
    inactive.deviceChanged(fakeDevice('b'));
    expect(inactive.wanted).toBe(false);
  });
});

describe('AutoRun with picks by scene size (auto-picks.ts)', () => {
  const strategies = [
    { name: 'radix4', stable: true, lagsCamera: false },
    { name: 'radix16', stable: true, lagsCamera: false },
  ];
  const isChoice = (v: unknown): v is AutoChoice => !!v && typeof v === 'object' && typeof (v as AutoChoice).name === 'string';

  it('a size measured before on this adapter: its pick applied at once, no trial (the fake device would fail one)', async () => {
    const picks = new AutoPicks<AutoChoice>('sort', 'test', isChoice);
    picks.set(60_000, { name: 'radix16', ms: 2, reason: 'radix16: fastest exact sort here', ranked: [{ name: 'radix16', ms: 2 }] });
    const applied: string[] = [];
    const notes: string[] = [];
    const auto = new AutoRun(fakeDevice('a'), strategies, { ...hooks(), apply: (n) => void applied.push(n), noted: (t) => void notes.push(t) }, picks);
    auto.sceneChanged('radix4');
    expect(auto.wanted).toBe(true);
    // Until measured the note says what draws this scene, not the last scene's pick.
    expect(notes.at(-1)).toBe('auto: drawing with radix4; measuring once the scene is on screen');
    const choice = await auto.measure('scene-b', 61_000, 32, 'radix4');
    expect(choice?.name).toBe('radix16');
    expect(applied).toEqual(['radix16']);
    expect(notes.at(-1)).toBe('radix16: fastest exact sort here (measured before on this adapter)');
    expect(auto.busy).toBe(false);
    expect(auto.holding).toBe(false);
    // Picking auto again for that scene reuses it too.
    auto.chosen('scene-b');
    expect(applied).toEqual(['radix16', 'radix16']);
  });

  it('a pick of a strategy this device lacks is not used', async () => {
    const picks = new AutoPicks<AutoChoice>('sort', 'test', isChoice);
    picks.set(60_000, { name: 'onesweep', ms: 1, reason: 'onesweep', ranked: [] });
    const auto = new AutoRun(fakeDevice('a'), strategies, hooks(), picks);
    // It goes on to a trial, which the fake device cannot run.
    await expect(auto.measure('s', 60_000, 32, 'radix4')).rejects.toThrow();
  });
});
