// Loaded by renderer/project/project-pass.ts (ProjectPass: the quads draw's project pass).
// project: per splat, view-space depth, frustum cull, and append (key, id) of every
// visible splat for the sort.
//
// Steps (one thread per splat, 256 per workgroup):
//   0. a splat whose centre its object's crop box leaves out (objects.wgsl
//      objectKeeps) is dropped, whatever the cull setting; so is a splat whose
//      opacity as drawn (effectiveOpacity, splat_common.wgsl: the anti-aliased mode's
//      factor applied) is under 1/255 (or NaN): it can reach the fragment test's
//      1/255 nowhere.
//   1. depth d = -z_view; visible if d > near and the splat's 3-sigma bounding sphere
//      (3 * maxScale * splatScale) overlaps the view frustum's side planes (with
//      culling off: every splat in front of the near plane). With the contribution
//      cull on (frame.minContribution > 0, an image change), a splat whose alpha
//      integrated over the screen (screenContribution) is under it is dropped too.
//   2. Workgroup-aggregated append: each visible thread takes a slot from a
//      workgroup counter; one thread reserves the workgroup's total from the global
//      counter with a single atomicAdd; every thread writes at base + slot.
//   3. keys[j] = depthKey(d), values[j] = splat id.
//
// The global counter is drawArgs.instanceCount (struct DrawArgs, splat_common.wgsl):
// the sort reads its live count from there and the draw uses it as is, so nothing
// returns to the CPU. The CPU resets it to 0 before each frame's project pass.

@group(0) @binding(0) var<uniform> frame: Frame;
// The scene's pages (centers at 1, covs at 2, SH at 6: the compact scene keeps the
// opacity there; the object table at 7: objects.wgsl) and its decode (scene_full.wgsl or scene_compact.wgsl) are prepended
// (renderer/gpu-scene/scene-wgsl.ts).
// The keys' and values' pages too (keys at 3, values at 4; keys_put(j, 0u, v): paging.ts):
// a scene can have more splats than one binding holds u32s.
@group(0) @binding(5) var<storage, read_write> drawArgs: DrawArgs;

override WORKGROUP_SIZE: u32 = 256u;

/** The fragment test's alpha threshold (shaders/draw/quads/splat.wgsl). */
const MIN_ALPHA: f32 = 1.0 / 255.0;

var<workgroup> wgCount: atomic<u32>;
var<workgroup> wgBase: u32;

fn isVisible(i: u32) -> vec2f {
  // returns (visible, depth)
  // The splat's object (objects.wgsl): its view (the frame's times its model matrix),
  // scale and compact ranges.
  let o = objectOf(i);
  let view = objectView(o);
  let p = splatPosition(i);
  let v = view * vec4f(p, 1.0);
  let d = -v.z;
  // In front of the near plane, and kept by its object's crop box (objects.wgsl).
  if (d <= frame.near || !objectKeeps(o, p)) {
    return vec2f(0.0, d);
  }
  // The opacity and contribution tests of projectSplat (project_splat.wgsl), with the
  // same functions: the opacity as drawn needs the projected covariance only in the
  // anti-aliased mode or with the contribution cull on.
  let stored = splatOpacity(i);
  var opacity = stored;
  if (frame.antialias != 0u || frame.minContribution > 0.0) {
    let cov = splatCov(i, o);
    let raw = projectedCovarianceRaw(frame, view, v, cov.a, cov.b);
    let cov2 = lowPass(raw);
    opacity = effectiveOpacity(frame, stored, raw, cov2);
    if (frame.minContribution > 0.0 && !(screenContribution(opacity, cov2) >= frame.minContribution)) {
      return vec2f(0.0, d);
    }
  }
  if (!(opacity >= MIN_ALPHA)) {
    return vec2f(0.0, d);
  }
  if (frame.cullEnabled == 0u) {
    return vec2f(1.0, d);
  }
  // Side planes of the frustum through the eye: |x| <= d * tanHalfFov.x, likewise y.
  // A sphere of radius r is outside a plane with unit normal n when dot(n, v) > r.
  let r = 3.0 * splatMaxScale(i, o) * objectScale(o) * frame.splatScale;
  let tx = frame.tanHalfFov.x;
  let ty = frame.tanHalfFov.y;
  let ix = inverseSqrt(1.0 + tx * tx);
  let iy = inverseSqrt(1.0 + ty * ty);
  let outX = (abs(v.x) - d * tx) * ix > r;
  let outY = (abs(v.y) - d * ty) * iy > r;
  let outFar = d - r > frame.far;
  return vec2f(select(1.0, 0.0, outX || outY || outFar), d);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3u) {
  if (lid == 0u) {
    atomicStore(&wgCount, 0u);
  }
  workgroupBarrier();

  let i = gid.x + gid.y * nwg.x * WORKGROUP_SIZE;
  var visible = false;
  var depth = 0.0;
  if (i < frame.splatCount) {
    let vd = isVisible(i);
    visible = vd.x > 0.5;
    depth = vd.y;
  }
  var slot = 0u;
  if (visible) {
    slot = atomicAdd(&wgCount, 1u);
  }
  workgroupBarrier();
  if (lid == 0u) {
    let total = atomicLoad(&wgCount);
    var base = 0u;
    if (total > 0u) {
      base = atomicAdd(&drawArgs.instanceCount, total);
    }
    wgBase = base;
  }
  let base = workgroupUniformLoad(&wgBase);
  if (visible) {
    let j = base + slot;
    keys_put(j, 0u, depthKey(depth, frame.keyBits, frame.near, frame.far));
    values_put(j, 0u, i);
  }
}
