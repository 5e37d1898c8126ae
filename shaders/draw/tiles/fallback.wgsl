// Loaded by renderer/draw/tiles/tile-pipelines.ts (fallbackPipelines).
// tiles/fallback: a fallback frame's picture (tiles/settle.wgsl): the
// visible splats, sorted back to front by the frame's sorter (one depth key each),
// drawn as quads around their power <= P ellipse, along its axes, from the records the
// project pass wrote, blended "over" by the graphics pipeline into an rgba16float
// image that `vs_fill`/`fs_fill` first fill with the background; the image is then
// copied onto the output (fullscreen.wgsl fs_copy), where it is clamped once, as the
// blend clamps C + T background once (an 8-bit target would clamp and round every
// splat: bright SH colours over 1 would lose their excess). The fragment test is the
// blend's (and the forward model's): power > P or alpha < 1/255 contributes nothing.
// The draws are indirect, with instanceCount 0 unless the frame is a fallback frame
// (settle.wgsl).

@group(0) @binding(0) var<uniform> tiles: Tiles;
// values at 1: // The pairs' keys and values are prepended in pages (keys_at / keys_put, values_at /
// values_put: paging.ts; tile-pipelines.ts): more pairs than one binding holds u32s.
// records: pages from binding 2 (records_at(i, k)), prepended (tile-pipelines.ts, paging.ts).
@group(0) @binding(3) var<storage, read> counters: array<u32, COUNTER_WORDS>;

struct VOut {
  @builtin(position) pos: vec4f,
  @location(0) @interpolate(flat) centre: vec2f,
  @location(1) @interpolate(flat) conic: vec4f,   // a, b, c, power limit P
  @location(2) @interpolate(flat) colour: vec4f,  // rgb, opacity
};

@vertex
fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) j: u32) -> VOut {
  var out: VOut;
  if (j >= counters[1]) {
    // Past the visible splats sorted (the draw has a quad per splat of the scene).
    out.pos = vec4f(2.0, 2.0, 2.0, 1.0);
    return out;
  }
  let id = values_at(j, 0u);
  let ra = records_at(id, 0u);
  let rb = records_at(id, 1u);
  let centre = bitcast<vec2f>(ra.xy);
  let conic = vec3f(bitcast<vec2f>(ra.zw), bitcast<f32>(rb.x));
  let opacity = bitcast<f32>(rb.y);
  let limit = min(9.0, 2.0 * log(255.0 * opacity));
  // The quad: the rectangle around the power <= P ellipse along its axes (the
  // eigenvectors of cov = conic^-1, half-lengths sqrt(P lambda)), half a pixel wider
  // so that f32 rounding (thin splats) never loses a pixel centre the fragment test keeps.
  let det = conic.x * conic.z - conic.y * conic.y;
  let cov = vec3f(conic.z, -conic.y, conic.x) / det;
  let mid = 0.5 * (cov.x + cov.z);
  let covDet = max(cov.x * cov.z - cov.y * cov.y, 0.0);
  let l1 = mid + sqrt(max(mid * mid - covDet, 0.0));
  let l2 = covDet / max(l1, 1e-30);
  var e1 = vec2f(1.0, 0.0);
  if (abs(cov.y) > 1e-12 * l1) {
    e1 = normalize(vec2f(cov.y, l1 - cov.x));
  } else if (cov.z > cov.x) {
    e1 = vec2f(0.0, 1.0);
  }
  let e2 = vec2f(-e1.y, e1.x);
  let half = sqrt(limit * vec2f(l1, l2)) * 1.001 + 0.5;
  let corner = vec2f(f32(vi & 1u), f32(vi >> 1u)) * 2.0 - 1.0;
  let px = centre + corner.x * half.x * e1 + corner.y * half.y * e2;
  out.pos = vec4f(px.x / f32(tiles.width) * 2.0 - 1.0, 1.0 - px.y / f32(tiles.height) * 2.0, 0.0, 1.0);
  out.centre = centre;
  out.conic = vec4f(conic, limit);
  let rg = unpack2x16float(rb.z);
  out.colour = vec4f(rg, unpack2x16float(rb.w).x, opacity);
  return out;
}

@fragment
fn fs(in: VOut) -> @location(0) vec4f {
  let d = in.pos.xy - in.centre;
  let power = in.conic.x * d.x * d.x + 2.0 * in.conic.y * d.x * d.y + in.conic.z * d.y * d.y;
  if (power > in.conic.w) {
    discard;
  }
  let alpha = in.colour.w * exp(-0.5 * power);
  if (alpha < MIN_ALPHA) {
    discard;
  }
  return vec4f(in.colour.rgb, alpha);
}

// The background under a fallback frame's quads: one full-screen triangle.
@vertex
fn vs_fill(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
  let xy = vec2f(f32((vi << 1u) & 2u), f32(vi & 2u));
  return vec4f(xy * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_fill() -> @location(0) vec4f {
  return vec4f(tiles.background, 1.0);
}
