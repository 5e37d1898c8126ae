/** Generic GPU key/value sorters: the interface, the strategies, the CPU reference. */
export type { GpuSorter, SorterFactory, SortJob, SortTimestamps } from './types.ts';
export { sortBufferUsage } from './types.ts';
export { Radix4Sorter, createRadix4Factory, radix4Factory, radix4Passes, type Radix4Options } from './radix4.ts';
export { Radix16Sorter, createRadix16Factory, radix16Factory, radix16Passes, type Radix16Options } from './radix16.ts';
export { OnesweepSorter, createOnesweepFactory, onesweepFactory, onesweepPasses, type OnesweepOptions } from './onesweep.ts';
export { BitonicSorter, createBitonicFactory, bitonicFactory, type BitonicOptions } from './bitonic.ts';
export { preferredSorter, isSoftwareAdapter, FAIR_SCHEDULING_VENDORS, type AdapterFacts, type DefaultSortStrategy } from './default-strategy.ts';
export { getSorterFactory, listSorters, sorterFactories } from './registry.ts';
export { checkSortedPairs, cpuSortPairs, keyMask, type SortCheck } from './cpu-reference.ts';
