// onesweep primitives, portable variant (no subgroup operations). Same API as
// onesweep_subgroups.wgsl; see there for how modules are assembled.
//
// Every invocation is a "subgroup" of one lane: matchDigit finds no peers but the key
// itself (count 1, before 0, leader itself) and fromLeader is the identity, so the pass
// kernel ranks keys one by one per row of counters (see onesweep_pass.wgsl, step 2).
// wgExclusiveScan2(x, ids, wg): Hillis-Steele scan of vec2 values in workgroup memory,
// double-buffered (one barrier a step). Must be called in workgroup-uniform control flow.

struct WgIds {
  @builtin(local_invocation_index) lid: u32,
}

struct WgUniform {
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
}

fn laneOf(ids: WgIds) -> u32 {
  return 0u;
}

fn subgroupSizeOf(wg: WgUniform) -> u32 {
  return 1u;
}

struct Match {
  before: u32,
  count: u32,
  leader: u32,
}

fn matchDigit(d: u32, valid: bool, digitBits: u32, lane: u32) -> Match {
  return Match(0u, 1u, 0u);
}

fn fromLeader(v: u32, m: Match) -> u32 {
  return v;
}

var<workgroup> wgScanBuf: array<vec2<u32>, 2u * WG_SIZE>;

fn wgExclusiveScan2(x: vec2<u32>, ids: WgIds, wg: WgUniform) -> vec2<u32> {
  let lid = ids.lid;
  var src = 0u;
  wgScanBuf[lid] = x;
  workgroupBarrier();
  for (var offset = 1u; offset < WG_SIZE; offset <<= 1u) {
    var v = wgScanBuf[src + lid];
    if (lid >= offset) {
      v += wgScanBuf[src + lid - offset];
    }
    src = WG_SIZE - src;
    wgScanBuf[src + lid] = v;
    workgroupBarrier();
  }
  let inclusive = wgScanBuf[src + lid];
  // The buffer is reused by the next call.
  workgroupBarrier();
  return inclusive - x;
}
