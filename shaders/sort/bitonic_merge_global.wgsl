// bitonic_merge_global: one or two compare-exchange steps of stride >= LOCAL_SIZE, in
// the scratch buffers (global memory).
// Dispatch: one invocation per pair (twoSteps = 0: padded / 2 of them) or per group of
// four pairs (twoSteps = 1: padded / 4), grids sized for the padded capacity; 2D grid,
// linearised. Stages past the network (k > padded) and invocations past it exit.
//   twoSteps = 0: pair g is (a, b), a = g with a 0 bit inserted at stride j, and
//     b = a ^ (k - 1) for the flip step, a + j for a half-cleaner.
//   twoSteps = 1: strides j and h = j / 2 fused; invocation g owns the 4 indices
//       i0 = a0, i1 = a0 + h, i2, i3 (a0 = g with 0 bits inserted at h and j)
//     with i2 = a0 + j, i3 = a0 + j + h for half-cleaners, and for the flip step
//     i2 = (a0 + h) ^ (k - 1), i3 = a0 ^ (k - 1) (the mirrors, so i2 < i3):
//       stride j: (i0, i2), (i1, i3), flip: (i0, i3), (i1, i2);  then stride h: (i0, i1), (i2, i3)
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

fn ordered(a: Pair, b: Pair, mask: u32) -> bool {
  return !after(a.k, a.v, b.k, b.v, mask);
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
  var i = array<u32, 4>(
    a0,
    a0 | h,
    select(a0 | j, (a0 | h) ^ (k - 1u), flip),
    select(a0 | j | h, a0 ^ (k - 1u), flip),
  );
  var p = array<Pair, 4>(
    Pair(keys[i[0]], values[i[0]]),
    Pair(keys[i[1]], values[i[1]]),
    Pair(keys[i[2]], values[i[2]]),
    Pair(keys[i[3]], values[i[3]]),
  );
  let original = p;
  // Stride j (or the flip): partners (0, 2), (1, 3); flip: (0, 3), (1, 2).
  let x = select(2u, 3u, flip);
  let y = select(3u, 2u, flip);
  if (!ordered(p[0], p[x], mask)) {
    let t = p[0];
    p[0] = p[x];
    p[x] = t;
  }
  if (!ordered(p[1], p[y], mask)) {
    let t = p[1];
    p[1] = p[y];
    p[y] = t;
  }
  // Stride h: (0, 1), (2, 3).
  if (!ordered(p[0], p[1], mask)) {
    let t = p[0];
    p[0] = p[1];
    p[1] = t;
  }
  if (!ordered(p[2], p[3], mask)) {
    let t = p[2];
    p[2] = p[3];
    p[3] = t;
  }
  for (var e = 0u; e < 4u; e++) {
    if (p[e].k != original[e].k || p[e].v != original[e].v) {
      keys[i[e]] = p[e].k;
      values[i[e]] = p[e].v;
    }
  }
}
