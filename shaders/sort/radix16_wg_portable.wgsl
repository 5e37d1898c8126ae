// Loaded by sort/radix16-kernels.ts (the primitives without subgroups).
// radix16 workgroup primitives beside wg_scan_portable.wgsl (which it follows in a module).
//
// wgAggregate(slot, valid, ids, wg) -> what this invocation adds to counter `slot` of a
//   workgroup histogram: 1 if valid (no subgroups to aggregate equal slots with).

fn wgAggregate(slot: u32, valid: bool, ids: WgIds, wg: WgUniform) -> u32 {
  return select(0u, 1u, valid);
}

// The subgroup ranking's API (radix16_wg_subgroups.wgsl) for the module to compile; the
// scatter never calls it without subgroups (SG_RANK is false in portable modules).
fn rank16(d: u32, valid: bool, lane: u32, sgSize: u32, lt: vec4<u32>, run: ptr<function, vec4<u32>>) -> u32 {
  return 0u;
}

fn lanesBelow(lane: u32) -> vec4<u32> {
  return vec4<u32>(0u);
}

fn laneOf(ids: WgIds) -> u32 {
  return 0u;
}

fn subgroupSizeOf(wg: WgUniform) -> u32 {
  return 1u;
}
