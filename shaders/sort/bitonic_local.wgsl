// Loaded by sort/bitonic-kernels.ts (the local pipeline).
// bitonic_local: the network's steps of stride < LOCAL_SIZE, which stay inside one
// LOCAL_SIZE-pair chunk, run in workgroup memory. One kernel, two uses (one pipeline to
// compile: workgroup memory makes compiling slow on some drivers):
//   stepInfo.blockSize == LOCAL_SIZE  the local sort, first after prepare: the chunk from
//       the job's buffers (padding pairs (PAD, PAD) at index >= n), then every stage
//       k = 2, 4, .., LOCAL_SIZE: its flip step, then half-cleaners j = k / 4 .. 1;
//   stepInfo.blockSize = k > LOCAL_SIZE  the tail of stage k (its larger strides ran in
//       bitonic_merge_global): the chunk from the scratch buffers, half-cleaners
//       j = LOCAL_SIZE / 2 .. 1.
// Dispatch: one workgroup per chunk, grids sized for the padded capacity (2D,
// linearised); stages past the network (k > padded) and chunks past it exit.
//   1. Load the chunk, coalesced.
//   2. The steps, each a localStep (one barrier).
//   3. Store: after the network's last stage (k == padded) the first n pairs straight to
//      the job's buffers (never at or past n), otherwise the chunk to the scratch buffers.
//   jobKeys/jobValues: capacity entries.  keys/values (scratch): the padded capacity.

@group(0) @binding(0) var<uniform> stepInfo: StepInfo;
@group(0) @binding(1) var<uniform> params: Params;
@group(1) @binding(0) var<storage, read_write> jobKeys: array<u32>;
@group(1) @binding(1) var<storage, read_write> jobValues: array<u32>;
@group(1) @binding(2) var<storage, read_write> keys: array<u32>;
@group(1) @binding(3) var<storage, read_write> values: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let chunk = linearWorkgroup(wid, nwg);
  let n = params.n;
  let padded = params.padded;
  let k = stepInfo.blockSize;
  if (n == 0u || k > padded || chunk * LOCAL_SIZE >= padded) {
    return;  // the whole workgroup
  }
  let mask = params.keyMask;
  let base = chunk * LOCAL_SIZE;
  let first = k == LOCAL_SIZE;

  // 1. Load.
  for (var p = lid; p < LOCAL_SIZE; p += WG_SIZE) {
    let i = base + p;
    var key = PAD;
    var value = PAD;
    if (!first) {
      key = keys[i];
      value = values[i];
    } else if (i < n) {
      key = jobKeys[i];
      value = jobValues[i];
    }
    localKeys[p] = key;
    localValues[p] = value;
  }
  workgroupBarrier();

  // 2. The steps.
  if (first) {
    for (var s = 2u; s <= LOCAL_SIZE; s <<= 1u) {
      localStep(lid, s, s >> 1u, true, mask);
      for (var j = s >> 2u; j > 0u; j >>= 1u) {
        localStep(lid, s, j, false, mask);
      }
    }
  } else {
    for (var j = LOCAL_SIZE >> 1u; j > 0u; j >>= 1u) {
      localStep(lid, k, j, false, mask);
    }
  }

  // 3. Store.
  let last = k == padded;
  for (var p = lid; p < LOCAL_SIZE; p += WG_SIZE) {
    let i = base + p;
    if (last) {
      if (i < n) {
        jobKeys[i] = localKeys[p];
        jobValues[i] = localValues[p];
      }
    } else {
      keys[i] = localKeys[p];
      values[i] = localValues[p];
    }
  }
}
