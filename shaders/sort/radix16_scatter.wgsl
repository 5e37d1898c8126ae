// Loaded by sort/radix16-kernels.ts (the scatter pipeline).
// radix16_scatter: the ranked, stable scatter of one 4-bit radix pass; it also counts
// the digits of the next pass for the tiles it writes to (so radix16_count runs once).
// Dispatch: one workgroup per TILE-key tile (TILE = WG_SIZE * KEYS_PER_THREAD).
// Two variants of steps 1-4: SG_RANK (subgroup modules) ranks within subgroups in
// registers; otherwise (portable) through a workgroup scan of per-invocation counts.
//   1. Load the tile: SG_RANK into registers (subgroup w owns positions w * sg * K ..,
//      key j of a lane at + j * sg + lane); portable: staged in tileKeys/tileValues
//      (coalesced loads). Then digitBase[d], the first output index of digit d for this
//      tile (i = d * numTiles + tile): the sum of the scanned levels,
//      level_l[i / SCAN_BLOCK^l] for l < activeLevels (radix16_scan), plus the exclusive
//      prefix of the top level (at most SCAN_BLOCK raw entries; the counts themselves up
//      to 64 tiles) at t = i / SCAN_BLOCK^activeLevels, which the workgroup scans
//      itself: invocation c sums entries c * SCAN_ITEMS .. + SCAN_ITEMS - 1, wgScan
//      gives their prefixes (kept in hist for a moment), and invocation d adds the
//      entries from its chunk's start up to t (loaded before the scan). Invocations
//      0..15 clear the tile's entries of clearCounts (pass p + 2's counts).
//   2-4, SG_RANK: rank16 (radix16_wg_subgroups.wgsl) gives each key its rank among its
//      subgroup's keys of the same digit; hist[d * numWarps + w] = subgroup w's count of
//      d, scanned in place; place = hist[d * numWarps + w] + rank. The keys go to their
//      places in tileKeys and come back in place order into registers, then the values
//      take their places in tileKeys (one staging array: more workgroups per SM).
//   2. Portable: invocation t owns tile positions t * KEYS_PER_THREAD .. + KEYS_PER_THREAD
//      - 1 (in order: that is what makes the sort stable) and copies them to registers.
//      It counts its digits in two u32 of 4-bit fields (KEYS_PER_THREAD <= 15) and
//      stores them as 16-bit fields, two digits a word, in the digit-pair-major table
//        hist[w * WG_SIZE + t] = count(t, 2w) | count(t, 2w + 1) << 16,  w = 0..7.
//   3. One exclusive scan of the 8 * WG_SIZE hist words, in place (each invocation sums
//      8 consecutive words, then wgScan). A field's sum over the whole tile is at most
//      TILE < 65536, so the two 16-bit fields never carry into each other. rowStart[w]
//      = the prefix at word (w, 0); rowStart[8] = the total. Then, for E = hist(w, t):
//        even d = 2w: place = lo(E) + hi(rowStart[w])
//        odd  d = 2w + 1: place = hi(E) + lo(rowStart[w + 1])
//      is where invocation t's first key of digit d goes in the tile sorted by digit
//      (lo(E) counts digit 2w before t and the even digits below it; hi(rowStart[w])
//      the odd digits below it; likewise for odd digits).
//   4. Each owned key goes to place + the number of its invocation's earlier keys of the
//      same digit, in the staging arrays (overwritten: all keys are in registers now).
//   5. Invocation t writes sorted positions e = j * WG_SIZE + t (coalesced runs):
//        dst = digitBase[d] + e - digitStart(d) (one table, digitShift, made in step 4);
//        dstKeys[dst] = key; dstValues[dst] = value
//      and, unless this is the last pass, counts the key's next digit nd in
//        nextShare[d][dst / TILE - digitBase[d] / TILE][nd]
//      (a digit's run of at most TILE keys touches at most two output tiles: 0 or 1),
//      through wgAggregate: one atomic per distinct counter of a subgroup where it can.
//   6. The non-zero nextShare entries are added to nextCounts (global atomics):
//        nextCounts[nd * numTiles + digitBase[d] / TILE + half] += share
// Workgroup arrays indexed by tile position are skewed by one word every 32 (skew(i)), so
// that invocations reading 8 consecutive entries do not collide on memory banks.
// The ranks are recomputed here from the keys rather than stored by an earlier kernel:
// a few barriers instead of global traffic.

// Two 16-bit digit counts per hist word: RADIX / 2 words per invocation.
const HIST_ROWS: u32 = 8u;
const NEXT_SHARE: u32 = 2u * RADIX * RADIX;  // [digit][output tile half][next digit]

// Groups 0 and 1 (passInfo, params; srcKeys, srcValues, dstKeys, dstValues): radix_bindings.wgsl.
@group(2) @binding(0) var<storage, read_write> counts: array<u32>;
@group(2) @binding(1) var<storage, read_write> nextCounts: array<atomic<u32>>;
@group(2) @binding(2) var<storage, read_write> clearCounts: array<u32>;
@group(2) @binding(3) var<storage, read_write> levels: array<u32>;

// The top level of the count scan: the raw counts, or the block totals of the last
// scanned level.
fn topEntry(e: u32) -> u32 {
  if (params.activeLevels == 0u) {
    return counts[e];
  }
  return levels[params.levelOffset[params.activeLevels] + e];
}

var<workgroup> tileKeys: array<u32, TILE + TILE / 32u>;
// The subgroup path (SG_RANK) stages the values in tileKeys too, after the keys: less
// workgroup memory, more workgroups per SM.
var<workgroup> tileValues: array<u32, select(TILE + TILE / 32u, 1u, SG_RANK)>;
// SG_RANK: the subgroup ranking (steps 2-4, subgroup variant) needs only the (digit,
// subgroup) counts, RADIX * MAX_SUBGROUPS words, and at least WG_SIZE for step 1's scan.
override SG_RANK: bool = false;
override MAX_SUBGROUPS: u32 = WG_SIZE / 4u;  // WG_SIZE / the smallest subgroup size
var<workgroup> hist: array<u32, select(HIST_ROWS * WG_SIZE + HIST_ROWS * WG_SIZE / 32u, max(RADIX * MAX_SUBGROUPS, WG_SIZE), SG_RANK)>;
var<workgroup> rowStart: array<u32, HIST_ROWS + 1u>;
var<workgroup> digitBase: array<u32, RADIX>;
var<workgroup> digitShift: array<u32, RADIX>;  // digitBase[d] - digitStart(d), mod 2^32
var<workgroup> nextShare: array<atomic<u32>, NEXT_SHARE>;

fn skew(i: u32) -> u32 {
  return i + (i >> 5u);
}

// The count of digit d in a pair of 4-bit-field counters (digits 0..7, 8..15).
fn nibble(lo: u32, hi: u32, d: u32) -> u32 {
  return (select(lo, hi, d >= 8u) >> ((d & 7u) * 4u)) & 15u;
}

// The tile position where digit d starts once the tile is sorted by digit (step 3).
fn digitStart(d: u32) -> u32 {
  let w = d >> 1u;
  let lower = select(rowStart[w], rowStart[w + 1u], (d & 1u) == 1u);
  return (lower & 0xffffu) + (rowStart[w] >> 16u);
}

@compute @workgroup_size(WG_SIZE)
fn main(ids: WgIds, wg: WgUniform) {
  let tile = linearWorkgroup(wg.wid, wg.nwg);
  let numTiles = params.numTiles;
  if (tile >= numTiles) {
    return;  // the whole workgroup: grids round up
  }
  let lid = ids.lid;
  let n = params.n;
  let start = tile * TILE;
  let live = min(n - start, TILE);

  // 1. Load the tile: SG_RANK straight into registers, subgroup by subgroup (subgroup w
  //    owns tile positions w * sg * KEYS_PER_THREAD .., key j of a lane at + j * sg +
  //    lane: coalesced, and in tile order as (subgroup, round, lane)); otherwise staged in
  //    tileKeys/tileValues, coalesced. Then the digit bases; every load they need is
  //    issued before the first barrier (the entries after the scanned top-level prefix
  //    included), so that one memory latency, not three, stands before the ranking
  //    (docs/PERFORMANCE.md, "radix16 scatter": these loads were ~40% of a scatter).
  let sgs = subgroupSizeOf(wg);
  let lane = laneOf(ids);
  let warp = lid / sgs;
  let numWarps = WG_SIZE / sgs;
  let wfirst = warp * sgs * KEYS_PER_THREAD + lane;
  var keys: array<u32, KEYS_PER_THREAD>;
  var values: array<u32, KEYS_PER_THREAD>;
  if (SG_RANK) {
    for (var j = 0u; j < KEYS_PER_THREAD; j++) {
      let p = wfirst + j * sgs;
      if (p < live) {
        keys[j] = srcKeys[start + p];
        values[j] = srcValues[start + p];
      }
    }
  } else {
    for (var j = 0u; j < KEYS_PER_THREAD; j++) {
      let p = j * WG_SIZE + lid;
      if (p < live) {
        tileKeys[skew(p)] = srcKeys[start + p];
        tileValues[skew(p)] = srcValues[start + p];
      }
    }
  }
  for (var s = lid; s < NEXT_SHARE; s += WG_SIZE) {
    atomicStore(&nextShare[s], 0u);
  }
  if (lid < RADIX) {
    clearCounts[lid * params.digitStride + tile] = 0u;
    let pad = padEntry(lid, tile);
    if (pad != 0xffffffffu) {
      clearCounts[pad] = 0u;
    }
  }
  var scannedBase = 0u;
  var topIndex = 0u;
  if (lid < RADIX) {
    var i = lid * params.digitStride + tile;
    for (var l = 0u; l < params.activeLevels; l++) {
      if (l == 0u) {
        scannedBase += counts[i];
      } else {
        scannedBase += levels[params.levelOffset[l] + i];
      }
      i /= SCAN_BLOCK;
    }
    topIndex = i;
  }
  // Every load below has an address known up front and a fixed trip count, so that the
  // loads issue together: a loop bounded by topIndex waited for each entry in turn
  // (docs/PERFORMANCE.md, "radix16 scatter").
  let topSize = params.topSize;
  let chunk = topIndex / SCAN_ITEMS;
  var partial = 0u;  // digit lid: the top-level entries from its chunk's start up to topIndex
  if (lid < RADIX) {
    for (var j = 0u; j < SCAN_ITEMS; j++) {
      let e = chunk * SCAN_ITEMS + j;
      let v = topEntry(min(e, topSize - 1u));
      partial += select(0u, v, e < topIndex);
    }
  }
  let chunkStart = lid * SCAN_ITEMS;
  var chunkSum = 0u;
  if (chunkStart < topSize) {  // the top level is often short (8M keys: 64 entries)
    for (var j = 0u; j < SCAN_ITEMS; j++) {
      let e = chunkStart + j;
      let v = topEntry(min(e, topSize - 1u));
      chunkSum += select(0u, v, e < topSize);
    }
  }
  hist[lid] = wgScan(chunkSum, ids, wg).x;
  workgroupBarrier();
  if (lid < RADIX) {
    digitBase[lid] = scannedBase + hist[chunk] + partial;
  }
  workgroupBarrier();

  var sortedKeys: array<u32, KEYS_PER_THREAD>;
  if (SG_RANK) {
    // 2-4, subgroup variant: rank16 ranks each key within its subgroup (registers only);
    // hist[d * numWarps + w] = subgroup w's count of digit d, scanned in place (digit-
    // major: the first place of subgroup w's keys of digit d in the tile sorted by
    // digit); each key goes to that + its rank.
    let lt = lanesBelow(lane);
    var rank: array<u32, KEYS_PER_THREAD>;
    var run = vec4<u32>(0u);
    for (var j = 0u; j < KEYS_PER_THREAD; j++) {
      rank[j] = rank16(digitOf(keys[j], passInfo), wfirst + j * sgs < live, lane, sgs, lt, &run);
    }
    for (var c = 0u; c < 4u; c++) {
      let d = lane + c * sgs;
      if (d < RADIX) {
        hist[d * numWarps + warp] = run[c];
      }
    }
    workgroupBarrier();
    let entries = RADIX * numWarps;
    let per = (entries + WG_SIZE - 1u) / WG_SIZE;
    var mine = 0u;
    for (var q = 0u; q < per; q++) {
      let e = lid * per + q;
      mine += select(0u, hist[min(e, entries - 1u)], e < entries);
    }
    var prefix = wgScan(mine, ids, wg).x;
    for (var q = 0u; q < per; q++) {
      let e = lid * per + q;
      if (e < entries) {
        let c = hist[e];
        hist[e] = prefix;
        prefix += c;
      }
    }
    workgroupBarrier();
    if (lid < RADIX) {
      digitShift[lid] = digitBase[lid] - hist[lid * numWarps];
    }
    // The keys go to their places, come back in place order (sortedKeys[j] at e = j *
    // WG_SIZE + lid), then the values take their places in the same array.
    var place: array<u32, KEYS_PER_THREAD>;
    for (var j = 0u; j < KEYS_PER_THREAD; j++) {
      if (wfirst + j * sgs < live) {
        place[j] = hist[digitOf(keys[j], passInfo) * numWarps + warp] + rank[j];
        tileKeys[skew(place[j])] = keys[j];
      }
    }
    workgroupBarrier();
    for (var j = 0u; j < KEYS_PER_THREAD; j++) {
      sortedKeys[j] = tileKeys[skew(j * WG_SIZE + lid)];
    }
    workgroupBarrier();
    for (var j = 0u; j < KEYS_PER_THREAD; j++) {
      if (wfirst + j * sgs < live) {
        tileKeys[skew(place[j])] = values[j];
      }
    }
    workgroupBarrier();
  } else {
  // 2. Own keys to registers; count their digits; store the counts in hist.
  let first = lid * KEYS_PER_THREAD;
  var lo = 0u;  // 4-bit counts of digits 0..7
  var hi = 0u;  // and 8..15
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let p = first + j;
    keys[j] = tileKeys[skew(p)];
    values[j] = tileValues[skew(p)];
    if (p < live) {
      let d = digitOf(keys[j], passInfo);
      let one = 1u << ((d & 7u) * 4u);
      lo += select(one, 0u, d >= 8u);
      hi += select(0u, one, d >= 8u);
    }
  }
  for (var w = 0u; w < HIST_ROWS; w++) {
    let byte = (select(lo, hi, w >= 4u) >> ((w & 3u) * 8u)) & 0xffu;
    hist[skew(w * WG_SIZE + lid)] = (byte & 15u) | ((byte >> 4u) << 16u);
  }
  workgroupBarrier();

  // 3. Exclusive scan of hist, in place.
  let hFirst = lid * HIST_ROWS;
  var words: array<u32, HIST_ROWS>;
  var wordSum = 0u;
  for (var k = 0u; k < HIST_ROWS; k++) {
    words[k] = hist[skew(hFirst + k)];
    wordSum += words[k];
  }
  let scanned = wgScan(wordSum, ids, wg);
  var prefix = scanned.x;
  for (var k = 0u; k < HIST_ROWS; k++) {
    hist[skew(hFirst + k)] = prefix;
    prefix += words[k];
  }
  if (hFirst % WG_SIZE == 0u) {
    rowStart[hFirst / WG_SIZE] = scanned.x;
  }
  if (lid == 0u) {
    rowStart[HIST_ROWS] = scanned.y;
  }
  workgroupBarrier();

  // 4. Place each owned key in the tile sorted by digit.
  if (lid < RADIX) {
    digitShift[lid] = digitBase[lid] - digitStart(lid);
  }
  var runLo = 0u;
  var runHi = 0u;
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    if (first + j < live) {
      let d = digitOf(keys[j], passInfo);
      let w = d >> 1u;
      let e = hist[skew(w * WG_SIZE + lid)];
      let place = select((e & 0xffffu) + (rowStart[w] >> 16u), (e >> 16u) + (rowStart[w + 1u] & 0xffffu), (d & 1u) == 1u)
        + nibble(runLo, runHi, d);
      let one = 1u << ((d & 7u) * 4u);
      runLo += select(one, 0u, d >= 8u);
      runHi += select(0u, one, d >= 8u);
      tileKeys[skew(place)] = keys[j];
      tileValues[skew(place)] = values[j];
    }
  }
  workgroupBarrier();
  }

  // 5. Write the digit runs out, coalesced; count the next pass's digits.
  let counting = passInfo.nextDigitMask != 0u;
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let e = j * WG_SIZE + lid;
    let valid = e < live;
    var key: u32;
    var value: u32;
    if (SG_RANK) {
      key = sortedKeys[j];
      value = tileKeys[skew(e)];
    } else {
      key = tileKeys[skew(e)];
      value = tileValues[skew(e)];
    }
    let d = digitOf(key, passInfo);
    let base = digitBase[d];
    let dst = digitShift[d] + e;
    if (valid) {
      dstKeys[dst] = key;
      dstValues[dst] = value;
    }
    if (counting) {
      let half = dst / TILE - base / TILE;
      let slot = (d * 2u + half) * RADIX + ((key >> (passInfo.shift + 4u)) & passInfo.nextDigitMask);
      let add = wgAggregate(slot, valid, ids, wg);
      if (add != 0u) {
        atomicAdd(&nextShare[slot], add);
      }
    }
  }
  workgroupBarrier();

  // 6. Add this tile's share of the next pass's counts.
  if (counting) {
    for (var s = lid; s < NEXT_SHARE; s += WG_SIZE) {
      let c = atomicLoad(&nextShare[s]);
      if (c != 0u) {
        let outTile = digitBase[s / (2u * RADIX)] / TILE + (s / RADIX) % 2u;
        atomicAdd(&nextCounts[(s % RADIX) * params.digitStride + outTile], c);
      }
    }
  }
}
