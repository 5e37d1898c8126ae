// Loaded by renderer/draw/quads/quads-pipelines.ts (the quads draw's prepare pass).
// splat_prepare: per drawn splat, in draw order, everything its polygon needs, once
// (not once per vertex): one thread per sorted position j < count.
//
//   1. projectSplat (project_splat.wgsl, shared with the tiles draw): the cull
//      (d <= near, centre |ndc| > 1.3, det <= 0, effective opacity < 1/255, the
//      contribution cull), the centre in pixels, the EWA covariance with its +0.3 px^2
//      low-pass, and the effective opacity (the anti-aliased mode's factor applied).
//      A culled splat draws nothing.
//   2. Eigen-decomposition of the covariance: sigma along e1 is sqrt(l1), along e2
//      sqrt(l2) (l2 = det / l1, stable for thin splats). In that frame the fragment
//      test's power d^T conic d is |(x / sqrt(l1), y / sqrt(l2))|^2.
//   3. Extent r in sigma: a fragment contributes where power <= CUT^2 and
//      opacity exp(-power / 2) >= 1/255, i.e. within r = min(CUT, sqrt(2 ln(255 opacity)))
//      ('quad' geometry: r = CUT, blind to opacity, the rectangle of before issue 9).
//   4. Colour from SH up to frame.shDegree with the view direction in the splat's object's frame (splatColour).
//
// Record j (3 vec4f): (centre px, axis1 px), (axis2 px, r, opacity), (rgb, view depth d), where
// axis1 = r sqrt(l1) e1 and axis2 = r sqrt(l2) e2 are the semi-axes of the contour
// ellipse; a culled splat has axis1 = axis2 = 0. Pixel space: x right, y DOWN. The
// depth (the centre's, d = -z_view) is read only by splat.wgsl vs_host (a host's depth test).
//
// The draw reads these records by instance (strip) or vertex (list) index. For the
// list draw, thread 0 also writes its indirect arguments: (TRIANGLE_VERTS * count, 1, 0, 0).

@group(0) @binding(0) var<uniform> frame: Frame;
// Prepended (renderer/draw/quads/quads-draw.ts): the scene's pages (centers at 1, covs at
// 2, SH at 3, the object table at 4) and its decode, and the records' pages at 7 (records_put(j, k, v): vec4f
// k of record j; paging.ts).
// The sorted ids' pages at 5 (order_at(j, 0u)): more splats than one binding holds u32s
// come in pages.
// The draws' small control words, in one buffer (fewer storage buffers: WebGPU's
// default maxStorageBuffersPerShaderStage is 8), u32 words (draw-pass.ts CONTROL_*):
//   [0, 4)              the list draw's indirect arguments;
//   [4 + 4c, 8 + 4c)    front-to-back chunk c's indirect arguments;
//   [COUNT_WORD]        the count of sorted splats, copied from the project pass's
//                       drawArgs.instanceCount before this pass (one binding fewer);
//   [128 + 64c, +4)     chunk c's (first front-to-back position, count), read by
//                       splat.wgsl vs_f2b through a dynamic offset (256-byte stride).
@group(0) @binding(8) var<storage, read_write> control: array<u32>;

const CHUNK_ARGS_WORD: u32 = 4u;
const COUNT_WORD: u32 = 127u;
const CHUNK_INFO_WORD: u32 = 128u;
const CHUNK_INFO_STRIDE: u32 = 64u;

override WORKGROUP_SIZE: u32 = 256u;
/** 1 for the geometry 'quad' (r = CUT whatever the opacity), else 0. */
override BLIND_TO_OPACITY: u32 = 0u;
/** Extent in sigma: 3 (the forward model) or 2 sqrt(2). */
override CUT: f32 = 3.0;
/** Vertices of the list draw per splat (3 per triangle). */
override TRIANGLE_VERTS: u32 = 6u;
/** Strip vertices per splat (the front-to-back chunks' vertexCount). */
override STRIP_VERTS: u32 = 3u;
/** Front-to-back chunks: chunk c < CHUNKS - 1 ends at count >> (CHUNKS - 1 - c), the last at count. */
override CHUNKS: u32 = 7u;

// SH_C0 .. SH_C3 (generated from scenes/sh.ts by renderer/project/sh-wgsl.ts),
// evalSH (sh_eval.wgsl, reading the SH through shFetch / shWord) and projectSplat / splatColour
// (project_splat.wgsl) are prepended.

fn writeCulled(j: u32) {
  records_put(j, 0u, vec4f(0.0));
  records_put(j, 1u, vec4f(0.0));
  records_put(j, 2u, vec4f(0.0));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let j = gid.x + gid.y * nwg.x * WORKGROUP_SIZE;
  let count = control[COUNT_WORD];
  if (j == 0u) {
    control[0] = TRIANGLE_VERTS * count;
    control[1] = 1u;
    control[2] = 0u;
    control[3] = 0u;
    var start = 0u;
    for (var c = 0u; c < CHUNKS; c++) {
      var end = count >> (CHUNKS - 1u - c);
      if (c == CHUNKS - 1u) {
        end = count;
      }
      let args = CHUNK_ARGS_WORD + 4u * c;
      control[args] = STRIP_VERTS;
      control[args + 1u] = end - start;
      control[args + 2u] = 0u;
      control[args + 3u] = 0u;
      let info = CHUNK_INFO_WORD + CHUNK_INFO_STRIDE * c;
      control[info] = start;
      control[info + 1u] = count;
      control[info + 2u] = 0u;
      control[info + 3u] = 0u;
      start = end;
    }
  }
  if (j >= count) {
    return;
  }
  let id = order_at(j, 0u);
  let s = projectSplat(id);  // the cull, centre, EWA and opacity (project_splat.wgsl)
  if (!s.visible) {
    writeCulled(j);
    return;
  }
  let a = s.cov2.x;
  let b = s.cov2.y;
  let cc = s.cov2.z;
  let det = a * cc - b * b;
  let opacity = s.opacity;

  // Eigen-decomposition of [[a, b], [b, cc]].
  let mid = 0.5 * (a + cc);
  let disc = sqrt(max(mid * mid - det, 0.0));
  let l1 = mid + disc;
  let l2 = det / l1;
  var e1 = vec2f(1.0, 0.0);
  if (abs(b) > 1e-12 * l1) {
    e1 = normalize(vec2f(b, l1 - a));
  } else if (cc > a) {
    e1 = vec2f(0.0, 1.0);
  }
  let e2 = vec2f(-e1.y, e1.x);
  var r = CUT;
  if (BLIND_TO_OPACITY == 0u) {
    r = min(CUT, sqrt(2.0 * log(255.0 * opacity)));
  }
  records_put(j, 0u, vec4f(s.centre, r * sqrt(l1) * e1));
  records_put(j, 1u, vec4f(r * sqrt(l2) * e2, r, opacity));
  records_put(j, 2u, vec4f(splatColour(id, s.object), s.depth));
}
