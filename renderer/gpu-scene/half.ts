/**
 * float32 -> IEEE half conversion for packing SH coefficients on upload (the GPU
 * unpacks them with the core WGSL `unpack2x16float`; `shader-f16` is not needed).
 * Round to nearest even; overflow -> +-Inf; NaN kept; subnormals handled.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function toHalf(value: number): number {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow
  if (e <= 0) {
    if (e < -10) return sign; // underflows to zero
    mant |= 0x800000; // implicit leading one
    const shift = 14 - e;
    const half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (half + (rem > mid || (rem === mid && (half & 1)) ? 1 : 0));
  }
  const half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // Rounding may carry into the exponent, which is the right result (up to Inf).
  return sign | (half + (rem > 0x1000 || (rem === 0x1000 && (half & 1)) ? 1 : 0));
}
