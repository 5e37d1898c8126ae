/**
 * npm run fuzz -- [--cases N] [--seed S] [--timeout-ms T] [--case I] [--json]
 *
 * Mutates the shared real scenes (../shared/scenes), generated files and
 * hand-made ASCII / big-endian / point-cloud / .splat / .spz files, a .sog and
 * a .glb splat-transform writes from the smallest shared PLY (families
 * and oracle in bench/fuzz-cases.ts), loads each case whole and as a stream,
 * and counts the outcomes per family: consistent cloud, typed error,
 * garbage, untyped error, hang. Cases run in a worker thread; a watchdog on
 * the main thread terminates the worker when one case runs past the time
 * limit (a hang), records it, and starts a new worker at the next case.
 * Exit code 1 when any case is garbage, untyped or a hang.
 *
 * --case I runs case I alone in this thread and prints what it was.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { buildCorpus, FAMILIES, familyOf, makeCase, runCase, type CaseResult, type Family, type Outcome } from './fuzz-cases';

const SHARED = path.resolve('..', 'shared', 'scenes');

interface Job {
  seed: number;
  from: number;
  to: number;
}

if (!isMainThread) {
  // Worker: run cases [from, to), one message a case.
  const job = workerData as Job;
  const corpus = buildCorpus(SHARED);
  parentPort!.postMessage({ ready: true });
  for (let i = job.from; i < job.to; i++) {
    const result = await runCase(makeCase(job.seed, i, corpus));
    parentPort!.postMessage({ result });
  }
} else {
  const { values } = parseArgs({
    options: {
      cases: { type: 'string', default: '10000' },
      seed: { type: 'string', default: '1' },
      'timeout-ms': { type: 'string', default: '10000' },
      case: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const cases = Number(values.cases);
  const seed = Number(values.seed);
  const timeoutMs = Number(values['timeout-ms']);
  if (![cases, seed, timeoutMs].every((n) => Number.isSafeInteger(n) && n >= 0)) {
    console.error('fuzz: --cases, --seed and --timeout-ms must be whole numbers');
    process.exit(2);
  }

  if (values.case !== undefined) {
    const i = Number(values.case);
    const k = makeCase(seed, i, buildCorpus(SHARED));
    console.log(`case ${i} (seed ${seed}): family ${k.family}, base ${k.base}, ${k.what}, ${k.bytes.length} bytes, chunks ${k.chunks.join('/')}`);
    console.log(await runCase(k));
    process.exit(0);
  }

  const t0 = performance.now();
  const results: CaseResult[] = [];
  const self = new URL(import.meta.url);
  let next = 0;
  while (next < cases) {
    // One worker per batch; a hang ends the batch early.
    const from = next;
    await new Promise<void>((resolve, reject) => {
      const worker = new Worker(self, { workerData: { seed, from, to: cases } satisfies Job });
      let timer: NodeJS.Timeout | undefined;
      let started = false;
      let dead = false; // after a hang or crash: late messages of this worker are ignored
      const arm = (ms: number): void => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          // The case now running is `next`: a hang.
          dead = true;
          results.push({ index: next, family: familyOf(seed, next), outcome: 'hang', base: '?', what: '?', detail: `no result after ${ms} ms` });
          next++;
          void worker.terminate().then(() => resolve());
        }, ms);
      };
      arm(120_000); // corpus building
      worker.on('message', (m: { ready?: boolean; result?: CaseResult }) => {
        if (dead) return;
        if (m.ready) started = true;
        if (m.result && m.result.index === next) {
          results.push(m.result);
          next = m.result.index + 1;
          if (!values.json && next % 500 === 0) process.stderr.write(`fuzz: ${next}/${cases} cases, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
        }
        if (started) arm(timeoutMs);
        if (next >= cases) {
          clearTimeout(timer);
          void worker.terminate().then(() => resolve());
        }
      });
      worker.on('error', (e) => {
        clearTimeout(timer);
        if (dead) return;
        dead = true;
        // A crash of the worker itself (e.g. out of memory) counts against the running case.
        results.push({ index: next, family: familyOf(seed, next), outcome: 'untyped', base: '?', what: '?', detail: `worker died: ${e.message}` });
        next++;
        resolve();
      });
      worker.on('exit', () => {
        clearTimeout(timer);
        if (next < cases && !started) reject(new Error('fuzz worker exited before starting'));
        resolve();
      });
    });
  }
  const seconds = (performance.now() - t0) / 1000;

  const outcomes: Outcome[] = ['consistent', 'typed', 'garbage', 'untyped', 'hang'];
  const table = new Map<Family, Record<Outcome, number>>(FAMILIES.map((f) => [f, { consistent: 0, typed: 0, garbage: 0, untyped: 0, hang: 0 }]));
  for (const r of results) table.get(r.family)![r.outcome]++;
  const totals = Object.fromEntries(outcomes.map((o) => [o, results.filter((r) => r.outcome === o).length])) as Record<Outcome, number>;
  const failures = results.filter((r) => r.outcome === 'garbage' || r.outcome === 'untyped' || r.outcome === 'hang');
  const cpus = os.cpus();
  const machine = `${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, node ${process.version}`;

  if (values.json) {
    console.log(JSON.stringify({ cases: results.length, seed, seconds, machine, totals, families: Object.fromEntries(table), failures: failures.slice(0, 50) }));
  } else {
    console.log(`fuzz: ${results.length} cases, seed ${seed}, ${seconds.toFixed(1)} s, ${machine}, ${new Date().toISOString()}`);
    console.log(`${'family'.padEnd(16)} ${outcomes.map((o) => o.padStart(11)).join('')}`);
    for (const [f, row] of table) console.log(`${f.padEnd(16)} ${outcomes.map((o) => String(row[o]).padStart(11)).join('')}`);
    console.log(`${'total'.padEnd(16)} ${outcomes.map((o) => String(totals[o]).padStart(11)).join('')}`);
    for (const r of failures.slice(0, 30)) console.log(`  ${r.outcome} case ${r.index} (${r.family}, ${r.base}, ${r.what}): ${r.detail}`);
    if (failures.length > 0) console.log(`reproduce one: npm run fuzz -- --seed ${seed} --case ${failures[0]!.index}`);
  }
  process.exit(failures.length > 0 ? 1 : 0);
}
