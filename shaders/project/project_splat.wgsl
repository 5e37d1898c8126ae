// Loaded by renderer/draw/quads/quads-pipelines.ts (prepare pass) and renderer/draw/tiles/tile-pipelines.ts (project pass).
// The per-splat projection, one source for both draws: the quads draw's prepare pass
// (splat_prepare.wgsl, per sorted splat) and the tiles draw's project pass
// (tiles/project.wgsl, per splat). Needs splat_common.wgsl, the scene's decode
// (scene_full.wgsl or scene_compact.wgsl: splatPosition, splatOpacity, splatCov) and
// sh_eval.wgsl (for splatColour).
//
// A splat whose centre its object's crop box leaves out (objects.wgsl objectKeeps; on
// the CPU scenes/crop.ts) is not drawn. Then the forward model
// (test/reference/forward-model.ts projectSplat): a splat is not drawn when its depth
// d = -z_view <= near, its centre's |ndc| > 1.3, det(cov2D) <= 0, its effective opacity (effectiveOpacity: the anti-aliased mode's factor applied)
// < 1/255 (no pixel can reach 1/255), or, with the contribution cull on
// (frame.minContribution > 0), its screenContribution is under the threshold. The
// quads draw's cull pass (project.wgsl) makes the same opacity and contribution tests
// with the same functions before the sort.

struct ProjectedSplat {
  visible: bool,
  centre: vec2f,   // pixels, x right, y down
  cov2: vec3f,     // (a, b, c) of [[a, b], [b, c]], pixels^2, with the low-pass
  opacity: f32,    // effectiveOpacity
  depth: f32,      // d = -z_view
  object: u32,     // the splat's object (objects.wgsl objectOf): splatColour reads through it
};

fn projectSplat(i: u32) -> ProjectedSplat {
  var s: ProjectedSplat;  // visible = false
  // The splat's object (objects.wgsl): its view (the frame's times its model matrix)
  // places the centre and turns the covariance; its compact ranges decode the splat.
  let o = objectOf(i);
  s.object = o;
  let view = objectView(o);
  let p = splatPosition(i);
  let t = view * vec4f(p, 1.0);
  let d = -t.z;
  s.depth = d;
  // In front of the near plane, and kept by its object's crop box (objects.wgsl).
  if (!(d > frame.near) || !objectKeeps(o, p)) {
    return s;
  }
  let pv = frame.proj * t;
  let ndc = pv.xy / pv.w;
  if (!all(abs(ndc) <= vec2f(1.3))) {
    return s;
  }
  // EWA (splat_common.wgsl).
  let cov = splatCov(i, o);
  let raw = projectedCovarianceRaw(frame, view, t, cov.a, cov.b);
  let cov2 = lowPass(raw);
  let det = cov2.x * cov2.z - cov2.y * cov2.y;
  if (!(det > 0.0)) {
    return s;
  }
  let opacity = effectiveOpacity(frame, splatOpacity(i), raw, cov2);
  if (!(opacity >= 1.0 / 255.0)) {
    return s;
  }
  if (frame.minContribution > 0.0 && !(screenContribution(opacity, cov2) >= frame.minContribution)) {
    return s;
  }
  s.visible = true;
  s.centre = vec2f((ndc.x * 0.5 + 0.5) * frame.viewport.x, (0.5 - ndc.y * 0.5) * frame.viewport.y);
  s.cov2 = cov2;
  s.opacity = opacity;
  return s;
}

// Colour from SH up to frame.shDegree (and the object's own degree), with the view
// direction in the object's frame (sh_eval.wgsl): the splat's centre less the eye there,
// i.e. R^-1 of the world direction, so that a rotated object keeps its look.
// `o`: the splat's object (ProjectedSplat.object).
fn splatColour(i: u32, o: u32) -> vec3f {
  return evalSH(i, o, min(frame.shDegree, objectShDegree(o)), normalize(splatPosition(i) - objectEye(o)));
}
