/**
 * radix16: an LSD radix sort of u32 key/value pairs, 4 bits a pass (ceil(keyBits / 4)
 * passes), ascending and stable, after AMD's 'Introduction to GPU Radix Sort' (radix-16
 * variant): per-tile digit histograms, a global exclusive scan of the digit-major
 * histograms, and a ranked scatter whose ranks are recomputed on chip. All
 * in one compute pass:
 *
 *   prepare  1 invocation: reads the live count on the GPU, writes sizes and grids
 *   count    (first pass only) one workgroup per tile (2048 keys with subgroups, else 1536): its 16 digit counts,
 *            digit-major, so that one exclusive scan gives each (digit, tile) its base
 *   then per pass:
 *   scan     exclusive scan of the counts in 1024-entry blocks, storing the block
 *            totals; not dispatched up to 64 tiles (1024 counts: 131,072 keys with
 *            subgroups), once a pass up to 65,536 tiles (134M keys), twice beyond: the
 *            last level, at most 1024 entries, every scatter workgroup
 *            scans itself
 *   scatter  one workgroup per tile: stable ranks (with subgroups: ballots within each
 *            subgroup, in registers, then a scan of the (digit, subgroup) counts; else
 *            one workgroup scan of per-invocation digit counts), the tile sorted by
 *            digit in workgroup memory and
 *            written out in coalesced runs; it also counts the next pass's digits per
 *            output tile (workgroup, then global atomics), which is why `count` runs once
 *
 * Dispatches: 2 + passes up to 64 tiles, else 2 + 2 * passes (or 2 + 3 * passes).
 * No workgroup waits on another (no forward-progress assumption).
 *
 * The passes ping-pong between the job's buffers and the sorter's own, so that the last
 * pass writes into the job's buffers (for an odd pass count, the count kernel also copies
 * the input across). Only the low `keyBits` bits of a key decide its place; the higher
 * bits are ignored by the sort and kept in the output. Pairs past the live count are
 * neither read nor written.
 */
import type { SorterFactory } from './types.ts';
import { LEVEL_ALIGN_ENTRIES, RadixSorter, type ScanLayout } from './radix-common.ts';
import { checkCapacity, sorterFactory } from './sorter-base.ts';
import {
  getRadix16Kernels,
  radix16DigitStride,
  radix16MaxSubgroups,
  radix16WorkgroupBytes,
  radix16WgSize,
  RADIX16_RADIX,
  RADIX16_SCAN_BLOCK,
} from './radix16-kernels.ts';

export interface Radix16Options {
  /**
   * 'auto' (default): the subgroup kernels when the device has the 'subgroups' feature;
   * 'off': the portable kernels (workgroup-memory scans) everywhere.
   */
  subgroups?: 'auto' | 'off';
  /**
   * Invocations per workgroup, one of RADIX16_WG_SIZES (a tile is this times the keys
   * per invocation). Default: 256, and RADIX16_SWIFTSHADER_WG_SIZE on SwiftShader
   * (radix16WgSize). Tests force the small size on other adapters.
   */
  wgSize?: number;
  /**
   * How the count, scan and scatter kernels are launched. 'direct' (default): grids sized
   * for the capacity; workgroups past the live count exit at once. 'indirect': grids
   * written on the GPU by the prepare kernel (dispatchWorkgroupsIndirect), which Dawn
   * validates with a hidden dispatch of its own each: worth it only when the live count
   * is far below the capacity.
   */
  dispatch?: 'direct' | 'indirect';
}

/** Passes for a key width: 4 bits each. */
export function radix16Passes(keyBits: number): number {
  return Math.ceil(keyBits / 4);
}

function scanLayout(capacity: number, TILE: number): ScanLayout {
  const align = (v: number) => Math.ceil(Math.max(v, 1) / LEVEL_ALIGN_ENTRIES) * LEVEL_ALIGN_ENTRIES;
  const tiles = Math.ceil(capacity / TILE);
  const levelOffset = [0];
  const levelSize: number[] = [];
  let levelEntries = 0;
  let size = RADIX16_RADIX * radix16DigitStride(tiles);
  while (size > RADIX16_SCAN_BLOCK) {
    levelSize.push(size);
    size = Math.ceil(size / RADIX16_SCAN_BLOCK);
    levelOffset.push(levelEntries); // this level's block totals: the next level, or the top level
    levelEntries += align(size);
  }
  return { countEntries: RADIX16_RADIX * radix16DigitStride(tiles), numLevels: levelSize.length, levelOffset, levelSize, levelEntries: Math.max(levelEntries, 1) };
}

const MAX_PASSES = radix16Passes(32);
/**
 * passInfo slots. Radix pass p: slot KINDS * p + kind; with b = the bits of the last pass
 * (1..4) and m(b) = 2^b - 1, kind b - 1 = (digit mask 15, next m(b)) and kind 3 + b =
 * (m(b), none: last pass). Kind 3 = (15, 15) serves every pass before the last two.
 * Scan level l: slot SLOT_SCAN + l.
 */
const KINDS = 8;
const SLOT_SCAN = KINDS * MAX_PASSES;

function passSlot(p: number, passes: number, keyBits: number): number {
  const lastBits = keyBits - 4 * (passes - 1);
  let kind = 3;
  if (p === passes - 1) kind = 3 + lastBits;
  else if (p === passes - 2) kind = lastBits - 1;
  return KINDS * p + kind;
}

/** A radix16 sorter of up to `capacity` pairs; see the module comment. */
export class Radix16Sorter extends RadixSorter {
  constructor(device: GPUDevice, capacity: number, options: Radix16Options = {}) {
    checkCapacity('Radix16Sorter', device, capacity);
    const usesSubgroups = options.subgroups !== 'off' && device.features.has('subgroups');
    const kernels = getRadix16Kernels(device, usesSubgroups, radix16WgSize(device, options.wgSize));
    const tile = kernels.wgSize * kernels.keysPerThread;
    const layout = scanLayout(capacity, tile);
    super(device, capacity, radix16Name(options), usesSubgroups, options.dispatch ?? 'direct', {
      label: 'Radix16Sorter',
      kernels,
      scatter: kernels.scatter,
      tile,
      scanBlock: RADIX16_SCAN_BLOCK,
      layout,
      passSlots: SLOT_SCAN,
      passInfo: (slot) => {
        const shift = 4 * Math.floor(slot / KINDS);
        const kind = slot % KINDS;
        return kind < 4
          ? { shift, digitMask: 15, nextDigitMask: (1 << (kind + 1)) - 1 }
          : { shift, digitMask: (1 << (kind - 3)) - 1, nextDigitMask: 0 };
      },
      passes: radix16Passes,
      passSlot,
    });
    // Compile now the pipelines every sort of this capacity needs (countCopy: on first use).
    void [kernels.prepare, kernels.count, ...(layout.numLevels > 0 ? [kernels.scan] : [])];
  }
}

function radix16Name(options: Radix16Options): string {
  let name = 'radix16';
  if (options.subgroups === 'off') name += '-portable';
  if (options.dispatch === 'indirect') name += '-indirect';
  if (options.wgSize !== undefined) name += `-wg${options.wgSize}`;
  return name;
}

/** A radix16 factory; options choose the kernel variant and the dispatch mode (tests, benchmarks). */
export function createRadix16Factory(options: Radix16Options = {}): SorterFactory {
  return sorterFactory({
    name: radix16Name(options),
    description: 'LSD radix sort, 4 bits a pass (2048-key tiles with subgroups, 1536 without, an eighth of that on SwiftShader; 16-bin tile histograms, hierarchical scan, ranked stable scatter), after AMD\'s radix-16 slides',
    stable: true,
    needs: (device) => {
      const subgroups = options.subgroups !== 'off' && device.features.has('subgroups');
      const wgSize = radix16WgSize(device, options.wgSize);
      return {
        workgroupSize: wgSize,
        storageBuffers: 8,
        workgroupBytes: radix16WorkgroupBytes(subgroups, radix16MaxSubgroups(device, wgSize), wgSize),
      };
    },
    create: (device, capacity) => new Radix16Sorter(device, capacity, options),
  });
}

/** The product's radix16 strategy, with the default options. */
export const radix16Factory: SorterFactory = createRadix16Factory();
