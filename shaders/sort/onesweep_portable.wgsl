// Loaded by sort/onesweep-kernels.ts (the primitives without subgroups).
// onesweep primitives, portable variant (no subgroup operations). Same API as
// onesweep_subgroups.wgsl; see there for how modules are assembled.
//
// Every invocation is a "subgroup" of one lane: matchDigit finds no peers but the key
// itself (count 1, before 0, leader itself) and fromLeader is the identity, so the pass
// kernel ranks keys one by one per row of counters (see onesweep_pass.wgsl, step 2).
// wgExclusiveScan2(x, ids, wg): exclusive scan of vec2 values in workgroup memory in
// two levels: invocations 0..WG_SIZE/16-1 sum spans of 16 entries, then each invocation
// adds the spans and the entries before it (at most 2 x 15 reads, three barriers).
// Must be called in workgroup-uniform control flow.

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

// 1, but not a constant the compiler can see (a running workgroup has num_workgroups.z
// >= 1): with a constant the pass kernel's turn loop (ROW_MIN turns) would be unrolled
// around its KEYS_PER_THREAD-fold unrolled body, which costs lavapipe seconds of
// compile time and buys nothing.
fn subgroupSizeOf(wg: WgUniform) -> u32 {
  return min(wg.nwg.z, 1u);
}

struct Match {
  before: u32,
  count: u32,
  leader: u32,
}

fn matchDigit(d: u32, valid: bool, lane: u32) -> Match {
  return Match(0u, 1u, 0u);
}

fn fromLeader(v: u32, m: Match) -> u32 {
  return v;
}

// Two levels of SCAN_SPAN: few barriers (lavapipe compiles every barrier into a
// coroutine suspension, and its compile time grows with their number).
const SCAN_SPAN: u32 = 16u;
var<workgroup> wgScanBuf: array<vec2<u32>, WG_SIZE>;
var<workgroup> wgScanSpans: array<vec2<u32>, WG_SIZE / SCAN_SPAN>;

fn wgExclusiveScan2(x: vec2<u32>, ids: WgIds, wg: WgUniform) -> vec2<u32> {
  let lid = ids.lid;
  wgScanBuf[lid] = x;
  workgroupBarrier();
  if (lid < WG_SIZE / SCAN_SPAN) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < SCAN_SPAN; i++) {
      sum += wgScanBuf[lid * SCAN_SPAN + i];
    }
    wgScanSpans[lid] = sum;
  }
  workgroupBarrier();
  let span = lid / SCAN_SPAN;
  var before = vec2<u32>(0u);
  for (var s = 0u; s < span; s++) {
    before += wgScanSpans[s];
  }
  for (var i = span * SCAN_SPAN; i < lid; i++) {
    before += wgScanBuf[i];
  }
  // The buffers are reused by the next call.
  workgroupBarrier();
  return before;
}
