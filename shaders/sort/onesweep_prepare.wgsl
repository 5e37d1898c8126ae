// Loaded by sort/onesweep-kernels.ts (the prepare pipeline).
// onesweep_prepare: turns the live count (a u32 written on the GPU) into the sizes and
// grids of the sort, and resets what every sort starts from. Nothing is read back.
// Dispatch: one workgroup of WG_SIZE invocations, first in the sort's compute pass, in
// indirect mode only (the grids of the other dispatches come from here). In direct mode
// onesweep_histogram reads the count itself and globals are already zero (see
// onesweep_common.wgsl): one dependent dispatch less.
//   1. n = min(count[countIndex], capacity); numTiles = ceil(n / TILE);
//      numHistBlocks = ceil(n / HIST_BLOCK); writes Params.
//   2. Writes the indirect dispatch arguments (x, y, z, unused):
//        dispatchArgs[0]  onesweep_histogram: numHistBlocks workgroups
//        dispatchArgs[1]  onesweep_pass:      numTiles workgroups
//      A grid of w workgroups is y = ceil(w / MAX_WORKGROUPS_PER_DIM) rows of
//      x = ceil(w / y); the kernels skip what lies past w.
//   3. Zeroes globals: the 4 x 256 histogram counters, the 4 tile-id counters and done.

@group(0) @binding(0) var<storage, read> countBuf: array<u32>;
@group(0) @binding(1) var<uniform> info: PrepareInfo;
@group(0) @binding(2) var<storage, read_write> params: Params;
@group(0) @binding(3) var<storage, read_write> dispatchArgs: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> globals: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    let p = paramsFor(min(countBuf[info.countIndex], info.capacity));
    params = p;
    dispatchArgs[0] = grid(p.numHistBlocks);
    dispatchArgs[1] = grid(p.numTiles);
  }
  for (var i = lid; i < GLOBALS_WORDS; i += WG_SIZE) {
    globals[i] = 0u;
  }
}
