// Loaded by sort/paged-sort.ts (PagedSorter's rank pipeline).
// paged_rank: where each element of one sorted run goes in the merged order (sort/
// paged-sort.ts). Every page (run) was sorted on its own; runs are in input order, so the
// stable merged order is by (masked key, run, position in the run). Element i of run r
// with masked key k lands at
//   i + sum over runs s < r of |{keys of s <= k}| + sum over runs s > r of |{keys of s < k}|
// each a binary search of run s's sorted keys. Generated before this file: const PAGES,
// the page bindings keys0 .. (binding 10 + s) and fn pageKey(s, i).

struct RankInfo {
  run: u32,
  keyMask: u32,
}

@group(0) @binding(0) var<uniform> info: RankInfo;
@group(0) @binding(1) var<storage, read> pageCounts: array<u32>;
@group(0) @binding(2) var<storage, read_write> dest: array<u32>;

// Keys of run s below k (at most k when `upper`): the first index whose masked key is
// not below (above) k.
fn countBelow(s: u32, k: u32, upper: bool) -> u32 {
  var lo = 0u;
  var hi = pageCounts[s];
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    let m = pageKey(s, mid) & info.keyMask;
    if (m < k || (upper && m == k)) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  return lo;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = linearWorkgroup(wid, nwg) * 256u + lid;
  let r = info.run;
  if (i >= pageCounts[r]) {
    return;
  }
  let k = pageKey(r, i) & info.keyMask;
  var pos = i;
  for (var s = 0u; s < PAGES; s++) {
    if (s != r) {
      pos += countBelow(s, k, s < r);
    }
  }
  dest[i] = pos;
}
