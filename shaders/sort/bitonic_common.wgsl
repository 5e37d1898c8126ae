// Loaded by sort/bitonic-kernels.ts (every bitonic module).
// bitonic common declarations: the sizes (pipeline-overridable constants from
// BITONIC_CONSTANTS and the sorter's local size, sort/bitonic-kernels.ts), the structures
// the stages share, the pair order, and the workgroup-memory compare-exchange step used
// by bitonic_local. Included in every bitonic module first.
//
// The network (the "flip" form of bitonic sort: every comparator puts the smaller pair
// at the lower index, so no direction bits): for block sizes k = 2, 4, .., padded
//   flip step         pairs (i, i ^ (k - 1)) for i in the lower half of each k-block
//   half-cleaners     pairs (i, i + j) with bit j of i clear, j = k / 4, k / 8, .., 1
// Strides below LOCAL_SIZE run in workgroup memory, larger ones in global memory.
//
// Pairs are ordered by (key & keyMask, value, key): a total order, so that the padding
// pair (0xFFFFFFFF, 0xFFFFFFFF) is never before a live pair (a live pair equal to it is
// indistinguishable from it), and the first n pairs of the padded sort are the live ones.
// Ties of the masked key go by value: where the values are distinct and ascending in
// input order (indices), the output is the stable order; in general it is not.

override WG_SIZE: u32;                 // invocations per workgroup
override LOCAL_SIZE: u32;              // pairs a workgroup sorts in workgroup memory (power of two)

const PAD: u32 = 0xffffffffu;

// Written by bitonic_prepare for the live count (storage there), read as a uniform by
// every other stage.
struct Params {
  n: u32,        // live element count, clamped to the capacity
  padded: u32,   // max(next power of two >= n, LOCAL_SIZE): the network's size
  keyMask: u32,  // the low keyBits bits
  _pad: u32,
}

// One per dispatch after the local sort, written once by the host and bound with a
// dynamic offset.
struct StepInfo {
  blockSize: u32,  // k: the stage's block size
  stride: u32,     // j: the first (global) stride of this dispatch
  flip: u32,       // 1: the first step is the stage's flip step (j = k / 2)
  twoSteps: u32,   // 1: strides j and j / 2 in one dispatch (4 pairs an invocation)
}

// Whether pair a must go after pair b.
fn after(ka: u32, va: u32, kb: u32, vb: u32, mask: u32) -> bool {
  let ma = ka & mask;
  let mb = kb & mask;
  if (ma != mb) {
    return ma > mb;
  }
  if (va != vb) {
    return va > vb;
  }
  return ka > kb;
}

// i with a 0 bit inserted at bit position log2(j) (j a power of two): the lower index of
// the i-th pair of a stride-j step.
fn insertZero(i: u32, j: u32) -> u32 {
  return ((i & ~(j - 1u)) << 1u) | (i & (j - 1u));
}

var<workgroup> localKeys: array<u32, LOCAL_SIZE>;
var<workgroup> localValues: array<u32, LOCAL_SIZE>;

// One compare-exchange step over the workgroup's LOCAL_SIZE pairs: block size k, stride
// j, flip or half-cleaner. Ends with a barrier; call in workgroup-uniform control flow.
fn localStep(lid: u32, k: u32, j: u32, flip: bool, mask: u32) {
  for (var q = lid; q < LOCAL_SIZE / 2u; q += WG_SIZE) {
    let a = insertZero(q, j);
    let b = select(a | j, a ^ (k - 1u), flip);
    let ka = localKeys[a];
    let kb = localKeys[b];
    let va = localValues[a];
    let vb = localValues[b];
    if (after(ka, va, kb, vb, mask)) {
      localKeys[a] = kb;
      localKeys[b] = ka;
      localValues[a] = vb;
      localValues[b] = va;
    }
  }
  workgroupBarrier();
}
