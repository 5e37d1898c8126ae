// Loaded by renderer/draw/tiles/tile-pipelines.ts (blendPipeline, where blendUsesSubgroups).
// tiles/blend with subgroups (its entry point hands the tile to blend.wgsl's blendEntry,
// which calls blendPairs below). After a batch is loaded, each subgroup
// finds the batch's splats whose power <= P ellipse (a hair wider) reaches the
// rectangle of its own pixel centres (its bounding box first, then the least power
// over the rectangle, boxMinPower): each lane tests a splat, subgroupBallot gathers
// the answers, and the lanes then walk only the splats set,
// in order (a round where most splats hit walks all of its splats). A splat outside
// the box cannot reach any of the subgroup's pixels, so
// the picture is the plain entry point's, bit for bit; most of the batch is not
// touched per pixel (a subgroup covers a strip of the tile, a splat often not).
// The rectangle comes from the lanes' own pixels (subgroupMin/Max), so no mapping of
// invocations to subgroups is assumed. Ballots of up to 128 lanes. The next batch's
// records are read while this one is blended (their latency hidden behind it).
// On an H100 (docs/PERFORMANCE.md) this blend is 0.56x the plain one at 1M splats
// and 0.35x at 6M; on biker's large splats 1.1x (the plain one stays for devices
// without subgroups).
enable subgroups;

var<workgroup> batchBox: array<vec4f, 256>;  // bounding box of the ellipse: x0, y0, x1, y1 (pixels)

@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) local: vec3u, @builtin(workgroup_id) wid: vec3u,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sgSize: u32) {
  blendEntry(wid, local, lid, lane, sgSize);
}

// The tile's pairs `range` over the pixel `gid` (`outside` the image: done from the
// start): the pixel's colour and transmittance (C, T).
fn blendPairs(lid: u32, lane: u32, sgSize: u32, gid: vec2u, range: vec2u, outside: bool) -> vec4f {
  let pixel = vec2f(gid) + 0.5;
  // The subgroup's rectangle of pixel centres.
  let rectLo = vec2f(f32(subgroupMin(gid.x)), f32(subgroupMin(gid.y))) + 0.5;
  let rectHi = vec2f(f32(subgroupMax(gid.x)), f32(subgroupMax(gid.y))) + 0.5;
  var done = outside;
  var T = 1.0;
  var C = vec3f(0.0);
  var start = range.x;
  var preA = vec4u(0u);
  var preB = vec4u(0u);
  if (lid < min(BATCH, range.y - start)) {
    let id = values_at(start + lid, 0u);
    preA = records_at(id, 0u);
    preB = records_at(id, 1u);
  }
  loop {
    if (tileFinished(lid, start, range.y)) {
      break;
    }
    let n = min(BATCH, range.y - start);
    if (lid < n) {
      storeSplat(lid, preA, preB);
      // Half-widths of the power <= P ellipse: sqrt(P cov.xx), sqrt(P cov.yy), cov = conic^-1.
      let sa = batchA[lid];
      let sb = batchB[lid];
      let det = sa.z * sb.x - sa.w * sa.w;
      let half = sqrt(max(sb.z * vec2f(sb.x, sa.z) / det, vec2f(0.0))) * 1.001 + 0.01;
      batchBox[lid] = vec4f(sa.xy - half, sa.xy + half);
    }
    workgroupBarrier();
    // The next batch's records, in flight while this one is blended.
    let next = start + n;
    if (next < range.y && lid < min(BATCH, range.y - next)) {
      let id = values_at(next + lid, 0u);
      preA = records_at(id, 0u);
      preB = records_at(id, 1u);
    }
    for (var j = 0u; j * sgSize < n; j++) {
      let k = j * sgSize + lane;
      var hit = false;
      if (k < n) {
        let box = batchBox[k];
        hit = all(box.xy <= rectHi) && all(box.zw >= rectLo);
        if (hit) {
          let sa = batchA[k];
          let sb = batchB[k];
          hit = boxMinPower(rectLo - sa.xy, rectHi - sa.xy, sa.z, sa.w, sb.x) <= sb.z * 1.002 + 0.002;
        }
      }
      let mask = subgroupBallot(hit);
      let hits = countOneBits(mask.x) + countOneBits(mask.y) + countOneBits(mask.z) + countOneBits(mask.w);
      if (!done && 2u * hits > sgSize) {
        // Most of these splats reach the subgroup (large splats): walk them all, in
        // order (the splats' own test skips the rest), without the bit scan.
        let end = min(n, (j + 1u) * sgSize);
        for (var k = j * sgSize; k < end && !done; k++) {
          if (blendSplat(k, pixel, &C, &T)) {
            done = true;
            atomicAdd(&doneCount, 1u);
          }
        }
      } else if (!done) {
        for (var w = 0u; w < 4u; w++) {
          var m = mask[w];
          while (m != 0u && !done) {
            let bit = firstTrailingBit(m);
            m &= m - 1u;
            if (blendSplat(j * sgSize + w * 32u + bit, pixel, &C, &T)) {
              done = true;
              atomicAdd(&doneCount, 1u);
            }
          }
        }
      }
    }
    start += n;
  }
  return vec4f(C, T);
}
