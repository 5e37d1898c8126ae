// Loaded by sort/onesweep-kernels.ts (every onesweep module).
// onesweep common declarations: the constants (set once, from the host, through the
// pipelines' `constants`), the structures the stages share, and small helpers. Included
// in every onesweep module after the sort prelude and the primitives file. The host also
// generates `const` lines in front of the module (sort/onesweep-kernels.ts,
// ONESWEEP_CONSTS, ONESWEEP_GLOBALS): RADIX_BITS, RADIX, MAX_PASSES, NO_REGION and the
// globals layout below, which TS sizes its buffers and fills its pass table with too,
// and KEYS_PER_THREAD, which sizes per-invocation arrays (WGSL wants a `const` there,
// not an `override`).
//
// Buffers shared by the stages (bind group 2 of histogram and pass):
//   globals  u32 [ hist: 4 x 256 (pass p's digit d at p * 256 + d) | tileCounters: 4 | done ]
//            All zero when a sort starts: the buffer is created zeroed and the last
//            workgroup of a sort's last pass to finish zeroes it again (done counts the
//            finished workgroups); in indirect mode onesweep_prepare zeroes it too.
//            hist is filled by onesweep_histogram; each pass kernel scans its slice
//            (the exclusive scan gives every digit its first output index).
//            tileCounters[p] hands out pass p's tile ids.
//   status   u32 [ region 0: maxTiles x 256 | region 1: maxTiles x 256 ]
//            pass p's look-back words in region p % 2, tile t's digit d at t * 256 + d:
//              bits 31..30  flag: 0 not ready, 1 aggregate (this tile's count of d),
//                                 2 inclusive (global offset of d past this tile)
//              bits 29..0   the value
//            One u32 holds flag and value, so a single atomic load sees both.
//            Region 0 is cleared by onesweep_histogram; pass p clears, for its own tile,
//            the other region, which pass p + 1 uses.

override WG_SIZE: u32;                 // invocations per workgroup; the pass kernel needs RADIX
override HIST_KEYS_PER_THREAD: u32;    // keys per invocation in onesweep_histogram
override HIST_COPIES: u32;             // copies of the workgroup histograms (atomic contention)
override ROW_MIN: u32;                 // fewest invocations sharing one row of rank counters
override SG_WORDS: u32;                // u32 words of a subgroup ballot that can be non-zero (1..4)
override LOOKBACK_BATCH: u32;          // predecessors' look-back words read per poll (1..4)
override TILE: u32 = WG_SIZE * KEYS_PER_THREAD;
override HIST_BLOCK: u32 = WG_SIZE * HIST_KEYS_PER_THREAD;

// Generated from ONESWEEP_GLOBALS too: COUNTERS_OFFSET (tileCounters in globals),
// DONE_OFFSET (finished workgroups of the last pass), GLOBALS_WORDS (the buffer's size).
const FLAG_AGGREGATE: u32 = 0x40000000u;
const FLAG_INCLUSIVE: u32 = 0x80000000u;
const VALUE_MASK: u32 = 0x3fffffffu;

// Written by onesweep_histogram (and onesweep_prepare in indirect mode) for the live
// count (storage there), read by the pass kernel as a uniform.
struct Params {
  n: u32,              // live element count, clamped to the capacity
  numTiles: u32,       // ceil(n / TILE)
  numHistBlocks: u32,  // ceil(n / HIST_BLOCK)
  _pad: u32,
}

// Where the live count is (onesweep_prepare, onesweep_histogram): one per job.
struct PrepareInfo {
  countIndex: u32,  // u32 index of the count in the bound count buffer
  capacity: u32,
}

// The sizes of the sort for the live count n.
fn paramsFor(n: u32) -> Params {
  return Params(n, (n + TILE - 1u) / TILE, (n + HIST_BLOCK - 1u) / HIST_BLOCK, 0u);
}

// One per (key width, pass); written once by the host, bound with a dynamic offset.
struct PassInfo {
  shift: u32,         // 8 * pass
  digitMask: u32,     // 0xff, or fewer bits in the last pass of a key width not a multiple of 8
  passIndex: u32,
  passes: u32,        // ceil(keyBits / 8)
  lastMask: u32,      // digitMask of the last pass (onesweep_histogram counts every pass)
  statusOffset: u32,  // u32 index in `status` of this pass's region
  clearOffset: u32,   // of the next pass's region, which this pass clears; NO_REGION in the last
  spinLimit: u32,     // consecutive not-ready polls of a look-back word before the fallback;
                      // 0: never poll, always recount (a test hook)
}

fn digitOf(key: u32, info: PassInfo) -> u32 {
  return (key >> info.shift) & info.digitMask;
}
