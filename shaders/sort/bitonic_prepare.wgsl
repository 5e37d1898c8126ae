// Loaded by sort/bitonic-kernels.ts (the prepare pipeline).
// bitonic_prepare: turns the live count (a u32 written on the GPU) into the network's
// size. Nothing is read back to the CPU.
// Dispatch: one workgroup of one invocation, first in the sort's compute pass.
//   1. n = min(count[countIndex], capacity).
//   2. padded = the smallest power of two >= n, at least LOCAL_SIZE.
//   3. Writes Params (with the job's key mask). The later dispatches are sized for the
//      capacity; their workgroups past `padded`, and whole stages with k > padded, exit.

struct PrepareInfo {
  countIndex: u32,  // u32 index of the count in the bound window of the count buffer
  capacity: u32,
  keyMask: u32,
  _pad: u32,
}

@group(0) @binding(0) var<storage, read> countBuf: array<u32>;
@group(0) @binding(1) var<uniform> info: PrepareInfo;
@group(0) @binding(2) var<storage, read_write> params: Params;

@compute @workgroup_size(1)
fn main() {
  let n = min(countBuf[info.countIndex], info.capacity);
  var padded = LOCAL_SIZE;
  while (padded < n) {
    padded <<= 1u;
  }
  params.n = n;
  params.padded = padded;
  params.keyMask = info.keyMask;
}
