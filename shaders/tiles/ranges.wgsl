// tiles/ranges: after the sort, each tile's pairs are one run of the key buffer;
// ranges[tile] = (first, end) of that run. One thread per kept pair (indirect
// dispatch from tiles/keys' finalize); ranges is cleared to (0, 0) each frame,
// so a tile with no pairs has an empty range.

@group(0) @binding(0) var<uniform> tiles: Tiles;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> counters: array<u32, 4>;
@group(0) @binding(3) var<storage, read_write> ranges: array<vec2u>;

const WG: u32 = 256u;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  let n = counters[1];
  if (i >= n) {
    return;
  }
  let tile = keys[i] >> tiles.depthBits;
  if (i == 0u || (keys[i - 1u] >> tiles.depthBits) != tile) {
    ranges[tile].x = i;
  }
  if (i + 1u == n || (keys[i + 1u] >> tiles.depthBits) != tile) {
    ranges[tile].y = i + 1u;
  }
}
