// Loaded by renderer/draw/quads/quads-pipelines.ts (the quads draw's render pipeline).
// splat: one polygon per sorted splat, drawn back to front from the records that
// splat_prepare.wgsl wrote in draw order (centre, semi-axes of the splat's contour
// ellipse, extent r in sigma, opacity, colour).
//
// Geometry: the polygon circumscribes the contour ellipse (a regular polygon around
// the unit circle, mapped by the semi-axes), so it covers every pixel the fragment
// test can pass: GEOMETRY 0 'quad': the rectangle at CUT sigma, blind to opacity (as
// before issue 9); 1 'rect': the rectangle around the contour; 2 'hex', 3 'oct': a
// hexagon or octagon around it (0.866x, 0.828x the rectangle's area, 4 and 6
// triangles); 4 'tri': one triangle around it (1.30x the rectangle's area, one
// triangle); 5 'auto': per splat, the triangle for contours under AUTO_RECT_AREA px^2,
// the rectangle from there (its second triangle degenerate for the triangle).
// On the H200 a splat's triangles cost more than the pixels they cover
// (docs/PERFORMANCE.md): fewer triangles beat tighter polygons.
// Drawn as an instanced triangle strip (LIST 0: instance j = record j, VERTS
// vertices) or a plain triangle list (LIST 1: vertex k of record k / TRIANGLE_VERTS).
//
// Fragment: with v = r u (u: the unit-polygon coordinate, interpolated), the forward
// model's power d^T conic d is |v|^2. Discarded where power > CUT^2 or
// alpha = opacity exp(-power / 2) < 1/255; premultiplied output, blended with (one,
// one-minus-src-alpha). CUT is 3 (the forward model) or 2 sqrt(2) (PlayCanvas's
// extent, an image change: the `sigmaCut` frame setting).

@group(0) @binding(0) var<uniform> frame: Frame;
// The records' pages at 1 are prepended (draw-pass.ts): records_at(j, k), vec4f k of record j.

/** 0 quad, 1 rect, 2 hex, 3 oct, 4 tri, 5 auto (see above). */
override GEOMETRY: u32 = 4u;
/** Extent in sigma: 3 (the forward model) or 2 sqrt(2). */
override CUT: f32 = 3.0;
/** 'auto': contour ellipses of at least this many px^2 get the rectangle, smaller ones the triangle. */
override AUTO_RECT_AREA: f32 = 256.0;
/** 0: instanced triangle strip; 1: triangle list, TRIANGLE_VERTS vertices a splat. */
override LIST: u32 = 0u;
override TRIANGLE_VERTS: u32 = 6u;

struct VsOut {
  @builtin(position) position: vec4f,
  @location(0) v: vec2f,                            // r * unit-polygon coordinate
  @location(1) @interpolate(flat) color: vec4f,     // rgb, opacity
};

const QUAD = array<vec2f, 4>(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(-1.0, 1.0), vec2f(1.0, 1.0));
// The equilateral triangle around the unit circle (inradius 1, circumradius 2), strip order.
const TRI = array<vec2f, 3>(vec2f(2.0, 0.0), vec2f(-1.0, 1.7320508075688772), vec2f(-1.0, -1.7320508075688772));
const HEX_R: f32 = 1.1547005383792515;   // 1 / cos(30 deg)
const OCT_R: f32 = 1.0823922002923940;   // 1 / cos(22.5 deg)

// Vertex of a regular n-gon (n = 6 or 8) around the unit circle for strip index i:
// strip order zig-zags from vertex 0 (0, n-1, 1, n-2, ...); past the polygon the
// last strip vertex repeats.
fn polygonVertex(n: u32, i: u32) -> vec2f {
  let s = min(i, n - 1u);
  var k = s >> 1u;
  if ((s & 1u) == 1u) {
    k = n - 1u - (s >> 1u);
  }
  let a = (f32(k) + 0.5) * (6.283185307179586 / f32(n));
  let r = select(OCT_R, HEX_R, n == 6u);
  return r * vec2f(cos(a), sin(a));
}

fn rectVertex(i: u32) -> vec2f {
  return QUAD[min(i, 3u)];
}

fn triVertex(i: u32) -> vec2f {
  return TRI[min(i, 2u)];
}

fn culled() -> VsOut {
  var o: VsOut;
  o.position = vec4f(0.0, 0.0, 2.0, 1.0);  // outside the clip volume
  o.v = vec2f(0.0);
  o.color = vec4f(0.0);
  return o;
}

// (record j, strip index) of a vertex: instance j of the strip, or vertex k of record k / TRIANGLE_VERTS.
fn recordVertex(vi: u32, ii: u32) -> vec2u {
  if (LIST == 1u) {
    let j = vi / TRIANGLE_VERTS;
    let k = vi - j * TRIANGLE_VERTS;
    return vec2u(j, k / 3u + k % 3u);  // triangle t = k / 3 is strip vertices t, t+1, t+2
  }
  return vec2u(ii, vi);
}

@vertex
fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> VsOut {
  let r = recordVertex(vi, ii);
  return splatVertex(r.x, r.y);
}

// Over a host's depth (EncodeOptions.hostDepth; quads-draw.ts): the polygon at its splat
// centre's depth d in the host's NDC convention, z = hostZ.x + hostZ.y / d (clamped to
// [0, 1]: a splat nearer than the host's near plane is in front of everything, one past
// its far plane behind everything), so that the host's depth attachment (read-only,
// depthCompare 'less', reversed-Z 'greater') drops the fragments behind its surface.
@group(1) @binding(1) var<uniform> hostZ: vec4f;

@vertex
fn vs_host(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> VsOut {
  let r = recordVertex(vi, ii);
  var o = splatVertex(r.x, r.y);
  if (o.position.z == 0.0) {
    o.position.z = clamp(hostZ.x + hostZ.y / records_at(r.x, 2u).w, 0.0, 1.0);
  }
  return o;
}

// Front to back, one chunk of the draw order at a time (draw-pass.ts): instance ii
// of chunk (first, count) is front-to-back position first + ii, i.e. record
// count - 1 - (first + ii). At depth 0.5, so that the depth test drops fragments
// where an earlier mask pass (fs_mask) found the pixel opaque.
@group(1) @binding(0) var<storage, read> chunk: vec4u;

@vertex
fn vs_f2b(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> VsOut {
  var o = splatVertex(chunk.y - 1u - (chunk.x + ii), vi);
  if (o.position.z == 0.0) {
    o.position.z = 0.5;
  }
  return o;
}

fn splatVertex(j: u32, si: u32) -> VsOut {
  let ra = records_at(j, 0u);
  let rb = records_at(j, 1u);
  let axis1 = ra.zw;
  let axis2 = rb.xy;
  if (all(axis1 == vec2f(0.0))) {
    return culled();
  }
  var u: vec2f;
  switch (GEOMETRY) {
    case 0u, 1u: { u = rectVertex(si); }
    case 2u: { u = polygonVertex(6u, si); }
    case 3u: { u = polygonVertex(8u, si); }
    case 4u: { u = triVertex(si); }
    default: {
      let area = 3.14159265 * length(axis1) * length(axis2);
      if (area >= AUTO_RECT_AREA) {
        u = rectVertex(si);
      } else {
        u = triVertex(si);
      }
    }
  }
  // A hair outside the contour so that pixel centres on it are not lost to rounding.
  let uu = u * 1.0001;
  let px = ra.xy + uu.x * axis1 + uu.y * axis2;
  var o: VsOut;
  o.position = vec4f(px.x / frame.viewport.x * 2.0 - 1.0, 1.0 - px.y / frame.viewport.y * 2.0, 0.0, 1.0);
  o.v = rb.z * uu;
  o.color = vec4f(records_at(j, 2u).xyz, rb.w);
  return o;
}

// The forward model's fragment test (CUT = 3) or the cut's; 0 where the fragment
// contributes nothing, else its alpha.
fn fragmentAlpha(in: VsOut) -> f32 {
  let power = dot(in.v, in.v);
  if (power > CUT * CUT) {
    return 0.0;
  }
  let alpha = in.color.a * exp(-0.5 * power);
  if (alpha < 1.0 / 255.0) {
    return 0.0;
  }
  return alpha;
}

@fragment
fn fs(in: VsOut) -> @location(0) vec4f {
  let alpha = fragmentAlpha(in);
  if (alpha == 0.0) {
    discard;
  }
  return vec4f(in.color.rgb * alpha, alpha);
}

// Raster floor: the same geometry with a trivial fragment (constant colour, no
// Gaussian, no discard), same blending. bench:frame reports the draw stage as a
// ratio to it, which separates the splat shader's cost from the rasteriser's.
@fragment
fn fs_floor(in: VsOut) -> @location(0) vec4f {
  return vec4f(0.02, 0.02, 0.02, 0.02);
}

// Coverage count (a measurement, not timed): the floor's fragments, counted. Slot s
// of 256 (by the pixel's position mod 16, so neighbouring fragments spread over
// slots) counts at 2s the fragments the geometry covers and at 2s+1 those whose
// alpha passes the fragment test (the pixels that can change).
@group(0) @binding(2) var<storage, read_write> coverage: array<atomic<u32>, 512>;

@fragment
fn fs_count(in: VsOut) -> @location(0) vec4f {
  let p = vec2u(in.position.xy);
  let slot = (p.x & 15u) | ((p.y & 15u) << 4u);
  atomicAdd(&coverage[2u * slot], 1u);
  if (fragmentAlpha(in) > 0.0) {
    atomicAdd(&coverage[2u * slot + 1u], 1u);
  }
  return vec4f(0.02, 0.02, 0.02, 0.02);
}

