// Loaded by sort/bitonic-kernels.ts (the mergeGlobal pipeline).
// bitonic_merge_global: one or two compare-exchange steps of stride >= LOCAL_SIZE, in
// the scratch buffers (global memory).
// Dispatch: one invocation per pair (twoSteps = 0: padded / 2 of them) or per group of
// four pairs (twoSteps = 1: padded / 4), grids sized for the padded capacity; 2D grid,
// linearised. Stages past the network (k > padded) and invocations past it exit.
//   twoSteps = 0: pair g is (a, b), a = g with a 0 bit inserted at stride j, and
//     b = a ^ (k - 1) for the flip step, a + j for a half-cleaner.
//   twoSteps = 1: strides j and h = j / 2 fused; invocation g owns the 4 indices
//       ia = a0, ib = a0 + h, ic, id   (a0 = g with 0 bits inserted at h and j)
//     with ic = a0 + j, id = a0 + j + h for half-cleaners, and for the flip step the
//     mirrors ic = a0 ^ (k - 1), id = (a0 + h) ^ (k - 1) (so id < ic there):
//       stride j: (ia, ic), (ib, id);  then stride h: (ia, ib) and (ic, id), or (id, ic)
//     all in registers: half the global traffic of two single steps.
//   A pair is written back only if it changed.
//   keys/values (scratch): the padded capacity.

@group(0) @binding(0) var<uniform> stepInfo: StepInfo;
@group(0) @binding(1) var<uniform> params: Params;
@group(1) @binding(2) var<storage, read_write> keys: array<u32>;
@group(1) @binding(3) var<storage, read_write> values: array<u32>;

struct Pair {
  k: u32,
  v: u32,
}

// Puts the smaller pair in *lo; whether they were swapped.
fn compareExchange(lo: ptr<function, Pair>, hi: ptr<function, Pair>, mask: u32) -> bool {
  if (after((*lo).k, (*lo).v, (*hi).k, (*hi).v, mask)) {
    let t = *lo;
    *lo = *hi;
    *hi = t;
    return true;
  }
  return false;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let padded = params.padded;
  let k = stepInfo.blockSize;
  let j = stepInfo.stride;
  let flip = stepInfo.flip != 0u;
  if (params.n == 0u || k > padded) {
    return;
  }
  let mask = params.keyMask;
  let g = linearWorkgroup(wid, nwg) * WG_SIZE + lid;

  if (stepInfo.twoSteps == 0u) {
    if (g >= padded / 2u) {
      return;
    }
    let a = insertZero(g, j);
    let b = select(a | j, a ^ (k - 1u), flip);
    let ka = keys[a];
    let kb = keys[b];
    let va = values[a];
    let vb = values[b];
    if (after(ka, va, kb, vb, mask)) {
      keys[a] = kb;
      keys[b] = ka;
      values[a] = vb;
      values[b] = va;
    }
    return;
  }

  if (g >= padded / 4u) {
    return;
  }
  let h = j >> 1u;
  let a0 = insertZero(insertZero(g, h), j);
  // Named so that the stride-j pairs are (ia, ic) and (ib, id) in both forms.
  let ia = a0;
  let ib = a0 | h;
  let ic = select(a0 | j, a0 ^ (k - 1u), flip);
  let id = select(a0 | j | h, (a0 | h) ^ (k - 1u), flip);
  var pa = Pair(keys[ia], values[ia]);
  var pb = Pair(keys[ib], values[ib]);
  var pc = Pair(keys[ic], values[ic]);
  var pd = Pair(keys[id], values[id]);
  // Stride j: (ia, ic), (ib, id); stride h: (ia, ib), and (ic, id) lower index first,
  // which for the flip is id.
  let swapAC = compareExchange(&pa, &pc, mask);
  let swapBD = compareExchange(&pb, &pd, mask);
  let swapAB = compareExchange(&pa, &pb, mask);
  var swapCD: bool;
  if (flip) {
    swapCD = compareExchange(&pd, &pc, mask);
  } else {
    swapCD = compareExchange(&pc, &pd, mask);
  }
  if (swapAC || swapAB) {
    keys[ia] = pa.k;
    values[ia] = pa.v;
  }
  if (swapBD || swapAB) {
    keys[ib] = pb.k;
    values[ib] = pb.v;
  }
  if (swapAC || swapCD) {
    keys[ic] = pc.k;
    values[ic] = pc.v;
  }
  if (swapBD || swapCD) {
    keys[id] = pd.k;
    values[id] = pd.v;
  }
}
