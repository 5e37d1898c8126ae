// Loaded by renderer/gpu-scene/assemble.ts (restride: an object's SH copied into an assembly of a larger stride).
// Copies `words / dstStride` splats' SH words from a source page, `srcStride` words a
// splat, to a destination page, `dstStride` words a splat (dstStride > srcStride: the drawn scene holds the largest
// object's SH degree), padding each with zeros. Both layouts put a lower degree's words
// first (full: f16 pairs coefficient-major; compact: opacity, then the higher bands'
// codes coefficient-major), and no pass reads an object's bands past its own degree
// (objects.wgsl objectShDegree), so the padding is never read. One thread a
// destination word; grids over 65,535 workgroups spill into y.

struct Restride {
  words: u32,    // destination words to write
  srcStride: u32,  // source words a splat
  dstStride: u32,  // destination words a splat
  srcWord: u32,  // the first splat's first word in the source page
  dstWord: u32,  // the first splat's first word in the destination page
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
};

@group(0) @binding(0) var<uniform> params: Restride;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let w = gid.x + gid.y * nwg.x * 256u;
  if (w >= params.words) {
    return;
  }
  let s = w / params.dstStride;
  let k = w - s * params.dstStride;
  var v = 0u;
  if (k < params.srcStride) {
    v = src[params.srcWord + s * params.srcStride + k];
  }
  dst[params.dstWord + w] = v;
}
