// tiles/blend's entry point without subgroups: every pixel tests every splat of a batch.

@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) local: vec3u, @builtin(workgroup_id) wid: vec3u,
        @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  // One workgroup per tile, (tilesX, tilesY) of them.
  let tile = wid.y * tiles.tilesX + wid.x;
  let gid = wid.xy * TILE + local.xy;
  if (counters[4] != 0u) {
    copyFallback(gid);  // a fallback frame (uniform: the whole workgroup leaves)
    return;
  }
  let inside = gid.x < tiles.width && gid.y < tiles.height;
  if (emptyTile(tile, gid, inside)) {
    return;  // no pairs: the background, with no barrier (uniform: the whole workgroup leaves)
  }
  beginTile(lid, inside);
  let pixel = vec2f(gid) + 0.5;
  var done = !inside;
  var T = 1.0;
  var C = vec3f(0.0);
  let range = ranges[tile];
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
  if (inside) {
    writePixel(gid, C, T);
  }
}
