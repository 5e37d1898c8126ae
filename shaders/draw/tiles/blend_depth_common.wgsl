// Loaded by renderer/draw/tiles/tile-pipelines.ts: what the blend's host-depth and
// output-depth variants share (blend_host_depth.wgsl, blend_output_depth.wgsl; docs/API.md
// "Composing with a host"), appended to blend.wgsl, whose storeSplat, blendSplat,
// blendEntry and emptyTile tile-pipelines.ts patches to call them (the blend without
// them is not changed). The splat's depth is the record's 16-bit one (project.wgsl:
// (d - near) / (far - near) of the frame, times 65535).

// [0]: the host depth's hostNear, c0, c1 (d = hostNear / (c0 + c1 z)), unused;
// [1]: the frame's near, 65535 / (far - near), unused, unused;
// [2]: the output depth's s0, s1 (z = s0 + s1 / d), z where nothing crosses, unused.
@group(0) @binding(8) var<uniform> depthParams: array<vec4f, 3>;

var<workgroup> batchDepth: array<f32, 256>;   // the splat's depth, 16-bit units
