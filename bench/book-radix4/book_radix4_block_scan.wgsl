// Loaded by bench/book-radix4/book-radix4.ts (the blockScan pipeline).
// book-radix4, kernel 2 of 3 per pass: ONE workgroup scans the per-block digit totals.
// This single workgroup (256 invocations x 2 entries) is what caps the book's sort at
// 512 blocks x 512 keys = 262,144 keys.
//   1. Loads blockSums[0 .. numBlocks) (vec4 each; zeros past numBlocks).
//   2. Blelloch exclusive scan in workgroup memory.
//   3. Stores the exclusive prefixes in place and the digit totals at blockSums[512].

// binding 0, pass_: book_radix4_common.wgsl
@group(0) @binding(1) var<storage, read_write> blockSums: array<vec4<u32>>;

const BLOCKS = 512u;
var<workgroup> temp: array<vec4<u32>, BLOCKS>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32) {
  for (var j = 0u; j < 2u; j++) {
    let i = 2u * t + j;
    temp[i] = select(vec4<u32>(0u), blockSums[min(i, BLOCKS - 1u)], i < pass_.numBlocks);
  }
  var offset = 1u;
  for (var d = BLOCKS >> 1u; d > 0u; d >>= 1u) {
    workgroupBarrier();
    if (t < d) {
      let ai = offset * (2u * t + 1u) - 1u;
      let bi = offset * (2u * t + 2u) - 1u;
      temp[bi] += temp[ai];
    }
    offset <<= 1u;
  }
  workgroupBarrier();
  if (t == 0u) {
    blockSums[BLOCKS] = temp[BLOCKS - 1u];
    temp[BLOCKS - 1u] = vec4<u32>(0u);
  }
  for (var d = 1u; d < BLOCKS; d <<= 1u) {
    offset >>= 1u;
    workgroupBarrier();
    if (t < d) {
      let ai = offset * (2u * t + 1u) - 1u;
      let bi = offset * (2u * t + 2u) - 1u;
      let left = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += left;
    }
  }
  workgroupBarrier();
  for (var j = 0u; j < 2u; j++) {
    let i = 2u * t + j;
    if (i < pass_.numBlocks) {
      blockSums[i] = temp[i];
    }
  }
}
