// Loaded by sort/radix4-kernels.ts (the primitives without subgroups).
// radix4 workgroup primitives beside wg_scan_portable.wgsl (which it follows in a module).
//
// wgSum4(v, ids, wg) -> the workgroup total of v (vec4): a tree reduction. Call it at
// most once per kernel, in workgroup-uniform control flow: it ends without a barrier.

var<workgroup> wgSumBuf: array<vec4<u32>, WG_SIZE>;

fn wgSum4(v: vec4<u32>, ids: WgIds, wg: WgUniform) -> vec4<u32> {
  wgSumBuf[ids.lid] = v;
  workgroupBarrier();
  for (var stride = WG_SIZE / 2u; stride > 0u; stride >>= 1u) {
    if (ids.lid < stride) {
      wgSumBuf[ids.lid] += wgSumBuf[ids.lid + stride];
    }
    workgroupBarrier();
  }
  return wgSumBuf[0];
}
