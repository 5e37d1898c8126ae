/**
 * The scene loader worker's WebP decoder (SOG's textures): the browser's own
 * (createImageBitmap), its pixels read back exactly through WebGL 2 on an
 * OffscreenCanvas, with @jsquash/webp (scenes/webp.ts, libwebp in wasm) as the
 * fallback.
 *
 * Why the browser's: it is already there and native (no wasm to fetch and
 * compile in every load's worker, no wasm file to keep findable beside the
 * bundle: its glue locates it through import.meta.url, which each bundler and
 * dev server handles its own way).
 *
 * Why through WebGL: SOG stores data, not colours, and its alpha is not a
 * coverage: sh0's R, G, B are codebook indices under an alpha that is the
 * splat's opacity, quats' alpha is 252 + an index. A 2D canvas keeps
 * premultiplied pixels, so OffscreenCanvas getImageData rounds the R, G, B of
 * every pixel whose alpha is under 255, and so does WebCodecs' ImageDecoder in
 * Chromium 156: on a splat-transform SOG of 1971 splats, 4329 of sh0's bytes
 * and 74 of quats' differed from libwebp's. An ImageBitmap made with
 * premultiplyAlpha 'none', uploaded with UNPACK_PREMULTIPLY_ALPHA false into
 * an RGBA8 texture and read with readPixels, gave every byte of every texture
 * as libwebp does. Where there is no WebGL 2 in a worker, the image is larger
 * than its texture limit, or the browser fails on the bytes, the wasm decoder
 * decides.
 */
import { jsquashWebpDecoder, type DecodedImage, type WebpDecoder } from '../../scenes/webp';

export function browserWebpDecoder(fallback: WebpDecoder = jsquashWebpDecoder()): WebpDecoder {
  let gl: WebGL2RenderingContext | null | undefined;
  const context = (): WebGL2RenderingContext | null => {
    if (gl === undefined) {
      try {
        gl = typeof OffscreenCanvas === 'undefined' ? null : new OffscreenCanvas(1, 1).getContext('webgl2', { premultipliedAlpha: false, antialias: false, depth: false });
      } catch {
        gl = null;
      }
    }
    return gl && !gl.isContextLost() ? gl : null;
  };
  const native = async (bytes: Uint8Array, gl: WebGL2RenderingContext): Promise<DecodedImage | null> => {
    const bmp = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'image/webp' }), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
    const { width, height } = bmp;
    const tex = gl.createTexture();
    const fb = gl.createFramebuffer();
    try {
      const max = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
      if (width > max || height > max) return null;
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
      gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
      gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, width, height, 0, gl.RGBA, gl.UNSIGNED_BYTE, bmp);
      gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
      gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
      if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE) return null;
      // Texture row 0 is the image's first row, and readPixels starts at row 0: rows come top to bottom.
      const rgba = new Uint8Array(width * height * 4);
      gl.pixelStorei(gl.PACK_ALIGNMENT, 1);
      gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
      return gl.getError() === gl.NO_ERROR ? { width, height, rgba } : null;
    } finally {
      bmp.close();
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      gl.deleteFramebuffer(fb);
      gl.deleteTexture(tex);
    }
  };
  return {
    async decode(bytes) {
      const ctx = context();
      if (ctx !== null) {
        try {
          const img = await native(bytes, ctx);
          if (img !== null) return img;
        } catch {
          // The fallback decodes it, or says why it does not.
        }
      }
      return fallback.decode(bytes);
    },
  };
}
