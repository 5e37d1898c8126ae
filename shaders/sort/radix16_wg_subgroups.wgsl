// Loaded by sort/radix16-kernels.ts (the primitives with subgroups).
// radix16 workgroup primitives beside wg_scan_subgroups.wgsl (which it follows in a module).
//
// wgAggregate(slot, valid, ids, wg) -> what this invocation adds to counter `slot` of a
// workgroup histogram (0: nothing): when every valid lane of the subgroup holds the same
//   slot, lane 0 adds their number (ballot) and the others nothing; otherwise each valid
//   lane adds 1. Skewed keys (all-equal, or the near-constant high bits of depth keys) put
//   one slot in a subgroup, and 32 same-address workgroup atomics serialise on a GPU;
//   random keys spread over many slots, where the atomics barely conflict. Three cheap
//   subgroup operations: an earlier two-round min/ballot election cost more than the
//   conflicts it saved (docs/PERFORMANCE.md, "radix16 scatter").
// Must be called in workgroup-uniform control flow by all WG_SIZE invocations.

fn wgAggregate(slot: u32, valid: bool, ids: WgIds, wg: WgUniform) -> u32 {
  let first = subgroupBroadcastFirst(slot);
  let same = subgroupAll(!valid || slot == first);
  let ballot = subgroupBallot(valid);
  let add = countOneBits(ballot.x) + countOneBits(ballot.y) + countOneBits(ballot.z) + countOneBits(ballot.w);
  return select(select(0u, 1u, valid), select(0u, add, ids.lane == 0u), same);
}

// rank16(d, valid, lane, sgSize, lt, run) -> the rank of this lane's key among the keys of
// digit d that its subgroup has seen so far (earlier rounds, then lower lanes): the
// scatter's ranking in registers, no workgroup memory, no atomics (radix16_scatter.wgsl,
// SG_RANK). Five ballots: `valid` and the 4 digit bits. AND-ing each ballot (or its
// complement) gives the mask of the lanes holding any digit: this lane's own (peers,
// below it: its rank in this round), and the digit whose running count the lane keeps:
// run[c] in lane L counts digit L + c * sgSize (c < ceil(16 / sgSize), so lanes 0..15
// of a subgroup of 16 or more keep one count each; 4-lane subgroups keep four). The
// count of the key's digit before this round comes from its keeper by subgroupShuffle.
// lt: the lanes below this one (lanesBelow). Subgroup-uniform control flow.
fn ballotSel(b: vec4<u32>, on: bool) -> vec4<u32> {
  return select(~b, b, on);
}

fn popc4(x: vec4<u32>) -> u32 {
  return dot(countOneBits(x), vec4<u32>(1u));
}

fn digitLanes(d: u32, v: vec4<u32>, b0: vec4<u32>, b1: vec4<u32>, b2: vec4<u32>, b3: vec4<u32>) -> vec4<u32> {
  return v & ballotSel(b0, (d & 1u) != 0u) & ballotSel(b1, (d & 2u) != 0u) &
         ballotSel(b2, (d & 4u) != 0u) & ballotSel(b3, (d & 8u) != 0u);
}

fn rank16(d: u32, valid: bool, lane: u32, sgSize: u32, lt: vec4<u32>, run: ptr<function, vec4<u32>>) -> u32 {
  let v = subgroupBallot(valid);
  let b0 = subgroupBallot((d & 1u) != 0u);
  let b1 = subgroupBallot((d & 2u) != 0u);
  let b2 = subgroupBallot((d & 4u) != 0u);
  let b3 = subgroupBallot((d & 8u) != 0u);
  var before = 0u;
  let keepers = (RADIX + sgSize - 1u) / sgSize;
  for (var c = 0u; c < keepers; c++) {
    let kept = subgroupShuffle((*run)[c], d % sgSize);
    before = select(before, kept, d / sgSize == c);
    (*run)[c] += popc4(digitLanes(lane + c * sgSize, v, b0, b1, b2, b3));
  }
  return before + popc4(digitLanes(d, v, b0, b1, b2, b3) & lt);
}

// The lanes below `lane`, as a ballot.
fn lanesBelow(lane: u32) -> vec4<u32> {
  let word = vec4<u32>(0u, 1u, 2u, 3u);
  let own = vec4<u32>(lane / 32u);
  return select(vec4<u32>(0u), vec4<u32>(0xffffffffu), word < own) |
         select(vec4<u32>(0u), vec4<u32>((1u << (lane % 32u)) - 1u), word == own);
}

fn laneOf(ids: WgIds) -> u32 {
  return ids.lane;
}

fn subgroupSizeOf(wg: WgUniform) -> u32 {
  return wg.sgSize;
}
