// Loaded by sort/paged-sort.ts (PagedSorter's move pipeline).
// paged_move: one run's elements that land on one output page, moved there (sort/
// paged-sort.ts; dest from paged_rank). Then paged_copy brings each output page back
// into the job's page.

struct MoveInfo {
  run: u32,
  page: u32,
  pageCapacity: u32,
}

@group(0) @binding(0) var<uniform> info: MoveInfo;
@group(0) @binding(1) var<storage, read> pageCounts: array<u32>;
@group(0) @binding(2) var<storage, read> dest: array<u32>;
@group(0) @binding(3) var<storage, read> srcKeys: array<u32>;
@group(0) @binding(4) var<storage, read> srcValues: array<u32>;
@group(0) @binding(5) var<storage, read_write> outKeys: array<u32>;
@group(0) @binding(6) var<storage, read_write> outValues: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = linearWorkgroup(wid, nwg) * 256u + lid;
  if (i >= pageCounts[info.run]) {
    return;
  }
  let d = dest[i];
  if (d / info.pageCapacity != info.page) {
    return;
  }
  let j = d - info.page * info.pageCapacity;
  outKeys[j] = srcKeys[i];
  outValues[j] = srcValues[i];
}
