// Loaded by sort/radix4-kernels.ts and sort/radix16-kernels.ts (the count and scatter modules).
// radix_bindings (radix4 and radix16): the bind groups 0 and 1 that every count and scatter
// kernel declares alike (radix-common.ts createRadixLayouts: passLayout, dataLayout). Each
// kernel declares its own group 2 (the rotating count buffers: types differ by kernel).
// A pass reads src and writes dst; the host ping-pongs the job's buffers and the sorter's.

@group(0) @binding(0) var<uniform> passInfo: PassInfo;  // one slot a pass (dynamic offset)
@group(0) @binding(1) var<uniform> params: Params;      // written by the prepare kernel
@group(1) @binding(0) var<storage, read> srcKeys: array<u32>;
@group(1) @binding(1) var<storage, read> srcValues: array<u32>;
@group(1) @binding(2) var<storage, read_write> dstKeys: array<u32>;
@group(1) @binding(3) var<storage, read_write> dstValues: array<u32>;
