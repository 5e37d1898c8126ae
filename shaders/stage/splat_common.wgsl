// Loaded by renderer/project/project-pass.ts, renderer/draw/quads/quads-pipelines.ts and renderer/draw/tiles/tile-pipelines.ts;
// its Frame and DrawArgs are reflected by renderer/stage/frame-uniforms.ts and renderer/stage/draw-args.ts.
// Shared by project.wgsl and splat.wgsl (prepended to each): the frame uniforms
// and the GPU scene layout.
//
// Scene buffers (written once at upload by GpuScene): `centers`, `covs` and the SH
// words, each paged by whole splats over as many bindings as the per-binding limit
// needs (renderer/gpu-scene/paging.ts: read through centers_at, covs_at, sh_at). Their
// layout is the scene's precision: scene_full.wgsl (f32 centres and covariances, f16
// SH) or scene_compact.wgsl (the default: 72 B a splat at SH3); one of them is
// prepended after this file and is the only code that reads them (splatPosition,
// splatOpacity, splatCov, splatMaxScale, shCoeff).
//
// Frame uniforms: see struct Frame. The projection maps view-space depth d = -z_view
// into WebGPU clip space (perspectiveZO); pixel y points down.

struct Frame {
  view: mat4x4f,
  proj: mat4x4f,
  eye: vec3f,
  splatCount: u32,
  viewport: vec2f,      // width, height in pixels
  focal: vec2f,         // fx, fy in pixels
  tanHalfFov: vec2f,    // tan(fovx/2), tan(fovy/2)
  near: f32,
  far: f32,
  splatScale: f32,
  shDegree: u32,        // degree evaluated (<= the scene's)
  shStride: u32,        // u32 words per splat of SH
  keyBits: u32,         // 32: float-bits key; fewer: depth quantised in [near, far]
  cullEnabled: u32,
  _pad0: u32,
  minContribution: f32, // px: drop splats whose alpha integrated over the screen is less (0: off)
  antialias: u32,       // 1: the anti-aliased mode (effectiveOpacity), 0: off (the default)
  // The compact scene's ranges (renderer/gpu-scene/compact-pack.ts CompactDecode). Read by no
  // shader since issue 32: the compact decode reads each object's own (objects.wgsl SplatObject).
  dcMin: vec4f,         // f_dc of code 0 (rgb)
  dcStep: vec4f,        // f_dc a code step (rgb)
  lsRange: vec4f,       // log-scale of code 0, step of the 11-bit x and y codes, step of the 10-bit z
  shRange: array<vec4f, 12>, // R of higher-band coefficient k >= 1, channel c at [3 (k - 1) + c]
};

// The indirect draw arguments, in drawIndirect's layout (renderer/stage/draw-args.ts
// reads this struct). The project pass appends into instanceCount: it is the live
// count of visible splats that the sort reads and the draw draws.
struct DrawArgs {
  vertexCount: u32,
  instanceCount: atomic<u32>,
  firstVertex: u32,
  firstInstance: u32,
};

// The EWA projection of a splat (both draws use it, through projectSplat in
// project_splat.wgsl): its 3D covariance (ca, cb: splatCov's two vec4:
// xx xy xz yy, yz zz max 0) scaled by splatScale^2, at view-space centre t (depth
// -t.z > near), as the 2x2 pixel-space covariance (a, b, c) of [[a, b], [b, c]]
// (pixel y down), before the low-pass. The Jacobian of the perspective is taken at
// the centre with x/d, y/d clamped to 1.3x the frustum, as in the reference 3DGS.
// `view` maps the covariance's space to view space: the splat's object's (objects.wgsl
// objectView: the frame's view times the object's model matrix, whose rotation and
// scale turn the covariance into s^2 R Sigma R^T on the way).
fn projectedCovarianceRaw(f: Frame, view: mat4x4f, t: vec4f, ca: vec4f, cb: vec4f) -> vec3f {
  let d = -t.z;
  let lim = 1.3 * f.tanHalfFov;
  let txy = clamp(t.xy / d, -lim, lim) * d;
  let fx = f.focal.x;
  let fy = f.focal.y;
  // Column-major 3x2 as rows: J = [[fx/d, 0, fx*tx/d^2], [0, -fy/d, -fy*ty/d^2]]
  let j0 = vec3f(fx / d, 0.0, fx * txy.x / (d * d));
  let j1 = vec3f(0.0, -fy / d, -fy * txy.y / (d * d));
  let W = mat3x3f(view[0].xyz, view[1].xyz, view[2].xyz);
  let sigma = mat3x3f(
    vec3f(ca.x, ca.y, ca.z),
    vec3f(ca.y, ca.w, cb.x),
    vec3f(ca.z, cb.x, cb.y)) * (f.splatScale * f.splatScale);
  // T = J W (2x3): rows are j0 * W and j1 * W (row vector times matrix).
  let r0 = j0 * W;
  let r1 = j1 * W;
  return vec3f(dot(r0, sigma * r0), dot(r0, sigma * r1), dot(r1, sigma * r1));
}

// The low-pass: +0.3 px^2 on the diagonal (a splat covers at least about a pixel).
fn lowPass(raw: vec3f) -> vec3f {
  return vec3f(raw.x + 0.3, raw.y, raw.z + 0.3);
}

// projectedCovarianceRaw with the low-pass: the covariance both draws blend with.
fn projectedCovariance(f: Frame, view: mat4x4f, t: vec4f, ca: vec4f, cb: vec4f) -> vec3f {
  return lowPass(projectedCovarianceRaw(f, view, t, ca, cb));
}

// A splat's opacity as drawn. Off (Frame.antialias == 0): its opacity. The
// anti-aliased mode (Mip-Splatting's 2D filter, gsplat's rasterize_mode="antialiased"):
// the low-pass widens a splat, and the opacity is scaled by
// sqrt(det(raw) / det(raw + 0.3 I)) so that its alpha integrated over the screen stays
// that of the unfiltered splat (0 when det(raw) <= 0). Every opacity test (the 1/255
// cull, the contribution cull, the 1/255 contour) uses this one.
fn effectiveOpacity(f: Frame, opacity: f32, raw: vec3f, cov2: vec3f) -> f32 {
  if (f.antialias == 0u) {
    return opacity;
  }
  let det0 = raw.x * raw.z - raw.y * raw.y;
  let det = cov2.x * cov2.z - cov2.y * cov2.y;
  if (!(det0 > 0.0) || !(det > 0.0)) {
    return 0.0;
  }
  return opacity * sqrt(det0 / det);
}

// A splat's alpha integrated over the screen, in pixels: opacity * 2 pi sqrt(det) of its
// pixel covariance (a, b, c) (projectedCovariance; opacity: effectiveOpacity). The
// contribution cull (Frame.minContribution, off by default: an image change) drops
// splats under a threshold before the sort (PlayCanvas's default is about 0.75 px in
// these units).
fn screenContribution(opacity: f32, cov2: vec3f) -> f32 {
  return opacity * 6.283185307179586 * sqrt(max(cov2.x * cov2.z - cov2.y * cov2.y, 0.0));
}

// An ascending sort of these keys gives back-to-front order: farther splats get
// smaller keys. With 32 bits the key is the complemented IEEE bits of the positive
// depth (order-preserving for positive floats, exact); with fewer bits the depth is
// quantised linearly between the near and far planes.
fn depthKey(depth: f32, keyBits: u32, near: f32, far: f32) -> u32 {
  if (keyBits >= 32u) {
    return ~bitcast<u32>(max(depth, 0.0));
  }
  let t = clamp((depth - near) / (far - near), 0.0, 1.0);
  let maxKey = (1u << keyBits) - 1u;
  return maxKey - u32(round(t * f32(maxKey)));
}
