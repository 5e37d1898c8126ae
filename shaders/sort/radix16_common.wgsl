// radix16 common declarations: the sizes (pipeline-overridable constants set from
// RADIX16_CONSTANTS in sort/radix16-kernels.ts, except KEYS_PER_THREAD, a generated
// `const` there because it sizes private arrays), the structures the stages share, and
// small helpers. Included in every radix16 module after the workgroup-primitives file
// and the generated constants.
//
// A pass sorts by one 4-bit digit (16 bins). The digit counts of a pass are digit-major
// over the TILE-key tiles:
//   C[d * numTiles + tile]   [ d0: tile 0 .. numTiles-1 | d1 | ... | d15 ]
// so one exclusive scan over the 16 * numTiles entries gives every (digit, tile) the
// first output index of its keys. That scan is hierarchical: the scan dispatches scan
// level l (level 0 = the counts) in SCAN_BLOCK-entry blocks and store the block totals as
// level l + 1, for as long as a level has more than SCAN_BLOCK entries; the last, "top"
// level (at most SCAN_BLOCK raw entries) is scanned by every scatter workgroup itself.
// Up to 524,288 keys no scan dispatch runs; one does up to 2^37 keys.

override WG_SIZE: u32;                 // invocations per workgroup
override SCAN_ITEMS: u32;              // entries per invocation in radix16_scan
override MAX_WORKGROUPS_PER_DIM: u32;  // the device's maxComputeWorkgroupsPerDimension
override TILE: u32 = WG_SIZE * KEYS_PER_THREAD;
override SCAN_BLOCK: u32 = WG_SIZE * SCAN_ITEMS;

const RADIX: u32 = 16u;

// Written by radix16_prepare for the live count (storage there), read by every other
// stage as a uniform.
struct Params {
  n: u32,              // live element count, clamped to the capacity
  numTiles: u32,       // ceil(n / TILE)
  activeLevels: u32,   // scan dispatches that run for this n = the index of the top level
  topSize: u32,        // entries of the top level (<= SCAN_BLOCK)
  levelOffset: vec4<u32>,  // u32 index in `levels` of the arrays of levels 1.. ([0] unused)
  levelSize: vec4<u32>,    // entries of each level for this n
}

// One per (radix pass, digit widths) and per scan level; written once by the host and
// bound with a dynamic offset, so that a pass needs no upload.
struct PassInfo {
  shift: u32,          // 4 * pass
  digitMask: u32,      // 15, or fewer bits in the last pass of a key width not a multiple of 4
  nextDigitMask: u32,  // digit mask of the next pass; 0 in the last pass
  level: u32,          // scan level (radix16_scan)
}

fn digitOf(key: u32, info: PassInfo) -> u32 {
  return (key >> info.shift) & info.digitMask;
}

// Large grids are 2D (x * y workgroups, at most MAX_WORKGROUPS_PER_DIM each way).
fn linearWorkgroup(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
