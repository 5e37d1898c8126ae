/**
 * Paging: a count-sized array split by whole splats over as many GPU buffers (one
 * storage binding each) as the per-binding limit needs, so that a scene's size is
 * not capped by ONE binding (WebGPU's default `maxStorageBufferBindingSize` is
 * 128 MiB: 1.4M splats of full-precision SH3 in one buffer).
 *
 * An array that fits one binding is one buffer and its WGSL reads it directly; a
 * larger one is pages of `pageSplats` splats each (the last one shorter), each its
 * own GPUBuffer (so `maxBufferSize` applies per page, not per array), and the WGSL
 * accessor picks the page by splat index (a division by a constant and a switch:
 * the pipelines are specialised by the page counts and sizes, paging.ts
 * pagingKey). The shaders never index the bindings themselves: they call
 * `NAME_at(i, k)` (element k of splat i) and `NAME_put(i, k, v)`.
 *
 * Page 0 keeps the binding number the pass gives the array; page p > 0 is at
 * pageBinding(base, p), a range no pass uses otherwise.
 */

import { sortPageCapacity } from '../../sort/paged-sort';

/** The largest buffer one binding may hold, and the limit that sets it (the smaller of the two). */
export function bindingLimit(limits: { maxStorageBufferBindingSize: number; maxBufferSize: number }): { bytes: number; limit: 'maxStorageBufferBindingSize' | 'maxBufferSize' } {
  return limits.maxStorageBufferBindingSize <= limits.maxBufferSize
    ? { bytes: limits.maxStorageBufferBindingSize, limit: 'maxStorageBufferBindingSize' }
    : { bytes: limits.maxBufferSize, limit: 'maxBufferSize' };
}

/** How one array of `count` splats of `splatBytes` each is split over bindings. */
export interface Paging {
  /** Splats the array holds (at least 1: zero-sized buffers cannot be bound). */
  count: number;
  /** Bytes a splat. */
  splatBytes: number;
  /** Splats a page (every page but the last holds this many); `count` when unpaged. */
  pageSplats: number;
  /** Buffers (bindings). */
  pages: number;
}

/** The most pages one array may have (its bindings are pageBinding(base, 1 .. MAX_PAGES - 1)). */
export const MAX_PAGES = 32;

/**
 * The paging of `count` splats of `splatBytes` under a per-binding limit of `bindingBytes`:
 * one page when they fit, else as many full pages of the most whole splats a binding holds
 * as the count needs.
 * @throws RangeError when one splat does not fit a binding
 */
export function pagingFor(count: number, splatBytes: number, bindingBytes: number): Paging {
  const n = Math.max(1, count);
  if (n * splatBytes <= bindingBytes) return { count: n, splatBytes, pageSplats: n, pages: 1 };
  const pageSplats = Math.floor(bindingBytes / splatBytes);
  if (pageSplats < 1) throw new RangeError(`a splat of ${splatBytes} bytes does not fit a binding of ${bindingBytes} bytes`);
  return { count: n, splatBytes, pageSplats, pages: Math.ceil(n / pageSplats) };
}

/**
 * The paging of a sort's keys or values (u32 a splat) for `count` splats: one page when
 * they fit a binding, else pages of the PagedSorter's page capacity (sort/paged-sort.ts
 * sortPageCapacity: a power of two, so that every sorter's own buffers fit a binding).
 */
export function sortPagingFor(count: number, bindingBytes: number): Paging {
  const n = Math.max(1, count);
  if (n * 4 <= bindingBytes) return { count: n, splatBytes: 4, pageSplats: n, pages: 1 };
  const pageSplats = sortPageCapacity(bindingBytes);
  return { count: n, splatBytes: 4, pageSplats, pages: Math.ceil(n / pageSplats) };
}

/** The binding of page `p` of an array whose page 0 is at `base`. */
export function pageBinding(base: number, p: number): number {
  if (p >= MAX_PAGES) throw new RangeError(`page ${p}: an array has at most ${MAX_PAGES} pages`);
  return p === 0 ? base : 64 + base * MAX_PAGES + p;
}

/** What a pipeline specialised for these pagings depends on (its cache key). */
export function pagingKey(...pagings: Paging[]): string {
  return pagings.map((p) => (p.pages === 1 ? '1' : `${p.pages}x${p.pageSplats}`)).join(',');
}

/** One paged array of a pass, for its WGSL and its bind group layout. */
export interface PagedArrayWgsl {
  /** The array's name: pages NAME_0 .. and accessors NAME_at, NAME_put. */
  name: string;
  /** The WGSL element type ('vec4f', 'u32', an alias). */
  type: string;
  /** WGSL expression: elements a splat ('2u', 'frame.shStride'). */
  perSplat: string;
  paging: Paging;
  /** Page 0's binding (group 0). */
  binding: number;
  /** 'read' (a read-only binding: NAME_at only) or 'read_write' (NAME_at and NAME_put). */
  access: 'read' | 'read_write';
}

/** The bindings and accessors of a paged array (see the module comment). */
export function pagedWgsl(a: PagedArrayWgsl): string {
  const { name, type, perSplat, paging, binding, access } = a;
  const lines: string[] = [];
  for (let p = 0; p < paging.pages; p++) {
    lines.push(`@group(0) @binding(${pageBinding(binding, p)}) var<storage, ${access}> ${name}_${p}: array<${type}>;`);
  }
  // Element index of (i, k) within its page, and the statement run on page `p`'s binding.
  const body = (stmt: (page: string, index: string) => string): string => {
    if (paging.pages === 1) return `  ${stmt(`${name}_0`, `i * ${perSplat} + k`)}`;
    const cases = Array.from({ length: paging.pages }, (_, p) =>
      `    ${p === paging.pages - 1 ? 'default' : `case ${p}u`}: { ${stmt(`${name}_${p}`, 'j')} }`,
    );
    return [`  let p = i / ${paging.pageSplats}u;`, `  let j = (i - p * ${paging.pageSplats}u) * ${perSplat} + k;`, '  switch (p) {', ...cases, '  }'].join('\n');
  };
  lines.push(`fn ${name}_at(i: u32, k: u32) -> ${type} {\n${body((b, j) => `return ${b}[${j}];`)}\n}`);
  if (access === 'read_write') lines.push(`fn ${name}_put(i: u32, k: u32, v: ${type}) {\n${body((b, j) => `${b}[${j}] = v;`)}\n}`);
  return lines.join('\n');
}

/** Bind group layout entries of a paged array's pages. */
export function pagedLayoutEntries(binding: number, paging: Paging, visibility: GPUShaderStageFlags, type: GPUBufferBindingType): GPUBindGroupLayoutEntry[] {
  return Array.from({ length: paging.pages }, (_, p) => ({ binding: pageBinding(binding, p), visibility, buffer: { type } }));
}

/**
 * A paged array on the GPU: one buffer a page. Writes and copies by splat index are
 * split at the page seams.
 */
export class PagedBuffer {
  readonly buffers: GPUBuffer[];

  constructor(
    device: GPUDevice,
    label: string,
    readonly paging: Paging,
    usage: GPUBufferUsageFlags,
  ) {
    const { count, pageSplats, pages, splatBytes } = paging;
    this.buffers = Array.from({ length: pages }, (_, p) =>
      device.createBuffer({
        label: pages === 1 ? label : `${label}[${p}]`,
        // At least 16 bytes: zero-sized buffers cannot be bound.
        size: Math.max(16, Math.min(pageSplats, count - p * pageSplats) * splatBytes),
        usage,
      }),
    );
  }

  /** Bind group entries of the pages, page 0 at binding `base` (pageBinding). */
  entries(base: number): GPUBindGroupEntry[] {
    return this.buffers.map((buffer, p) => ({ binding: pageBinding(base, p), resource: { buffer } }));
  }

  /** The pieces of splats [first, first + n) by page: (page, splat offset in the page, first splat, splats). */
  spans(first: number, n: number): { page: number; at: number; from: number; count: number }[] {
    const { pageSplats } = this.paging;
    const out: { page: number; at: number; from: number; count: number }[] = [];
    for (let i = first; i < first + n; ) {
      const page = Math.floor(i / pageSplats);
      const at = i - page * pageSplats;
      const count = Math.min(first + n - i, pageSplats - at);
      out.push({ page, at, from: i, count });
      i += count;
    }
    return out;
  }

  /** Writes `data` (whole splats, from splat `first`) through the queue. */
  write(queue: GPUQueue, first: number, data: ArrayBufferView): void {
    const b = this.paging.splatBytes;
    const n = data.byteLength / b;
    for (const s of this.spans(first, n)) {
      queue.writeBuffer(this.buffers[s.page]!, s.at * b, data.buffer, data.byteOffset + (s.from - first) * b, s.count * b);
    }
  }

  /** Copies `n` splats from `src` at byte `srcOffset` to splat `first` on (a copy of the same layout). */
  copyFrom(encoder: GPUCommandEncoder, src: GPUBuffer, srcOffset: number, first: number, n: number): void {
    const b = this.paging.splatBytes;
    for (const s of this.spans(first, n)) {
      encoder.copyBufferToBuffer(src, srcOffset + (s.from - first) * b, this.buffers[s.page]!, s.at * b, s.count * b);
    }
  }

  destroy(): void {
    for (const b of this.buffers) b.destroy();
  }
}
