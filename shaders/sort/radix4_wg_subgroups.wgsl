// Loaded by sort/radix4-kernels.ts (the primitives with subgroups).
// radix4 workgroup primitives beside wg_scan_subgroups.wgsl (which it follows in a module).
//
// wgSum4(v, ids, wg) -> the workgroup total of v (vec4): subgroupAdd, then the subgroup
// sums in rounds of subgroup_size. Call it at most once per kernel, in workgroup-uniform
// control flow: it ends without a barrier.

var<workgroup> wgSubgroupSums4: array<vec4<u32>, WG_SIZE / 4u>;

fn wgSum4(v: vec4<u32>, ids: WgIds, wg: WgUniform) -> vec4<u32> {
  let s = subgroupAdd(v);
  let numSg = (WG_SIZE + wg.sgSize - 1u) / wg.sgSize;
  if (ids.lane == 0u) {
    wgSubgroupSums4[ids.lid / wg.sgSize] = s;
  }
  workgroupBarrier();
  var total = vec4<u32>(0u);
  for (var first = 0u; first < numSg; first += wg.sgSize) {
    let i = first + ids.lane;
    total += subgroupAdd(select(vec4<u32>(0u), wgSubgroupSums4[min(i, numSg - 1u)], i < numSg));
  }
  return total;
}
