// Loaded by sort/radix4-kernels.ts (the count and countCopy pipelines).
// radix4_count: the four digit counts of each CHUNK-key chunk for the FIRST radix pass
// (later passes get theirs from the previous pass's scatter).
// Dispatch: one workgroup per chunk (params.numChunks; 2D grid, linearised).
//   1. Each invocation reads KEYS_PER_THREAD keys, coalesced (chunk start + j * WG_SIZE
//      + lid), skips indices >= n, and adds up their packed digit flags.
//   2. wgScan gives the chunk's total of the packed flags.
//   3. Invocation 0 unpacks counts 0..2, derives count 3 = live keys - (c0 + c1 + c2),
//      and stores count d at counts[d * numChunks + chunk] (C0, digit-major).
//      Invocations 0..3 clear the chunk's entries of nextCounts (C1), which pass 0's
//      scatter fills with the counts of pass 1.
//   COPY_INPUT (the first pass of an odd pass count): the workgroup also copies its
//   keys and values to dst, so that pass can scatter from dst back into src and the
//   last pass lands in the job's own buffers.

override COPY_INPUT: bool = false;

// Groups 0 and 1 (passInfo, params; srcKeys, srcValues, dstKeys, dstValues): radix_bindings.wgsl.
@group(2) @binding(0) var<storage, read_write> counts: array<u32>;
@group(2) @binding(1) var<storage, read_write> nextCounts: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(ids: WgIds, wg: WgUniform) {
  let chunk = linearWorkgroup(wg.wid, wg.nwg);
  let numChunks = params.numChunks;
  if (chunk >= numChunks) {
    return;  // the whole workgroup: grids round up
  }
  let n = params.n;
  let start = chunk * CHUNK;

  var flags = 0u;
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let i = start + j * WG_SIZE + ids.lid;
    if (i < n) {
      let key = srcKeys[i];
      flags += digitFlag(digitOf(key, passInfo));
      if (COPY_INPUT) {
        dstKeys[i] = key;
        dstValues[i] = srcValues[i];
      }
    }
  }
  if (ids.lid < 4u) {
    nextCounts[ids.lid * numChunks + chunk] = 0u;
  }

  let total = wgScan(flags, ids, wg).y;
  if (ids.lid == 0u) {
    let live = min(n - start, CHUNK);
    let c0 = packedField(total, 0u);
    let c1 = packedField(total, 1u);
    let c2 = packedField(total, 2u);
    counts[chunk] = c0;
    counts[chunk + numChunks] = c1;
    counts[chunk + 2u * numChunks] = c2;
    counts[chunk + 3u * numChunks] = live - c0 - c1 - c2;
  }
}
