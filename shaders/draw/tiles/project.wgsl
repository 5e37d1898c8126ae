// Loaded by renderer/draw/tiles/tile-pipelines.ts (the tiles project pass, tileProjectPipeline).
// tiles/project: per splat, everything the blend needs, computed once, then one
// (tile, depth) key per screen tile the splat's 1/255 ellipse touches, with the splat
// id as value, appended on the GPU. One kernel: the pairs of a workgroup's 256 splats
// come from what its threads just projected (in workgroup memory), with no round trip
// through memory and no dispatch between (a dispatch costs ~8 us on an H100 however
// small: most of a small scene's frame).
//
// `main`, one thread per splat, 256 a workgroup (grids over 65,535 workgroups spill into y):
//   1. projectSplat (project_splat.wgsl, shared with the quads draw): cull as the
//      forward model (depth d = -z_view <= near, centre |ndc| > 1.3, det(cov2D) <= 0,
//      effective opacity < 1/255, the contribution cull); EWA: cov2D = J W Sigma W^T J^T
//      + 0.3 I (J at the centre clamped to 1.3x the frustum); the effective opacity
//      (the anti-aliased mode's factor applied): the one in the record. conic = inverse(cov2D).
//   2. Footprint: a pixel contributes only where power = dx^T conic dx <= 9 and
//      opacity exp(-power / 2) >= 1/255, i.e. power <= P = min(9, 2 ln(255 opacity))
//      (the effective opacity). That ellipse's bounding box has half-widths
//      sqrt(P cov2D.xx), sqrt(P cov2D.yy); the tiles holding the pixel centres inside it
//      (clipped to the screen) are the footprint. Nothing on screen: culled (its
//      record's opacity word is 0).
//   3. Colour from SH (degree frame.shDegree, the view direction in the splat's object's frame), and the
//      depth quantised to depthBits between the near and far planes (and to 16 bits
//      in the record, for a fallback frame's keys: settle.wgsl).
//   4. An inclusive scan of the footprints' sizes numbers the workgroup's candidate
//      (splat, tile) pairs; they are shared out in rounds of 256, one a thread (a huge
//      splat is spread over the whole workgroup, not left to one thread); a thread
//      finds its splat by binary search in the scan.
//   5. A candidate is kept only if the ellipse power <= P reaches a pixel centre of
//      the tile (the minimum of the quadratic form over the tile's rectangle of
//      pixel centres: 0 if the centre is inside, else the least of its four edges'
//      one-dimensional minima). Bounding-box corners of tilted splats drop out.
//   6. Kept pairs of a round are compacted with a workgroup counter; one atomicAdd
//      on counters[0] reserves them (a wrap past 2^32 is flagged). Pairs at or past
//      the capacity are not written (counted, never out of bounds).
// settle.wgsl then decides what the frame sorts.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<uniform> tiles: Tiles;
// Prepended (renderer/draw/tiles/tile-pipelines.ts): the scene's pages (centers at
// 2, covs at 3, SH at 4, the object table at 5) and decode, and the records' pages at 6 (records_put(i, k, v),
// k = 0, 1; paging.ts).
// keys at 7, values at 8: // The pairs' keys and values are prepended in pages (keys_at / keys_put, values_at /
// values_put: paging.ts; tile-pipelines.ts): more pairs than one binding holds u32s.
@group(0) @binding(9) var<storage, read_write> counters: array<atomic<u32>, COUNTER_WORDS>;

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

// Steps 1-3 for splat i: writes its record; its footprint into workgroup slot `lid`
// (x0 | y0 << 16, x1 | y1 << 16: the tiles [x0, x1) x [y0, y1), empty when culled);
// returns the footprint's tile count.
fn projectInto(i: u32, lid: u32) -> u32 {
  let s = projectSplat(i);  // the cull, centre, EWA and opacity (project_splat.wgsl)
  if (!s.visible) {
    records_put(i, 1u, vec4u(0u));
    return 0u;
  }
  let a = s.cov2.x;
  let b = s.cov2.y;
  let cc = s.cov2.z;
  let det = a * cc - b * b;
  let opacity = s.opacity;
  let conic = vec3f(cc, -b, a) / det;

  // Footprint in pixel indices (centres at +0.5), a hair wider than the exact
  // bound so that f32 rounding never drops a pixel the model keeps.
  let power = min(9.0, 2.0 * log(255.0 * opacity));
  let halfExtent = sqrt(power * vec2f(a, cc)) * 1.001 + 0.01;
  let centre = s.centre;
  let size = vec2f(f32(tiles.width), f32(tiles.height));
  let lo = clamp(ceil(centre - halfExtent - 0.5), vec2f(0.0), size);
  let hi = clamp(floor(centre + halfExtent - 0.5), vec2f(-1.0), size - 1.0);
  if (any(lo > hi)) {
    records_put(i, 1u, vec4u(0u));
    return 0u;
  }
  let t0 = vec2u(lo) / TILE;
  let t1 = vec2u(hi) / TILE + 1u;

  let rgb = splatColour(i, s.object);
  let depthT = clamp((s.depth - frame.near) / (frame.far - frame.near), 0.0, 1.0);
  let maxDepth = (1u << tiles.depthBits) - 1u;
  let depthQ = min(u32(depthT * f32(maxDepth)), maxDepth);
  let depth16 = min(u32(depthT * 65535.0), 65535u);

  records_put(i, 0u, vec4u(bitcast<vec2u>(centre), bitcast<vec2u>(conic.xy)));
  records_put(i, 1u, vec4u(bitcast<u32>(conic.z), bitcast<u32>(opacity),
                           pack2x16float(rgb.rg), (pack2x16float(vec2f(rgb.b, 0.0)) & 0xffffu) | (depth16 << 16u)));
  fpLo[lid] = t0.x | (t0.y << 16u);
  fpHi[lid] = t1.x | (t1.y << 16u);
  fpDepth[lid] = depthQ;
  ellipseA[lid] = vec4f(centre, conic.xy);
  // The footprint's power limit, a hair wider (f32 rounding never drops a tile the model keeps).
  ellipseB[lid] = vec2f(conic.z, power * 1.002 + 0.002);
  return (t1.x - t0.x) * (t1.y - t0.y);
}

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
  var count = 0u;
  if (i < tiles.splatCount) {
    count = projectInto(i, lid);
  }
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
      keys_put(out, 0u, key);
      values_put(out, 0u, first + s);
    }
  }
}
