// Loaded by renderer/draw/tiles/tile-pipelines.ts (blendPipeline with an output depth:
// EncodeOptions.outputDepth), after blend_depth_common.wgsl. Each pixel's depth for a
// host: the depth of the splat at which the pixel's accumulated opacity 1 - T first
// reaches 0.5 (its 16-bit record depth, back to a view depth d), written as
// z = s0 + s1 / d in the output's convention (tile-rasterizer.ts depthParams), or the
// output's "nothing" value (its far plane) where the opacity never reaches 0.5 (also in
// an empty tile and a fallback frame).

@group(0) @binding(9) var outputDepth: texture_storage_2d<r32float, write>;

var<private> crossDepth16: f32;   // -1 until the pixel's opacity reaches 0.5

fn writeOutputDepth(gid: vec2u) {
  var z = depthParams[2].z;
  if (crossDepth16 >= 0.0) {
    let d = depthParams[1].x + crossDepth16 / depthParams[1].y;
    z = depthParams[2].x + depthParams[2].y / d;
  }
  textureStore(outputDepth, gid, vec4f(z, 0.0, 0.0, 1.0));
}
