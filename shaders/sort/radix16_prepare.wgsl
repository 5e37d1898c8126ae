// Loaded by sort/radix16-kernels.ts (the prepare pipeline).
// radix16_prepare: turns the live count (a u32 written on the GPU) into the sizes and
// grids of the sort's passes. Nothing is read back to the CPU.
// Dispatch: one workgroup of one invocation, first in the sort's compute pass.
//   1. n = min(count[countIndex], capacity); numTiles = ceil(n / TILE); digitStride.
//   2. Scan levels: size_0 = 16 * numTiles (the digit-major tile counts), size_{l+1} =
//      ceil(size_l / SCAN_BLOCK). Level l is scanned by a dispatch while size_l >
//      SCAN_BLOCK; the first level that fits one block is the top level, which the
//      scatter scans itself (activeLevels = its index, topSize = its size).
//   3. Writes Params and the indirect dispatch arguments (x, y, z, unused):
//        dispatchArgs[0]     count and scatter grid: numTiles workgroups
//        dispatchArgs[1 + l] scan grid of level l: ceil(size_l / SCAN_BLOCK), 0 if idle
//      A grid of w workgroups is y = ceil(w / MAX_WORKGROUPS_PER_DIM) rows of
//      x = ceil(w / y); the kernels skip linear indices past w.

struct PrepareInfo {
  countIndex: u32,  // u32 index of the count in the bound window of the count buffer
  capacity: u32,
  numLevels: u32,   // scan dispatches the capacity needs
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
  let numTiles = (n + TILE - 1u) / TILE;
  params.n = n;
  params.numTiles = numTiles;
  params.levelOffset = info.levelOffset;
  dispatchArgs[0] = grid(numTiles);

  let stride = digitStrideFor(numTiles);
  params.digitStride = stride;
  var size = RADIX * stride;
  var activeLevels = 0u;
  var levelSize = vec4<u32>(0u);
  for (var l = 0u; l < info.numLevels; l++) {
    var blocks = 0u;
    if (size > SCAN_BLOCK) {
      blocks = (size + SCAN_BLOCK - 1u) / SCAN_BLOCK;
      levelSize[l] = size;
      activeLevels = l + 1u;
      size = blocks;
    }
    dispatchArgs[1u + l] = grid(blocks);
  }
  levelSize[activeLevels] = size;
  params.levelSize = levelSize;
  params.activeLevels = activeLevels;
  params.topSize = size;
}
