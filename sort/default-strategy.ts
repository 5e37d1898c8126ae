/**
 * Which sort strategy a viewer should start with on an adapter: a pure function of what
 * the adapter reports (no trial sorts at start-up).
 *
 * onesweep is the fastest strategy where it works well, but its decoupled look-back has
 * workgroups wait for other workgroups, and WebGPU promises no forward progress between
 * workgroups. Our onesweep always terminates (a workgroup that waits too long counts the
 * late tile itself, see sort/onesweep.ts), but on a scheduler that lets a started
 * workgroup starve, that fallback turns the single pass into a slow one. So:
 *
 *   onesweep  where the adapter has 'subgroups' (the ballot ranking; without it the
 *             portable ranking is slower than radix4's) AND its vendor is known to run
 *             every started workgroup to completion alongside the others: NVIDIA and AMD
 *             desktop GPUs, where single-pass chained scans (CUB's Onesweep, decoupled
 *             look-back) are the production algorithms;
 *   radix4    everywhere else: Apple (documented to lack forward-progress guarantees:
 *             Smith, Levien, Owens, "Decoupled Fallback: A Portable Single-Pass GPU
 *             Scan", SPAA 2025, measured on M1 Max and M3), mobile GPUs (ARM, Qualcomm,
 *             Imagination), Intel until measured, unknown vendors, and CPU rasterisers
 *             (SwiftShader, llvmpipe), where spinning workgroups share a few CPU threads.
 *
 * Every strategy stays selectable in the GUI; this only picks the first one.
 */

/** What preferredSorter reads of a GPUAdapterInfo (all optional: browsers mask some). */
export interface AdapterFacts {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
}

/** Names of the strategies preferredSorter chooses between (registry names). */
export type DefaultSortStrategy = 'onesweep' | 'radix4';

/** Vendors (GPUAdapterInfo.vendor, lower case) whose schedulers run started workgroups fairly. */
export const FAIR_SCHEDULING_VENDORS: readonly string[] = ['nvidia', 'amd'];

const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|softpipe|warp|microsoft basic render/i;

/** Whether the adapter is a CPU implementation of the GPU (SwiftShader, llvmpipe, WARP). */
export function isSoftwareAdapter(info: AdapterFacts): boolean {
  return [info.vendor, info.architecture, info.device, info.description].some((s) => s !== undefined && SOFTWARE_ADAPTER.test(s));
}

/**
 * The strategy to start with on an adapter with these facts and features (the adapter's
 * or the device's `features`; any set of feature names).
 */
export function preferredSorter(info: AdapterFacts, features: ReadonlySet<string> | GPUSupportedFeatures): DefaultSortStrategy {
  if (!features.has('subgroups')) return 'radix4';
  if (isSoftwareAdapter(info)) return 'radix4';
  const vendor = (info.vendor ?? '').toLowerCase();
  return FAIR_SCHEDULING_VENDORS.includes(vendor) ? 'onesweep' : 'radix4';
}
