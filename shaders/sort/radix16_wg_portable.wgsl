// radix16 workgroup primitives beside wg_scan_portable.wgsl (which it follows in a module).
//
// wgAggregate(slot, valid, ids, wg) -> what this invocation adds to counter `slot` of a
//   workgroup histogram: 1 if valid (no subgroups to aggregate equal slots with).

fn wgAggregate(slot: u32, valid: bool, ids: WgIds, wg: WgUniform) -> u32 {
  return select(0u, 1u, valid);
}
