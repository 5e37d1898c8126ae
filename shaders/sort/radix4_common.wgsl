// Loaded by sort/radix4-kernels.ts (every radix4 module).
// radix4 common declarations: the constants (set once, from the host, through the
// pipelines' `constants`), the structures the stages share, and small helpers.
// Included in every radix4 module after the workgroup-primitives file.
//
// Digit flags are packed three to a u32, 10 bits each (digits 0, 1, 2); digit 3 is
// never packed but derived: count3 = keys - (count0 + count1 + count2). A chunk holds
// at most 1023 keys (the host checks CHUNK < 1024), so sums over a chunk never carry
// from one field into the next. Keys past the live count are treated as digit 3: they
// sit at the end of the last chunk, so they never precede a live key.

override WG_SIZE: u32;                 // invocations per workgroup
override KEYS_PER_THREAD: u32;         // keys per invocation in count and scatter
override SCAN_ITEMS: u32;              // entries per invocation in radix4_scan
override CHUNK: u32 = WG_SIZE * KEYS_PER_THREAD;
override SCAN_BLOCK: u32 = WG_SIZE * SCAN_ITEMS;

// Written by radix4_prepare for the live count (storage there), read by every other
// stage as a uniform.
struct Params {
  n: u32,              // live element count, clamped to the capacity
  numChunks: u32,      // ceil(n / CHUNK)
  activeLevels: u32,   // scan levels that run for this n (the scatter sums this many)
  _pad: u32,
  levelOffset: vec4<u32>,  // u32 index in `levels` of the arrays of levels 1.. ([0] unused)
  levelSize: vec4<u32>,    // entries of each level for this n
}

// One per (radix pass, digit widths) and per scan level; written once by the host and
// bound with a dynamic offset, so a pass needs no upload.
struct PassInfo {
  shift: u32,
  digitMask: u32,      // 3, or 1 for the last pass of an odd key width
  nextDigitMask: u32,  // digit mask of the next pass; 0 in the last pass
  level: u32,          // scan level (radix4_scan)
}

// The digit counts of three consecutive passes rotate through three buffers C0, C1,
// C2 (bind group 2, chosen per pass): pass p reads `counts` = C[p % 3], its scatter
// adds the next pass's counts into `nextCounts` = C[(p + 1) % 3] and clears
// `clearCounts` = C[(p + 2) % 3] for pass p + 2. Each is digit-major:
//   C[d * numChunks + chunk]   [ d0: chunk 0 .. numChunks-1 | d1 | d2 | d3 ]
// so one exclusive scan over the 4 * numChunks entries gives every (digit, chunk)
// its first output index.

fn digitOf(key: u32, info: PassInfo) -> u32 {
  return (key >> info.shift) & info.digitMask;
}

fn digitFlag(d: u32) -> u32 {
  return select(0u, 1u << (10u * d), d < 3u);
}

fn packedField(packed: u32, d: u32) -> u32 {
  return (packed >> (10u * d)) & 0x3ffu;
}

// Rank of a key with digit d at chunk position pos, given the packed counts of
// digits 0..2 among the positions before it.
fn rankInDigit(before: u32, pos: u32, d: u32) -> u32 {
  let r0 = packedField(before, 0u);
  let r1 = packedField(before, 1u);
  let r2 = packedField(before, 2u);
  return select(select(select(pos - r0 - r1 - r2, r2, d == 2u), r1, d == 1u), r0, d == 0u);
}
