// Loaded by sort/kernel-kit.ts (sortModule: in every sort kernel module).
// sort_prelude: what every sort kernel module shares. sort/kernel-kit.ts assembles each
// module as [enable directives] + generated constants + this file + the sorter's files,
// so no kernel file repeats these. MAX_WORKGROUPS_PER_DIM is set by the host from the
// device's limit; the host's grid2d (sort/sort-job.ts) follows the same rule as `grid`.
//
// The live count: a job's count is a u32 written on the GPU, never read back. Storage
// bindings start at minStorageBufferOffsetAlignment, so a prepare kernel binds the aligned
// window that holds it (`countBuf`) and every sorter's PrepareInfo begins with
//   countIndex: u32,  // u32 index of the count in that window
//   capacity: u32,    // the sorter's capacity: n = min(countBuf[countIndex], capacity)
// (filled by the host's kernel-kit countFields).

override MAX_WORKGROUPS_PER_DIM: u32;  // the device's maxComputeWorkgroupsPerDimension

// Large grids are 2D (x * y workgroups, at most MAX_WORKGROUPS_PER_DIM each way).
fn linearWorkgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// Indirect dispatch arguments (x, y, z, unused) for w workgroups: y = ceil(w /
// MAX_WORKGROUPS_PER_DIM) rows of x = ceil(w / y); the kernels skip linear indices past w.
fn grid(w: u32) -> vec4<u32> {
  if (w == 0u) {
    return vec4<u32>(0u, 1u, 1u, 0u);
  }
  let y = (w + MAX_WORKGROUPS_PER_DIM - 1u) / MAX_WORKGROUPS_PER_DIM;
  return vec4<u32>((w + y - 1u) / y, y, 1u, 0u);
}
