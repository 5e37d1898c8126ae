import { deviceRequirements } from './requirements';

/** Why the page cannot run, in words a user can act on. */
export class WebGpuUnavailableError extends Error {
  override name = 'WebGpuUnavailableError';
}

/**
 * Gets a WebGPU device in the browser with the features and limits of
 * requirements.ts (the adapter's own limits, optional features when present).
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
  const device = await adapter.requestDevice({ label: 'browser.device', ...deviceRequirements(adapter) });
  return { device, adapter };
}
