// Loaded by sort/onesweep-kernels.ts (the pass pipeline).
// onesweep_pass: one whole radix pass (8-bit digit) in one kernel, after Adinets and
// Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs" (2022):
// rank the tile's keys by digit, find the tile's global digit offsets by decoupled
// look-back over the tiles before it, scatter.
// Dispatch: at least numTiles workgroups of WG_SIZE = RADIX invocations (2D grid).
//
//   0. Tile id: invocation 0 takes the next id from tileCounters[pass] (atomic), so ids
//      follow the order in which workgroups start: a tile only ever waits for tiles
//      that have started before it. Ids >= numTiles leave.
//   1. Load: the tile's TILE = WG_SIZE * KEYS_PER_THREAD keys into registers. The
//      workgroup is cut into rows of rowLanes = max(subgroup size, ROW_MIN)
//      invocations; a row owns a contiguous run of rowLanes * KEYS_PER_THREAD keys,
//      its subgroups consecutive parts of it, and a subgroup reads its part in rounds
//      of one key per lane (key j of a lane at tile index first + j * sgSize):
//
//        tile  [ row 0 | row 1 | ... ]    row [ subgroup 0 | subgroup 1 | ... ]
//        subgroup part [ round 0: lanes 0..sg-1 | round 1 | ... ]
//
//   2. Rank (stable): each row has 256 counters (u16, two to a u32) in wgTable. Its
//      subgroups take turns (subRounds = rowLanes / sgSize turns, a barrier between),
//      and within a turn the subgroup goes through its rounds in order: matchDigit
//      finds each key's peers (same digit, same round), the leader adds their number
//      to the row's counter (one atomicAdd; the other lanes add 0, so the atomic needs
//      no divergent branch) and hands the old value to the peers (fromLeader); rank =
//      old + peers on lower lanes. Order within a row is thus (turn, round, lane) =
//      tile order. Portable variant: a subgroup is one invocation, so the rowLanes
//      invocations of a row take turns key by key.
//   3. Column scan: invocation w < 128 turns digits 2w, 2w+1 of every row into
//      exclusive sums over the rows (both u16 halves at once) and so gets the tile's
//      digit counts. The tile publishes them at once (flag aggregate). The values are
//      loaded just before (registers; in flight during steps 3 and 4).
//   4. One exclusive scan over the 256 digits of (tile count, global histogram count)
//      gives the tile-local start of each digit and its global base (the exclusive
//      scan of the global histogram rides along: no scan kernel). Tile 0 publishes its
//      inclusive words (base + count).
//   5. The first look-back poll is issued; while it is in flight the tile is sorted by
//      digit in workgroup memory (nothing here needs global offsets): place = rank +
//      the row's exclusive sum for d (table) + start[d]; the keys go to their places in
//      wgStage and invocation t reads places e = i * WG_SIZE
//      + t back (coalesced digit runs), then the values the same way (plain stores: the
//      stage is not atomic). Sorted keys and values end in registers. (A second stage
//      for the values, or values staged through the atomic counter table, costs
//      workgroup memory: fewer workgroups per SM, measurably slower.) Done before the
//      look-back rather than after, so that the look-back's latency hides behind the
//      staging (docs/PERFORMANCE.md, "onesweep pass kernel").
//   6. Look-back, invocation d for digit d: walk back over predecessors' words adding
//      values, past aggregates, until an inclusive word (or past tile 0: + base),
//      LOOKBACK_BATCH words loaded per poll (used up to the first not ready).
//      FORWARD PROGRESS. WebGPU promises none between workgroups: a predecessor that
//      has its id may never be scheduled again while we spin. So the walk gives up on a
//      word after spinLimit consecutive not-ready polls (0: at once, without polling),
//      and the workgroup takes the highest tile any of its invocations is stuck on and
//      counts that tile's digits itself from the input keys (immutable during the pass;
//      the Onesweep paper's fallback), adds the counts, publishes them as that tile's
//      aggregate (atomicMax: never lowers an inclusive word), and goes on walking.
//      Every round either ends the look-back or moves at least one invocation one tile
//      back, so it ends after at most 256 * tile rounds whatever the scheduler does.
//      The look-back is ~11% of the sort; what else was tried: docs/PERFORMANCE.md,
//      "onesweep pass kernel".
//   7. Publish the inclusive words (exclusive + count); clear this tile's words of the
//      next pass's status region; offset[d] = exclusive - start[d]; the sorted pair at
//      place e goes to dst[offset[d] + e].
//   8. In the sort's last pass the last workgroup to finish zeroes globals (finish()).
//
// Workgroup memory starts zeroed (WGSL zero-initialises it): wgStuck relies on it.

@group(0) @binding(0) var<uniform> passInfo: PassInfo;
@group(0) @binding(1) var<uniform> params: Params;
@group(1) @binding(0) var<storage, read> srcKeys: array<u32>;
@group(1) @binding(1) var<storage, read> srcValues: array<u32>;
@group(1) @binding(2) var<storage, read_write> dstKeys: array<u32>;
@group(1) @binding(3) var<storage, read_write> dstValues: array<u32>;
@group(2) @binding(0) var<storage, read_write> globals: array<atomic<u32>>;
@group(2) @binding(1) var<storage, read_write> status: array<atomic<u32>>;

const ROW_WORDS: u32 = RADIX / 2u;

// Per row: 256 u16 counters, digit d in half d % 2 of word d / 2 (step 2); then the
// row's exclusive sums over the rows before it (step 3).
// After step 5 it holds, per digit, the global offset minus the tile-local start (step 7).
// Workgroup memory is what bounds the workgroups an SM holds (on an H200 through Vulkan,
// ~64 KB an SM): arrays are reused across steps where their lives do not overlap.
var<workgroup> wgTable: array<atomic<u32>, max((WG_SIZE / ROW_MIN) * ROW_WORDS, RADIX)>;
// The tile sorted by digit (step 5): keys, then values.
var<workgroup> wgStage: array<u32, TILE>;
// Per digit: the tile's count, then its tile-local start (steps 3-5); then zeroed, the
// look-back fallback's digit counters (step 6).
var<workgroup> wgDigit: array<atomic<u32>, RADIX>;
var<workgroup> wgTile: u32;
var<workgroup> wgStuck: array<atomic<u32>, 2>;

var<workgroup> wgLast: u32;

// 8. In the sort's last pass every workgroup counts itself out (done, in globals); the
//    last one zeroes globals for the next sort (histograms, tile counters, done), so
//    that a direct-mode sort needs no prepare dispatch. Every workgroup of the grid
//    counts, those past numTiles too. Workgroup-uniform control flow.
fn finish(lid: u32, info: PassInfo, wg: WgUniform) {
  if (info.clearOffset != NO_REGION) {
    return;  // not the last pass
  }
  if (lid == 0u) {
    let done = atomicAdd(&globals[DONE_OFFSET], 1u) + 1u;
    wgLast = select(0u, 1u, done == wg.nwg.x * wg.nwg.y * wg.nwg.z);
  }
  if (workgroupUniformLoad(&wgLast) == 1u) {
    for (var i = lid; i < GLOBALS_WORDS; i += WG_SIZE) {
      atomicStore(&globals[i], 0u);
    }
  }
}

fn half16(word: u32, d: u32) -> u32 {
  return (word >> (16u * (d & 1u))) & 0xffffu;
}

@compute @workgroup_size(WG_SIZE)
fn main(ids: WgIds, wg: WgUniform) {
  let lid = ids.lid;
  let info = passInfo;

  // 0. Tile id in start order.
  if (lid == 0u) {
    wgTile = atomicAdd(&globals[COUNTERS_OFFSET + info.passIndex], 1u);
  }
  let tile = workgroupUniformLoad(&wgTile);
  if (tile >= params.numTiles) {
    finish(lid, info, wg);
    return;
  }
  let n = params.n;
  let tileStart = tile * TILE;
  let live = min(n - tileStart, TILE);
  // Digit lid's count over all keys (step 4), loaded now so that its latency hides
  // behind the tile's.
  let globalCount = atomicLoad(&globals[info.passIndex * RADIX + lid]);

  // 1. Load.
  let sg = subgroupSizeOf(wg);
  let lane = laneOf(ids);
  let rowLanes = max(sg, ROW_MIN);
  let subRounds = rowLanes / sg;
  let row = lid / rowLanes;
  let turn = (lid % rowLanes) / sg;
  let first = row * rowLanes * KEYS_PER_THREAD + turn * sg * KEYS_PER_THREAD + lane;
  var keys: array<u32, KEYS_PER_THREAD>;
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let e = first + j * sg;
    if (e < live) {
      keys[j] = srcKeys[tileStart + e];
    }
  }

  // 2. Rank within the row.
  var rank: array<u32, KEYS_PER_THREAD>;
  let rowBase = row * ROW_WORDS;
  for (var s = 0u; s < subRounds; s++) {
    let mine = turn == s;
    for (var j = 0u; j < KEYS_PER_THREAD; j++) {
      let valid = mine && first + j * sg < live;
      let d = digitOf(keys[j], info);
      let m = matchDigit(d, valid, lane);
      // Every lane adds, 0 unless it leads its peers: no divergent branch around the
      // atomic (faster than `if (leader)`: docs/PERFORMANCE.md, "onesweep pass kernel").
      let add = select(0u, m.count << (16u * (d & 1u)), valid && m.before == 0u);
      let old = fromLeader(atomicAdd(&wgTable[rowBase + d / 2u], add), m);
      if (valid) {
        rank[j] = half16(old, d) + m.before;
      }
    }
    if (subRounds > 1u) {
      workgroupBarrier();
    }
  }
  workgroupBarrier();
  // The values are staged in step 5: their loads fly during steps 3 and 4 (loading them
  // later to free registers was slower: docs/PERFORMANCE.md, "onesweep pass kernel").
  var values: array<u32, KEYS_PER_THREAD>;
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    let e = first + j * sg;
    if (e < live) {
      values[j] = srcValues[tileStart + e];
    }
  }

  // 3. Column scan over the rows; the tile's counts; publish them.
  let rows = WG_SIZE / rowLanes;
  if (lid < ROW_WORDS) {
    var sum = 0u;
    for (var r = 0u; r < rows; r++) {
      let i = r * ROW_WORDS + lid;
      let c = atomicLoad(&wgTable[i]);
      atomicStore(&wgTable[i], sum);
      sum += c;
    }
    atomicStore(&wgDigit[2u * lid], sum & 0xffffu);
    atomicStore(&wgDigit[2u * lid + 1u], sum >> 16u);
  }
  workgroupBarrier();
  let count = atomicLoad(&wgDigit[lid]);
  let word = info.statusOffset + tile * RADIX + lid;
  if (tile > 0u) {
    atomicStore(&status[word], FLAG_AGGREGATE | count);
  }

  // 4. Digit starts in the tile and global bases in one scan; tile 0 is inclusive at once.
  let scanned = wgExclusiveScan2(vec2<u32>(count, globalCount), ids, wg);
  let start = scanned.x;
  let base = scanned.y;
  if (tile == 0u) {
    atomicStore(&status[word], FLAG_INCLUSIVE | (base + count));
  }
  atomicStore(&wgDigit[lid], start);

  // 5. Sort the tile in workgroup memory while the look-back's first poll is in flight:
  //    none of it needs the global offsets. A key's place is rank + its row's exclusive
  //    sum (table) + the digit's tile-local start; the keys go to their places in
  //    wgStage and come back in place order (invocation t takes places e = i * WG_SIZE +
  //    t), then the values the same way: both end in registers, sorted. (Adding the
  //    starts to every row of the table first, to look up one word a key instead of
  //    two, costs a barrier and a serial loop: docs/PERFORMANCE.md, "onesweep pass
  //    kernel".)
  var k = tile;  // the next predecessor is tile k - 1; k == 0: done
  let region = info.statusOffset;
  var firstPoll: vec4<u32>;
  for (var b = 0u; b < LOOKBACK_BATCH; b++) {
    firstPoll[b] = atomicLoad(&status[region + (max(k, b + 1u) - b - 1u) * RADIX + lid]);
  }
  workgroupBarrier();
  var place: array<u32, KEYS_PER_THREAD>;
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    if (first + j * sg < live) {
      let d = digitOf(keys[j], info);
      place[j] = rank[j] + half16(atomicLoad(&wgTable[rowBase + d / 2u]), d) + atomicLoad(&wgDigit[d]);
      wgStage[place[j]] = keys[j];
    }
  }
  workgroupBarrier();
  atomicStore(&wgDigit[lid], 0u);  // last read before the barrier above; the fallback's counters now
  var sortedKeys: array<u32, KEYS_PER_THREAD>;
  var sortedValues: array<u32, KEYS_PER_THREAD>;
  for (var i = 0u; i < KEYS_PER_THREAD; i++) {
    sortedKeys[i] = wgStage[i * WG_SIZE + lid];
  }
  workgroupBarrier();
  for (var j = 0u; j < KEYS_PER_THREAD; j++) {
    if (first + j * sg < live) {
      wgStage[place[j]] = values[j];
    }
  }
  workgroupBarrier();
  for (var i = 0u; i < KEYS_PER_THREAD; i++) {
    sortedValues[i] = wgStage[i * WG_SIZE + lid];
  }

  // 6. Look-back, with the fallback (see the header). Two barriers a round.
  var exclusive = base;
  var usePoll = true;
  for (var round = 0u; ; round++) {
    var spins = 0u;
    while (k > 0u && spins < info.spinLimit) {
      // LOOKBACK_BATCH predecessors' words a poll, loaded together (one latency), used
      // in order up to the first that is not ready; past tile 0 the index is clamped
      // and the word unused. The first poll was issued before step 5.
      var ws = firstPoll;
      if (usePoll) {
        usePoll = false;
      } else {
        for (var b = 0u; b < LOOKBACK_BATCH; b++) {
          ws[b] = atomicLoad(&status[region + (max(k, b + 1u) - b - 1u) * RADIX + lid]);
        }
      }
      var progressed = false;
      for (var b = 0u; b < LOOKBACK_BATCH; b++) {
        let w = ws[b];
        if (k == 0u || w < FLAG_AGGREGATE) {
          break;
        }
        progressed = true;
        exclusive += w & VALUE_MASK;
        if (w >= FLAG_INCLUSIVE) {
          // Inclusive words already hold the base: take it back out of our sum.
          exclusive -= base;
          k = 0u;
        } else {
          k--;
        }
      }
      spins = select(spins + 1u, 0u, progressed);
    }
    // The first poll may be stale: with spinLimit 0 (never poll) it is not used at all.
    usePoll = false;
    // The stuck flag alternates between two words: one is read while the other is reset.
    let flag = round & 1u;
    if (k > 0u) {
      atomicMax(&wgStuck[flag], k);
    }
    let stuck = workgroupUniformLoad(&wgStuck[flag]);
    if (stuck == 0u) {
      break;
    }
    // Fallback: count the digits of tile stuck - 1 (a full tile: only the last is partial).
    let fallbackStart = (stuck - 1u) * TILE;
    for (var e = lid; e < TILE; e += WG_SIZE) {
      atomicAdd(&wgDigit[digitOf(srcKeys[fallbackStart + e], info)], 1u);
    }
    workgroupBarrier();
    if (lid == 0u) {
      atomicStore(&wgStuck[flag], 0u);  // read by all before the barrier; next used in round + 2
    }
    let c = atomicLoad(&wgDigit[lid]);
    atomicStore(&wgDigit[lid], 0u);  // only this invocation reads entry lid
    atomicMax(&status[region + (stuck - 1u) * RADIX + lid], FLAG_AGGREGATE | c);
    if (k == stuck) {
      exclusive += c;
      k--;
    }
  }

  // 7. Publish; clear the next pass's words; out in digit runs: the pair at place e goes
  //    to dst[offset[d] + e], offset[d] = global exclusive offset - tile-local start.
  if (tile > 0u) {
    atomicStore(&status[word], FLAG_INCLUSIVE | (exclusive + count));
  }
  if (info.clearOffset != NO_REGION) {
    atomicStore(&status[info.clearOffset + tile * RADIX + lid], 0u);
  }
  // wraps when start > exclusive: u32 arithmetic undoes it. wgTable was last read in step 5.
  atomicStore(&wgTable[lid], exclusive - start);
  workgroupBarrier();
  for (var i = 0u; i < KEYS_PER_THREAD; i++) {
    let e = i * WG_SIZE + lid;
    if (e < live) {
      let dst = atomicLoad(&wgTable[digitOf(sortedKeys[i], info)]) + e;
      dstKeys[dst] = sortedKeys[i];
      dstValues[dst] = sortedValues[i];
    }
  }
  finish(lid, info, wg);
}
