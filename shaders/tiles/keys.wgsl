// tiles/keys: one (tile, depth) key per tile a splat's 1/255 ellipse touches, with
// the splat id as value, appended on the GPU; then `finalize` decides what the frame
// sorts and writes the indirect dispatches that follow (tiles_common.wgsl `control`).
//
// `main`, one workgroup per 256 splats (ids in dispatch order, as tiles/project):
//   1. Each thread loads its splat's footprint (the tiles of the ellipse's bounding
//      box) and conic into workgroup memory; an inclusive scan of the box sizes
//      numbers the workgroup's candidate (splat, tile) pairs.
//   2. The candidates are shared out in rounds of 256, one a thread (a huge splat
//      is spread over the whole workgroup, not left to one thread); a thread finds
//      its splat by binary search in the scan.
//   3. A candidate is kept only if the ellipse power <= P reaches a pixel centre of
//      the tile (the minimum of the quadratic form over the tile's rectangle of
//      pixel centres: 0 if the centre is inside, else the least of its four edges'
//      one-dimensional minima). Bounding-box corners of tilted splats drop out.
//   4. Kept pairs of a round are compacted with a workgroup counter; one atomicAdd
//      on counters[0] reserves them (a wrap past 2^32 is flagged). Pairs at or past
//      the capacity are not written (counted, never out of bounds).
//
// `finalize` (one thread): when the pairs fit the capacity, the sort reads their
// count and the ranges pass runs over them; it writes every indirect argument of the
// frame (tiles_common.wgsl `control`). When they do not (a camera jump into
// the scene, or a view past the device's cap), the frame is a fallback frame: no
// pair is sorted, `fallbackKeys` appends one depth key per visible splat instead
// (far first), the same sorter orders them and fallback.wgsl draws them as quads,
// back to front. Every frame is complete, and nothing waits for the CPU.
@group(0) @binding(0) var<uniform> tiles: Tiles;
@group(0) @binding(1) var<storage, read> footprints: array<vec4u>;
@group(0) @binding(2) var<storage, read_write> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;
@group(0) @binding(4) var<storage, read_write> counters: array<atomic<u32>, COUNTER_WORDS>;
@group(0) @binding(5) var<storage, read_write> control: array<u32, CONTROL_WORDS>;
@group(0) @binding(6) var<storage, read> records: array<vec4u>;

const WG: u32 = 256u;

var<workgroup> scan: array<u32, 256>;
var<workgroup> fpLo: array<u32, 256>;
var<workgroup> fpHi: array<u32, 256>;
var<workgroup> fpDepth: array<u32, 256>;
var<workgroup> ellipseA: array<vec4f, 256>;  // centre xy, conic a, conic b
var<workgroup> ellipseB: array<vec2f, 256>;  // conic c, power limit P
var<workgroup> roundCount: atomic<u32>;
var<workgroup> roundBase: u32;
var<workgroup> wgVisible: atomic<u32>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u,
        @builtin(num_workgroups) nwg: vec3u) {
  if (lid == 0u) {
    atomicStore(&wgVisible, 0u);
    atomicStore(&roundCount, 0u);
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
    let ra = bitcast<vec4f>(records[2u * i]);
    let rb = bitcast<vec4f>(records[2u * i + 1u]);
    ellipseA[lid] = ra;
    // The footprint's power limit, a hair wider (f32 rounding never drops a tile the model keeps).
    ellipseB[lid] = vec2f(rb.x, min(9.0, 2.0 * log(255.0 * rb.y)) * 1.002 + 0.002);
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
    let visible = atomicLoad(&wgVisible);
    if (visible > 0u) {
      atomicAdd(&counters[3], visible);
    }
  }
  let total = workgroupUniformLoad(&scan[WG - 1u]);
  for (var r = 0u; r < total; r += WG) {
    let j = r + lid;
    var keep = false;
    var key = 0u;
    var s = 0u;
    if (j < total) {
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
      s = lo;
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
      let ea = ellipseA[s];
      let eb = ellipseB[s];
      // The tile's pixel centres, relative to the splat's centre.
      let tileLo = vec2f(f32(tx * TILE), f32(ty * TILE)) + 0.5 - ea.xy;
      let tileHi = tileLo + f32(TILE - 1u);
      keep = boxMinPower(tileLo, tileHi, ea.z, ea.w, eb.x) <= eb.y;
      key = ((ty * tiles.tilesX + tx) << tiles.depthBits) | fpDepth[s];
    }
    var slot = 0u;
    if (keep) {
      slot = atomicAdd(&roundCount, 1u);
    }
    workgroupBarrier();
    if (lid == 0u) {
      let n = atomicLoad(&roundCount);
      atomicStore(&roundCount, 0u);
      var base = 0u;
      if (n > 0u) {
        base = atomicAdd(&counters[0], n);
        if (base + n < base) {
          atomicStore(&counters[2], 1u);
        }
      }
      roundBase = base;
    }
    let base = workgroupUniformLoad(&roundBase);
    let out = base + slot;
    if (keep && out < tiles.capacity && out >= base) {
      keys[out] = key;
      values[out] = first + s;
    }
  }
}

const RANGES_WG: u32 = 256u;

@compute @workgroup_size(1)
fn finalize() {
  let needed = atomicLoad(&counters[0]);
  let fallback = atomicLoad(&counters[2]) != 0u || needed > tiles.capacity;
  var sortCount = needed;
  var rangesGroups = (needed + RANGES_WG - 1u) / RANGES_WG;
  var fallbackGroups = 0u;
  if (fallback) {
    sortCount = 0u;
    rangesGroups = 0u;
    fallbackGroups = (tiles.splatCount + WG - 1u) / WG;
  }
  atomicStore(&counters[1], sortCount);
  atomicStore(&counters[4], select(0u, 1u, fallback));
  atomicStore(&counters[6], tiles.capacity);
  let r = gridArgs(rangesGroups);
  control[0] = r.x;
  control[1] = r.y;
  control[2] = r.z;
  control[3] = sortCount;
  let f = gridArgs(fallbackGroups);
  control[4] = f.x;
  control[5] = f.y;
  control[6] = f.z;
  control[7] = 0u;
  // The fallback's draws (fallback.wgsl), none in a normal frame: a quad per splat
  // (those past the visible ones fallbackKeys appends are dropped by the vertex
  // shader), and the background fill under them.
  control[8] = 4u;
  control[9] = select(0u, tiles.splatCount, fallback);
  control[10] = 0u;
  control[11] = 0u;
  control[12] = 3u;
  control[13] = select(0u, 1u, fallback);
  control[14] = 0u;
  control[15] = 0u;
}

// A fallback frame's sort keys: one per splat with a footprint, (2^depthBits - 1 -
// depth) so that the ascending sort puts the farthest first (back to front).
@compute @workgroup_size(256)
fn fallbackKeys(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u,
                @builtin(num_workgroups) nwg: vec3u) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= tiles.splatCount) {
    return;
  }
  let fp = footprints[i];
  if ((fp.y & 0xffffu) <= (fp.x & 0xffffu)) {
    return;
  }
  let slot = atomicAdd(&counters[1], 1u);
  if (slot < tiles.slots) {
    keys[slot] = ((1u << tiles.depthBits) - 1u) - fp.z;
    values[slot] = i;
  }
}

// After fallbackKeys: the sort never reads past the buffers (they hold every splat,
// unless a sorter could not: then the nearest splats beyond them are not drawn).
@compute @workgroup_size(1)
fn clampFallback() {
  atomicMin(&counters[1], tiles.slots);
}
