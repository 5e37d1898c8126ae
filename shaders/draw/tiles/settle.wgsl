// Loaded by renderer/draw/tiles/tile-pipelines.ts (the settle and clampFallback pipelines).
// tiles/settle: after project.wgsl has appended the frame's (tile, depth) pairs, this
// decides what the frame sorts and writes what the later passes read
// (tiles_common.wgsl `control`).

@group(0) @binding(0) var<uniform> tiles: Tiles;
// records: pages from binding 1 (records_at(i, k)), prepended (tile-pipelines.ts, paging.ts).
// keys at 2, values at 3: // The pairs' keys and values are prepended in pages (keys_at / keys_put, values_at /
// values_put: paging.ts; tile-pipelines.ts): more pairs than one binding holds u32s.
@group(0) @binding(4) var<storage, read_write> counters: array<atomic<u32>, COUNTER_WORDS>;
@group(0) @binding(5) var<storage, read_write> control: array<u32, CONTROL_WORDS>;

const WG: u32 = 256u;

var<workgroup> frameKind: u32;

// `settle`, after `main`, over the splats (a direct dispatch: Dawn validates every
// indirect one with a hidden dispatch of its own, ~6 us on an H100). Its first thread
// settles the frame: when the pairs fit the capacity, the sort reads their count and
// the ranges pass runs over them; when they do not (a camera jump into the scene, or
// a view past the device's cap), the frame is a fallback frame: no pair is sorted,
// and every thread appends one depth key per visible splat of its own instead, (65535 -
// its 16-bit depth, project.wgsl) so that the ascending sort puts the farthest first;
// the same sorter orders them and fallback.wgsl draws them as quads. Every frame is
// complete, and nothing waits for the CPU. In a normal frame the other workgroups
// leave at once (one atomic load each, by one thread: 6M loads of one address by
// every thread would serialise).
@compute @workgroup_size(256)
fn settle(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u,
          @builtin(num_workgroups) nwg: vec3u) {
  let group = wid.x + wid.y * nwg.x;
  if (lid == 0u) {
    let needed = atomicLoad(&counters[0]);
    let fallback = atomicLoad(&counters[2]) != 0u || needed > tiles.capacity;
    frameKind = select(0u, 1u, fallback);
    if (group == 0u) {
      if (!fallback) {
        atomicStore(&counters[1], needed);
      }
      atomicStore(&counters[4], frameKind);
      atomicStore(&counters[6], tiles.capacity);
      control[3] = select(needed, 0u, fallback);
      // The fallback's draws (fallback.wgsl) where they are indirect: none in a normal
      // frame; a quad per splat (those past the visible ones appended here are dropped
      // by the vertex shader), and the background fill under them.
      control[8] = 4u;
      control[9] = select(0u, tiles.splatCount, fallback);
      control[10] = 0u;
      control[11] = 0u;
      control[12] = 3u;
      control[13] = frameKind;
      control[14] = 0u;
      control[15] = 0u;
    }
  }
  if (workgroupUniformLoad(&frameKind) == 0u) {
    return;
  }
  let i = group * WG + lid;
  if (i >= tiles.splatCount) {
    return;
  }
  let r = records_at(i, 1u);
  if (r.y == 0u) {
    return;  // culled (project.wgsl wrote opacity 0)
  }
  let slot = atomicAdd(&counters[1], 1u);
  if (slot < tiles.slots) {
    keys_put(slot, 0u, 65535u - (r.w >> 16u));
    values_put(slot, 0u, i);
  }
}

// After settle: the sort never reads past the buffers (they hold every splat,
// unless a sorter could not: then the nearest splats beyond them are not drawn).
@compute @workgroup_size(1)
fn clampFallback() {
  atomicMin(&counters[1], tiles.slots);
}
