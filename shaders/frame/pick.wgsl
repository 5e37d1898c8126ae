// Loaded by renderer/frame/gpu-pick.ts (pickOnGpu): the splat under a pixel, from the
// GPU frame just drawn (the quads draw: its sorted ids, back to front, and its count
// in DrawArgs). Prepended there: SH_WGSL, splat_common.wgsl, the scene's decode and
// pages (centers at 1, covs at 2, SH at 3, the object table at 4), the sorted ids'
// pages at 5 (order_at), sh_eval.wgsl and project_splat.wgsl.
//
// `alphas` (one thread per sorted splat): its alpha at the pixel centre as the quads
// draw's fragment makes it (projectSplat, then power = dx^T conic dx; nothing when
// power > 9 or alpha < 1/255). `walk` (one thread): front to back over those alphas
// (the nearest sorted splat last in the order), the pixel's opacity 1 - prod(1 - a);
// the splat where it first reaches 0.5 is the pick: its id, object, depth.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(6) var<storage, read_write> drawArgs: DrawArgs;
@group(0) @binding(7) var<storage, read_write> pickAlpha: array<f32>;

struct PickParams {
  pixel: vec2f,      // the sample point, pixels from the top left (a pixel's centre: +0.5)
  threshold: f32,    // the opacity the pick crosses (0.5)
  _pad: f32,
};
@group(0) @binding(8) var<uniform> params: PickParams;

struct PickResult {
  found: u32,
  sorted: u32,       // its place in the sorted order
  id: u32,           // the splat in the drawn scene
  object: u32,       // its run in the object table (objects.wgsl objectOf)
  depth: f32,        // its view depth d = -z_view
  accumulated: f32,  // the pixel's opacity once it is blended (>= threshold when found; the total otherwise)
  alpha: f32,        // its own alpha at the pixel
  visited: u32,      // sorted splats walked
};
@group(0) @binding(9) var<storage, read_write> result: PickResult;

const PICK_WG: u32 = 256u;

fn alphaAt(i: u32) -> f32 {
  let s = projectSplat(i);
  if (!s.visible) {
    return 0.0;
  }
  let det = s.cov2.x * s.cov2.z - s.cov2.y * s.cov2.y;
  let conic = vec3f(s.cov2.z, -s.cov2.y, s.cov2.x) / det;
  let d = params.pixel - s.centre;
  let power = conic.x * d.x * d.x + 2.0 * conic.y * d.x * d.y + conic.z * d.y * d.y;
  let a = s.opacity * exp(-0.5 * power);
  return select(0.0, a, power <= 9.0 && a >= 1.0 / 255.0);
}

@compute @workgroup_size(PICK_WG)
fn alphas(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let j = gid.x + gid.y * nwg.x * PICK_WG;
  if (j >= atomicLoad(&drawArgs.instanceCount)) {
    return;
  }
  pickAlpha[j] = alphaAt(order_at(j, 0u));
}

@compute @workgroup_size(1)
fn walk() {
  let n = atomicLoad(&drawArgs.instanceCount);
  var r: PickResult;
  var t = 1.0;
  var k = 0u;
  for (; k < n; k++) {
    let j = n - 1u - k;
    let a = pickAlpha[j];
    t = t * (1.0 - a);
    if (1.0 - t >= params.threshold) {
      r.found = 1u;
      r.sorted = j;
      r.id = order_at(j, 0u);
      r.alpha = a;
      k++;
      break;
    }
  }
  r.visited = k;
  r.accumulated = 1.0 - t;
  if (r.found == 1u) {
    let s = projectSplat(r.id);
    r.object = s.object;
    r.depth = s.depth;
  }
  result = r;
}
