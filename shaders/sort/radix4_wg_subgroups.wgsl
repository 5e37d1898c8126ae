// radix4 workgroup primitives, subgroup variant (device feature 'subgroups').
// A radix4 kernel module is this file (or radix4_wg_portable.wgsl, same API)
// + radix4_common.wgsl + the kernel's own file, concatenated in that order:
// `enable` must come first in a module, so it lives here and not in a prelude.
//
// The invocation ids come in two structs, as entry-point parameters: WgIds (varies
// per invocation) and WgUniform (the same across the workgroup). WGSL's uniformity
// analysis treats a struct as uniform only if all its members are: subgroup_size must
// travel in WgUniform for the loop below to count as subgroup-uniform control flow.
//
// wgScan(x, ids, wg) -> vec2(exclusive prefix of x over the workgroup, workgroup total)
//   1. subgroupExclusiveAdd inside each subgroup;
//   2. the last lane of each subgroup stores the subgroup's total in workgroup memory;
//   3. every subgroup sums the totals of the subgroups before it (and of all of them)
//      with subgroupAdd, in rounds of subgroup_size entries: no second barrier stage.
// wgSum4(v, ids, wg) -> the workgroup total of v (vec4), same scheme without prefixes.
// Assumes subgroups are consecutive ranges of local_invocation_index (true of every
// driver we run on; the GPU tests on subgroup sizes 4, 8 and 32 check it).
// Must be called in workgroup-uniform control flow by all WG_SIZE invocations, each
// function at most once per kernel: they end without a barrier, so a second call
// would need one before it. Workgroup memory written before a call is visible to
// the whole workgroup after it (every call passes a barrier).
enable subgroups;

struct WgIds {
  @builtin(local_invocation_index) lid: u32,
  @builtin(subgroup_invocation_id) lane: u32,
}

struct WgUniform {
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(subgroup_size) sgSize: u32,
}

// WGSL guarantees subgroup_size >= 4, so at most WG_SIZE / 4 subgroups.
var<workgroup> wgSubgroupTotals: array<u32, WG_SIZE / 4u>;

fn wgScan(x: u32, ids: WgIds, wg: WgUniform) -> vec2<u32> {
  let excl = subgroupExclusiveAdd(x);
  let sg = ids.lid / wg.sgSize;
  let numSg = (WG_SIZE + wg.sgSize - 1u) / wg.sgSize;
  if (ids.lane == wg.sgSize - 1u || ids.lid == WG_SIZE - 1u) {
    wgSubgroupTotals[sg] = excl + x;
  }
  workgroupBarrier();
  var before = 0u;
  var total = 0u;
  for (var first = 0u; first < numSg; first += wg.sgSize) {
    let i = first + ids.lane;
    let t = select(0u, wgSubgroupTotals[min(i, numSg - 1u)], i < numSg);
    before += subgroupAdd(select(0u, t, i < sg));
    total += subgroupAdd(t);
  }
  return vec2<u32>(before + excl, total);
}

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
