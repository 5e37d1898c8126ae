// Loaded by sort/radix4-kernels.ts and sort/radix16-kernels.ts (the scan pipeline).
// radix_scan (radix4 and radix16): exclusive scan, in place, of one level of the digit-
// count hierarchy. Level 0 is the pass's digit-major tile counts (`counts`); level l + 1
// holds the totals of level l's SCAN_BLOCK-entry blocks. The host dispatches levels 0, 1,
// .. in order; params.activeLevels says how many run for the live count (the prepare
// kernels decide: radix4 scans up to one total, radix16 stops at the first level of at
// most SCAN_BLOCK entries, which its scatter scans itself).
// Dispatch: one workgroup per SCAN_BLOCK entries of level passInfo.level.
//   1. Invocation t loads entries t * SCAN_ITEMS .. + SCAN_ITEMS - 1 of its block
//      (entries past the level's size read as 0) and sums them.
//   2. wgScan of the invocation sums gives each its exclusive prefix in the block.
//   3. Each stores the exclusive prefixes of its entries in place; invocation 0 stores
//      the block total at level l + 1, entry `block`.
// The scatter adds the levels up itself (sum over levels l of level_l[i / SCAN_BLOCK^l]):
// no add-back pass.
//   levels = [ level 1 | level 2 | ... | top ]   (each at params.levelOffset[l], a
//   multiple of 64 entries)
// Needs from the sorter's common file: PassInfo.level, Params.{activeLevels, levelSize,
// levelOffset}, SCAN_BLOCK, SCAN_ITEMS, linearWorkgroup; from the primitives: wgScan.

@group(0) @binding(0) var<uniform> passInfo: PassInfo;
@group(0) @binding(1) var<uniform> params: Params;
@group(2) @binding(0) var<storage, read_write> counts: array<u32>;
@group(2) @binding(3) var<storage, read_write> levels: array<u32>;

fn loadEntry(level: u32, i: u32) -> u32 {
  if (level == 0u) {
    return counts[i];
  }
  return levels[params.levelOffset[level] + i];
}

fn storeEntry(level: u32, i: u32, v: u32) {
  if (level == 0u) {
    counts[i] = v;
  } else {
    levels[params.levelOffset[level] + i] = v;
  }
}

@compute @workgroup_size(WG_SIZE)
fn main(ids: WgIds, wg: WgUniform) {
  let level = passInfo.level;
  let size = params.levelSize[level];
  let block = linearWorkgroup(wg.wid, wg.nwg);
  // Direct grids cover the capacity: skip idle levels and blocks past the size.
  if (level >= params.activeLevels || block * SCAN_BLOCK >= size) {
    return;
  }
  let first = block * SCAN_BLOCK + ids.lid * SCAN_ITEMS;

  var sum = 0u;
  for (var j = 0u; j < SCAN_ITEMS; j++) {
    let i = first + j;
    if (i < size) {
      sum += loadEntry(level, i);
    }
  }
  let r = wgScan(sum, ids, wg);
  var prefix = r.x;
  for (var j = 0u; j < SCAN_ITEMS; j++) {
    let i = first + j;
    if (i < size) {
      let v = loadEntry(level, i);
      storeEntry(level, i, prefix);
      prefix += v;
    }
  }
  if (ids.lid == 0u) {
    levels[params.levelOffset[level + 1u] + block] = r.y;
  }
}
