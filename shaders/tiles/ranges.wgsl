// tiles/ranges: after the sort, each tile's pairs are one run of the key buffer;
// ranges[tile] = (first, end) of that run, and each tile that has a run is appended
// to activeTiles (the blend visits only those). One thread per sorted pair
// (indirect dispatch from tiles/keys' finalize; none in a fallback frame). Only the
// ranges of active tiles are ever read, so the buffer is not cleared.
//
// `finish` (one thread) then writes the blend's dispatch (a workgroup per active
// tile) and the fallback's draws (tiles_common.wgsl `control`).

@group(0) @binding(0) var<uniform> tiles: Tiles;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> counters: array<u32, COUNTER_WORDS>;
@group(0) @binding(3) var<storage, read_write> ranges: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> activeTiles: array<u32>;
@group(0) @binding(5) var<storage, read_write> control: array<atomic<u32>, CONTROL_WORDS>;

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
    activeTiles[atomicAdd(&control[ACTIVE_WORD], 1u)] = tile;
  }
  if (i + 1u == n || (keys[i + 1u] >> tiles.depthBits) != tile) {
    ranges[tile].y = i + 1u;
  }
}

// The active tiles' counter, in controlB (cleared with it each frame; copied into
// counters[5] for the blend and the read-back after `finish`).
const ACTIVE_WORD: u32 = 7u;

@compute @workgroup_size(1)
fn finish() {
  let fallback = counters[4] != 0u;
  let b = gridArgs(select(atomicLoad(&control[ACTIVE_WORD]), 0u, fallback));
  atomicStore(&control[8], b.x);
  atomicStore(&control[9], b.y);
  atomicStore(&control[10], b.z);
  atomicStore(&control[12], 4u);
  atomicStore(&control[13], select(0u, counters[1], fallback));
  atomicStore(&control[14], 0u);
  atomicStore(&control[15], 0u);
  // The fallback image's background fill and its copy onto the output: one
  // full-screen triangle each, in fallback frames only.
  for (var k = 16u; k < 24u; k += 4u) {
    atomicStore(&control[k], 3u);
    atomicStore(&control[k + 1u], select(0u, 1u, fallback));
    atomicStore(&control[k + 2u], 0u);
    atomicStore(&control[k + 3u], 0u);
  }
}
