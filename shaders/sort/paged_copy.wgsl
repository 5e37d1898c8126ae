// Loaded by sort/paged-sort.ts (PagedSorter's copy pipeline).
// paged_copy: an output page's live elements back into the job's page (sort/paged-sort.ts).

struct CopyInfo {
  page: u32,
}

@group(0) @binding(0) var<uniform> info: CopyInfo;
@group(0) @binding(1) var<storage, read> pageCounts: array<u32>;
@group(0) @binding(2) var<storage, read> outKeys: array<u32>;
@group(0) @binding(3) var<storage, read> outValues: array<u32>;
@group(0) @binding(4) var<storage, read_write> keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> values: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = linearWorkgroup(wid, nwg) * 256u + lid;
  if (i >= pageCounts[info.page]) {
    return;
  }
  keys[i] = outKeys[i];
  values[i] = outValues[i];
}
