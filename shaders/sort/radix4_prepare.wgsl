// Loaded by sort/radix4-kernels.ts (the prepare pipeline).
// radix4_prepare: turns the live count (a u32 written on the GPU) into the sizes and
// grids of the sort's passes. Nothing is read back to the CPU.
// Dispatch: one workgroup of one invocation, first in the sort's compute pass.
//   1. n = min(count[countIndex], capacity); numChunks = ceil(n / CHUNK).
//   2. Scan levels: size_0 = 4 * numChunks (the digit-major chunk counts, `counts`),
//      size_{l+1} = ceil(size_l / SCAN_BLOCK). Level 0 always runs; level l > 0 runs
//      only while it has more than one entry (a single block's prefix is 0).
//   3. Writes Params, and the indirect dispatch arguments (x, y, z, unused):
//        dispatchArgs[0]     count and scatter grid: numChunks workgroups
//        dispatchArgs[1 + l] scan grid of level l: ceil(size_l / SCAN_BLOCK), 0 if idle
//      A grid of w workgroups is y = ceil(w / MAX_WORKGROUPS_PER_DIM) rows of
//      x = ceil(w / y); the kernels skip the linear indices past w.

struct PrepareInfo {
  countIndex: u32,  // u32 index of the count in the bound count buffer
  capacity: u32,
  numLevels: u32,   // scan levels the capacity needs (0 when the scatter sums the counts itself)
  _pad: u32,
  levelOffset: vec4<u32>,  // in `levels`: levels 1..numLevels (the last: the top total); [0] unused
}

@group(0) @binding(0) var<storage, read> countBuf: array<u32>;
@group(0) @binding(1) var<uniform> info: PrepareInfo;
@group(0) @binding(2) var<storage, read_write> params: Params;
@group(0) @binding(3) var<storage, read_write> dispatchArgs: array<vec4<u32>>;

@compute @workgroup_size(1)
fn main() {
  let n = min(countBuf[info.countIndex], info.capacity);
  let numChunks = (n + CHUNK - 1u) / CHUNK;
  params.n = n;
  params.numChunks = numChunks;
  params.levelOffset = info.levelOffset;
  dispatchArgs[0] = grid(numChunks);

  var size = 4u * numChunks;
  var activeLevels = 0u;
  var levelSize = vec4<u32>(0u);
  for (var l = 0u; l < info.numLevels; l++) {
    var blocks = 0u;
    if (l == 0u || size > 1u) {
      blocks = (size + SCAN_BLOCK - 1u) / SCAN_BLOCK;
      activeLevels = l + 1u;
    }
    levelSize[l] = size;
    dispatchArgs[1u + l] = grid(blocks);
    size = (size + SCAN_BLOCK - 1u) / SCAN_BLOCK;
  }
  params.levelSize = levelSize;
  params.activeLevels = activeLevels;
}
