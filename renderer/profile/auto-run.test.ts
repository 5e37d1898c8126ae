import { describe, expect, it } from 'vitest';
import { AutoRun } from './auto-run';

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
