// Loaded by renderer/draw/tiles/tile-pipelines.ts (every tiles pass) and renderer/draw/tiles/tile-params.ts (Tiles).
// Shared by the tile rasteriser's shaders (shaders/draw/tiles/*.wgsl, after
// splat_common.wgsl): its per-frame parameters and the layout of its buffers.
//
// Screen tiles are TILE x TILE pixels, numbered row-major: tile = ty * tilesX + tx.
// A (tile, depth) pair key is  tile << depthBits | quantised depth,  so an
// ascending sort groups the pairs by tile and orders each tile front to back.
//
// Per splat i (written by project.wgsl):
//   records[2i]     vec4u  bits of f32 (centre x, centre y, conic a, conic b)   pixels, y down
//   records[2i+1]   vec4u  (bits of f32 conic c, bits of f32 opacity (0: culled),
//                          pack2x16float(r, g), low half: f16 b, high half: the
//                          depth quantised to 16 bits, for a fallback frame's keys)
// counters (u32, COUNTER_WORDS of them):
//   [0] pairs needed this frame, [1] the count the sort reads: the pairs (when they fit
//   the capacity) or, in a fallback frame, the visible splats appended by
//   settle.wgsl, [2] 1 when the needed count wrapped around 2^32,
//   [3] splats that touch at least one tile (project.wgsl), [4] 1 in a fallback frame (the pairs did
//   not fit: the frame is drawn as depth-sorted quads instead, fallback.wgsl),
//   [5] tiles with at least one pair (ranges.wgsl),
//   [6] the pair capacity the frame ran with (for the read-back).
// control (u32, CONTROL_WORDS): written on the GPU by settle.wgsl: [3] the
//   count of sorted pairs the ranges pass reads (0 in a fallback frame), [8, 12) the
//   fallback quads' drawIndirect, [12, 16) the fallback image's background fill
//   (instanceCount 0 in both unless a fallback frame); [0, 3) and [4, 8) unused.
const TILE: u32 = 16u;
const MIN_ALPHA: f32 = 1.0 / 255.0;
const COUNTER_WORDS: u32 = 8u;
const CONTROL_WORDS: u32 = 16u;
const MAX_GROUPS: u32 = 65535u;

// A 2D grid of at least `groups` workgroups (x <= MAX_GROUPS), written at control[at..at+3).
fn gridArgs(groups: u32) -> vec3u {
  let x = min(groups, MAX_GROUPS);
  var y = 0u;
  if (x > 0u) {
    y = (groups + x - 1u) / x;
  }
  return vec3u(x, y, 1u);
}

struct Tiles {
  tilesX: u32,
  tilesY: u32,
  tileBits: u32,        // bits of the tile index in a key
  depthBits: u32,       // bits of the quantised depth in a key
  capacity: u32,        // pairs a frame may use (beyond it: a fallback frame)
  splatCount: u32,
  width: u32,
  height: u32,
  background: vec3f,    // straight colour behind the splats
  slots: u32,           // entries the key/value buffers hold: >= capacity and >= splatCount
};

// Least of q(x, y) = a x^2 + 2 b x y + c y^2 over the box [lo, hi] (offsets from
// the centre); a, c > 0.
fn boxMinPower(lo: vec2f, hi: vec2f, a: f32, b: f32, c: f32) -> f32 {
  if (all(lo <= vec2f(0.0)) && all(hi >= vec2f(0.0))) {
    return 0.0;
  }
  var m = 3.4e38;
  for (var e = 0u; e < 2u; e++) {
    // vertical edge x = X: y* = -b X / c
    let X = select(lo.x, hi.x, e == 1u);
    let y = clamp(-b * X / c, lo.y, hi.y);
    m = min(m, a * X * X + 2.0 * b * X * y + c * y * y);
    // horizontal edge y = Y: x* = -b Y / a
    let Y = select(lo.y, hi.y, e == 1u);
    let x = clamp(-b * Y / a, lo.x, hi.x);
    m = min(m, a * x * x + 2.0 * b * x * Y + c * Y * Y);
  }
  return m;
}
