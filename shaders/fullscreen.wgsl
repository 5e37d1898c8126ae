// tiles/present: copies the blend's rgba8unorm image to the frame's target (any
// colour format, e.g. the canvas's bgra8unorm) with one full-screen triangle.

@group(0) @binding(0) var image: texture_2d<f32>;

@vertex
fn vs(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
  let xy = vec2f(f32((vi << 1u) & 2u), f32(vi & 2u));
  return vec4f(xy * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs(@builtin(position) pos: vec4f) -> @location(0) vec4f {
  return textureLoad(image, vec2u(pos.xy), 0);
}
