import { ViewerApp } from './app';

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
      drop: byId('drop'),
      help: byId('help'),
      file: byId<HTMLInputElement>('file'),
      graph: byId('graph'),
      bench: byId('bench'),
      load: byId('load'),
    });
  } catch (err) {
    // A page without WebGPU says what is missing instead of showing a blank canvas.
    canvas.remove();
    const div = document.createElement('div');
    div.className = 'no-webgpu';
    div.id = 'no-webgpu';
    div.textContent = err instanceof Error ? err.message : String(err);
    document.body.appendChild(div);
    return;
  }
  (window as unknown as { splatview: ViewerApp }).splatview = app;
  await app.start();
}

void main();
