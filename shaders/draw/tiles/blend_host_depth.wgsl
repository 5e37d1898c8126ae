// Loaded by renderer/draw/tiles/tile-pipelines.ts (blendPipeline with a host depth:
// EncodeOptions.hostDepth), after blend_depth_common.wgsl. Each pixel's blend stops at
// the host's depth: a splat whose depth is behind the host's surface at that pixel
// contributes nothing there (the pairs are still walked front to back; those beyond
// are skipped). The host's NDC z becomes a view depth d = hostNear / (c0 + c1 z) (c0, c1
// of the host's convention: tile-rasterizer.ts depthParams) and the records' 16-bit units.

@group(0) @binding(7) var hostDepth: texture_depth_2d;

var<private> hostLimit: f32;   // this pixel's host depth, 16-bit units

// The pixel's host depth in the records' 16-bit depth units (+inf where the host has
// nothing: its far plane at infinity, or a pixel outside the image).
fn hostDepthLimit(gid: vec2u, inside: bool) -> f32 {
  if (!inside) {
    return 3.0e38;
  }
  let z = textureLoad(hostDepth, gid, 0);
  let p = depthParams[0];
  let denominator = p.y + p.z * z;
  if (!(denominator > 0.0)) {
    return 3.0e38;
  }
  return (p.x / denominator - depthParams[1].x) * depthParams[1].y;
}
