import { getSorterFactory, listSorters } from '../../sort/registry';
import type { SorterFactory } from '../../sort/types';

/** The name of the CPU strategy (depths and sort on the CPU, drawn a frame late). */
export const CPU_STRATEGY = 'cpu';

/** A sort strategy as the GUI and the benchmarks list it. */
export interface StrategyInfo {
  name: string;
  description: string;
  stable: boolean;
  /** The drawn order is from an earlier frame's camera. */
  lagsCamera: boolean;
}

/** Every strategy this device can run: the GPU sorters of the registry, then `cpu`. */
export function listStrategies(device: GPUDevice): StrategyInfo[] {
  return [
    ...listSorters(device).map((f) => ({ name: f.name, description: f.description, stable: f.stable, lagsCamera: false })),
    {
      name: CPU_STRATEGY,
      description: 'depths and a radix sort on the CPU (a Web Worker), uploaded for a later frame, no culling: what WebGL viewers do',
      stable: true,
      lagsCamera: true,
    },
  ];
}

/** The GPU sorter factory of a strategy, or null for `cpu`. Throws for an unknown name. */
export function gpuFactoryOf(name: string): SorterFactory | null {
  return name === CPU_STRATEGY ? null : getSorterFactory(name);
}
