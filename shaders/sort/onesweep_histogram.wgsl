// Loaded by sort/onesweep-kernels.ts (the histogram pipeline).
// onesweep_histogram: the 256-bin digit histograms of ALL radix passes in one read of
// the keys (the "upfront" histogram of the Onesweep paper).
// Dispatch: one workgroup per HIST_BLOCK keys (numHistBlocks; 2D grid, linear); the
// grid may be larger (sized for the capacity): the sizes come from the live count, read
// here (min(count[countIndex], capacity)), and workgroup 0 stores them in params.
//   1. The workgroup goes through its block in batches of WG_SIZE * HIST_BATCH keys:
//      each invocation loads HIST_BATCH keys, coalesced (batch start + j * WG_SIZE +
//      lid; all loads first, so that they are in flight together), skips indices >= n,
//      and for every pass p adds 1 to bin digit_p(key) of its copy of the workgroup
//      histograms. Invocation lid uses copy lid % HIST_COPIES, so that keys with few
//      distinct digits (splat depths) spread their atomics over several addresses; the
//      copies of a bin are adjacent words (different banks).
//   2. The copies are summed and each non-zero bin is added to globals[p * 256 + d]
//      (zero when the sort starts) with one atomic.
//   3. The workgroup clears its share of status region 0, the look-back words of the
//      first pass (numTiles x 256 of them, grid-strided).
//   An odd number of passes: the workgroup also copies its keys and values to dst, so
//   that the first pass sorts from the sorter's buffers and the last one lands in the
//   job's (a uniform branch rather than a second pipeline: one compile less).
// Workgroup memory starts zeroed (WGSL zero-initialises it), hence no clearing pass.

// Keys an invocation has in flight: 4 measured best (docs/PERFORMANCE.md, "onesweep
// histogram keys in flight"): more keys, more registers, fewer workgroups.
const HIST_BATCH: u32 = 4u;

@group(0) @binding(0) var<uniform> passInfo: PassInfo;
@group(0) @binding(1) var<storage, read> countBuf: array<u32>;
@group(0) @binding(2) var<uniform> prepareInfo: PrepareInfo;
@group(0) @binding(3) var<storage, read_write> params: Params;
@group(1) @binding(0) var<storage, read> srcKeys: array<u32>;
@group(1) @binding(1) var<storage, read> srcValues: array<u32>;
@group(1) @binding(2) var<storage, read_write> dstKeys: array<u32>;
@group(1) @binding(3) var<storage, read_write> dstValues: array<u32>;
@group(2) @binding(0) var<storage, read_write> globals: array<atomic<u32>>;
@group(2) @binding(1) var<storage, read_write> status: array<u32>;

// [pass][digit][copy]
var<workgroup> wgHist: array<atomic<u32>, HIST_COPIES * MAX_PASSES * RADIX>;

@compute @workgroup_size(WG_SIZE)
fn main(ids: WgIds, wg: WgUniform) {
  let block = linearWorkgroup(wg.wid, wg.nwg);
  let lid = ids.lid;
  // 0. The sizes for the live count; workgroup 0 writes them for the pass kernels.
  let sizes = paramsFor(min(countBuf[prepareInfo.countIndex], prepareInfo.capacity));
  if (block == 0u && lid == 0u) {
    params = sizes;
  }
  let numBlocks = sizes.numHistBlocks;
  if (block >= numBlocks) {
    return;  // the whole workgroup: grids round up
  }
  let n = sizes.n;
  let passes = passInfo.passes;
  let copy = lid % HIST_COPIES;

  // 1. Count.
  let copyInput = passes % 2u == 1u;
  let end = min(block * HIST_BLOCK + HIST_BLOCK, n);
  for (var batch = block * HIST_BLOCK; batch < end; batch += WG_SIZE * HIST_BATCH) {
    var keys: array<u32, HIST_BATCH>;
    for (var j = 0u; j < HIST_BATCH; j++) {
      let i = batch + j * WG_SIZE + lid;
      if (i < end) {
        keys[j] = srcKeys[i];
        if (copyInput) {
          dstKeys[i] = keys[j];
          dstValues[i] = srcValues[i];
        }
      }
    }
    for (var j = 0u; j < HIST_BATCH; j++) {
      if (batch + j * WG_SIZE + lid < end) {
        for (var p = 0u; p < passes; p++) {
          let mask = select(0xffu, passInfo.lastMask, p + 1u == passes);
          atomicAdd(&wgHist[(p * RADIX + ((keys[j] >> (8u * p)) & mask)) * HIST_COPIES + copy], 1u);
        }
      }
    }
  }
  workgroupBarrier();

  // 2. Merge into the global histograms.
  for (var e = lid; e < passes * RADIX; e += WG_SIZE) {
    var sum = 0u;
    for (var c = 0u; c < HIST_COPIES; c++) {
      sum += atomicLoad(&wgHist[e * HIST_COPIES + c]);
    }
    if (sum != 0u) {
      atomicAdd(&globals[e], sum);
    }
  }

  // 3. Clear the first pass's look-back words.
  let words = sizes.numTiles * RADIX;
  for (var e = block * WG_SIZE + lid; e < words; e += numBlocks * WG_SIZE) {
    status[e] = 0u;
  }
}
