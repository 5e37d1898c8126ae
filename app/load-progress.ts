/**
 * The loading bar of a scene loading in the worker (scene-loader.ts): its
 * name, bytes and splats read so far, a bar and a Cancel button. The scene on
 * screen keeps drawing underneath; the app hides the bar when the load ends.
 */
import type { LoadProgress } from '../renderer/api/index';

/** A byte count in the unit of `scale` (the total when known): "0.4", "12", "248" (MB) or "1.49" (GB). */
function inUnit(bytes: number, scale: number): string {
  if (scale >= 1e9) return (bytes / 1e9).toFixed(2);
  const mb = bytes / 1e6;
  return mb.toFixed(scale < 1e7 ? 1 : 0);
}

/** "12 / 248 MB", "1.20 / 1.49 GB", or "3.4 MB" without a total. */
export function formatBytes(bytes: number, totalBytes?: number): string {
  const scale = totalBytes ?? bytes;
  const unit = scale >= 1e9 ? 'GB' : 'MB';
  return totalBytes ? `${inUnit(bytes, scale)} / ${inUnit(totalBytes, scale)} ${unit}` : `${inUnit(bytes, scale)} ${unit}`;
}

/** The one-line text of a progress report: "Loading biker.ply: 12 / 248 MB · 48,000 splats". */
export function progressText(name: string, p: LoadProgress): string {
  const splats = p.splats > 0 ? ` · ${p.splats.toLocaleString('en-US')} splats` : '';
  return `Loading ${name}: ${formatBytes(p.bytes, p.totalBytes)}${splats}`;
}

/**
 * The bar's line while the page sets a loaded scene up on the GPU, with the
 * share uploaded once the upload has reported (a 6M-splat scene uploads for
 * minutes on a software adapter).
 */
export function preparingText(name: string, splats: number, uploaded?: number): string {
  const done = uploaded === undefined ? '' : ` · ${Math.floor((100 * Math.min(uploaded, splats)) / Math.max(1, splats))}% uploaded`;
  return `Preparing ${name} for the GPU: ${splats.toLocaleString('en-US')} splats${done}`;
}

/** The fraction done for the bar, or null when the total is unknown (an indeterminate bar). */
export function progressFraction(p: LoadProgress): number | null {
  if (!p.totalBytes) return null;
  return Math.min(1, Math.max(0, p.bytes / p.totalBytes));
}

export class LoadProgressView {
  private readonly label: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private readonly cancel: HTMLButtonElement;
  private name = '';
  /** The text shown now (also the HUD's loading line). */
  text = '';

  constructor(
    private readonly root: HTMLElement,
    onCancel: () => void,
  ) {
    root.replaceChildren();
    this.label = document.createElement('div');
    this.label.className = 'load-label';
    this.bar = document.createElement('progress');
    this.bar.max = 1;
    const cancel = (this.cancel = document.createElement('button'));
    cancel.type = 'button';
    cancel.textContent = 'Cancel';
    cancel.addEventListener('click', onCancel);
    const row = document.createElement('div');
    row.className = 'load-row';
    row.append(this.bar, cancel);
    root.append(this.label, row);
    root.hidden = true;
  }

  show(name: string, totalBytes?: number): void {
    this.name = name;
    this.cancel.disabled = false;
    this.update({ bytes: 0, ...(totalBytes === undefined ? {} : { totalBytes }), splats: 0 });
    this.root.hidden = false;
  }

  update(p: LoadProgress): void {
    this.text = progressText(this.name, p);
    this.label.textContent = this.text;
    const f = progressFraction(p);
    if (f === null) this.bar.removeAttribute('value');
    else this.bar.value = f;
  }

  /**
   * The bytes are read and parsed; the page now sets the scene up on the GPU,
   * on its main thread, in slices (Cancel stays on: it aborts the upload): says so,
   * the bar full until the upload reports `uploaded` splats, then the share uploaded.
   */
  preparing(splats: number, uploaded?: number): void {
    this.text = preparingText(this.name, splats, uploaded);
    this.label.textContent = this.text;
    this.bar.value = uploaded === undefined ? 1 : Math.min(1, uploaded / Math.max(1, splats));
  }

  hide(): void {
    this.root.hidden = true;
    this.text = '';
  }
}
