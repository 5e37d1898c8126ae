import { ViewerApp } from './app';
import { showNoWebGpu } from './no-webgpu';

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`index.html has no #${id}`);
  return el as T;
}

async function main(): Promise<void> {
  const canvas = byId<HTMLCanvasElement>('view');
  let app: ViewerApp;
  try {
    app = await ViewerApp.create({
      canvas,
      hud: byId('hud'),
      message: byId('message'),
      messageDetails: byId<HTMLDetailsElement>('message-details'),
      drop: byId('drop'),
      help: byId('help'),
      file: byId<HTMLInputElement>('file'),
      graph: byId('graph'),
      bench: byId('bench'),
      load: byId('load'),
    });
  } catch (err) {
    // A page without WebGPU says what is missing and what to do next instead of showing a blank canvas,
    // with a screenshot of what it would show (docs/screenshot.png, an asset of the build: fetched only if opened).
    canvas.remove();
    showNoWebGpu(document, err instanceof Error ? err.message : String(err), new URL('../docs/screenshot.png', import.meta.url).href);
    return;
  }
  (window as unknown as { splatview: ViewerApp }).splatview = app;
  await app.start();
}

void main();
