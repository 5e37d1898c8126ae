import { describe, expect, it } from 'vitest';
import { DeviceRecoveryError, LossWindow, retryWithBackoff } from './device-recovery';

describe('retryWithBackoff', () => {
  it('returns the first success, after the pauses before it', async () => {
    const waited: number[] = [];
    let calls = 0;
    const v = await retryWithBackoff(
      async () => {
        if (++calls < 3) throw new Error(`fail ${calls}`);
        return 'device';
      },
      { delays: [0, 10, 20, 40], wait: async (ms) => void waited.push(ms) },
    );
    expect(v).toBe('device');
    expect(calls).toBe(3);
    expect(waited).toEqual([10, 20]);
  });

  it('gives up after the last delay with the last error, a bounded number of attempts', async () => {
    let calls = 0;
    const p = retryWithBackoff(
      async () => {
        throw new Error(`no adapter ${++calls}`);
      },
      { delays: [0, 1, 2], wait: async () => undefined },
    );
    await expect(p).rejects.toBeInstanceOf(DeviceRecoveryError);
    await expect(p).rejects.toThrow('no new GPU device after 3 attempts: no adapter 3');
    expect(calls).toBe(3);
  });

  it('stops early when asked', async () => {
    let calls = 0;
    const p = retryWithBackoff(
      async () => {
        calls++;
        throw new Error('x');
      },
      { delays: [0, 1, 2], wait: async () => undefined, stopped: () => calls >= 1 },
    );
    await expect(p).rejects.toThrow('after 1 attempt:');
    expect(calls).toBe(1);
  });
});

describe('LossWindow', () => {
  it('allows a few recoveries within the window, then refuses, and allows again once they age out', () => {
    const w = new LossWindow(3, 1000);
    expect([w.allow(0), w.allow(10), w.allow(20)]).toEqual([true, true, true]);
    expect(w.allow(30)).toBe(false);
    expect(w.allow(1005)).toBe(true); // the loss at 0 is out of the window
  });
});
