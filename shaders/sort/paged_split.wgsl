// Loaded by sort/paged-sort.ts (PagedSorter's split pipeline).
// paged_split: a paged sort's live count split over its pages (sort/paged-sort.ts). Page p
// holds elements p * pageCapacity ..; the first n = min(count, capacity) elements are
// live, so page p's live count is clamp(n - p * pageCapacity, 0, pageCapacity).
// Writes pageCounts[p] for p < pages (each page's sort reads its own) and
// pageCounts[pages] = n.

struct SplitInfo {
  countIndex: u32,  // u32 index of the count in countBuf (the job's aligned window)
  capacity: u32,
  pageCapacity: u32,
  pages: u32,
}

@group(0) @binding(0) var<uniform> info: SplitInfo;
@group(0) @binding(1) var<storage, read> countBuf: array<u32>;
@group(0) @binding(2) var<storage, read_write> pageCounts: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let p = gid.x;
  if (p > info.pages) {
    return;
  }
  let n = min(countBuf[info.countIndex], info.capacity);
  if (p == info.pages) {
    pageCounts[p] = n;
    return;
  }
  let start = p * info.pageCapacity;
  pageCounts[p] = select(0u, min(n - start, info.pageCapacity), n > start);
}
