import { describe, expect, it } from 'vitest';
import { screenshotName } from './screenshot';

describe('screenshotName', () => {
  it('is file-safe, names the scene and the time, and the scale when not 1', () => {
    const d = new Date(2026, 10, 24, 16, 40, 12);
    expect(screenshotName('garden.ply', 1, d)).toBe('splatview-garden-2026-11-24-164012.png');
    expect(screenshotName('a b/<c>.ply', 2, d)).toBe('splatview-a-b-c-2026-11-24-164012@2x.png');
    expect(screenshotName('synthetic:100000', 1, d)).toBe('splatview-synthetic-100000-2026-11-24-164012.png');
    expect(screenshotName('', 1, d)).toBe('splatview-view-2026-11-24-164012.png');
  });
});
