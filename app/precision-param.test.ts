import { describe, expect, it } from 'vitest';
import { readPrecisionParam } from './precision-param';

describe('?precision', () => {
  it('full, compact, absent (compact) and a bad value (compact, said)', () => {
    expect(readPrecisionParam('?precision=full')).toEqual({ precision: 'full' });
    expect(readPrecisionParam('?sort=radix4&precision=compact')).toEqual({ precision: 'compact' });
    expect(readPrecisionParam('')).toEqual({ precision: 'compact' });
    expect(readPrecisionParam('?precision=half')).toEqual({ precision: 'compact', note: '?precision=half: expected full or compact; using compact' });
  });
});
