// Loaded by renderer/frame/pixel-pick.ts (pickPixel: Viewer.pick). The splats that
// cover one pixel, gathered on the GPU without drawing a frame: one thread per splat
// of the drawn scene projects it as both draws do (projectSplat), and appends those
// whose alpha at the sample point passes the draw's fragment test (power <= cut^2,
// alpha >= 1/255) with their depth key (depthKey, the quads draw's sort key), depth
// and alpha. The CPU sorts that short list front to back and finds where the pixel's
// opacity reaches 0.5 (the opacity-0.5 depth of the host-depth output).
// Prepended there: SH_WGSL, splat_common.wgsl, the scene's decode and pages (centers
// at 1, covs at 2, SH at 3, the object table at 4), sh_eval.wgsl, project_splat.wgsl.

@group(0) @binding(0) var<uniform> frame: Frame;

struct PixelParams {
  pixel: vec2f,     // the sample point, device pixels from the top left
  cut2: f32,        // the fragment's cut, squared (9, or 8 with the 2.83-sigma cut)
  capacity: u32,    // the hits the list holds
};
@group(0) @binding(6) var<uniform> params: PixelParams;

struct PixelHit {
  id: u32,          // the splat in the drawn scene
  key: u32,         // its depth key (front to back: the largest first)
  depth: f32,       // d = -z_view of its centre
  alpha: f32,       // its alpha at the sample point
};
struct PixelHits {
  count: atomic<u32>, // every hit, also those past the capacity (the CPU grows the list and asks again)
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
  hits: array<PixelHit>,
};
@group(0) @binding(5) var<storage, read_write> out: PixelHits;

const PIXEL_WG: u32 = 256u;

@compute @workgroup_size(PIXEL_WG)
fn gather(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * PIXEL_WG;
  if (i >= frame.splatCount) {
    return;
  }
  let s = projectSplat(i);
  if (!s.visible) {
    return;
  }
  // The quads draw's cull pass drops a splat whose bounding sphere is past the far plane.
  if (frame.cullEnabled != 0u && s.depth - 3.0 * splatMaxScale(i, s.object) * objectScale(s.object) * frame.splatScale > frame.far) {
    return;
  }
  let det = s.cov2.x * s.cov2.z - s.cov2.y * s.cov2.y;
  let conic = vec3f(s.cov2.z, -s.cov2.y, s.cov2.x) / det;
  let d = params.pixel - s.centre;
  let power = conic.x * d.x * d.x + 2.0 * conic.y * d.x * d.y + conic.z * d.y * d.y;
  let a = s.opacity * exp(-0.5 * power);
  if (!(power <= params.cut2 && a >= 1.0 / 255.0)) {
    return;
  }
  let k = atomicAdd(&out.count, 1u);
  if (k < params.capacity) {
    out.hits[k] = PixelHit(i, depthKey(s.depth, frame.keyBits, frame.near, frame.far), s.depth, a);
  }
}
