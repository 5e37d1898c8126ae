// Loaded by sort/onesweep-kernels.ts (the primitives with subgroups).
// onesweep primitives, subgroup variant (device feature 'subgroups').
// A onesweep kernel module is the generated constants, sort_prelude.wgsl, this file (or
// onesweep_portable.wgsl, same API), onesweep_common.wgsl and the kernel's own file
// (sort/kernel-kit.ts sortModule, which moves the `enable` below to the front).
//
// The invocation ids come in two structs, as entry-point parameters: WgIds (varies per
// invocation) and WgUniform (the same across the workgroup). WGSL's uniformity analysis
// treats a struct as uniform only if all its members are: subgroup_size travels in
// WgUniform so that loops bounded by it count as uniform control flow.
//
// matchDigit(d, valid, lane) -> Match: the "warp-level multi-split" of the
// Onesweep paper, from ballots. A subgroup votes once on `valid` and once per digit
// bit; AND-ing each vote (or its complement, where the lane's own bit is 0) leaves
// the mask of the valid lanes holding the lane's digit, its peers. Of that mask:
//   count   peers (the subgroup's keys with this digit in this round),
//   before  peers on lower lanes (the key's rank among them),
//   leader  the lowest peer, the one lane that updates the shared counter.
// fromLeader(v, m) hands the leader's v to every peer (subgroupShuffle).
// wgExclusiveScan2(x, ids, wg): the exclusive prefix of x (vec2) over the workgroup,
//   subgroupExclusiveAdd inside subgroups, then every subgroup adds the totals of the
//   subgroups before it with subgroupAdd.
// All of them must be called in workgroup-uniform control flow (matchDigit and
// fromLeader: subgroup-uniform). Assumes subgroups are consecutive ranges of
// local_invocation_index (true of every driver we run on; the tests on subgroup sizes
// 4 and 8 check it).
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

fn laneOf(ids: WgIds) -> u32 {
  return ids.lane;
}

fn subgroupSizeOf(wg: WgUniform) -> u32 {
  return wg.sgSize;
}

struct Match {
  before: u32,
  count: u32,
  leader: u32,
}

fn matchDigit(d: u32, valid: bool, lane: u32) -> Match {
  // All RADIX_BITS bits, a constant count (unrolled): digit bits above the pass's
  // width are 0 in every lane, their votes change nothing.
  var peers = subgroupBallot(valid);
  for (var b = 0u; b < RADIX_BITS; b++) {
    let bit = ((d >> b) & 1u) == 1u;
    let ones = subgroupBallot(bit);
    peers &= select(~ones, ones, bit);
  }
  var m: Match;
  if (SG_WORDS == 1u) {
    // Subgroups of at most 32 lanes (the override says so): one word.
    let p = peers.x;
    m.count = countOneBits(p);
    m.before = countOneBits(p & ((1u << lane) - 1u));
    m.leader = select(lane, firstTrailingBit(p), p != 0u);
  } else {
    let word = vec4<u32>(0u, 1u, 2u, 3u);
    let own = vec4<u32>(lane / 32u);
    let lt = select(vec4<u32>(0u), vec4<u32>(0xffffffffu), word < own) |
             select(vec4<u32>(0u), vec4<u32>((1u << (lane % 32u)) - 1u), word == own);
    m.count = dot(countOneBits(peers), vec4<u32>(1u));
    m.before = dot(countOneBits(peers & lt), vec4<u32>(1u));
    m.leader = lane;
    for (var w = 3i; w >= 0i; w--) {
      if (peers[w] != 0u) {
        m.leader = 32u * u32(w) + firstTrailingBit(peers[w]);
      }
    }
  }
  return m;
}

fn fromLeader(v: u32, m: Match) -> u32 {
  return subgroupShuffle(v, m.leader);
}

// WGSL guarantees subgroup_size >= 4, so at most WG_SIZE / 4 subgroups.
var<workgroup> wgSubgroupTotals: array<vec2<u32>, WG_SIZE / 4u>;

fn wgExclusiveScan2(x: vec2<u32>, ids: WgIds, wg: WgUniform) -> vec2<u32> {
  let excl = subgroupExclusiveAdd(x);
  let sg = ids.lid / wg.sgSize;
  let numSg = (WG_SIZE + wg.sgSize - 1u) / wg.sgSize;
  if (ids.lane == wg.sgSize - 1u || ids.lid == WG_SIZE - 1u) {
    wgSubgroupTotals[sg] = excl + x;
  }
  workgroupBarrier();
  var before = vec2<u32>(0u);
  for (var first = 0u; first < numSg; first += wg.sgSize) {
    let i = first + ids.lane;
    let t = select(vec2<u32>(0u), wgSubgroupTotals[min(i, numSg - 1u)], i < sg);
    before += subgroupAdd(t);
  }
  // The totals array is reused by the next call.
  workgroupBarrier();
  return before + excl;
}
