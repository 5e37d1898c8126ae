// Spherical-harmonics colour of a splat (the forward model's basis and sign
// convention). Needs SH_C0..SH_C3 (generated const prelude) and a binding
// `sh: array<u32>` of f16 pairs, coefficient-major: coefficient k, channel c at
// half index k*3 + c from the splat's first word.

fn shCoeff(base: u32, k: u32) -> vec3f {
  let h = k * 3u;
  let w0 = unpack2x16float(sh[base + (h >> 1u)]);
  let w1 = unpack2x16float(sh[base + (h >> 1u) + 1u]);
  // h even: (w0.x, w0.y, w1.x); h odd: (w0.y, w1.x, w1.y)
  if ((h & 1u) == 0u) {
    return vec3f(w0.x, w0.y, w1.x);
  }
  return vec3f(w0.y, w1.x, w1.y);
}

// max(0, 0.5 + sum_k Y_k(dir) sh_k) up to `degree`; dir is a unit vector (world space).
fn evalSH(base: u32, degree: u32, dir: vec3f) -> vec3f {
  var c = SH_C0 * shCoeff(base, 0u);
  if (degree >= 1u) {
    let x = dir.x; let y = dir.y; let z = dir.z;
    c += -SH_C1 * y * shCoeff(base, 1u) + SH_C1 * z * shCoeff(base, 2u) - SH_C1 * x * shCoeff(base, 3u);
    if (degree >= 2u) {
      let xx = x * x; let yy = y * y; let zz = z * z;
      let xy = x * y; let yz = y * z; let xz = x * z;
      c += SH_C2[0] * xy * shCoeff(base, 4u)
         + SH_C2[1] * yz * shCoeff(base, 5u)
         + SH_C2[2] * (2.0 * zz - xx - yy) * shCoeff(base, 6u)
         + SH_C2[3] * xz * shCoeff(base, 7u)
         + SH_C2[4] * (xx - yy) * shCoeff(base, 8u);
      if (degree >= 3u) {
        c += SH_C3[0] * y * (3.0 * xx - yy) * shCoeff(base, 9u)
           + SH_C3[1] * xy * z * shCoeff(base, 10u)
           + SH_C3[2] * y * (4.0 * zz - xx - yy) * shCoeff(base, 11u)
           + SH_C3[3] * z * (2.0 * zz - 3.0 * xx - 3.0 * yy) * shCoeff(base, 12u)
           + SH_C3[4] * x * (4.0 * zz - xx - yy) * shCoeff(base, 13u)
           + SH_C3[5] * z * (xx - yy) * shCoeff(base, 14u)
           + SH_C3[6] * x * (xx - 3.0 * yy) * shCoeff(base, 15u);
      }
    }
  }
  return max(c + 0.5, vec3f(0.0));
}
