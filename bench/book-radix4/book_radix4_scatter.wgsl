// Loaded by bench/book-radix4/book-radix4.ts (the scatter pipeline).
// book-radix4, kernel 3 of 3 per pass: one invocation per element.
//   1. digit d of the key; digit start = sum of the totals (blockSums[512]) of digits < d.
//   2. dst = digit start + blockSums[block][d] (scanned) + localPrefix[i][d].
//   3. Writes the key and value there.

// binding 0, pass_: book_radix4_common.wgsl
@group(0) @binding(1) var<storage, read> srcKeys: array<u32>;
@group(0) @binding(2) var<storage, read> srcValues: array<u32>;
@group(0) @binding(3) var<storage, read> localPrefix: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> blockSums: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> dstKeys: array<u32>;
@group(0) @binding(6) var<storage, read_write> dstValues: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= pass_.n) {
    return;
  }
  let key = srcKeys[i];
  let d = (key >> pass_.shift) & pass_.digitMask;
  let totals = blockSums[512];
  var start = 0u;
  for (var e = 0u; e < d; e++) {
    start += totals[e];
  }
  let dst = start + blockSums[i / 512u][d] + localPrefix[i][d];
  dstKeys[dst] = key;
  dstValues[dst] = srcValues[i];
}
