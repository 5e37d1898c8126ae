/**
 * A sort of more elements than one storage binding holds: keys and values in pages
 * (GPUBuffers of `pageCapacity` u32 each, the last one shorter), sorted as one array.
 * WebGPU binds at most `maxStorageBufferBindingSize` bytes (128 MiB by default: 33.5M
 * u32), and every sorter here binds its keys and values whole.
 *
 * 1. paged_split.wgsl: the job's live count n split into the pages' counts (the first n
 *    elements are live, page by page).
 * 2. Each page sorted on its own by the strategy's sorter (one sorter of the page's
 *    capacity, run once a page, and one of the last page's when it is shorter): P
 *    sorted runs, in input order.
 * 3. paged_rank.wgsl, a run at a time: each element's place in the merged order, by
 *    binary searches of the other runs (ties go to the earlier run: a stable sorter
 *    stays stable); paged_move.wgsl moves the run's elements to the output page each
 *    lands on, and paged_copy.wgsl brings the output pages back into the job's pages.
 *
 * The rank kernel binds every page's keys, its counts and its output: P + 2 storage
 * buffers, so a job has at most maxStorageBuffersPerShaderStage - 2 pages (6 under
 * WebGPU's default 8: 201M elements at 128 MiB bindings). The merge costs P - 1 binary
 * searches an element and P^2 dispatches of a page's size that mostly read one word:
 * it is there for scenes no single binding holds, not for speed. A job of one page is
 * the sorter's own sort, nothing added.
 */
import splitWgsl from '../shaders/sort/paged_split.wgsl?raw';
import rankWgsl from '../shaders/sort/paged_rank.wgsl?raw';
import moveWgsl from '../shaders/sort/paged_move.wgsl?raw';
import copyWgsl from '../shaders/sort/paged_copy.wgsl?raw';
import { DeviceCache, layoutEntry, lazy, pipelineMaker, sortModule, wgslStruct } from './kernel-kit.ts';
import { checkKeyBits, grid2d, jobCountWindow, passTimestampWrites } from './sort-job.ts';
import { sortBufferUsage, type GpuSorter, type SorterFactory, type SortTimestamps } from './types.ts';

/** A sort of paged keys and values: page p holds elements p * pageCapacity .. of the array. */
export interface PagedSortJob {
  /** u32 keys, page by page (every page but the last holds pageCapacity). Input and output. */
  keys: readonly GPUBuffer[];
  /** u32 values, paged as the keys. Input and output. */
  values: readonly GPUBuffer[];
  /** The live count (all pages together) as a u32 at `countOffset`, written on the GPU. */
  count: GPUBuffer;
  countOffset?: number;
  keyBits: number;
}

/** The most pages a paged sort may have on `device` (the rank kernel binds them all and two more). */
export function maxSortPages(device: GPUDevice): number {
  return device.limits.maxStorageBuffersPerShaderStage - 2;
}

/**
 * Elements a page holds under a per-binding limit of `bindingBytes`: the largest power
 * of two whose u32s fit (bitonic pads its capacity to a power of two; every sorter's
 * scratch then fits a binding too).
 */
export function sortPageCapacity(bindingBytes: number): number {
  const words = Math.floor(bindingBytes / 4);
  if (words < 1) throw new RangeError(`paged sort: a binding of ${bindingBytes} bytes holds no u32`);
  return 2 ** Math.floor(Math.log2(words));
}

const WG = 256;

interface PagedKernels {
  split: GPUComputePipeline;
  rank: GPUComputePipeline;
  move: GPUComputePipeline;
  copy: GPUComputePipeline;
  splitLayout: GPUBindGroupLayout;
  rankLayout: GPUBindGroupLayout;
  moveLayout: GPUBindGroupLayout;
  copyLayout: GPUBindGroupLayout;
}

const cache = new DeviceCache<PagedKernels>();

/** The generated head of the rank kernel for `pages` pages: PAGES, the key bindings and pageKey. */
function rankHead(pages: number): string {
  const bindings = Array.from({ length: pages }, (_, s) => `@group(0) @binding(${10 + s}) var<storage, read> keys${s}: array<u32>;`);
  const cases = Array.from({ length: pages }, (_, s) => `    case ${s}u: { return keys${s}[i]; }`);
  return `${bindings.join('\n')}\nfn pageKey(s: u32, i: u32) -> u32 {\n  switch s {\n${cases.join('\n')}\n    default: { return 0u; }\n  }\n}\n`;
}

function kernelsFor(device: GPUDevice, pages: number): PagedKernels {
  return cache.get(device, String(pages), () => {
    const e = layoutEntry;
    const dyn = (size: number) => e.dynamicUniform(0, size);
    const layout = (label: string, entries: GPUBindGroupLayoutEntry[]) => device.createBindGroupLayout({ label: `PagedSorter.${label}Layout`, entries });
    const splitLayout = layout('split', [e.uniform(0), e.read(1), e.storage(2)]);
    const rankLayout = layout('rank', [dyn(16), e.read(1), e.storage(2), ...Array.from({ length: pages }, (_, s) => e.read(10 + s))]);
    const moveLayout = layout('move', [dyn(16), e.read(1), e.read(2), e.read(3), e.read(4), e.storage(5), e.storage(6)]);
    const copyLayout = layout('copy', [dyn(16), e.read(1), e.read(2), e.read(3), e.storage(4), e.storage(5)]);
    const pipeline = pipelineMaker(device, 'PagedSorter', `pages=${pages}`, {});
    const make = (name: string, code: string, bgl: GPUBindGroupLayout) =>
      lazy(() => pipeline(name, code, device.createPipelineLayout({ label: `PagedSorter.${name}PipelineLayout`, bindGroupLayouts: [bgl] })));
    const split = make('split', sortModule([splitWgsl]), splitLayout);
    const rank = make('rank', sortModule([rankHead(pages), rankWgsl], { PAGES: pages }), rankLayout);
    const move = make('move', sortModule([moveWgsl]), moveLayout);
    const copy = make('copy', sortModule([copyWgsl]), copyLayout);
    return {
      get split() { return split(); },
      get rank() { return rank(); },
      get move() { return move(); },
      get copy() { return copy(); },
      splitLayout,
      rankLayout,
      moveLayout,
      copyLayout,
    };
  });
}

/** The kernels' parameter structs (reflected on first use: webgpu-utils wants the GPU globals). */
const infos = lazy(() => ({
  split: wgslStruct(splitWgsl, 'SplitInfo'),
  rank: wgslStruct(rankWgsl, 'RankInfo'),
  move: wgslStruct(moveWgsl, 'MoveInfo'),
  copy: wgslStruct(copyWgsl, 'CopyInfo'),
}));

/** What a paged sorter keeps for one job's buffers. */
interface PagedJobEntry {
  keys: readonly GPUBuffer[];
  values: readonly GPUBuffer[];
  count: GPUBuffer;
  countOffset: number;
  keyMask: number;
  splitGroup: GPUBindGroup;
  rankGroup: GPUBindGroup;
  moveGroups: GPUBindGroup[]; // by run * pages + page
  copyGroups: GPUBindGroup[]; // by page
  buffers: GPUBuffer[]; // uniforms made for the job
}

/**
 * Sorts up to `capacity` (key, value) pairs held in pages of `pageCapacity`, with the
 * sorter `factory` makes (see the module comment).
 */
export class PagedSorter {
  readonly name: string;
  readonly pages: number;
  private readonly inner: GpuSorter;
  /** The last page's sorter when that page is shorter (a sorter wants buffers of its whole capacity). */
  private readonly lastInner: GpuSorter | null = null;
  private readonly kernels: PagedKernels | null;
  private readonly pageCounts: GPUBuffer | null = null;
  private readonly dest: GPUBuffer | null = null;
  private readonly outKeys: GPUBuffer[] = [];
  private readonly outValues: GPUBuffer[] = [];
  private job: PagedJobEntry | null = null;

  constructor(
    private readonly device: GPUDevice,
    factory: SorterFactory,
    readonly capacity: number,
    readonly pageCapacity: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`PagedSorter: capacity must be a positive integer, got ${capacity}`);
    if (!Number.isInteger(pageCapacity) || pageCapacity < 1) throw new RangeError(`PagedSorter: pageCapacity must be a positive integer, got ${pageCapacity}`);
    this.pages = Math.ceil(capacity / pageCapacity);
    const most = maxSortPages(device);
    if (this.pages > most) {
      throw new RangeError(
        `PagedSorter: ${capacity.toLocaleString('en-US')} elements need ${this.pages} pages of ${pageCapacity.toLocaleString('en-US')}, ` +
          `the device binds ${most} (maxStorageBuffersPerShaderStage ${device.limits.maxStorageBuffersPerShaderStage}, less 2)`,
      );
    }
    this.name = `${factory.name}${this.pages > 1 ? ` in ${this.pages} pages` : ''}`;
    this.inner = factory.create(device, Math.min(capacity, pageCapacity));
    if (this.pages === 1) {
      this.kernels = null;
      return;
    }
    this.kernels = kernelsFor(device, this.pages);
    const last = this.pageSize(this.pages - 1);
    if (last < pageCapacity) this.lastInner = factory.create(device, last);
    const usage = sortBufferUsage();
    const buffer = (label: string, words: number) => device.createBuffer({ label: `PagedSorter.${label}`, size: Math.max(words, 1) * 4, usage });
    this.pageCounts = buffer('pageCounts', this.pages + 1);
    this.dest = buffer('dest', pageCapacity);
    for (let p = 0; p < this.pages; p++) {
      this.outKeys.push(buffer(`outKeys${p}`, this.pageSize(p)));
      this.outValues.push(buffer(`outValues${p}`, this.pageSize(p)));
    }
  }

  /** Elements page p holds. */
  pageSize(p: number): number {
    return Math.min(this.pageCapacity, this.capacity - p * this.pageCapacity);
  }

  /** Records the sort of `job` into `encoder`; timestamps at the start of the first pass and the end of the last. */
  encode(encoder: GPUCommandEncoder, job: PagedSortJob, timestamps?: SortTimestamps): void {
    if (job.keys.length !== this.pages || job.values.length !== this.pages) {
      throw new RangeError(`PagedSorter: the job has ${job.keys.length} key and ${job.values.length} value pages, the sorter ${this.pages}`);
    }
    if (!this.kernels) {
      this.inner.encode(encoder, { keys: job.keys[0]!, values: job.values[0]!, count: job.count, countOffset: job.countOffset, keyBits: job.keyBits }, timestamps);
      return;
    }
    checkKeyBits('PagedSorter', job.keyBits);
    const entry = this.entryFor(job);
    const k = this.kernels;
    const grid = (n: number) => grid2d(Math.ceil(n / WG), this.device.limits.maxComputeWorkgroupsPerDimension);
    const P = this.pages;

    const first = encoder.beginComputePass({
      label: 'PagedSorter.split',
      timestampWrites: timestamps?.beginIndex === undefined ? undefined : { querySet: timestamps.querySet, beginningOfPassWriteIndex: timestamps.beginIndex },
    });
    first.setPipeline(k.split);
    first.setBindGroup(0, entry.splitGroup);
    first.dispatchWorkgroups(1);
    first.end();

    for (let p = 0; p < P; p++) {
      const sorter = p === P - 1 && this.lastInner ? this.lastInner : this.inner;
      sorter.encode(encoder, { keys: job.keys[p]!, values: job.values[p]!, count: this.pageCounts!, countOffset: 4 * p, keyBits: job.keyBits });
    }

    const pass = encoder.beginComputePass({ label: 'PagedSorter.merge', timestampWrites: passTimestampWrites(timestamps && { querySet: timestamps.querySet, endIndex: timestamps.endIndex }) });
    const stride = this.slotStride();
    for (let r = 0; r < P; r++) {
      const g = grid(this.pageSize(r));
      pass.setPipeline(k.rank);
      pass.setBindGroup(0, entry.rankGroup, [r * stride]);
      pass.dispatchWorkgroups(g.x, g.y);
      pass.setPipeline(k.move);
      for (let q = 0; q < P; q++) {
        pass.setBindGroup(0, entry.moveGroups[r * P + q]!, [(r * P + q) * stride]);
        pass.dispatchWorkgroups(g.x, g.y);
      }
    }
    pass.setPipeline(k.copy);
    for (let q = 0; q < P; q++) {
      const g = grid(this.pageSize(q));
      pass.setBindGroup(0, entry.copyGroups[q]!, [q * stride]);
      pass.dispatchWorkgroups(g.x, g.y);
    }
    pass.end();
  }

  private slotStride(): number {
    return Math.max(256, this.device.limits.minUniformBufferOffsetAlignment);
  }

  /** The bind groups of `job`'s buffers (kept for the last job: a frame sorts the same ones). */
  private entryFor(job: PagedSortJob): PagedJobEntry {
    const countOffset = job.countOffset ?? 0;
    const keyMask = job.keyBits === 32 ? 0xffffffff : 2 ** job.keyBits - 1;
    const j = this.job;
    const same = (a: readonly GPUBuffer[], b: readonly GPUBuffer[]) => a.length === b.length && a.every((x, i) => x === b[i]);
    if (j && j.count === job.count && j.countOffset === countOffset && j.keyMask === keyMask && same(j.keys, job.keys) && same(j.values, job.values)) return j;
    if (j) for (const b of j.buffers) b.destroy();
    this.job = null;

    const device = this.device;
    const P = this.pages;
    for (let p = 0; p < P; p++) {
      const words = this.pageSize(p);
      for (const [what, b] of [['keys', job.keys[p]!], ['values', job.values[p]!]] as const) {
        if (b.size < words * 4) throw new RangeError(`PagedSorter: job.${what}[${p}] holds ${b.size} bytes, its page needs ${words * 4}`);
      }
    }
    // The count's aligned window (jobCountWindow checks the offset; the page buffers were checked above).
    const window = jobCountWindow('PagedSorter', device, { keys: job.keys[0]!, values: job.values[0]!, count: job.count, countOffset, keyBits: job.keyBits }, 0);
    const k = this.kernels!;
    const buffers: GPUBuffer[] = [];
    const splitInfo = infos().split.uniform(device, 'PagedSorter.splitInfo', { countIndex: window.countIndex, capacity: this.capacity, pageCapacity: this.pageCapacity, pages: P });
    buffers.push(splitInfo);
    const rank = infos().rank.slots(device, 'PagedSorter.rankInfo', P, (r) => ({ run: r, keyMask }));
    const move = infos().move.slots(device, 'PagedSorter.moveInfo', P * P, (s) => ({ run: Math.floor(s / P), page: s % P, pageCapacity: this.pageCapacity }));
    const copy = infos().copy.slots(device, 'PagedSorter.copyInfo', P, (q) => ({ page: q }));
    buffers.push(rank.buffer, move.buffer, copy.buffer);
    const buf = (binding: number, buffer: GPUBuffer, size?: number, offset?: number): GPUBindGroupEntry => ({ binding, resource: { buffer, size, offset } });
    const counts = this.pageCounts!;
    const group = (label: string, layout: GPUBindGroupLayout, entries: GPUBindGroupEntry[]) => device.createBindGroup({ label: `PagedSorter.${label}`, layout, entries });
    const entry: PagedJobEntry = {
      keys: [...job.keys],
      values: [...job.values],
      count: job.count,
      countOffset,
      keyMask,
      splitGroup: group('split', k.splitLayout, [buf(0, splitInfo), buf(1, job.count, window.windowSize, window.windowOffset), buf(2, counts)]),
      rankGroup: group('rank', k.rankLayout, [buf(0, rank.buffer, 16), buf(1, counts), buf(2, this.dest!), ...job.keys.map((b, s) => buf(10 + s, b))]),
      moveGroups: [],
      copyGroups: [],
      buffers,
    };
    for (let r = 0; r < P; r++) {
      for (let q = 0; q < P; q++) {
        entry.moveGroups.push(
          group(`move${r}to${q}`, k.moveLayout, [buf(0, move.buffer, 16), buf(1, counts), buf(2, this.dest!), buf(3, job.keys[r]!), buf(4, job.values[r]!), buf(5, this.outKeys[q]!), buf(6, this.outValues[q]!)]),
        );
      }
    }
    for (let q = 0; q < P; q++) {
      entry.copyGroups.push(group(`copy${q}`, k.copyLayout, [buf(0, copy.buffer, 16), buf(1, counts), buf(2, this.outKeys[q]!), buf(3, this.outValues[q]!), buf(4, job.keys[q]!), buf(5, job.values[q]!)]));
    }
    this.job = entry;
    return entry;
  }

  destroy(): void {
    this.inner.destroy();
    this.lastInner?.destroy();
    this.pageCounts?.destroy();
    this.dest?.destroy();
    for (const b of [...this.outKeys, ...this.outValues]) b.destroy();
    if (this.job) for (const b of this.job.buffers) b.destroy();
    this.job = null;
  }
}
