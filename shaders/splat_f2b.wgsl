// splat_f2b: the full-screen passes of the front-to-back draw (draw-pass.ts).

// Front to back (draw-pass.ts): colour accumulates under what is drawn, blended
// with (one-minus-dst-alpha, one); a pixel whose alpha reached exactly 1 (half
// floats: transmittance under 2^-12) takes nothing more, so later splats there can be skipped without changing it.
// fs_mask writes depth 0 over such pixels (full-screen triangle at z = 0); the
// splats' fragments at 0.5 then fail the depth test before shading or blending.
@group(0) @binding(0) var accum: texture_2d<f32>;

@vertex
fn vs_full(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
  let p = vec2f(f32((vi << 1u) & 2u), f32(vi & 2u));
  return vec4f(p * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_mask(@builtin(position) pos: vec4f) {
  if (textureLoad(accum, vec2u(pos.xy), 0).a < 1.0) {
    discard;
  }
}

// The accumulated colour over the background (cleared into the target): premultiplied,
// blended with (one, one-minus-src-alpha).
@fragment
fn fs_composite(@builtin(position) pos: vec4f) -> @location(0) vec4f {
  return textureLoad(accum, vec2u(pos.xy), 0);
}
