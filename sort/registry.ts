/** The sort strategies the GUI and the benchmarks offer, by name. */
import type { SorterFactory } from './types.ts';
import { radix4Factory } from './radix4.ts';
import { radix16Factory } from './radix16.ts';
import { onesweepFactory } from './onesweep.ts';
import { bitonicFactory } from './bitonic.ts';

/** Every registered strategy, in the order the GUI lists them. */
export const sorterFactories: readonly SorterFactory[] = [radix4Factory, radix16Factory, onesweepFactory, bitonicFactory];

/** The strategy called `name`; throws, naming the known ones, if there is none. */
export function getSorterFactory(name: string): SorterFactory {
  const f = sorterFactories.find((s) => s.name === name);
  if (!f) throw new Error(`unknown sort strategy '${name}' (known: ${sorterFactories.map((s) => s.name).join(', ')})`);
  return f;
}

/** The strategies this device can run. */
export function listSorters(device: GPUDevice): SorterFactory[] {
  return sorterFactories.filter((s) => s.supported(device));
}
