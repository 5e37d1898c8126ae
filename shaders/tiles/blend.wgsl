// tiles/blend: one workgroup per 16x16 tile with pairs, one thread per pixel. The tile's
// pairs (front to back after the sort) are walked in batches of 256: each thread
// loads one splat record into workgroup memory, then every pixel blends the batch
//   C += T alpha rgb,  T *= 1 - alpha
// with alpha = opacity exp(-power / 2), skipped where power > 9 or alpha < 1/255
// (the forward model's fragment; power > P = min(9, 2 ln(255 opacity)), computed
// once a batch, is tested first: the same test without an exp per pixel). A pixel stops once T < 1e-4; the workgroup stops
// when every pixel has. Front to back gives the model's back-to-front "over" image.
// Output: straight colour C + T background, clamped, alpha 1, to a storage texture
// of OUTPUT_FORMAT (the frame's target itself where it can be one, else an rgba8unorm
// image presented onto it). Only tiles with pairs are dispatched (activeTiles, a
// workgroup each): the rest of the output was cleared to the background.

@group(0) @binding(0) var<uniform> tiles: Tiles;
@group(0) @binding(1) var<storage, read> ranges: array<vec2u>;
@group(0) @binding(2) var<storage, read> values: array<u32>;
@group(0) @binding(3) var<storage, read> records: array<vec4u>;
@group(0) @binding(4) var<storage, read> activeTiles: array<u32>;
@group(0) @binding(5) var<storage, read> counters: array<u32, COUNTER_WORDS>;
@group(0) @binding(6) var output: texture_storage_2d<OUTPUT_FORMAT, write>;

const BATCH: u32 = 256u;
const MIN_TRANSMITTANCE: f32 = 1e-4;

var<workgroup> batchA: array<vec4f, 256>;   // centre xy, conic a, conic b
var<workgroup> batchB: array<vec4f, 256>;   // conic c, opacity, power limit P, r
var<workgroup> batchC: array<vec2f, 256>;   // g, b
var<workgroup> doneCount: atomic<u32>;
var<workgroup> allDone: u32;

@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) local: vec3u, @builtin(workgroup_id) wid: vec3u,
        @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let slot = wid.x + wid.y * nwg.x;
  if (slot >= counters[5]) {
    return;  // the grid's spare workgroups (uniform: the whole workgroup leaves)
  }
  let tile = activeTiles[slot];
  let ty = tile / tiles.tilesX;
  let gid = vec2u(tile - ty * tiles.tilesX, ty) * TILE + local.xy;
  if (lid == 0u) {
    atomicStore(&doneCount, 0u);
  }
  workgroupBarrier();
  let inside = gid.x < tiles.width && gid.y < tiles.height;
  let pixel = vec2f(gid.xy) + 0.5;
  var done = !inside;
  if (done) {
    atomicAdd(&doneCount, 1u);
  }
  var T = 1.0;
  var C = vec3f(0.0);
  let range = ranges[tile];
  var start = range.x;
  loop {
    workgroupBarrier();
    if (lid == 0u) {
      allDone = select(0u, 1u, start >= range.y || atomicLoad(&doneCount) == 256u);
    }
    if (workgroupUniformLoad(&allDone) != 0u) {
      break;
    }
    let n = min(BATCH, range.y - start);
    if (lid < n) {
      let id = values[start + lid];
      let a = records[2u * id];
      let b = records[2u * id + 1u];
      batchA[lid] = bitcast<vec4f>(a);
      let opacity = bitcast<f32>(b.y);
      let rg = unpack2x16float(b.z);
      batchB[lid] = vec4f(bitcast<f32>(b.x), opacity, min(9.0, 2.0 * log(255.0 * opacity)), rg.x);
      batchC[lid] = vec2f(rg.y, unpack2x16float(b.w).x);
    }
    workgroupBarrier();
    if (!done) {
      for (var k = 0u; k < n; k++) {
        let sa = batchA[k];
        let sb = batchB[k];
        let dx = pixel - sa.xy;
        let power = sa.z * dx.x * dx.x + 2.0 * sa.w * dx.x * dx.y + sb.x * dx.y * dx.y;
        if (power > sb.z) {
          continue;
        }
        let alpha = sb.y * exp(-0.5 * power);
        if (alpha < MIN_ALPHA) {
          continue;
        }
        C += (T * alpha) * vec3f(sb.w, batchC[k]);
        T *= 1.0 - alpha;
        if (T < MIN_TRANSMITTANCE) {
          done = true;
          atomicAdd(&doneCount, 1u);
          break;
        }
      }
    }
    start += n;
  }
  if (inside) {
    textureStore(output, gid.xy, vec4f(clamp(C + T * tiles.background, vec3f(0.0), vec3f(1.0)), 1.0));
  }
}
