// The scene as the GPU keeps it, full precision (GpuScene 'full', the layout of
// before issue 17): how every pass reads a splat. Needs the bindings `frame: Frame`,
// `centers: array<SceneCenter>`, `covs: array<SceneCov>`, `sh0`, `sh1: array<u32>`.
//   centers[i]   vec4f (x, y, z, opacity)
//   covs[2i]     vec4f (s00, s01, s02, s11)   3D covariance R S S^T R^T
//   covs[2i+1]   vec4f (s12, s22, maxScale, 0)
//   SH           f16 pairs, coefficient-major (coefficient k, channel c at half k*3 + c)
// Its twin, scene_compact.wgsl, has the same functions.

alias SceneCenter = vec4f;
alias SceneCov = vec4f;

fn splatPosition(i: u32) -> vec3f {
  return centers[i].xyz;
}

fn splatOpacity(i: u32) -> f32 {
  return centers[i].w;
}

fn splatCov(i: u32) -> SplatCov {
  return SplatCov(covs[2u * i], covs[2u * i + 1u]);
}

// The largest axis (the frustum cull's bounding sphere).
fn splatMaxScale(i: u32) -> f32 {
  return covs[2u * i + 1u].z;
}

// Word w of splat i's SH, from the buffer that holds splat i.
fn shWord(i: u32, w: u32) -> u32 {
  if (i < frame.shSplit) {
    return sh0[i * frame.shStride + w];
  }
  return sh1[(i - frame.shSplit) * frame.shStride + w];
}

// SH coefficient k (rgb) of splat i: halves k*3 .. k*3+2.
fn shCoeff(i: u32, k: u32) -> vec3f {
  let h = k * 3u;
  let w0 = unpack2x16float(shWord(i, h >> 1u));
  let w1 = unpack2x16float(shWord(i, (h >> 1u) + 1u));
  // h even: (w0.x, w0.y, w1.x); h odd: (w0.y, w1.x, w1.y)
  if ((h & 1u) == 0u) {
    return vec3f(w0.x, w0.y, w1.x);
  }
  return vec3f(w0.y, w1.x, w1.y);
}
