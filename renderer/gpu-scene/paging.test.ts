import { describe, expect, it } from 'vitest';
import { pageBinding, pagedWgsl, pagingFor, pagingKey, PagedBuffer } from './paging';

describe('paging arithmetic and its WGSL', () => {
  it('one page where the array fits a binding, else pages of the most whole splats a binding holds', () => {
    expect(pagingFor(1000, 96, 96_000)).toEqual({ count: 1000, splatBytes: 96, pageSplats: 1000, pages: 1 });
    expect(pagingFor(1000, 96, 95_999)).toEqual({ count: 1000, splatBytes: 96, pageSplats: 999, pages: 2 });
    expect(pagingFor(1000, 96, 48_000)).toEqual({ count: 1000, splatBytes: 96, pageSplats: 500, pages: 2 });
    expect(pagingFor(0, 96, 100)).toMatchObject({ count: 1, pages: 1 }); // a 1-splat buffer: never zero-sized
    expect(() => pagingFor(10, 96, 95)).toThrow(RangeError);
  });

  it('a write or copy by splat is cut at the seams', () => {
    const spans = PagedBuffer.prototype.spans.call({ paging: pagingFor(1000, 96, 300 * 96) }, 250, 400);
    expect(spans).toEqual([
      { page: 0, at: 250, from: 250, count: 50 },
      { page: 1, at: 0, from: 300, count: 300 },
      { page: 2, at: 0, from: 600, count: 50 },
    ]);
  });

  it('bindings: page 0 where the pass puts the array, the others in a range of their own', () => {
    expect(pageBinding(3, 0)).toBe(3);
    const all = [1, 2, 3, 6, 7].flatMap((b) => Array.from({ length: 32 }, (_, p) => pageBinding(b, p)));
    expect(new Set(all).size).toBe(all.length);
    expect(Math.max(...all)).toBeLessThan(1000); // WebGPU's maxBindingsPerBindGroup
    expect(() => pageBinding(1, 32)).toThrow(RangeError);
  });

  it('unpaged reads index the one binding; paged ones pick the page by a division by a constant', () => {
    const one = pagedWgsl({ name: 'sh', type: 'u32', perSplat: 'frame.shStride', paging: pagingFor(10, 4, 1e6), binding: 4, access: 'read' });
    expect(one).toContain('@group(0) @binding(4) var<storage, read> sh_0: array<u32>;');
    expect(one).toContain('return sh_0[i * frame.shStride + k];');
    expect(one).not.toContain('sh_put');
    const three = pagedWgsl({ name: 'records', type: 'vec4u', perSplat: '2u', paging: pagingFor(1000, 32, 400 * 32), binding: 6, access: 'read_write' });
    expect(three.match(/var<storage, read_write> records_\d/g)).toHaveLength(3);
    expect(three).toContain(`@binding(${pageBinding(6, 2)})`);
    expect(three).toContain('let p = i / 400u;');
    expect(three).toContain('default: { records_2[j] = v; }');
    expect(pagingKey(pagingFor(1000, 32, 400 * 32), pagingFor(10, 4, 1e6))).toBe('3x400,1');
  });
});
