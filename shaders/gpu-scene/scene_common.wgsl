// Loaded by renderer/gpu-scene/scene-wgsl.ts (sceneWgsl, before either scene layout).
// What both scene layouts (scene_full.wgsl, scene_compact.wgsl) give a pass; sceneWgsl
// (renderer/gpu-scene/scene-wgsl.ts) puts it before either.

// The 3D covariance: (xx, xy, xz, yy) and (yz, zz, largest axis, 0).
struct SplatCov {
  a: vec4f,
  b: vec4f,
};
