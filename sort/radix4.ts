/**
 * radix4: the quaternary (2 bits a pass) LSD radix sort of u32 key/value pairs,
 * ascending and stable, after 'WebGPU Unleashed' ch. 4.1 but for any N the buffers
 * hold. All in one compute pass:
 *
 *   prepare  1 invocation: reads the live count on the GPU, writes sizes and grids
 *   count    (first pass only) one workgroup per 512-key chunk: its 4 digit counts,
 *            digit-major, so that one exclusive scan gives each (digit, chunk) its base
 *   then per pass:
 *   scan     exclusive scan of the counts, hierarchical (4096-entry blocks; two
 *            levels up to 2G keys, three beyond); not dispatched up to 524,288 keys
 *            of capacity (one level's worth), where the scatter sums the counts itself
 *   scatter  one workgroup per chunk: ranks recomputed in workgroup memory, the chunk
 *            sorted by digit there and written out in coalesced runs; it also counts
 *            the next pass's digits per output chunk (workgroup, then global atomics),
 *            which is why `count` runs only once
 *
 * The passes
 * ping-pong between the job's buffers and the sorter's own, so that the last pass
 * writes into the job's buffers (for an odd pass count, the first count kernel also
 * copies the input across).
 *
 * Only the low `keyBits` bits of a key decide its place; the higher bits are ignored
 * by the sort and kept in the output.
 */
import type { SorterFactory } from './types.ts';
import { LEVEL_ALIGN_ENTRIES, RadixSorter, type ScanLayout } from './radix-common.ts';
import { checkCapacity, sorterFactory } from './sorter-base.ts';
import {
  getRadix4Kernels,
  RADIX4_BASES_FROM_COUNTS_MAX_CHUNKS,
  RADIX4_CHUNK,
  RADIX4_CONSTANTS,
  RADIX4_SCAN_BLOCK,
} from './radix4-kernels.ts';

export interface Radix4Options {
  /**
   * 'auto' (default): the subgroup kernels when the device has the 'subgroups'
   * feature; 'off': the portable kernels (workgroup-memory scans) everywhere.
   */
  subgroups?: 'auto' | 'off';
  /**
   * How the count, scan and scatter kernels are launched.
   * 'direct' (default): grids sized for the capacity; workgroups past the live count
   * exit at once. 'indirect': grids written on the GPU by the prepare kernel from the
   * live count (dispatchWorkgroupsIndirect). Dawn validates every indirect dispatch
   * with a hidden dispatch of its own, which costs more than the empty workgroups of a
   * direct grid unless the live count is far below the capacity (docs/PERFORMANCE.md,
   * "What bounds them now").
   */
  dispatch?: 'direct' | 'indirect';
}

/** Passes for a key width: 2 bits each. */
export function radix4Passes(keyBits: number): number {
  return Math.ceil(keyBits / 2);
}

function scanLayout(capacity: number): ScanLayout {
  const align = (v: number) => Math.ceil(Math.max(v, 1) / LEVEL_ALIGN_ENTRIES) * LEVEL_ALIGN_ENTRIES;
  const chunks = Math.ceil(capacity / RADIX4_CHUNK);
  const levelOffset = [0];
  const levelSize: number[] = [];
  let levelEntries = 0;
  if (chunks > RADIX4_BASES_FROM_COUNTS_MAX_CHUNKS) {
    let size = 4 * chunks;
    for (;;) {
      levelSize.push(size);
      size = Math.ceil(size / RADIX4_SCAN_BLOCK);
      levelOffset.push(levelEntries); // this level's block totals: the next level, or the top total
      levelEntries += align(size);
      if (size <= 1) break;
    }
  }
  return { countEntries: 4 * chunks, numLevels: levelSize.length, levelOffset, levelSize, levelEntries: Math.max(levelEntries, 1) };
}

const MAX_PASSES = radix4Passes(32);
/**
 * passInfo slots. Radix pass p: slot 4p + kind, kind = the digit masks of (this pass,
 * next pass): 0 = (3, 3), 1 = (3, 1), 2 = (3, none: last), 3 = (1, none: last).
 * Scan level l: slot SLOT_SCAN + l.
 */
const SLOT_SCAN = 4 * MAX_PASSES;

function passSlot(p: number, passes: number, keyBits: number): number {
  const oddBits = keyBits % 2 === 1;
  let kind: number;
  if (p === passes - 1) kind = oddBits ? 3 : 2;
  else kind = p + 1 === passes - 1 && oddBits ? 1 : 0;
  return 4 * p + kind;
}

/** A radix4 sorter of up to `capacity` pairs; see the module comment. */
export class Radix4Sorter extends RadixSorter {
  constructor(device: GPUDevice, capacity: number, options: Radix4Options = {}) {
    checkCapacity('Radix4Sorter', device, capacity);
    const usesSubgroups = options.subgroups !== 'off' && device.features.has('subgroups');
    const kernels = getRadix4Kernels(device, usesSubgroups);
    const layout = scanLayout(capacity);
    const kinds = [[3, 3], [3, 1], [3, 0], [1, 0]] as const;
    super(device, capacity, radix4Name(options), usesSubgroups, options.dispatch ?? 'direct', {
      label: 'Radix4Sorter',
      kernels,
      scatter: layout.numLevels === 0 ? kernels.scatterFromCounts : kernels.scatter,
      tile: RADIX4_CHUNK,
      scanBlock: RADIX4_SCAN_BLOCK,
      layout,
      passSlots: SLOT_SCAN,
      passInfo: (slot) => {
        const [digitMask, nextDigitMask] = kinds[slot % 4]!;
        return { shift: 2 * Math.floor(slot / 4), digitMask, nextDigitMask };
      },
      passes: radix4Passes,
      passSlot,
    });
  }
}

function radix4Name(options: Radix4Options): string {
  let name = 'radix4';
  if (options.subgroups === 'off') name += '-portable';
  if (options.dispatch === 'indirect') name += '-indirect';
  return name;
}

/** A radix4 factory; options choose the kernel variant and the dispatch mode (tests, benchmarks). */
export function createRadix4Factory(options: Radix4Options = {}): SorterFactory {
  return sorterFactory({
    name: radix4Name(options),
    description: 'Quaternary LSD radix sort (2 bits a pass, 512-key chunks, hierarchical scan), after WebGPU Unleashed ch. 4.1',
    stable: true,
    needs: () => ({ workgroupSize: RADIX4_CONSTANTS.WG_SIZE, storageBuffers: 8, workgroupBytes: 16384 }),
    create: (device, capacity) => new Radix4Sorter(device, capacity, options),
  });
}

/** The product's radix4 strategy, with the default options. */
export const radix4Factory: SorterFactory = createRadix4Factory();
