// Loaded by bench/book-radix4/book-radix4.ts (before each of its kernels).
// book-radix4: what its three kernels share (prepended to each by book-radix4.ts).

// One slot per (pass, digit mask), bound with a dynamic offset.
struct PassParams {
  shift: u32,
  digitMask: u32,
  n: u32,
  numBlocks: u32,
}

@group(0) @binding(0) var<uniform> pass_: PassParams;
