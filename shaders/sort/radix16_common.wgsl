// Loaded by sort/radix16-kernels.ts (every radix16 module).
// radix16 common declarations: the sizes (pipeline-overridable constants set from
// RADIX16_CONSTANTS in sort/radix16-kernels.ts), the structures the stages share, and
// small helpers. Included in every radix16 module after the sort prelude and the
// workgroup-primitives file. The host generates `const` lines in front of the module:
// RADIX (bins a pass, which TS sizes the count buffers with too) and KEYS_PER_THREAD
// (it sizes private arrays, which WGSL wants sized by a `const`).
//
// A pass sorts by one 4-bit digit (16 bins). The digit counts of a pass are digit-major
// over the TILE-key tiles, digitStride entries a digit:
//   C[d * digitStride + tile]   [ d0: tile 0 .. numTiles-1, 0 .. 0 | d1 | ... | d15 ]
// so one exclusive scan over the 16 * digitStride entries gives every (digit, tile) the
// first output index of its keys (the padding entries are kept at 0). digitStride is
// numTiles while the counts fit one scan block, else numTiles rounded up to an ODD
// multiple of STRIDE_ALIGN, meant to keep the 16 counters of a tile off one L2 slice
// when numTiles is a power of two. Measured, it changed nothing (docs/PERFORMANCE.md,
// "radix16 digit stride"): kept as harmless, a candidate for removal.

override WG_SIZE: u32;                 // invocations per workgroup
override SCAN_ITEMS: u32;              // entries per invocation in radix16_scan
override STRIDE_ALIGN: u32;            // digitStride granule (entries)
override TILE: u32 = WG_SIZE * KEYS_PER_THREAD;
override SCAN_BLOCK: u32 = WG_SIZE * SCAN_ITEMS;

// Written by radix16_prepare for the live count (storage there), read by every other
// stage as a uniform.
struct Params {
  n: u32,              // live element count, clamped to the capacity
  numTiles: u32,       // ceil(n / TILE)
  activeLevels: u32,   // scan dispatches that run for this n = the index of the top level
  topSize: u32,        // entries of the top level (<= SCAN_BLOCK)
  digitStride: u32,    // entries per digit in the counts (see above)
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
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

// digitStride for numTiles tiles. The host's radix16DigitStride follows the same rule
// with the same constants; test/gpu/sort-prelude.test.ts runs both and compares.
fn digitStrideFor(numTiles: u32) -> u32 {
  if (RADIX * numTiles <= SCAN_BLOCK) {
    return numTiles;
  }
  return STRIDE_ALIGN * (((numTiles + STRIDE_ALIGN - 1u) / STRIDE_ALIGN) | 1u);
}

// Padding entries d * digitStride + numTiles + tile, cleared by tiles below the padding
// (fewer than 2 * STRIDE_ALIGN <= numTiles): the scan writes prefixes into them.
fn padEntry(d: u32, tile: u32) -> u32 {
  let pad = params.digitStride - params.numTiles;
  return select(0xffffffffu, d * params.digitStride + params.numTiles + tile, tile < pad);
}

fn digitOf(key: u32, info: PassInfo) -> u32 {
  return (key >> info.shift) & info.digitMask;
}
