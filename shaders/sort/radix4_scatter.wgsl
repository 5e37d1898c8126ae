// Loaded by sort/radix4-kernels.ts (the scatter and scatterFromCounts pipelines).
// radix4_scatter: the stable scatter of one radix pass, which also counts the digits
// of the next pass for the chunks it writes to (so radix4_count runs only once).
// Dispatch: one workgroup per chunk.
//   1. Stage the chunk's keys and values in workgroup memory (coalesced loads) and find
//      base[d], the first output index of digit d for this chunk:
//      - BASES_FROM_COUNTS (small sorts; no scan dispatches): every invocation sums a
//        strided share of the raw `counts` lying before (d, chunk) in digit-major
//        order, and wgSum4 adds the shares up;
//      - otherwise invocations 0..3 add the scanned levels:
//        base[d] = counts[i] + sum over levels l >= 1 of level_l[i / SCAN_BLOCK^l],
//        i = d * numChunks + chunk.
//      Invocations 0..3 clear the chunk's entries of clearCounts.
//   2. Invocation t owns chunk positions t * KEYS_PER_THREAD .. + KEYS_PER_THREAD - 1
//      (in order, for stability); wgScan of their packed digit flags gives the packed
//      counts of digits 0..2 before its first position and in the whole chunk. Each
//      owned key goes to its place in the chunk sorted by digit:
//        localStart[d] = counts of digits < d in the chunk; place = localStart[d] + rank.
//   3. Invocation t writes sorted places e = j * WG_SIZE + t (coalesced runs):
//        dst = base[d] + e - localStart[d]; dstKeys[dst] = key; dstValues[dst] = value
//      and, unless this is the last pass, counts the key's next digit nd in
//      nextShare[d][dst / CHUNK - base[d] / CHUNK (0 or 1: a digit's run of at most
//      CHUNK keys touches at most two output chunks)][nd].
//   4. Invocations 0..31 add the non-zero nextShare entries to nextCounts (atomics):
//        nextCounts[nd * numChunks + base[d] / CHUNK + half] += counter
//   The ranks are recomputed here from the keys rather than stored by a previous
//   kernel: a few barriers instead of 16 bytes per key of global traffic.

override BASES_FROM_COUNTS: bool = false;

// Groups 0 and 1 (passInfo, params; srcKeys, srcValues, dstKeys, dstValues): radix_bindings.wgsl.
// counts as vec4: 4 * numChunks entries are numChunks vec4 (the host sizes it so).
@group(2) @binding(0) var<storage, read_write> counts: array<vec4<u32>>;
@group(2) @binding(1) var<storage, read_write> nextCounts: array<atomic<u32>>;
@group(2) @binding(2) var<storage, read_write> clearCounts: array<u32>;
@group(2) @binding(3) var<storage, read_write> levels: array<u32>;

// For each digit d, the sum of the four counts c[k] (digit-major entries first + k)
// lying before ends[d].
fn countsBefore(c: vec4<u32>, first: u32, ends: vec4<u32>) -> vec4<u32> {
  let entry = vec4<u32>(first) + vec4<u32>(0u, 1u, 2u, 3u);
  return vec4<u32>(
    dot(c, vec4<u32>(entry < vec4<u32>(ends.x))),
    dot(c, vec4<u32>(entry < vec4<u32>(ends.y))),
    dot(c, vec4<u32>(entry < vec4<u32>(ends.z))),
    dot(c, vec4<u32>(entry < vec4<u32>(ends.w))),
  );
}

var<workgroup> tileKeys: array<u32, CHUNK>;
var<workgroup> tileValues: array<u32, CHUNK>;
var<workgroup> sortedKeys: array<u32, CHUNK>;
var<workgroup> sortedValues: array<u32, CHUNK>;
var<workgroup> digitBase: array<u32, 4>;
// The chunk's share of the next pass's counts: [digit d][output chunk half][next digit].
var<workgroup> nextShare: array<atomic<u32>, 32>;

@compute @workgroup_size(WG_SIZE)
fn main(ids: WgIds, wg: WgUniform) {
  let chunk = linearWorkgroup(wg.wid, wg.nwg);
  let numChunks = params.numChunks;
  if (chunk >= numChunks) {
    return;  // the whole workgroup: grids round up
  }
  let lid = ids.lid;
  let n = params.n;
  let start = chunk * CHUNK;
  let live = min(n - start, CHUNK);

  // 1. Stage the chunk; find the digit bases.
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let p = j * WG_SIZE + lid;
    if (p < live) {
      tileKeys[p] = srcKeys[start + p];
      tileValues[p] = srcValues[start + p];
    }
  }
  if (lid < 32u) {
    atomicStore(&nextShare[lid], 0u);
  }
  if (lid < 4u) {
    clearCounts[lid * numChunks + chunk] = 0u;
  }
  var base: vec4<u32>;
  if (BASES_FROM_COUNTS) {
    let ends = vec4<u32>(0u, numChunks, 2u * numChunks, 3u * numChunks) + chunk;
    var share = vec4<u32>(0u);
    // Two independent vec4 loads an iteration: up to 512 chunks, one round trip.
    for (var v = lid; v < numChunks; v += 2u * WG_SIZE) {
      let w = v + WG_SIZE;
      let a = counts[v];
      let b = counts[min(w, numChunks - 1u)];
      share += countsBefore(a, 4u * v, ends);
      share += select(vec4<u32>(0u), countsBefore(b, 4u * w, ends), w < numChunks);
    }
    base = wgSum4(share, ids, wg);
  } else {
    if (lid < 4u) {
      var i = lid * numChunks + chunk;
      var b = counts[i / 4u][i % 4u];
      for (var l = 1u; l < params.activeLevels; l++) {
        i /= SCAN_BLOCK;
        b += levels[params.levelOffset[l] + i];
      }
      digitBase[lid] = b;
    }
    workgroupBarrier();
    base = vec4<u32>(digitBase[0], digitBase[1], digitBase[2], digitBase[3]);
  }
  // Both branches passed a barrier after the tile stores: the tile is visible.

  // 2. Rank each owned key within its digit; place it in the digit-sorted chunk.
  let first = lid * KEYS_PER_THREAD;
  var flags = 0u;
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let p = first + j;
    // Positions past the live count count as digit 3 (flag 0): they follow every live key.
    if (p < live) {
      flags += digitFlag(digitOf(tileKeys[p], passInfo));
    }
  }
  let scanned = wgScan(flags, ids, wg);
  var before = scanned.x;
  let c0 = packedField(scanned.y, 0u);
  let c1 = packedField(scanned.y, 1u);
  let c2 = packedField(scanned.y, 2u);
  let localStart = vec4<u32>(0u, c0, c0 + c1, c0 + c1 + c2);
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let p = first + j;
    if (p < live) {
      let key = tileKeys[p];
      let d = digitOf(key, passInfo);
      let place = localStart[d] + rankInDigit(before, p, d);
      sortedKeys[place] = key;
      sortedValues[place] = tileValues[p];
      before += digitFlag(d);
    }
  }
  workgroupBarrier();

  // 3. Write the digit runs out, coalesced; count the next pass's digits.
  let counting = passInfo.nextDigitMask != 0u;
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let e = j * WG_SIZE + lid;
    if (e < live) {
      let key = sortedKeys[e];
      let d = digitOf(key, passInfo);
      let dst = base[d] + e - localStart[d];
      dstKeys[dst] = key;
      dstValues[dst] = sortedValues[e];
      if (counting) {
        let half = dst / CHUNK - base[d] / CHUNK;
        let nd = (key >> (passInfo.shift + 2u)) & passInfo.nextDigitMask;
        atomicAdd(&nextShare[(d * 2u + half) * 4u + nd], 1u);
      }
    }
  }
  workgroupBarrier();

  // 4. Add this chunk's share of the next pass's counts.
  if (counting && lid < 32u) {
    let c = atomicLoad(&nextShare[lid]);
    if (c != 0u) {
      let d = lid / 8u;
      let outChunk = base[d] / CHUNK + (lid / 4u) % 2u;
      atomicAdd(&nextCounts[(lid % 4u) * numChunks + outChunk], c);
    }
  }
}
