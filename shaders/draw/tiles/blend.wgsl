// Loaded by renderer/draw/tiles/tile-pipelines.ts (blendPipeline; a variant file follows it).
// tiles/blend: one workgroup per 16x16 tile with pairs, one thread per pixel. The
// tile's pairs (front to back after the sort) are walked in batches of 256: each
// thread loads one splat record into workgroup memory, then every pixel blends the
// batch
//   C += T alpha rgb,  T *= 1 - alpha
// with alpha = opacity exp(-power / 2), skipped where power > 9 or alpha < 1/255
// (the forward model's fragment; power > P = min(9, 2 ln(255 opacity)), computed
// once a batch, is tested first: the same test without an exp per pixel). A pixel
// stops once T < 1e-4; the workgroup stops when every pixel has. Front to back
// gives the model's back-to-front "over" image.
// Output: straight colour C + T background, clamped, alpha 1, to a storage texture
// of OUTPUT_FORMAT (the frame's target itself where it can be one, else an rgba8unorm
// image presented onto it). Every tile is dispatched and writes each of its pixels
// once: a tile without pairs writes the background at once (no clear of the output
// before: on an H100 a render-pass clear of a storage target cost ~0.14 ms a frame).
// In a fallback frame (counters[4]) each pixel is copied from the fallback's image
// (fallback.wgsl) instead.
//
// tile-pipelines.ts appends a variant: blend_plain.wgsl (every pixel tests every splat
// of the batch) or, where the device has subgroups, blend_subgroups.wgsl (each subgroup
// first keeps the batch's splats whose bounding box reaches its pixels: the same
// picture, bit for bit, with less work). A variant gives the entry point `main` (its
// builtins), which calls blendEntry here, and blendPairs, the walk of the tile's pairs.

@group(0) @binding(0) var<uniform> tiles: Tiles;
@group(0) @binding(1) var<storage, read> ranges: array<vec2u>;
// values at 2: // The pairs' keys and values are prepended in pages (keys_at / keys_put, values_at /
// values_put: paging.ts; tile-pipelines.ts): more pairs than one binding holds u32s.
// records: pages from binding 3 (records_at(i, k)), prepended (tile-pipelines.ts, paging.ts).
@group(0) @binding(4) var fallbackImage: texture_2d<f32>;
@group(0) @binding(5) var<storage, read> counters: array<u32, COUNTER_WORDS>;
@group(0) @binding(6) var output: texture_storage_2d<OUTPUT_FORMAT, write>;

const BATCH: u32 = 256u;
const MIN_TRANSMITTANCE: f32 = 1e-4;

var<workgroup> batchA: array<vec4f, 256>;   // centre xy, conic a, conic b
var<workgroup> batchB: array<vec4f, 256>;   // conic c, opacity, power limit P, r
var<workgroup> batchC: array<vec2f, 256>;   // g, b
var<workgroup> doneCount: atomic<u32>;
var<workgroup> allDone: u32;

// Both variants' entry point, by every thread: one workgroup per tile, (tilesX, tilesY)
// of them. lane, sgSize: the subgroup's (0 without subgroups), for blendPairs.
fn blendEntry(wid: vec3u, local: vec3u, lid: u32, lane: u32, sgSize: u32) {
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
  let CT = blendPairs(lid, lane, sgSize, gid, ranges[tile], !inside);
  if (inside) {
    writePixel(gid, CT.rgb, CT.a);
  }
}

// Pair `start + l` of the tile into batch slot l.
fn loadSplat(start: u32, l: u32) {
  let id = values_at(start + l, 0u);
  storeSplat(l, records_at(id, 0u), records_at(id, 1u));
}

// A splat's record (a, b: records[2 id], records[2 id + 1]) into batch slot l.
fn storeSplat(l: u32, a: vec4u, b: vec4u) {
  batchA[l] = bitcast<vec4f>(a);
  let opacity = bitcast<f32>(b.y);
  let rg = unpack2x16float(b.z);
  batchB[l] = vec4f(bitcast<f32>(b.x), opacity, min(9.0, 2.0 * log(255.0 * opacity)), rg.x);
  batchC[l] = vec2f(rg.y, unpack2x16float(b.w).x);
}

// Splat k of the batch over the pixel centred at `pixel`: true when the pixel is
// then done (T < 1e-4).
fn blendSplat(k: u32, pixel: vec2f, C: ptr<function, vec3f>, T: ptr<function, f32>) -> bool {
  let sa = batchA[k];
  let sb = batchB[k];
  let dx = pixel - sa.xy;
  let power = sa.z * dx.x * dx.x + 2.0 * sa.w * dx.x * dx.y + sb.x * dx.y * dx.y;
  if (power > sb.z) {
    return false;
  }
  let alpha = sb.y * exp(-0.5 * power);
  if (alpha < MIN_ALPHA) {
    return false;
  }
  *C += (*T * alpha) * vec3f(sb.w, batchC[k]);
  *T *= 1.0 - alpha;
  return *T < MIN_TRANSMITTANCE;
}

// The tile's start, by every thread: the done-pixel count set to the pixels outside
// the image (done from the start: `inside` false).
fn beginTile(lid: u32, inside: bool) {
  if (lid == 0u) {
    atomicStore(&doneCount, 0u);
  }
  workgroupBarrier();
  if (!inside) {
    atomicAdd(&doneCount, 1u);
  }
}

// At the top of each batch, by every thread: whether the workgroup is done with the
// tile (its run of pairs ended at `end`, or every pixel is done). Workgroup-uniform.
fn tileFinished(lid: u32, start: u32, end: u32) -> bool {
  workgroupBarrier();
  if (lid == 0u) {
    allDone = select(0u, 1u, start >= end || atomicLoad(&doneCount) == 256u);
  }
  return workgroupUniformLoad(&allDone) != 0u;
}

// A fallback frame's pixel: its picture, clamped as the blend clamps.
fn copyFallback(gid: vec2u) {
  if (gid.x < tiles.width && gid.y < tiles.height) {
    let c = textureLoad(fallbackImage, gid, 0).rgb;
    textureStore(output, gid, vec4f(clamp(c, vec3f(0.0), vec3f(1.0)), 1.0));
  }
}

// A tile without pairs: its pixels get the background at once (most tiles of a scene
// small on screen: 7,443 of 8,160 at 1080p for INRIA tile 6831). Workgroup-uniform.
fn emptyTile(tile: u32, gid: vec2u, inside: bool) -> bool {
  let range = ranges[tile];
  if (range.x < range.y) {
    return false;
  }
  if (inside) {
    writePixel(gid, vec3f(0.0), 1.0);
  }
  return true;
}

fn writePixel(gid: vec2u, C: vec3f, T: f32) {
  textureStore(output, gid, vec4f(clamp(C + T * tiles.background, vec3f(0.0), vec3f(1.0)), 1.0));
}
