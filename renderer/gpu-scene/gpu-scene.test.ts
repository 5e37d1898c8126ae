import { describe, expect, it } from 'vitest';
import { generateSynthetic } from '../../scenes/generate';
import { shWordsPerSplat } from './scene-precision';
import { GpuScene } from './gpu-scene';

describe('GpuScene.pack in slices (the chunked upload)', () => {
  it('slices packed one after another are the whole packing, byte for byte', () => {
    const cloud = generateSynthetic(1000);
    const stride = shWordsPerSplat(cloud.shDegree);
    const whole = GpuScene.pack(cloud, stride);
    expect(whole.sh.length).toBe(1000 * stride);
    const parts = [0, 1, 333, 334, 999, 1000];
    for (const key of ['centers', 'covs', 'sh'] as const) {
      const per = whole[key].length / 1000;
      for (let k = 0; k + 1 < parts.length; k++) {
        const slice = GpuScene.pack(cloud, stride, parts[k], parts[k + 1])[key];
        expect(slice.length).toBe((parts[k + 1]! - parts[k]!) * per);
        expect(Array.from(slice)).toEqual(Array.from(whole[key].subarray(parts[k]! * per, parts[k + 1]! * per)));
      }
    }
  });
});
