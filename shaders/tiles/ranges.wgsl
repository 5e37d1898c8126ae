// tiles/ranges: after the sort, each tile's pairs are one run of the key buffer;
// ranges[tile] = (first, end) of that run (the buffer is cleared each frame: a tile
// without pairs keeps (0, 0)), and the tiles with a run are counted. One thread per
// sorted pair (indirect dispatch from tiles/keys' finalize; none in a fallback frame).
//
// `finish` (one thread) then writes the fallback's draws (tiles_common.wgsl `control`).

@group(0) @binding(0) var<uniform> tiles: Tiles;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> counters: array<u32, COUNTER_WORDS>;
@group(0) @binding(3) var<storage, read_write> ranges: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> control: array<atomic<u32>, CONTROL_WORDS>;

const WG: u32 = 256u;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  let n = counters[1];  // read-only: every thread reads it (an atomic load each would serialise)
  if (i >= n) {
    return;
  }
  let tile = keys[i] >> tiles.depthBits;
  if (i == 0u || (keys[i - 1u] >> tiles.depthBits) != tile) {
    ranges[tile].x = i;
    atomicAdd(&control[ACTIVE_WORD], 1u);
  }
  if (i + 1u == n || (keys[i + 1u] >> tiles.depthBits) != tile) {
    ranges[tile].y = i + 1u;
  }
}

// The count of tiles with pairs, in controlB (cleared with it each frame; copied into
// counters[5] for the read-back after `finish`).
const ACTIVE_WORD: u32 = 7u;

@compute @workgroup_size(1)
fn finish() {
  let fallback = counters[4] != 0u;
  atomicStore(&control[12], 4u);
  atomicStore(&control[13], select(0u, counters[1], fallback));
  atomicStore(&control[14], 0u);
  atomicStore(&control[15], 0u);
  // The fallback image's background fill: one full-screen triangle, in fallback frames only.
  atomicStore(&control[16], 3u);
  atomicStore(&control[17], select(0u, 1u, fallback));
  atomicStore(&control[18], 0u);
  atomicStore(&control[19], 0u);
}
