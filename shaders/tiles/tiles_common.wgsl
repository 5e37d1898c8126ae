// Shared by the tile rasteriser's shaders (shaders/tiles/*.wgsl, after
// splat_common.wgsl): its per-frame parameters and the layout of its buffers.
//
// Screen tiles are TILE x TILE pixels, numbered row-major: tile = ty * tilesX + tx.
// A (tile, depth) pair key is  tile << depthBits | quantised depth,  so an
// ascending sort groups the pairs by tile and orders each tile front to back.
//
// Per splat i (written by project.wgsl):
//   records[2i]     vec4u  bits of f32 (centre x, centre y, conic a, conic b)   pixels, y down
//   records[2i+1]   vec4u  (bits of f32 conic c, bits of f32 opacity,
//                          pack2x16float(r, g), pack2x16float(b, 0))
//   footprints[i]   vec4u  (x0 | y0 << 16, x1 | y1 << 16, depth, 0): the tiles
//                          [x0, x1) x [y0, y1) the splat can touch (empty when culled)
// counters (u32): [0] pairs needed this frame, [1] pairs kept (min(needed, capacity):
// the count the sort and the ranges read), [2] 1 when the needed count wrapped
// around 2^32, [3] splats that touch at least one tile.

const TILE: u32 = 16u;
const MIN_ALPHA: f32 = 1.0 / 255.0;

struct Tiles {
  tilesX: u32,
  tilesY: u32,
  tileBits: u32,        // bits of the tile index in a key
  depthBits: u32,       // bits of the quantised depth in a key
  capacity: u32,        // pairs the key/value buffers hold
  splatCount: u32,
  width: u32,
  height: u32,
  background: vec3f,    // straight colour behind the splats
  _pad: f32,
};
