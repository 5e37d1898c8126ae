// Loaded by sort/radix4-kernels.ts and sort/radix16-kernels.ts (the primitives with subgroups).
// Workgroup scan on subgroup operations (device feature 'subgroups'), shared by the
// radix4 and radix16 kernels. A kernel module is the generated constants,
// sort_prelude.wgsl, this file (or wg_scan_portable.wgsl, same API), the sorter's own
// primitives file, its common file and the kernel's file (sort/kernel-kit.ts sortModule,
// which moves the `enable` below to the front).
//
// The invocation ids come in two structs, as entry-point parameters: WgIds (varies per
// invocation) and WgUniform (the same across the workgroup). WGSL's uniformity analysis
// treats a struct as uniform only if all its members are, so subgroup_size travels in
// WgUniform for the loop below to count as subgroup-uniform control flow.
//
// wgScan(x, ids, wg) -> vec2(exclusive prefix of x over the workgroup, workgroup total)
//   1. subgroupExclusiveAdd inside each subgroup;
//   2. the last lane of each subgroup stores the subgroup's total in workgroup memory;
//   3. each subgroup adds up the totals of the subgroups before it (and of all) with
//      subgroupAdd, subgroup_size totals a round: any size from 4 to 128 works.
// WG_SCAN_REUSABLE: end with a barrier, so that wgScan may be called again (radix16's
// scatter calls it twice); radix4 calls it once and skips that barrier.
// Subgroups are taken to be consecutive ranges of local_invocation_index (true of the
// drivers we run on; the GPU tests on subgroup sizes 4, 8 and 32 check it).
// Must be called in workgroup-uniform control flow by all WG_SIZE invocations.
// Workgroup memory written before a call is visible to the whole workgroup after it.
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

override WG_SCAN_REUSABLE: bool = false;

// WGSL promises subgroup_size >= 4: at most WG_SIZE / 4 subgroups.
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
  if (WG_SCAN_REUSABLE) {
    workgroupBarrier();  // the next call reuses the totals
  }
  return vec2<u32>(before + excl, total);
}

