import { describe, expect, it } from 'vitest';
import { noWebGpuAdvice } from './no-webgpu';

const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
const SAFARI_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15';

describe('noWebGpuAdvice: what to do next without WebGPU (issue 34)', () => {
  it('no navigator.gpu: which browsers and versions have it, hardware acceleration, chrome://gpu', () => {
    const a = noWebGpuAdvice('This browser has no WebGPU (navigator.gpu is missing).', true, SAFARI_MAC);
    expect(a.title).toMatch(/does not offer it/);
    expect(a.steps[0]).toMatch(/Chrome or Edge 113 or later .* Safari 26 or later .* Firefox 141 or later/);
    expect(a.steps[0]).not.toMatch(/Linux/);
    expect(a.steps.join(' ')).toMatch(/hardware acceleration/);
    expect(a.steps.join(' ')).toMatch(/chrome:\/\/gpu/);
  });

  it('no adapter: no browser list, the GPU side first; Linux gets its flags; an insecure page is told first', () => {
    const a = noWebGpuAdvice('WebGPU is present but no GPU adapter is available', true, CHROME_LINUX);
    expect(a.title).toMatch(/no GPU adapter answered/);
    expect(a.steps.join(' ')).not.toMatch(/Chrome or Edge 113/);
    expect(a.steps.at(-1)).toMatch(/chrome:\/\/flags\/#enable-vulkan/);
    expect(noWebGpuAdvice('x', false, CHROME_LINUX).steps[0]).toMatch(/https, or from localhost/);
  });
});
