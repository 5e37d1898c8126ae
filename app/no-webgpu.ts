/**
 * The page without WebGPU: what is missing and what to do next (a browser and
 * version that has WebGPU, hardware acceleration, chrome://gpu, a secure page), the
 * browser's own reason in small print, and a screenshot of what the viewer shows,
 * instead of a blank canvas. `noWebGpuAdvice` is pure (unit-tested); `showNoWebGpu`
 * puts it on the page.
 */

export interface NoWebGpuAdvice {
  /** The one sentence: what is missing. */
  title: string;
  /** What to do next, most likely first. */
  steps: string[];
}

/**
 * The advice for a page that could not get a WebGPU device. `reason`: the error's
 * message (renderer/gpu/browser-device.ts WebGpuUnavailableError, or the device's);
 * `secure`: window.isSecureContext (WebGPU is offered to secure pages only);
 * `userAgent`: to name the user's own platform's way first (Linux: a flag).
 */
export function noWebGpuAdvice(reason: string, secure: boolean, userAgent: string): NoWebGpuAdvice {
  const noAdapter = /no GPU adapter/i.test(reason);
  const linux = /Linux/.test(userAgent) && !/Android/.test(userAgent);
  const steps: string[] = [];
  if (!secure) steps.push('Open this page over https, or from localhost: browsers offer WebGPU to secure pages only.');
  if (!noAdapter) {
    steps.push(
      'Use a browser with WebGPU: Chrome or Edge 113 or later (Windows, macOS, ChromeOS; Android 12 and later from Chrome 121), ' +
        'Safari 26 or later (macOS, iOS, iPadOS), or Firefox 141 or later (Windows).' +
        (linux ? ' On Linux, Chrome needs WebGPU switched on: chrome://flags/#enable-unsafe-webgpu and chrome://flags/#enable-vulkan, then a restart.' : ''),
    );
  }
  steps.push('Turn hardware acceleration on (Chrome, Edge: Settings › System › "Use graphics acceleration when available"), then restart the browser.');
  steps.push(
    'Open chrome://gpu (edge://gpu) in a new tab: under "Graphics Feature Status", WebGPU should read "Hardware accelerated". ' +
      'If it reads "Disabled" or "Software only", the lines below say why: often a GPU or driver the browser blocks (updating the driver helps).',
  );
  if (noAdapter && linux) steps.push('On Linux, also try chrome://flags/#enable-vulkan and chrome://flags/#ignore-gpu-blocklist (at your own risk), then a restart.');
  return {
    title: noAdapter
      ? 'This browser has WebGPU, but no GPU adapter answered, so the splat viewer cannot draw here.'
      : 'This splat viewer draws with WebGPU, and this browser does not offer it.',
    steps,
  };
}

/**
 * Replaces the page's view with the advice (#no-webgpu), a link to a screenshot of the
 * viewer (`screenshotUrl`, or none), and the browser's reason in small print.
 */
export function showNoWebGpu(doc: Document, reason: string, screenshotUrl: string | null): HTMLElement {
  const win = doc.defaultView;
  const advice = noWebGpuAdvice(reason, win?.isSecureContext ?? true, win?.navigator.userAgent ?? '');
  const box = doc.createElement('div');
  box.className = 'no-webgpu';
  box.id = 'no-webgpu';
  const inner = doc.createElement('div');
  const h = doc.createElement('h1');
  h.textContent = advice.title;
  const lead = doc.createElement('p');
  lead.textContent = 'What to do next:';
  const list = doc.createElement('ol');
  for (const step of advice.steps) {
    const li = doc.createElement('li');
    li.textContent = step;
    list.appendChild(li);
  }
  inner.append(h, lead, list);
  if (screenshotUrl) {
    const p = doc.createElement('p');
    const a = doc.createElement('a');
    a.href = screenshotUrl;
    a.target = '_blank';
    a.rel = 'noopener';
    a.textContent = 'a screenshot of the viewer';
    p.append('Meanwhile, what it shows: ', a, ' (its built-in scene, the panel and the figures).');
    inner.appendChild(p);
  }
  const small = doc.createElement('p');
  small.className = 'no-webgpu-reason';
  small.textContent = `The browser said: ${reason}`;
  inner.appendChild(small);
  box.appendChild(inner);
  doc.body.appendChild(box);
  return box;
}
