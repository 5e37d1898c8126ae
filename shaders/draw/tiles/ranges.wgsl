// Loaded by renderer/draw/tiles/tile-pipelines.ts (the ranges pass).
// tiles/ranges: after the sort, each tile's pairs are one run of the key buffer;
// ranges[tile] = (first, end) of that run (the buffer is cleared each frame: a tile
// without pairs keeps (0, 0)), and the tiles with a run are counted (counters[5], for
// the read-back). One thread per pair of the capacity (a direct dispatch; the threads
// past the count tiles/keys' `settle` left in control[3] leave at once, all of them
// in a fallback frame).

@group(0) @binding(0) var<uniform> tiles: Tiles;
// keys at 1: // The pairs' keys and values are prepended in pages (keys_at / keys_put, values_at /
// values_put: paging.ts; tile-pipelines.ts): more pairs than one binding holds u32s.
@group(0) @binding(2) var<storage, read_write> counters: array<atomic<u32>, COUNTER_WORDS>;
@group(0) @binding(3) var<storage, read_write> ranges: array<vec2u>;
// The buffer this pass is dispatched from, read-only (every thread reads the count:
// an atomic load each of counters[1] would serialise on one address).
@group(0) @binding(4) var<storage, read> control: array<u32, CONTROL_WORDS>;

const WG: u32 = 256u;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  let n = control[3];
  if (i >= n) {
    return;
  }
  let tile = keys_at(i, 0u) >> tiles.depthBits;
  if (i == 0u || (keys_at(i - 1u, 0u) >> tiles.depthBits) != tile) {
    ranges[tile].x = i;
    atomicAdd(&counters[5], 1u);
  }
  if (i + 1u == n || (keys_at(i + 1u, 0u) >> tiles.depthBits) != tile) {
    ranges[tile].y = i + 1u;
  }
}
