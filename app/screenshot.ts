/**
 * Screenshots as the page offers them: the viewer makes the PNG (viewer.screenshot:
 * the canvas as shown, or an offscreen render at a multiple of its resolution);
 * the page names it and downloads it at once.
 */
/** `splatview-garden-2026-11-24-164012.png`, `...@2x.png`: the scene name made file-safe, the local time. */
export function screenshotName(scene: string, scale: number, date = new Date()): string {
  const safe = scene.replace(/\.[a-z0-9]+$/i, '').replace(/[^a-z0-9_-]+/gi, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'view';
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  return `splatview-${safe}-${stamp}${scale !== 1 ? `@${scale}x` : ''}.png`;
}

/** Offers `blob` as a download named `name`. */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}

/** Enters or leaves fullscreen for the whole page (panel and HUD stay visible). */
export function toggleFullscreen(doc: Document = document): void {
  if (doc.fullscreenElement) void doc.exitFullscreen().catch(() => undefined);
  else void doc.documentElement.requestFullscreen?.().catch(() => undefined);
}
