/**
 * bench:sort — times the GPU sort strategies in Node (Dawn).
 *
 *   npm run bench:sort -- [--sizes 65536,262144,...] [--strategies all|radix4,book-radix4,...]
 *                         [--bits 32[,16,...]] [--runs 30] [--warmup 5] [--live 1]
 *                         [--json PATH]
 *
 * --strategies all: the registry's strategies (sort/registry.ts) and book-radix4, the
 * baseline. By name also: the kernel variants below (portable kernels, indirect
 * dispatch) and `cpu` (the cpu strategy's sort on this CPU). A strategy this adapter
 * cannot run (a limit, a feature) is skipped with one line saying why.
 *
 * --live F: the live count on the GPU is floor(F * n) of n-key buffers (a culled
 * frame); Gkeys/s then counts the live keys.
 *
 * Per (strategy, size, bits): random u32 keys (seeded), values = index; warm-up runs
 * (at least --warmup and at least 300 ms) discarded; each timed run is one submit
 * holding only the sort, timed by timestamp queries at the start and end of the sort's
 * compute pass; the input is restored from a pristine copy in a submit of its own
 * before every run; the runs are queued back to back and awaited once. The first
 * run's output is read back and checked against the CPU reference. Without
 * 'timestamp-query' the CPU wall time of submit + onSubmittedWorkDone is used, and the
 * output says so.
 */
import fs from 'node:fs';
import { summarize } from '../renderer/profile/frame-stats.ts';
import { createNodeGpu, readBuffer } from '../renderer/gpu/node-gpu.ts';
import type { GpuSorter, SorterFactory } from '../sort/types.ts';
import { sortBufferUsage } from '../sort/types.ts';
import { sorterFactories } from '../sort/registry.ts';
import { createRadix4Factory } from '../sort/radix4.ts';
import { createRadix16Factory } from '../sort/radix16.ts';
import { createOnesweepFactory } from '../sort/onesweep.ts';
import { checkSortedPairs, cpuSortPairs, seededRandom } from '../sort/cpu-reference.ts';
import { CpuRadixSorter } from '../sort/cpu-sort.ts';
import { BookRadix4Sorter, BOOK_RADIX4_MAX_N } from './book-radix4/book-radix4.ts';

interface Strategy {
  name: string;
  /** Why the device cannot run it, or undefined. */
  unsupported(device: GPUDevice): string | undefined;
  /** Why it cannot run n keys, or undefined. */
  skip?(n: number, live: number): string | undefined;
  create(device: GPUDevice, capacity: number): GpuSorter;
  /** A CPU strategy: timed on the CPU instead (see cpuRow). */
  cpu?: true;
  /** Part of `--strategies all`. */
  inAll: boolean;
}

/**
 * Kernel variants beside the registry's defaults (by name only): the portable kernels,
 * indirect dispatch, and onesweep's 18-key tiles, which need 36,420 bytes of workgroup
 * memory: more than CPU adapters give (test/gpu/sort-bench.test.ts sees it skipped), and
 * on an H200 one workgroup per SM (docs/PERFORMANCE.md).
 */
const variants = [
  createRadix4Factory({ dispatch: 'indirect' }),
  createRadix4Factory({ subgroups: 'off' }),
  createRadix16Factory({ subgroups: 'off' }),
  createOnesweepFactory({ subgroups: 'off' }),
  createOnesweepFactory({ keysPerThread: 18 }),
];
const fromFactory = (f: SorterFactory, inAll: boolean): Strategy => ({
  name: f.name,
  unsupported: (device) => (f.unsupportedReason ? f.unsupportedReason(device) : f.supported(device) ? undefined : 'not supported on this device'),
  create: (device, capacity) => f.create(device, capacity),
  inAll,
});
/** Registry strategies, the book's sort as the baseline, the variants, the cpu sort. */
const strategies: Strategy[] = [
  ...sorterFactories.map((f) => fromFactory(f, true)),
  {
    name: 'book-radix4',
    unsupported: () => undefined,
    skip: (n: number, live: number) =>
      n > BOOK_RADIX4_MAX_N
        ? `the book's sort holds at most ${BOOK_RADIX4_MAX_N} keys`
        : live < n
          ? 'the book\'s sort has no live count on the GPU'
          : undefined,
    create: (device: GPUDevice, capacity: number) => new BookRadix4Sorter(device, capacity),
    inAll: true,
  },
  ...variants.map((f) => fromFactory(f, false)),
  {
    // The `cpu` strategy's sort (sort/cpu-sort.ts) on this machine's CPU, for scale:
    // in the viewer it also computes depths and runs in a Web Worker.
    name: 'cpu',
    unsupported: () => undefined,
    cpu: true,
    create: () => {
      throw new Error('cpu is timed on the CPU');
    },
    inAll: false,
  },
];

/**
 * Creates a sorter, or says why it cannot be made here: a RangeError of its own checks
 * (a limit it exceeds), or a WebGPU error while its pipelines compile.
 */
async function tryCreate(device: GPUDevice, strategy: Strategy, n: number): Promise<GpuSorter | string> {
  device.pushErrorScope('validation');
  device.pushErrorScope('internal');
  let sorter: GpuSorter | undefined;
  let why: string | undefined;
  try {
    sorter = strategy.create(device, n);
  } catch (err) {
    why = err instanceof Error ? err.message : String(err);
  }
  const internal = await device.popErrorScope();
  const validation = await device.popErrorScope();
  const gpuError = validation ?? internal;
  if (gpuError) why ??= `WebGPU error while creating it: ${gpuError.message.split('\n')[0]}`;
  if (why !== undefined) {
    sorter?.destroy();
    return why;
  }
  return sorter!;
}

interface Row {
  strategy: string;
  n: number;
  bits: number;
  /** Live count, when below n (--live). */
  live?: number;
  medianMs: number;
  minMs: number;
  gkeysPerSec: number;
  verified: boolean;
}

function fail(reason: string): never {
  console.error(`bench:sort: ${reason}`);
  process.exit(2);
}

function parseArgs(argv: string[]) {
  const opts = {
    sizes: [65536, 262144, 1048576, 4194304, 8388608, 16777216],
    strategies: 'all',
    bits: [32],
    runs: 30,
    warmup: 5,
    live: 1,
    json: undefined as string | undefined,
  };
  const ints = (flag: string, v: string) =>
    v.split(',').map((s) => {
      const x = Number(s);
      if (!Number.isInteger(x) || x < 1) fail(`${flag} wants positive integers, got '${s}'`);
      return x;
    });
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) fail(`${flag} needs a value`);
    i++;
    switch (flag) {
      case '--sizes': opts.sizes = ints(flag, value); break;
      case '--strategies': opts.strategies = value; break;
      case '--bits': opts.bits = ints(flag, value); break;
      case '--runs': opts.runs = ints(flag, value)[0]!; break;
      case '--warmup': opts.warmup = ints(flag, value)[0]!; break;
      case '--live': {
        opts.live = Number(value);
        if (!(opts.live > 0 && opts.live <= 1)) fail(`--live wants a fraction in (0, 1], got '${value}'`);
        break;
      }
      case '--json': opts.json = value; break;
      default: fail(`unknown option ${flag} (known: --sizes --strategies --bits --runs --warmup --live --json)`);
    }
  }
  if (opts.bits.some((b) => b > 32)) fail('--bits must be 1..32');
  if (opts.runs < 20) console.log(`note: --runs ${opts.runs} is below the 20 runs a reported figure wants`);
  return opts;
}

/** Warm-up lasts at least this long, whatever --warmup says. */
const WARMUP_MIN_MS = 300;

const median = (xs: number[]) => summarize(xs)?.median ?? NaN;

/** Times CpuRadixSorter (the cpu strategy's sort) on the CPU: wall time, same keys. */
function cpuRow(keys: Uint32Array, values: Uint32Array, n: number, bits: number, runs: number): Row {
  const sorter = new CpuRadixSorter();
  const order = new Uint32Array(keys.length);
  sorter.sortToOrder(keys, keys.length, bits, order);
  const want = cpuSortPairs(keys, values, bits).values;
  const verified = order.every((id, i) => values[id] === want[i]);
  const times: number[] = [];
  for (let r = 0; r < Math.min(runs, 10); r++) {
    const t0 = performance.now();
    sorter.sortToOrder(keys, keys.length, bits, order);
    times.push(performance.now() - t0);
  }
  const medianMs = median(times);
  return { strategy: 'cpu', n, bits, medianMs, minMs: Math.min(...times), gkeysPerSec: keys.length / (medianMs / 1e3) / 1e9, verified };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const chosen =
    opts.strategies === 'all'
      ? strategies.filter((s) => s.inAll)
      : opts.strategies.split(',').map((name) => strategies.find((s) => s.name === name) ?? fail(`unknown strategy '${name}' (known: ${strategies.map((s) => s.name).join(', ')}, all)`));

  const gpu = await createNodeGpu({ timestamps: true });
  const { device, info } = gpu;
  const timestamps = device.features.has('timestamp-query');
  console.log(`adapter: ${gpu.description}`);
  console.log(`vendor ${info.vendor || '?'}, architecture ${info.architecture || '?'}, description ${info.description || '?'}`);
  console.log(`subgroups: ${device.features.has('subgroups') ? `${info.subgroupMinSize}..${info.subgroupMaxSize}` : 'none'}`);
  console.log(timestamps ? 'timing: timestamp queries around the sort\'s compute pass' : 'timing: NO timestamp-query on this adapter: CPU wall time of submit + onSubmittedWorkDone (includes submit overhead)');
  device.addEventListener('uncapturederror', (e) => fail(`WebGPU error: ${(e as GPUUncapturedErrorEvent).error.message}`));

  const maxKeys = Math.floor(Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize) / 4);
  const rows: Row[] = [];
  const usage = sortBufferUsage();
  const runs = opts.runs;
  const querySet = timestamps ? device.createQuerySet({ label: 'bench.querySet', type: 'timestamp', count: 2 * runs }) : undefined;
  const resolve = timestamps ? device.createBuffer({ label: 'bench.resolve', size: 16 * runs, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }) : undefined;

  for (const n of opts.sizes) {
    if (n > maxKeys) {
      console.log(`note: skipping n=${n}: above maxStorageBufferBindingSize/4 = ${maxKeys} on this device`);
      continue;
    }
    for (const bits of opts.bits) {
      const next = seededRandom(0x5eed ^ n ^ (bits << 24));
      const keys = new Uint32Array(n).map(() => next());
      const values = new Uint32Array(n).map((_, i) => i);
      const buffer = (label: string, data: Uint32Array) => {
        const b = device.createBuffer({ label: `bench.${label}`, size: data.byteLength, usage, mappedAtCreation: true });
        new Uint32Array(b.getMappedRange()).set(data);
        b.unmap();
        return b;
      };
      const pristineKeys = buffer('pristineKeys', keys);
      const pristineValues = buffer('pristineValues', values);
      const jobKeys = buffer('keys', keys);
      const jobValues = buffer('values', values);
      const live = Math.floor(opts.live * n);
      const count = buffer('count', Uint32Array.of(live));
      const job = { keys: jobKeys, values: jobValues, count, keyBits: bits };

      for (const strategy of chosen) {
        const why = strategy.unsupported(device) ?? strategy.skip?.(n, live);
        if (why) {
          console.log(`skip: ${strategy.name} n=${n}: ${why}`);
          continue;
        }
        if (strategy.cpu) {
          const row = cpuRow(keys.subarray(0, live), values.subarray(0, live), n, bits, runs);
          rows.push(row);
          console.log(`${row.strategy.padEnd(22)} n=${String(n).padStart(9)} bits=${String(bits).padStart(2)}  median ${row.medianMs.toFixed(4)} ms  min ${row.minMs.toFixed(4)} ms  ${row.gkeysPerSec.toPrecision(4)} Gkeys/s  ${row.verified ? 'verified' : 'NOT VERIFIED'} (CPU wall time)`);
          continue;
        }
        const made = await tryCreate(device, strategy, n);
        if (typeof made === 'string') {
          console.log(`skip: ${strategy.name} n=${n}: ${made}`);
          continue;
        }
        const sorter = made;
        const restore = () => {
          const enc = device.createCommandEncoder({ label: 'bench.restore' });
          enc.copyBufferToBuffer(pristineKeys, 0, jobKeys, 0, n * 4);
          enc.copyBufferToBuffer(pristineValues, 0, jobValues, 0, n * 4);
          device.queue.submit([enc.finish()]);
        };
        const sortOnce = async (): Promise<number> => {
          const enc = device.createCommandEncoder({ label: 'bench.sort' });
          sorter.encode(enc, job);
          const t0 = performance.now();
          device.queue.submit([enc.finish()]);
          await device.queue.onSubmittedWorkDone();
          return performance.now() - t0;
        };

        // Verify on the first run, then warm up for a number of runs AND a minimum time:
        // after the CPU check the GPU has idled and its clocks take a while to come back.
        restore();
        await sortOnce();
        const outKeys = new Uint32Array(await readBuffer(device, jobKeys, n * 4));
        const outValues = new Uint32Array(await readBuffer(device, jobValues, n * 4));
        const check = checkSortedPairs(keys.subarray(0, live), values.subarray(0, live), outKeys, outValues, bits);
        const untouched = outKeys.subarray(live).every((k, i) => k === keys[live + i]);
        const verified = check.ok && untouched;
        if (!untouched) console.log(`VERIFY FAILED ${strategy.name} n=${n} bits=${bits}: keys past the live count changed`);
        if (!check.ok) console.log(`VERIFY FAILED ${strategy.name} n=${n} bits=${bits}: ${check.message}`);
        const warmupStart = performance.now();
        for (let w = 0; w < opts.warmup || performance.now() - warmupStart < WARMUP_MIN_MS; w++) {
          restore();
          await sortOnce();
        }
        // Timed runs are queued back to back (restore, sort, restore, sort, ...) and
        // awaited once, so the GPU does not idle between runs at lowered clocks; the
        // timestamps cover each sort's compute pass only. Without timestamps each run
        // is awaited alone and timed on the CPU.
        const times: number[] = [];
        if (querySet && resolve) {
          for (let r = 0; r < runs; r++) {
            restore();
            const enc = device.createCommandEncoder({ label: 'bench.sort' });
            sorter.encode(enc, job, { querySet, beginIndex: 2 * r, endIndex: 2 * r + 1 });
            device.queue.submit([enc.finish()]);
          }
          const enc = device.createCommandEncoder({ label: 'bench.resolveQueries' });
          enc.resolveQuerySet(querySet, 0, 2 * runs, resolve, 0);
          device.queue.submit([enc.finish()]);
          const t = new BigUint64Array(await readBuffer(device, resolve));
          for (let r = 0; r < runs; r++) times.push(Number(t[2 * r + 1]! - t[2 * r]!) / 1e6);
        } else {
          for (let r = 0; r < runs; r++) {
            restore();
            times.push(await sortOnce());
          }
        }
        sorter.destroy();
        const medianMs = median(times);
        const row: Row = {
          strategy: strategy.name,
          n,
          bits,
          ...(live < n ? { live } : {}),
          medianMs,
          minMs: Math.min(...times),
          gkeysPerSec: live / (medianMs / 1e3) / 1e9,
          verified,
        };
        rows.push(row);
        console.log(
          `${row.strategy.padEnd(22)} n=${String(n).padStart(9)}${live < n ? ` live=${live}` : ''} bits=${String(bits).padStart(2)}  median ${row.medianMs.toFixed(4)} ms  min ${row.minMs.toFixed(4)} ms  ${row.gkeysPerSec.toPrecision(4)} Gkeys/s  ${verified ? 'verified' : 'NOT VERIFIED'}`,
        );
      }
      for (const b of [pristineKeys, pristineValues, jobKeys, jobValues, count]) b.destroy();
    }
  }

  console.log('');
  console.log(`| strategy | n${opts.live < 1 ? ' (live)' : ''} | bits | median ms | min ms | Gkeys/s | verified |`);
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    console.log(`| ${r.strategy} | ${r.n}${r.live !== undefined ? ` (${r.live})` : ''} | ${r.bits} | ${r.medianMs.toFixed(4)} | ${r.minMs.toFixed(4)} | ${r.gkeysPerSec.toPrecision(4)} | ${r.verified ? 'yes' : 'NO'} |`);
  }
  if (opts.json) {
    fs.writeFileSync(opts.json, JSON.stringify(rows, null, 2) + '\n');
    console.log(`wrote ${opts.json}`);
  }
  querySet?.destroy();
  resolve?.destroy();
  device.destroy();
  if (rows.some((r) => !r.verified)) process.exit(1);
}

await main();
