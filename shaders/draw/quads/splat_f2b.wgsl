// Loaded by renderer/draw/quads/quads-pipelines.ts (the front-to-back mask and composite, after fullscreen.wgsl).
// splat_f2b: the mask pass of the front-to-back draw (draw-pass.ts), after
// fullscreen.wgsl (vs_full, and `image`: the accumulation texture).
//
// Colour accumulates under what is drawn, blended with (one-minus-dst-alpha, one);
// a pixel whose alpha reached exactly 1 (half floats: transmittance under 2^-12)
// takes nothing more, so later splats there can be skipped without changing it.
// fs_mask writes depth 0 over such pixels (the full-screen triangle is at z = 0);
// the splats' fragments at 0.5 then fail the depth test before shading or blending.
// The composite is fullscreen.wgsl's fs_copy, blended (one, one-minus-src-alpha)
// over the background cleared into the target.

@fragment
fn fs_mask(@builtin(position) pos: vec4f) {
  if (textureLoad(image, vec2u(pos.xy), 0).a < 1.0) {
    discard;
  }
}
