// radix16 workgroup primitives beside wg_scan_subgroups.wgsl (which it follows in a module).
//
// wgAggregate(slot, valid, ids, wg) -> what this invocation adds to counter `slot` of a
// workgroup histogram (0: nothing): when every valid lane of the subgroup holds the same
//   slot, lane 0 adds their number (ballot) and the others nothing; otherwise each valid
//   lane adds 1. Skewed keys (all-equal, or the near-constant high bits of depth keys) put
//   one slot in a subgroup, and 32 same-address workgroup atomics serialise on a GPU;
//   random keys spread over many slots, where the atomics barely conflict. Three cheap
//   subgroup operations: on an H200 the earlier two-round min/ballot election cost 0.6 ms
//   of a 3.0 ms sort of 8M pairs (bench:sort), more than the conflicts it saved.
// Must be called in workgroup-uniform control flow by all WG_SIZE invocations.

fn wgAggregate(slot: u32, valid: bool, ids: WgIds, wg: WgUniform) -> u32 {
  let first = subgroupBroadcastFirst(slot);
  let same = subgroupAll(!valid || slot == first);
  let ballot = subgroupBallot(valid);
  let add = countOneBits(ballot.x) + countOneBits(ballot.y) + countOneBits(ballot.z) + countOneBits(ballot.w);
  return select(select(0u, 1u, valid), select(0u, add, ids.lane == 0u), same);
}
