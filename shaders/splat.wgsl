// splat: one instanced quad per sorted splat id, drawn back to front.
//
// Vertex (4 vertices a splat, triangle strip; instance j draws id = order[j]):
//   1. 3D covariance (from the scene buffer) scaled by splatScale^2, projected with
//      the EWA Jacobian of the perspective at the splat's centre (the centre's
//      x/d, y/d clamped to 1.3x the frustum, as in the reference 3DGS) into a 2x2
//      pixel-space covariance; +0.3 px^2 on the diagonal (low-pass: a splat covers
//      at least about a pixel).
//   2. Conic = inverse covariance; the quad spans 3 sigma along the covariance's
//      eigenvectors (tighter than an axis-aligned square for thin splats).
//   3. Colour from SH up to frame.shDegree with the world-space view direction.
// Fragment: power = d^T conic d in pixels; outside 3 sigma or alpha < 1/255 is
// discarded; alpha = opacity * exp(-power / 2); premultiplied output, blended with
// (one, one-minus-src-alpha).
//
// Pixel space here: x right, y DOWN (row 0 at the top), pixel centres at +0.5.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> centers: array<vec4f>;
@group(0) @binding(2) var<storage, read> covs: array<vec4f>;
@group(0) @binding(3) var<storage, read> sh: array<u32>;
@group(0) @binding(4) var<storage, read> order: array<u32>;

// SH_C0 .. SH_C3: generated from scenes/sh.ts (renderer/pipeline/sh-wgsl.ts), prepended.

// SH coefficient k (rgb) of splat `base` (its first u32 word): halves k*3 .. k*3+2.
fn shCoeff(base: u32, k: u32) -> vec3f {
  let h = k * 3u;
  let w0 = unpack2x16float(sh[base + (h >> 1u)]);
  let w1 = unpack2x16float(sh[base + (h >> 1u) + 1u]);
  // h even: (w0.x, w0.y, w1.x); h odd: (w0.y, w1.x, w1.y)
  if ((h & 1u) == 0u) {
    return vec3f(w0.x, w0.y, w1.x);
  }
  return vec3f(w0.y, w1.x, w1.y);
}

fn evalSH(base: u32, degree: u32, dir: vec3f) -> vec3f {
  var c = SH_C0 * shCoeff(base, 0u);
  if (degree >= 1u) {
    let x = dir.x; let y = dir.y; let z = dir.z;
    c += -SH_C1 * y * shCoeff(base, 1u) + SH_C1 * z * shCoeff(base, 2u) - SH_C1 * x * shCoeff(base, 3u);
    if (degree >= 2u) {
      let xx = x * x; let yy = y * y; let zz = z * z;
      let xy = x * y; let yz = y * z; let xz = x * z;
      c += SH_C2[0] * xy * shCoeff(base, 4u)
         + SH_C2[1] * yz * shCoeff(base, 5u)
         + SH_C2[2] * (2.0 * zz - xx - yy) * shCoeff(base, 6u)
         + SH_C2[3] * xz * shCoeff(base, 7u)
         + SH_C2[4] * (xx - yy) * shCoeff(base, 8u);
      if (degree >= 3u) {
        c += SH_C3[0] * y * (3.0 * xx - yy) * shCoeff(base, 9u)
           + SH_C3[1] * xy * z * shCoeff(base, 10u)
           + SH_C3[2] * y * (4.0 * zz - xx - yy) * shCoeff(base, 11u)
           + SH_C3[3] * z * (2.0 * zz - 3.0 * xx - 3.0 * yy) * shCoeff(base, 12u)
           + SH_C3[4] * x * (4.0 * zz - xx - yy) * shCoeff(base, 13u)
           + SH_C3[5] * z * (xx - yy) * shCoeff(base, 14u)
           + SH_C3[6] * x * (xx - 3.0 * yy) * shCoeff(base, 15u);
      }
    }
  }
  return max(c + 0.5, vec3f(0.0));
}

struct VsOut {
  @builtin(position) position: vec4f,
  @location(0) offset: vec2f,                       // pixels from the centre (y down)
  @location(1) @interpolate(flat) conic: vec3f,     // a, b, c of [[a, b], [b, c]]
  @location(2) @interpolate(flat) color: vec4f,     // rgb, opacity
};

const CORNERS = array<vec2f, 4>(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(-1.0, 1.0), vec2f(1.0, 1.0));

fn culled() -> VsOut {
  var o: VsOut;
  o.position = vec4f(0.0, 0.0, 2.0, 1.0);  // outside the clip volume
  o.offset = vec2f(0.0);
  o.conic = vec3f(0.0);
  o.color = vec4f(0.0);
  return o;
}

@vertex
fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> VsOut {
  let id = order[ii];
  let c = centers[id];
  let t = frame.view * vec4f(c.xyz, 1.0);
  let d = -t.z;
  if (d <= frame.near) {
    return culled();
  }
  let pv = frame.proj * t;
  let ndc = pv.xy / pv.w;
  if (any(abs(ndc) > vec2f(1.3))) {
    return culled();
  }

  // EWA: J = d(pixel)/d(view) at the (clamped) centre.
  let lim = 1.3 * frame.tanHalfFov;
  let txy = clamp(t.xy / d, -lim, lim) * d;
  let fx = frame.focal.x;
  let fy = frame.focal.y;
  // Column-major 3x2 as rows: J = [[fx/d, 0, fx*tx/d^2], [0, -fy/d, -fy*ty/d^2]]
  let j0 = vec3f(fx / d, 0.0, fx * txy.x / (d * d));
  let j1 = vec3f(0.0, -fy / d, -fy * txy.y / (d * d));
  let W = mat3x3f(frame.view[0].xyz, frame.view[1].xyz, frame.view[2].xyz);
  let ca = covs[2u * id];
  let cb = covs[2u * id + 1u];
  let s2 = frame.splatScale * frame.splatScale;
  let sigma = mat3x3f(
    vec3f(ca.x, ca.y, ca.z),
    vec3f(ca.y, ca.w, cb.x),
    vec3f(ca.z, cb.x, cb.y)) * s2;
  // T = J W (2x3): rows are j0 * W and j1 * W (row vector times matrix).
  let r0 = j0 * W;
  let r1 = j1 * W;
  let sr0 = sigma * r0;
  let sr1 = sigma * r1;
  let a = dot(r0, sr0) + 0.3;
  let b = dot(r0, sr1);
  let cc = dot(r1, sr1) + 0.3;
  let det = a * cc - b * b;
  if (det <= 0.0) {
    return culled();
  }
  let conic = vec3f(cc, -b, a) / det;

  // Eigen-decomposition of [[a, b], [b, cc]] for the quad's axes.
  let mid = 0.5 * (a + cc);
  let disc = sqrt(max(mid * mid - det, 0.0));
  let l1 = mid + disc;
  let l2 = max(mid - disc, 0.0);
  var e1 = vec2f(1.0, 0.0);
  if (abs(b) > 1e-12 * l1) {
    e1 = normalize(vec2f(b, l1 - a));
  } else if (cc > a) {
    e1 = vec2f(0.0, 1.0);
  }
  let e2 = vec2f(-e1.y, e1.x);
  let corner = CORNERS[vi];
  let offset = corner.x * 3.0 * sqrt(l1) * e1 + corner.y * 3.0 * sqrt(l2) * e2;

  let centrePx = vec2f((ndc.x * 0.5 + 0.5) * frame.viewport.x, (0.5 - ndc.y * 0.5) * frame.viewport.y);
  let px = centrePx + offset;
  var o: VsOut;
  o.position = vec4f(px.x / frame.viewport.x * 2.0 - 1.0, 1.0 - px.y / frame.viewport.y * 2.0, 0.0, 1.0);
  o.offset = offset;
  o.conic = conic;
  let dir = normalize(c.xyz - frame.eye);
  o.color = vec4f(evalSH(id * frame.shStride, frame.shDegree, dir), c.w);
  return o;
}

@fragment
fn fs(in: VsOut) -> @location(0) vec4f {
  let dx = in.offset;
  let power = in.conic.x * dx.x * dx.x + 2.0 * in.conic.y * dx.x * dx.y + in.conic.z * dx.y * dx.y;
  if (power > 9.0) {
    discard;
  }
  let alpha = in.color.a * exp(-0.5 * power);
  if (alpha < 1.0 / 255.0) {
    discard;
  }
  return vec4f(in.color.rgb * alpha, alpha);
}

// Raster floor: the same quads with a trivial fragment (constant colour, no
// Gaussian, no discard), same blending. bench:frame reports the draw stage as a
// ratio to it, which separates the splat shader's cost from the rasteriser's.
@fragment
fn fs_floor(in: VsOut) -> @location(0) vec4f {
  return vec4f(0.02, 0.02, 0.02, 0.02);
}
