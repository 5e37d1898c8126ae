// Loaded by sort/radix4-kernels.ts and sort/radix16-kernels.ts (the primitives without subgroups).
// Workgroup scan without subgroup operations, shared by the radix4 and radix16 kernels.
// Same API as wg_scan_subgroups.wgsl; see there for how a module is assembled.
//
// wgScan(x, ids, wg) -> vec2(exclusive prefix of x over the workgroup, workgroup total)
//   1. every invocation stores x in workgroup memory;
//   2. Hillis-Steele inclusive scan, log2(WG_SIZE) steps, double-buffered so that each
//      step needs one barrier;
//   3. exclusive = inclusive - x; total = the last inclusive entry.
// WG_SCAN_REUSABLE: end with a barrier, so that wgScan may be called again.
// Must be called in workgroup-uniform control flow by all WG_SIZE invocations.

override WG_SCAN_REUSABLE: bool = false;

struct WgIds {
  @builtin(local_invocation_index) lid: u32,
}

struct WgUniform {
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
}

// Two halves of WG_SIZE entries: read one, write the other, swap.
var<workgroup> wgScanBuf: array<u32, 2u * WG_SIZE>;

fn wgScan(x: u32, ids: WgIds, wg: WgUniform) -> vec2<u32> {
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
  let total = wgScanBuf[src + WG_SIZE - 1u];
  if (WG_SCAN_REUSABLE) {
    workgroupBarrier();  // the next call reuses the buffer
  }
  return vec2<u32>(inclusive - x, total);
}

