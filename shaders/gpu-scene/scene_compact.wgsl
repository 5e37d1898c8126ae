// Loaded by renderer/gpu-scene/scene-wgsl.ts (sceneWgsl, compact precision).
// The scene as the GPU keeps it, compact (GpuScene 'compact', the default; the
// layout and its reasons: renderer/gpu-scene/compact-pack.ts, whose decodeCompact is
// the CPU mirror of this file). The same functions as scene_full.wgsl. The ranges are
// each object's (objects.wgsl: objectTable.entries[o], o = objectOf(i); a plain scene is
// one object holding the scene's ranges).
// Read through the paged arrays' accessors (renderer/gpu-scene/paging.ts), element k of splat i:
//   centers      vec4u  x, y, z (f32 bits), f_dc as 11-11-10 bits
//   covs         vec2u  rotation (smallest three, 2 + 3 x 10 bits, codes 0..1022), log-scales 11-11-10 bits
//   sh words     bytes: opacity (unorm8), then the higher bands' square-law codes

alias SceneCenter = vec4u;
alias SceneCov = vec2u;

fn splatPosition(i: u32) -> vec3f {
  return bitcast<vec3f>(centers_at(i, 0u).xyz);
}

// shWord(i, w), word w of splat i's SH, comes from scene-wgsl.ts (shSplatWgsl): read
// only after shFetch(i), which evalSH (sh_eval.wgsl) calls first.
// Byte b of splat i's byte stream.
fn shByte(i: u32, b: u32) -> u32 {
  return (shWord(i, b >> 2u) >> ((b & 3u) * 8u)) & 255u;
}

fn splatOpacity(i: u32) -> f32 {
  return f32(sh_at(i, 0u) & 255u) / 255.0;
}

fn splatLogScales(i: u32, o: u32) -> vec3f {
  let w = covs_at(i, 0u).y;
  let u = vec3f(f32(w & 2047u), f32((w >> 11u) & 2047u), f32(w >> 22u));
  let r = objectTable.entries[o].lsRange;
  return r.x + u * r.yyz;
}

// The unit quaternion (w, x, y, z) of the smallest-three code.
fn splatQuat(i: u32) -> vec4f {
  let word = covs_at(i, 0u).x;
  let abc = (vec3f(f32((word >> 2u) & 1023u), f32((word >> 12u) & 1023u), f32(word >> 22u)) / 1022.0 * 2.0 - 1.0) * 0.7071067811865476;
  let big = sqrt(max(0.0, 1.0 - dot(abc, abc)));
  switch (word & 3u) {
    case 0u: { return vec4f(big, abc); }
    case 1u: { return vec4f(abc.x, big, abc.yz); }
    case 2u: { return vec4f(abc.xy, big, abc.z); }
    default: { return vec4f(abc, big); }
  }
}

fn splatCov(i: u32, o: u32) -> SplatCov {
  let q = splatQuat(i);
  let ls = splatLogScales(i, o);
  let s = exp(ls);
  let w = q.x; let x = q.y; let y = q.z; let z = q.w;
  // Rows of R S, as renderer/gpu-scene/covariance.ts packCovariance.
  let ra = vec3f(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)) * s;
  let rb = vec3f(2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)) * s;
  let rc = vec3f(2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)) * s;
  return SplatCov(vec4f(dot(ra, ra), dot(ra, rb), dot(ra, rc), dot(rb, rb)),
                  vec4f(dot(rb, rc), dot(rc, rc), exp(max(ls.x, max(ls.y, ls.z))), 0.0));
}

fn splatMaxScale(i: u32, o: u32) -> f32 {
  let ls = splatLogScales(i, o);
  return exp(max(ls.x, max(ls.y, ls.z)));
}

// The square-law code of a higher-band value: R t |t|, t = (code - 128) / 127.
fn shValue(code: u32, j: u32, o: u32) -> f32 {
  let t = (f32(code) - 128.0) / 127.0;
  return objectTable.entries[o].shRange[j >> 2u][j & 3u] * t * abs(t);
}

// SH coefficient k (rgb) of splat i of object o: the DC term from centers, the others from the byte stream.
fn shCoeff(i: u32, o: u32, k: u32) -> vec3f {
  if (k == 0u) {
    let w = centers_at(i, 0u).w;
    return objectTable.entries[o].dcMin.xyz + vec3f(f32(w & 2047u), f32((w >> 11u) & 2047u), f32(w >> 22u)) * objectTable.entries[o].dcStep.xyz;
  }
  let j = 3u * (k - 1u);
  return vec3f(shValue(shByte(i, j + 1u), j, o), shValue(shByte(i, j + 2u), j + 1u, o), shValue(shByte(i, j + 3u), j + 2u, o));
}
