// tiles/keys: one (tile, depth) key per tile a splat touches, with the splat id
// as value, appended on the GPU; then `finalize` clamps the count to the pair
// buffers' capacity and writes the ranges pass's indirect dispatch.
//
// `main`, one workgroup per 256 splats (ids in dispatch order, as tiles/project):
//   1. Each thread loads its splat's footprint and counts its tiles.
//   2. Inclusive scan of the counts in workgroup memory; one atomicAdd on
//      counters[0] reserves the workgroup's total (a wrap past 2^32 is flagged).
//   3. The workgroup's pairs are shared out evenly: pair j goes to thread
//      j % 256, which finds its splat by binary search in the scan (a huge splat
//      is spread over the whole workgroup, not left to one thread).
//   4. Pairs at or past the capacity are not written (counted, never out of bounds).

@group(0) @binding(0) var<uniform> tiles: Tiles;
@group(0) @binding(1) var<storage, read> footprints: array<vec4u>;
@group(0) @binding(2) var<storage, read_write> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;
@group(0) @binding(4) var<storage, read_write> counters: array<atomic<u32>, 4>;

const WG: u32 = 256u;

var<workgroup> scan: array<u32, 256>;
var<workgroup> fpLo: array<u32, 256>;
var<workgroup> fpHi: array<u32, 256>;
var<workgroup> fpDepth: array<u32, 256>;
var<workgroup> wgBase: u32;
var<workgroup> wgVisible: atomic<u32>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u,
        @builtin(num_workgroups) nwg: vec3u) {
  if (lid == 0u) {
    atomicStore(&wgVisible, 0u);
  }
  workgroupBarrier();
  let first = (wid.x + wid.y * nwg.x) * WG;
  let i = first + lid;
  var fp = vec4u(0u);
  if (i < tiles.splatCount) {
    fp = footprints[i];
  }
  let w = (fp.y & 0xffffu) - (fp.x & 0xffffu);
  let h = (fp.y >> 16u) - (fp.x >> 16u);
  let count = w * h;
  fpLo[lid] = fp.x;
  fpHi[lid] = fp.y;
  fpDepth[lid] = fp.z;
  scan[lid] = count;
  if (count > 0u) {
    atomicAdd(&wgVisible, 1u);
  }
  workgroupBarrier();
  for (var off = 1u; off < WG; off = off << 1u) {
    var v = scan[lid];
    if (lid >= off) {
      v += scan[lid - off];
    }
    workgroupBarrier();
    scan[lid] = v;
    workgroupBarrier();
  }
  if (lid == 0u) {
    let total = scan[WG - 1u];
    var base = 0u;
    if (total > 0u) {
      base = atomicAdd(&counters[0], total);
      if (base + total < base) {
        atomicStore(&counters[2], 1u);
      }
      atomicAdd(&counters[3], atomicLoad(&wgVisible));
    }
    wgBase = base;
  }
  let base = workgroupUniformLoad(&wgBase);
  let total = scan[WG - 1u];
  for (var j = lid; j < total; j += WG) {
    // s: the first splat whose inclusive scan exceeds j
    var lo = 0u;
    var hi = WG - 1u;
    while (lo < hi) {
      let mid = (lo + hi) >> 1u;
      if (scan[mid] > j) {
        hi = mid;
      } else {
        lo = mid + 1u;
      }
    }
    let s = lo;
    var start = 0u;
    if (s > 0u) {
      start = scan[s - 1u];
    }
    let k = j - start;
    let x0 = fpLo[s] & 0xffffu;
    let y0 = fpLo[s] >> 16u;
    let sw = (fpHi[s] & 0xffffu) - x0;
    let tx = x0 + k % sw;
    let ty = y0 + k / sw;
    let slot = base + j;
    if (slot < tiles.capacity && slot >= base) {
      keys[slot] = ((ty * tiles.tilesX + tx) << tiles.depthBits) | fpDepth[s];
      values[slot] = first + s;
    }
  }
}

@group(0) @binding(5) var<storage, read_write> dispatchArgs: array<u32, 3>;

const RANGES_WG: u32 = 256u;
const MAX_GROUPS: u32 = 65535u;

@compute @workgroup_size(1)
fn finalize() {
  let needed = atomicLoad(&counters[0]);
  var kept = min(needed, tiles.capacity);
  if (atomicLoad(&counters[2]) != 0u) {
    kept = tiles.capacity;
  }
  atomicStore(&counters[1], kept);
  let groups = (kept + RANGES_WG - 1u) / RANGES_WG;
  let x = min(groups, MAX_GROUPS);
  var y = 1u;
  if (x > 0u) {
    y = (groups + x - 1u) / x;
  }
  dispatchArgs[0] = x;
  dispatchArgs[1] = y;
  dispatchArgs[2] = 1u;
}
