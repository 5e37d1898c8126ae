// Loaded by sort/radix16-kernels.ts (the count and countCopy pipelines).
// radix16_count: the 16 digit counts of each TILE-key tile for the FIRST radix pass
// (later passes get theirs from the previous pass's scatter).
// Dispatch: one workgroup per tile (params.numTiles; 2D grid, linearised).
//   1. Invocations 0..15 clear the tile's bins in workgroup memory and the tile's entries
//      of nextCounts, which pass 0's scatter fills with the counts of pass 1, and the
//      padding entries (padEntry) of counts and nextCounts.
//   2. Each invocation reads KEYS_PER_THREAD keys, coalesced (tile start + j * WG_SIZE
//      + lid), skips indices >= n, and adds 1 to its digit's bin (workgroup atomics,
//      aggregated over equal digits of a subgroup by wgAggregate).
//   3. Invocations 0..15 store bin d at counts[d * digitStride + tile] (digit-major).
//   COPY_INPUT (the first pass of an odd pass count): the workgroup also copies its keys
//   and values to dst, so that pass can scatter from dst back into src and the last
//   pass lands in the job's own buffers.

override COPY_INPUT: bool = false;

// Groups 0 and 1 (passInfo, params; srcKeys, srcValues, dstKeys, dstValues): radix_bindings.wgsl.
@group(2) @binding(0) var<storage, read_write> counts: array<u32>;
@group(2) @binding(1) var<storage, read_write> nextCounts: array<u32>;

var<workgroup> bins: array<atomic<u32>, RADIX>;

@compute @workgroup_size(WG_SIZE)
fn main(ids: WgIds, wg: WgUniform) {
  let tile = linearWorkgroup(wg.wid, wg.nwg);
  let numTiles = params.numTiles;
  if (tile >= numTiles) {
    return;  // the whole workgroup: grids round up
  }
  let lid = ids.lid;
  let n = params.n;
  let start = tile * TILE;

  if (lid < RADIX) {
    atomicStore(&bins[lid], 0u);
    let stride = params.digitStride;
    nextCounts[lid * stride + tile] = 0u;
    let pad = padEntry(lid, tile);
    if (pad != 0xffffffffu) {
      nextCounts[pad] = 0u;
      counts[pad] = 0u;
    }
  }
  workgroupBarrier();
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let i = start + j * WG_SIZE + lid;
    let valid = i < n;
    var key = 0u;
    if (valid) {
      key = srcKeys[i];
      if (COPY_INPUT) {
        dstKeys[i] = key;
        dstValues[i] = srcValues[i];
      }
    }
    let d = digitOf(key, passInfo);
    let add = wgAggregate(d, valid, ids, wg);
    if (add != 0u) {
      atomicAdd(&bins[d], add);
    }
  }
  workgroupBarrier();
  if (lid < RADIX) {
    counts[lid * params.digitStride + tile] = atomicLoad(&bins[lid]);
  }
}
