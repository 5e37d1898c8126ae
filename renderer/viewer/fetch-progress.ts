/**
 * Fetches a URL's bytes, reporting progress as they arrive (bytes so far and the
 * total when the server says it), for the loading line of `?scene=URL`.
 */
export interface FetchProgress {
  loaded: number;
  /** Content-Length, when known. */
  total: number | null;
}

export async function fetchWithProgress(url: string, name: string, onProgress: (p: FetchProgress) => void): Promise<ArrayBuffer> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${name}: HTTP ${res.status} ${res.statusText} for ${url}`);
  const length = Number(res.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  if (!res.body) return res.arrayBuffer();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  onProgress({ loaded, total });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress({ loaded, total });
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out.buffer;
}

/** "12.3 / 40.0 MB" or "12.3 MB". */
export function formatProgress(p: FetchProgress): string {
  const mb = (b: number) => (b / 1e6).toFixed(1);
  return p.total ? `${mb(p.loaded)} / ${mb(p.total)} MB` : `${mb(p.loaded)} MB`;
}
