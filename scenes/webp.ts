/**
 * WebP decoding for the readers that hold images (SOG's textures), behind a
 * small interface: the page can later hand in the browser's native decoder
 * (ImageDecoder / createImageBitmap in the worker) with `setWebpDecoder`.
 *
 * The default is @jsquash/webp: libwebp's own decoder compiled to wasm
 * (repackaged from Google's Squoosh), so it decodes exactly what libwebp
 * (which splat-transform writes with) encodes, runs the same in Node, Vitest
 * and a browser worker, and has no native build step (sharp and the like need
 * platform binaries). In a browser its glue fetches the .wasm beside it (the
 * bundler emits it); in Node, where fetch cannot read files, the .wasm is read
 * from node_modules and handed to it.
 *
 * `webpSize` reads a WebP's dimensions from its header without decoding, so a
 * reader can refuse an image whose declared size does not fit before the
 * decoder allocates width * height * 4 bytes for it.
 */

/** Decoded pixels: RGBA, 4 bytes a pixel, rows top to bottom. */
export interface DecodedImage {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** Decodes one WebP file; rejects (any error) when the bytes do not decode. */
export interface WebpDecoder {
  decode(bytes: Uint8Array): Promise<DecodedImage>;
}

let current: WebpDecoder | null = null;

/** Replaces the decoder every reader uses (null: back to the default). */
export function setWebpDecoder(decoder: WebpDecoder | null): void {
  current = decoder;
}

/** The decoder in use: the one set, else the default (@jsquash/webp). */
export function webpDecoder(): WebpDecoder {
  return (current ??= jsquashWebpDecoder());
}

let jsquash: WebpDecoder | null = null;

/** The default decoder (@jsquash/webp), also as the fallback of one that is set. */
export function jsquashWebpDecoder(): WebpDecoder {
  return (jsquash ??= makeJsquashDecoder());
}

function makeJsquashDecoder(): WebpDecoder {
  let ready: Promise<(b: ArrayBuffer) => Promise<{ width: number; height: number; data: Uint8ClampedArray }>> | null = null;
  const load = async (): Promise<(b: ArrayBuffer) => Promise<{ width: number; height: number; data: Uint8ClampedArray }>> => {
    const mod = await import('@jsquash/webp/decode.js');
    const proc = (globalThis as { process?: { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown } }).process;
    if (proc?.versions?.node !== undefined && proc.getBuiltinModule !== undefined) {
      // Node: no fetch of file URLs; read the wasm beside the glue (getBuiltinModule keeps node: imports out of the browser bundle).
      const fs = proc.getBuiltinModule('fs') as typeof import('node:fs');
      const { createRequire } = proc.getBuiltinModule('module') as typeof import('node:module');
      const wasmPath = createRequire(import.meta.url).resolve('@jsquash/webp/codec/dec/webp_dec.wasm');
      await mod.init(await WebAssembly.compile(fs.readFileSync(wasmPath)));
    }
    return mod.default;
  };
  return {
    async decode(bytes) {
      const decode = await (ready ??= load());
      // The decoder takes a whole ArrayBuffer: copied with the constructor, since
      // a Node Buffer's slice() is a view whose .buffer is the shared pool.
      const img = await decode(new Uint8Array(bytes).buffer);
      return { width: img.width, height: img.height, rgba: new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength) };
    },
  };
}

/**
 * A WebP's width and height from its header (RIFF "WEBP" with a VP8L, VP8X
 * or VP8 first chunk), or a reason it has none.
 */
export function webpSize(b: Uint8Array): { width: number; height: number } | string {
  const tag = (at: number): string => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
  if (b.length < 30) return `${b.length} bytes cannot hold a WebP header (30)`;
  if (tag(0) !== 'RIFF' || tag(8) !== 'WEBP') return 'no RIFF "WEBP" signature';
  const chunk = tag(12);
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return 'no VP8L signature byte 0x2f';
    const bits = (b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)) >>> 0;
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    const u24 = (at: number): number => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
    return { width: u24(24) + 1, height: u24(27) + 1 };
  }
  if (chunk === 'VP8 ') {
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return 'no VP8 start code';
    return { width: (b[26]! | (b[27]! << 8)) & 0x3fff, height: (b[28]! | (b[29]! << 8)) & 0x3fff };
  }
  return `unknown first chunk "${chunk.replace(/[^\x20-\x7e]/g, '?')}"`;
}
