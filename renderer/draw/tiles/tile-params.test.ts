import { describe, expect, it } from 'vitest';
import { tileLayout } from './tile-params';

describe('tileLayout', () => {
  it('1920x1080: 120 x 68 tiles in 13 bits, the rest of 32 bits for depth', () => {
    expect(tileLayout(1920, 1080, 32)).toEqual({ tilesX: 120, tilesY: 68, tileBits: 13, depthBits: 19, keyBits: 32 });
  });

  it('the key-bits setting caps the depth bits (fewer bits: fewer sort passes)', () => {
    expect(tileLayout(1920, 1080, 16)).toMatchObject({ depthBits: 16, keyBits: 29 });
    expect(tileLayout(1920, 1080, 11)).toMatchObject({ depthBits: 11, keyBits: 24 });
  });

  it('partial tiles round up; one tile still takes a key bit (depth never takes all 32)', () => {
    expect(tileLayout(100, 70, 32)).toMatchObject({ tilesX: 7, tilesY: 5, tileBits: 6, depthBits: 26 });
    expect(tileLayout(16, 16, 32)).toMatchObject({ tilesX: 1, tilesY: 1, tileBits: 1, depthBits: 31, keyBits: 32 });
    expect(tileLayout(17, 1, 32)).toMatchObject({ tilesX: 2, tilesY: 1, tileBits: 1 });
  });

  it('rejects an empty viewport', () => {
    expect(() => tileLayout(0, 10, 32)).toThrow(RangeError);
  });
});
