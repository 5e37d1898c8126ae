/**
 * What the project asks of a WebGPU device, in one place for the browser
 * (browser-device.ts) and Node (node-gpu.ts):
 * - optional features, requested when the adapter has them (the sorters use
 *   `subgroups`, the profiler `timestamp-query`);
 * - limits, requested at the adapter's own value: WebGPU's defaults (128 MiB
 *   storage bindings, 16 KiB workgroup memory, ...) are far below what the GPU
 *   can do, and scenes of millions of splats need more.
 */

/**
 * Optional features used when present: `subgroups` (the sorters), `timestamp-query`
 * (the profiler), `bgra8unorm-storage` (the tiles draw writes a bgra8unorm canvas
 * directly instead of copying an image onto it).
 */
export const OPTIONAL_FEATURES: readonly GPUFeatureName[] = ['subgroups', 'timestamp-query', 'bgra8unorm-storage'];

/** Limits requested at the adapter's own value. */
export const ADAPTER_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
] as const satisfies readonly (keyof GPUSupportedLimits)[];

export interface RequirementOptions {
  /** Leave out `timestamp-query` (e.g. tests and programs that time nothing). Default true. */
  timestamps?: boolean;
}

/** The device descriptor's features and limits for `adapter`. */
export function deviceRequirements(
  adapter: GPUAdapter,
  opts: RequirementOptions = {},
): { requiredFeatures: GPUFeatureName[]; requiredLimits: Record<string, number> } {
  const requiredFeatures = OPTIONAL_FEATURES.filter(
    (f) => adapter.features.has(f) && (f !== 'timestamp-query' || opts.timestamps !== false),
  );
  const requiredLimits: Record<string, number> = {};
  for (const name of ADAPTER_LIMITS) requiredLimits[name] = adapter.limits[name];
  return { requiredFeatures, requiredLimits };
}
