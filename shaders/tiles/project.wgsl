// tiles/project: per splat, everything the blend needs, computed once, and the
// screen tiles it can touch.
//
// One thread per splat (256 a workgroup; grids over 65,535 workgroups spill into y):
//   1-2. projectSplat (project_splat.wgsl, shared with the quads draw): cull as the
//      forward model (depth d = -z_view <= near, centre |ndc| > 1.3, det(cov2D) <= 0,
//      effective opacity < 1/255, the contribution cull); EWA: cov2D = J W Sigma W^T J^T
//      + 0.3 I (J at the centre clamped to 1.3x the frustum); the effective opacity
//      (the anti-aliased mode's factor applied): the one in the record. conic = inverse(cov2D).
//   3. Footprint: a pixel contributes only where power = dx^T conic dx <= 9 and
//      opacity exp(-power / 2) >= 1/255, i.e. power <= P = min(9, 2 ln(255 opacity))
//      (the effective opacity).
//      That ellipse's bounding box has half-widths sqrt(P cov2D.xx), sqrt(P cov2D.yy);
//      the tiles holding the pixel centres inside it (clipped to the screen) are
//      the footprint. Nothing on screen: culled.
//   4. Colour from SH (degree frame.shDegree, world-space view direction), and the
//      depth quantised to depthBits between the near and far planes.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<uniform> tiles: Tiles;
@group(0) @binding(2) var<storage, read> centers: array<SceneCenter>;
@group(0) @binding(3) var<storage, read> covs: array<SceneCov>;
@group(0) @binding(4) var<storage, read> sh0: array<u32>;
@group(0) @binding(5) var<storage, read> sh1: array<u32>;
@group(0) @binding(6) var<storage, read_write> records: array<vec4u>;
@group(0) @binding(7) var<storage, read_write> footprints: array<vec4u>;

override WORKGROUP_SIZE: u32 = 256u;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WORKGROUP_SIZE;
  if (i >= tiles.splatCount) {
    return;
  }
  footprints[i] = vec4u(0u);
  let s = projectSplat(i);  // the cull, centre, EWA and opacity (project_splat.wgsl)
  if (!s.visible) {
    return;
  }
  let a = s.cov2.x;
  let b = s.cov2.y;
  let cc = s.cov2.z;
  let det = a * cc - b * b;
  let opacity = s.opacity;
  let conic = vec3f(cc, -b, a) / det;

  // Footprint in pixel indices (centres at +0.5), a hair wider than the exact
  // bound so that f32 rounding never drops a pixel the model keeps.
  let power = min(9.0, 2.0 * log(255.0 * opacity));
  let halfExtent = sqrt(power * vec2f(a, cc)) * 1.001 + 0.01;
  let centre = s.centre;
  let size = vec2f(f32(tiles.width), f32(tiles.height));
  let lo = clamp(ceil(centre - halfExtent - 0.5), vec2f(0.0), size);
  let hi = clamp(floor(centre + halfExtent - 0.5), vec2f(-1.0), size - 1.0);
  if (any(lo > hi)) {
    return;
  }
  let t0 = vec2u(lo) / TILE;
  let t1 = vec2u(hi) / TILE + 1u;

  let rgb = splatColour(i);
  let depthT = clamp((s.depth - frame.near) / (frame.far - frame.near), 0.0, 1.0);
  let maxDepth = (1u << tiles.depthBits) - 1u;
  let depthQ = min(u32(depthT * f32(maxDepth)), maxDepth);

  records[2u * i] = vec4u(bitcast<vec2u>(centre), bitcast<vec2u>(conic.xy));
  records[2u * i + 1u] = vec4u(bitcast<u32>(conic.z), bitcast<u32>(opacity),
                               pack2x16float(rgb.rg), pack2x16float(vec2f(rgb.b, 0.0)));
  footprints[i] = vec4u(t0.x | (t0.y << 16u), t1.x | (t1.y << 16u), depthQ, 0u);
}
