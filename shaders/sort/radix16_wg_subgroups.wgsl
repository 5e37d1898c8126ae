// radix16 workgroup primitives, subgroup variant (device feature 'subgroups').
// A radix16 kernel module is this file (or radix16_wg_portable.wgsl, same API), the
// constants generated on the host, radix16_common.wgsl and the kernel's own file,
// concatenated in that order: `enable` must come first in a module, so it lives here.
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
// wgAggregate(slot, valid, ids, wg) -> what this invocation adds to counter `slot` of a
// workgroup histogram (0: nothing): when every valid lane of the subgroup holds the same
//   slot, lane 0 adds their number (ballot) and the others nothing; otherwise each valid
//   lane adds 1. Skewed keys (all-equal, or the near-constant high bits of depth keys) put
//   one slot in a subgroup, and 32 same-address workgroup atomics serialise on a GPU;
//   random keys spread over many slots, where the atomics barely conflict. Three cheap
//   subgroup operations: on an H200 the earlier two-round min/ballot election cost 0.6 ms
//   of a 3.0 ms sort of 8M pairs (see bench notes), more than the conflicts it saved.
// Subgroups are taken to be consecutive ranges of local_invocation_index (true of the
// drivers we run on; the GPU tests on subgroup sizes 4, 8 and 32 check it).
// Must be called in workgroup-uniform control flow by all WG_SIZE invocations.
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
  // The next call reuses the totals.
  workgroupBarrier();
  return vec2<u32>(before + excl, total);
}

fn wgAggregate(slot: u32, valid: bool, ids: WgIds, wg: WgUniform) -> u32 {
  let first = subgroupBroadcastFirst(slot);
  let same = subgroupAll(!valid || slot == first);
  let ballot = subgroupBallot(valid);
  let add = countOneBits(ballot.x) + countOneBits(ballot.y) + countOneBits(ballot.z) + countOneBits(ballot.w);
  return select(select(0u, 1u, valid), select(0u, add, ids.lane == 0u), same);
}
