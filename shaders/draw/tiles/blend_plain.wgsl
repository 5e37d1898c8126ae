// Loaded by renderer/draw/tiles/tile-pipelines.ts (blendPipeline, without subgroups).
// tiles/blend without subgroups: every pixel tests every splat of a batch. Its entry point
// hands the tile to blend.wgsl's blendEntry, which calls blendPairs below.

@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) local: vec3u, @builtin(workgroup_id) wid: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  blendEntry(wid, local, lid, 0u, 0u);
}

// The tile's pairs `range` over the pixel `gid` (`outside` the image: done from the
// start): the pixel's colour and transmittance (C, T). lane, sgSize: unused here.
fn blendPairs(lid: u32, lane: u32, sgSize: u32, gid: vec2u, range: vec2u, outside: bool) -> vec4f {
  let pixel = vec2f(gid) + 0.5;
  var done = outside;
  var T = 1.0;
  var C = vec3f(0.0);
  var start = range.x;
  loop {
    if (tileFinished(lid, start, range.y)) {
      break;
    }
    let n = min(BATCH, range.y - start);
    if (lid < n) {
      loadSplat(start, lid);
    }
    workgroupBarrier();
    if (!done) {
      for (var k = 0u; k < n; k++) {
        if (blendSplat(k, pixel, &C, &T)) {
          done = true;
          atomicAdd(&doneCount, 1u);
          break;
        }
      }
    }
    start += n;
  }
  return vec4f(C, T);
}
