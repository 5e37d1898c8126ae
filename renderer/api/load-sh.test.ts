import { describe, expect, it } from 'vitest';
import { checkBudget, GpuBudgetError } from '../frame/gpu-budget';
import { budgetLimitsFor, budgetLine, loadOptionsFor, readShParam, withShParam } from './load-sh';

describe('the load SH degree in the page', () => {
  it('?sh=N is read, a bad value is named', () => {
    expect(readShParam('?sh=1')).toEqual({ degree: 1 });
    expect(readShParam('?scene=a.ply&sh=0')).toEqual({ degree: 0 });
    expect(readShParam('?scene=a.ply')).toEqual({});
    expect(readShParam('?sh=7').error).toMatch(/^\?sh= 7: expected an SH degree 0, 1, 2 or 3; loading with every SH band/);
  });

  it('withShParam writes and removes it, keeping the other parameters', () => {
    expect(withShParam('?scene=a.ply', 1)).toBe('?scene=a.ply&sh=1');
    expect(withShParam('?scene=a.ply&sh=1', 2)).toBe('?scene=a.ply&sh=2');
    expect(withShParam('?sh=1', undefined)).toBe('');
    expect(withShParam('', 0)).toBe('?sh=0');
  });

  it('3 (or none) keeps every band', () => {
    expect(loadOptionsFor(undefined)).toEqual({});
    expect(loadOptionsFor(3)).toEqual({});
    expect(loadOptionsFor(1)).toEqual({ maxShDegree: 1 });
  });

  it('the page words the way out for itself, with the numbers', () => {
    const limits = { maxStorageBufferBindingSize: 1e9, maxBufferSize: 4e9 };
    // The full layout, under tiles, WebGPU's default 8 storage buffers a stage: 25M splats of SH3 need the SH's 2.4 GB
    // in 3 pages of 1 GB, 9 buffers in the project pass; at SH2 (1.4 GB) 2 pages, 8.
    const err = new GpuBudgetError('big.ply', 25_000_000, 3, checkBudget(25_000_000, 3, 'tiles', limits, 'full'));
    expect(budgetLine(err)).toBe(
      'big.ply: 25,000,000 splats of SH degree 3 need 9 storage buffers in one shader stage (SH in 3 pages of at most 1.0 GB), the adapter allows 8 (maxStorageBuffersPerShaderStage): reload with SH degree 2 (?sh=2, or Scene › load SH degree); the scene on screen stays',
    );
    // 60M splats at SH0 under quads: the records' third page is the prepare pass's 9th buffer; no SH degree helps.
    const check = checkBudget(60_000_000, 0, 'quads', limits, 'full');
    expect([check.fits, check.fitsAtDegree]).toEqual([false, null]);
    const none = new GpuBudgetError('huge.ply', 60_000_000, 0, check);
    expect(budgetLine(none)).toBe(none.message);
    expect(none.message).toMatch(/draws at most 41,666,666 splats/); // two pages of 48-byte records
  });

  it('?bindlimit=MB lowers the per-binding limit, never raises it', () => {
    const dev = { maxStorageBufferBindingSize: 134_217_728, maxBufferSize: 2 ** 32 - 1 };
    expect(budgetLimitsFor(dev, '')).toEqual(dev);
    expect(budgetLimitsFor(dev, '?bindlimit=1')).toEqual({ maxStorageBufferBindingSize: 1_000_000, maxBufferSize: 2 ** 32 - 1 });
    expect(budgetLimitsFor(dev, '?bindlimit=1000')).toEqual(dev);
    expect(budgetLimitsFor(dev, '?bindlimit=x')).toEqual(dev);
  });
});
