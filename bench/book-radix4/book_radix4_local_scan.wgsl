// Loaded by bench/book-radix4/book-radix4.ts (the localScan pipeline).
// book-radix4, kernel 1 of 3 per pass (baseline: the structure of 'WebGPU Unleashed'
// ch. 4.1, written for this project). One workgroup per 512-element block.
//   1. Each of the 256 invocations loads 2 keys and turns each into a one-hot vec4 of
//      its 2-bit digit (elements past n give zeros).
//   2. Work-efficient (Blelloch) exclusive scan of the 512 vec4 in workgroup memory:
//      up-sweep, clear the root, down-sweep.
//   3. Stores the exclusive prefix of every element (localPrefix[i]: vec4, 16 bytes a
//      key) and the block's digit totals (blockSums[block]: vec4).

// binding 0, pass_: book_radix4_common.wgsl
@group(0) @binding(1) var<storage, read> srcKeys: array<u32>;
@group(0) @binding(2) var<storage, read_write> localPrefix: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> blockSums: array<vec4<u32>>;

const BLOCK = 512u;
var<workgroup> temp: array<vec4<u32>, BLOCK>;

fn oneHot(i: u32) -> vec4<u32> {
  if (i >= pass_.n) {
    return vec4<u32>(0u);
  }
  let d = (srcKeys[i] >> pass_.shift) & pass_.digitMask;
  return vec4<u32>(vec4<bool>(d == 0u, d == 1u, d == 2u, d == 3u));
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let block = wid.x;
  let base = block * BLOCK;
  temp[2u * t] = oneHot(base + 2u * t);
  temp[2u * t + 1u] = oneHot(base + 2u * t + 1u);

  var offset = 1u;
  for (var d = BLOCK >> 1u; d > 0u; d >>= 1u) {
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
    blockSums[block] = temp[BLOCK - 1u];
    temp[BLOCK - 1u] = vec4<u32>(0u);
  }
  for (var d = 1u; d < BLOCK; d <<= 1u) {
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
    let i = base + 2u * t + j;
    if (i < pass_.n) {
      localPrefix[i] = temp[2u * t + j];
    }
  }
}
