// Loaded by renderer/gpu-scene/scene-wgsl.ts (sceneWgsl, after scene_common.wgsl); its structs are reflected by renderer/gpu-scene/objects.ts.
// The object table: the drawn scene is one or more placed objects (issue 32), each a
// run of splats [firsts[k], firsts[k + 1]) of the scene's buffers in the object's own
// frame, placed by a similarity x' = R (s x) + t (renderer/gpu-scene/objects.ts
// ObjectTable writes it; a plain scene is one object at the identity). Every pass that
// reads a splat finds its object once (objectOf) and reads the splat through it:
//   - the centre and the covariance through `view`, the frame's view times the
//     object's model matrix (object space -> view space): the EWA projection uses its
//     upper 3x3 as W, so the covariance is scaled and rotated (s^2 R Sigma R^T) at no
//     cost per splat beyond today's;
//   - the SH with the view direction in the object's frame (splat - eye there: R^-1 of
//     the world direction, so a rotated object keeps its look);
//   - the frustum cull's radius times s;
//   - the crop: a splat whose centre (in the object's frame) is outside its object's
//     box is culled where the passes cull (objectKeeps: one test, no branch on whether
//     there is a crop);
//   - a compact scene's ranges, per object (objects of different ranges share the
//     drawn buffers as their own GPU scenes packed them: no repacking).
// The binding is declared by scene-wgsl.ts (objectsBindingWgsl) as `objectTable`.

struct SplatObject {
  view: mat4x4f,        // the frame's view times the object's model matrix
  eye: vec4f,           // xyz: the eye in the object's frame; w: the object's scale s
  info: vec4u,          // x: the object's SH degree (its splats hold no higher band); yzw: 0
  // The object's crop box in its own frame (scenes/crop.ts): splats whose centre is
  // outside are not drawn; no crop is the largest finite box (+-3.4e38 on each axis).
  cropMin: vec4f,
  cropMax: vec4f,
  // The object's compact ranges (renderer/gpu-scene/compact-pack.ts CompactDecode; unused when full):
  dcMin: vec4f,         // f_dc of code 0 (rgb)
  dcStep: vec4f,        // f_dc a code step (rgb)
  lsRange: vec4f,       // log-scale of code 0, step of the 11-bit x and y codes, step of the 10-bit z
  shRange: array<vec4f, 12>, // R of higher-band coefficient k >= 1, channel c at [3 (k - 1) + c]
};

struct ObjectTable {
  count: u32,
  searchStep: u32,      // the largest power of two below count (0 for one object: no search)
  _pad0: u32,
  _pad1: u32,
  firsts: array<vec4u, 16>,  // object k's first splat at [k / 4][k % 4], ascending; 0xffffffff past count
  entries: array<SplatObject, 64>,
};

// The object of splat i: the last k with firsts[k] <= i, by a branch-free binary search
// over the uniform table (log2 of the object count steps; none for one object).
fn objectOf(i: u32) -> u32 {
  var k = 0u;
  for (var step = objectTable.searchStep; step > 0u; step = step >> 1u) {
    let c = k + step;
    k = select(k, c, objectTable.firsts[c >> 2u][c & 3u] <= i);
  }
  return k;
}

fn objectView(o: u32) -> mat4x4f {
  return objectTable.entries[o].view;
}

// The eye in object o's frame (its SH view directions start there).
fn objectEye(o: u32) -> vec3f {
  return objectTable.entries[o].eye.xyz;
}

fn objectScale(o: u32) -> f32 {
  return objectTable.entries[o].eye.w;
}

fn objectShDegree(o: u32) -> u32 {
  return objectTable.entries[o].info.x;
}

// Whether object o's crop box keeps a splat of centre p (in the object's frame): inside,
// faces included. Every splat is tested (an object without a crop has the largest box).
fn objectKeeps(o: u32, p: vec3f) -> bool {
  return all(p >= objectTable.entries[o].cropMin.xyz) && all(p <= objectTable.entries[o].cropMax.xyz);
}
