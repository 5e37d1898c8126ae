import { describe, expect, it } from 'vitest';
import { isSoftwareAdapter, preferredSorter } from './default-strategy';

const sub = new Set(['subgroups', 'timestamp-query']);
const none = new Set<string>(['timestamp-query']);

describe('preferredSorter', () => {
  it('picks onesweep on NVIDIA and AMD with subgroups', () => {
    expect(preferredSorter({ vendor: 'nvidia', architecture: 'hopper' }, sub)).toBe('onesweep');
    expect(preferredSorter({ vendor: 'amd', architecture: 'rdna-3' }, sub)).toBe('onesweep');
    expect(preferredSorter({ vendor: 'NVIDIA' }, sub)).toBe('onesweep');
  });

  it('picks radix4 without subgroups, whatever the vendor', () => {
    expect(preferredSorter({ vendor: 'nvidia' }, none)).toBe('radix4');
    expect(preferredSorter({ vendor: 'amd' }, new Set())).toBe('radix4');
  });

  it('picks radix4 where forward progress is not known: Apple, mobile, Intel, unknown', () => {
    for (const vendor of ['apple', 'arm', 'qualcomm', 'img-tec', 'intel', '', 'someone-new']) {
      expect(preferredSorter({ vendor }, sub), vendor).toBe('radix4');
    }
    expect(preferredSorter({}, sub)).toBe('radix4');
  });

  it('picks radix4 on CPU rasterisers, even when they report a known vendor name', () => {
    expect(preferredSorter({ vendor: 'google', architecture: 'swiftshader' }, sub)).toBe('radix4');
    expect(preferredSorter({ vendor: 'mesa', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }, sub)).toBe('radix4');
    expect(preferredSorter({ vendor: 'nvidia', description: 'SwiftShader Device (Subzero)' }, sub)).toBe('radix4');
    expect(isSoftwareAdapter({ vendor: 'microsoft', description: 'Microsoft Basic Render Driver' })).toBe(true);
    expect(isSoftwareAdapter({ vendor: 'nvidia', architecture: 'ampere', description: 'NVIDIA GeForce RTX 3080' })).toBe(false);
  });
});
