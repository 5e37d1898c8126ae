// Loaded by renderer/draw/quads/quads-pipelines.ts (prepare pass) and renderer/draw/tiles/tile-pipelines.ts (project pass).
// Spherical-harmonics colour of a splat (the forward model's basis and sign
// convention), shared by the quads draw's prepare pass (splat_prepare.wgsl) and the
// tiles draw's project pass (tiles/project.wgsl). Needs SH_C0..SH_C3 (generated
// const prelude), `frame: Frame` (splat_common.wgsl), shFetch(i) (scene-wgsl.ts: a paged
// scene's splat copied out of its page once) and shCoeff(i, o, k): the scene's decode
// (scene_full.wgsl or scene_compact.wgsl, by the scene's precision).

// max(0, 0.5 + sum_k Y_k(dir) sh_k) of splat i of object o up to `degree`; dir is a unit
// vector in the object's frame (objects.wgsl: a plain scene's is world space).
fn evalSH(i: u32, o: u32, degree: u32, dir: vec3f) -> vec3f {
  shFetch(i);
  var c = SH_C0 * shCoeff(i, o, 0u);
  if (degree >= 1u) {
    let x = dir.x; let y = dir.y; let z = dir.z;
    c += -SH_C1 * y * shCoeff(i, o, 1u) + SH_C1 * z * shCoeff(i, o, 2u) - SH_C1 * x * shCoeff(i, o, 3u);
    if (degree >= 2u) {
      let xx = x * x; let yy = y * y; let zz = z * z;
      let xy = x * y; let yz = y * z; let xz = x * z;
      c += SH_C2[0] * xy * shCoeff(i, o, 4u)
         + SH_C2[1] * yz * shCoeff(i, o, 5u)
         + SH_C2[2] * (2.0 * zz - xx - yy) * shCoeff(i, o, 6u)
         + SH_C2[3] * xz * shCoeff(i, o, 7u)
         + SH_C2[4] * (xx - yy) * shCoeff(i, o, 8u);
      if (degree >= 3u) {
        c += SH_C3[0] * y * (3.0 * xx - yy) * shCoeff(i, o, 9u)
           + SH_C3[1] * xy * z * shCoeff(i, o, 10u)
           + SH_C3[2] * y * (4.0 * zz - xx - yy) * shCoeff(i, o, 11u)
           + SH_C3[3] * z * (2.0 * zz - 3.0 * xx - 3.0 * yy) * shCoeff(i, o, 12u)
           + SH_C3[4] * x * (4.0 * zz - xx - yy) * shCoeff(i, o, 13u)
           + SH_C3[5] * z * (xx - yy) * shCoeff(i, o, 14u)
           + SH_C3[6] * x * (xx - 3.0 * yy) * shCoeff(i, o, 15u);
      }
    }
  }
  return max(c + 0.5, vec3f(0.0));
}
