// Loaded by renderer/draw/quads/quads-pipelines.ts (f2b mask, composite) and renderer/draw/tiles/tile-pipelines.ts (present).
// fullscreen: one full-screen triangle, and a fragment that copies the texel of
// `image` under the pixel. The tiles draw presents its rgba8unorm image onto the
// frame's target (any colour format, e.g. the canvas's bgra8unorm) with it; the
// front-to-back quads draw composites its accumulation over the background (the
// pipeline's blend) with it, and its mask pass (splat_f2b.wgsl) reads `image` too.

@group(0) @binding(0) var image: texture_2d<f32>;

@vertex
fn vs_full(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
  let xy = vec2f(f32((vi << 1u) & 2u), f32(vi & 2u));
  return vec4f(xy * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_copy(@builtin(position) pos: vec4f) -> @location(0) vec4f {
  return textureLoad(image, vec2u(pos.xy), 0);
}
