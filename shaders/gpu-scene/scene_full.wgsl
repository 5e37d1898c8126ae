// Loaded by renderer/gpu-scene/scene-wgsl.ts (sceneWgsl, full precision).
// The scene as the GPU keeps it, full precision (GpuScene 'full', the layout of
// before issue 17): how every pass reads a splat. Needs `frame: Frame` and the scene's
// paged arrays (renderer/gpu-scene/paging.ts; scene-wgsl.ts declares them), read through
// their accessors centers_at, covs_at, sh_at (element k of splat i):
//   centers      vec4f (x, y, z, opacity)
//   covs (2)     vec4f (s00, s01, s02, s11)   3D covariance R S S^T R^T
//                vec4f (s12, s22, maxScale, 0)
//   sh           f16 pairs, coefficient-major (coefficient k, channel c at half k*3 + c)
// Its twin, scene_compact.wgsl, has the same functions (`o`, the splat's object in
// objects.wgsl, is what the compact decode reads its ranges from: unused here).

alias SceneCenter = vec4f;
alias SceneCov = vec4f;

fn splatPosition(i: u32) -> vec3f {
  return centers_at(i, 0u).xyz;
}

fn splatOpacity(i: u32) -> f32 {
  return centers_at(i, 0u).w;
}

fn splatCov(i: u32, o: u32) -> SplatCov {
  return SplatCov(covs_at(i, 0u), covs_at(i, 1u));
}

// The largest axis (the frustum cull's bounding sphere).
fn splatMaxScale(i: u32, o: u32) -> f32 {
  return covs_at(i, 1u).z;
}

// shWord(i, w), word w of splat i's SH, comes from scene-wgsl.ts (shSplatWgsl): read
// only after shFetch(i), which evalSH (sh_eval.wgsl) calls first.
// SH coefficient k (rgb) of splat i: halves k*3 .. k*3+2.
fn shCoeff(i: u32, o: u32, k: u32) -> vec3f {
  let h = k * 3u;
  let w0 = unpack2x16float(shWord(i, h >> 1u));
  let w1 = unpack2x16float(shWord(i, (h >> 1u) + 1u));
  // h even: (w0.x, w0.y, w1.x); h odd: (w0.y, w1.x, w1.y)
  if ((h & 1u) == 0u) {
    return vec3f(w0.x, w0.y, w1.x);
  }
  return vec3f(w0.y, w1.x, w1.y);
}
