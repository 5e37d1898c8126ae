/**
 * Hand-made SPZ headers and bombs, shared by the loaders' bomb tests (scenes/bombs.test.ts)
 * and the fuzz (bench/fuzz-cases.ts). Written byte by byte, sharing no code with the readers.
 */

/** `parts` one after another. */
export function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An SPZ v3 header (16 bytes) declaring `n` points of SH degree 0. */
export function spzHeader(n: number): Uint8Array {
  const h = new Uint8Array(16);
  const v = new DataView(h.buffer);
  v.setUint32(0, 0x5053474e, true);
  v.setUint32(4, 3, true);
  v.setUint32(8, n >>> 0, true);
  h[13] = 12;
  return h;
}

/** An NGSP (v4) file declaring `n` points of SH degree 0 whose five streams are ZSTD run-length frames (4 bytes a 128 KiB block; cut at 64 MiB a frame); the
 * opacity stream repeats `opacityByte`, the others 0x40. */
export function ngspRle(n: number, opacityByte = 0x40): Uint8Array {
  const sizes = [n * 9, n, n * 3, n * 3, n * 4];
  const frames = sizes.map((size, s) => {
    const blocks = Math.max(1, Math.ceil(Math.min(size, 2 ** 26) / 131072)); // the frames of a huge n are cut short: it is refused before them
    const out = new Uint8Array(14 + blocks * 4);
    out.set([0x28, 0xb5, 0x2f, 0xfd, 0xc0, (17 - 10) << 3]);
    const v = new DataView(out.buffer);
    v.setUint32(6, size % 2 ** 32, true);
    v.setUint32(10, Math.floor(size / 2 ** 32), true);
    for (let k = 0; k < blocks; k++) {
      const len = Math.max(0, Math.min(131072, size - k * 131072));
      const head = (k === blocks - 1 ? 1 : 0) | (1 << 1) | (len << 3);
      out.set([head & 255, (head >> 8) & 255, (head >> 16) & 255, s === 1 ? opacityByte : 0x40], 14 + k * 4);
    }
    return out;
  });
  const head = new Uint8Array(32 + 16 * 5);
  const hv = new DataView(head.buffer);
  head.set([0x4e, 0x47, 0x53, 0x50]);
  hv.setUint32(4, 4, true);
  hv.setUint32(8, n >>> 0, true);
  head[13] = 12;
  head[15] = 5;
  hv.setUint32(16, 32, true);
  frames.forEach((fr, i) => {
    hv.setUint32(32 + i * 16, fr.length, true);
    hv.setUint32(40 + i * 16, sizes[i]! % 2 ** 32, true);
    hv.setUint32(44 + i * 16, Math.floor(sizes[i]! / 2 ** 32), true);
  });
  return cat(head, ...frames);
}
