import { describe, expect, it } from 'vitest';
import { frameWhileLoading, RARE_FRAME_MS, SLOW_FRAME_MS } from './load-pacing';

describe('frames of the old scene while a new one opens (issue 34)', () => {
  it('draws as usual with no load, or with frames of 250 ms or less, or before any frame completed', () => {
    expect(frameWhileLoading({ loading: false, lastFrameMs: 5_000, sinceSubmitMs: 0 })).toBe(true);
    expect(frameWhileLoading({ loading: true, lastFrameMs: SLOW_FRAME_MS, sinceSubmitMs: 0 })).toBe(true);
    expect(frameWhileLoading({ loading: true, lastFrameMs: 16, sinceSubmitMs: 0 })).toBe(true);
    expect(frameWhileLoading({ loading: true, lastFrameMs: null, sinceSubmitMs: 0 })).toBe(true);
  });

  it('submits no frame of a slow scene while the new one loads, but one every 10 s', () => {
    expect(frameWhileLoading({ loading: true, lastFrameMs: 251, sinceSubmitMs: 0 })).toBe(false);
    expect(frameWhileLoading({ loading: true, lastFrameMs: 4_000, sinceSubmitMs: RARE_FRAME_MS - 1 })).toBe(false);
    expect(frameWhileLoading({ loading: true, lastFrameMs: 4_000, sinceSubmitMs: RARE_FRAME_MS })).toBe(true);
    expect(frameWhileLoading({ loading: true, lastFrameMs: 4_000, sinceSubmitMs: Infinity })).toBe(true);
  });
});
