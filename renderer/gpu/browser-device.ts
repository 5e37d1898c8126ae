/** Why the page cannot run, in words a user can act on. */
export class WebGpuUnavailableError extends Error {
  override name = 'WebGpuUnavailableError';
}

/**
 * Gets a WebGPU device in the browser with the adapter's own storage limits (scenes
 * of millions of splats need more than the default 128 MiB bindings) and the
 * optional features the sorters and the profiler use when present.
 */
export async function createBrowserDevice(): Promise<{ device: GPUDevice; adapter: GPUAdapter }> {
  if (!('gpu' in navigator) || !navigator.gpu) {
    throw new WebGpuUnavailableError(
      'This browser has no WebGPU (navigator.gpu is missing). Use a recent Chrome, Edge or Safari 26+, or Firefox with WebGPU enabled; on Linux Chrome may need chrome://flags/#enable-unsafe-webgpu. The page must be served over https or from localhost.',
    );
  }
  const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) {
    throw new WebGpuUnavailableError(
      'WebGPU is present but no GPU adapter is available (blocked GPU, disabled hardware acceleration, or an unsupported driver).',
    );
  }
  const requiredFeatures: GPUFeatureName[] = (['subgroups', 'timestamp-query'] as GPUFeatureName[]).filter((f) =>
    adapter.features.has(f),
  );
  const l = adapter.limits;
  const device = await adapter.requestDevice({
    label: 'browser.device',
    requiredFeatures,
    requiredLimits: {
      maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxBufferSize: l.maxBufferSize,
      maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
      maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
    },
  });
  return { device, adapter };
}
