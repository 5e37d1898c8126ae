/**
 * `npm run bench:sort -- --strategies all` on this adapter (lavapipe) at small odd sizes:
 * it exits 0, prints a verified row for every registry strategy (or one line saying why
 * it skipped one, which lavapipe never needs), and writes JSON rows of the documented
 * shape. The program is the real one (scripts/run.mjs bundles bench/sort.ts), in a
 * child process, as a user runs it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sorterFactories } from '../../sort/registry';

const root = path.resolve(__dirname, '../..');
const sizes = [1, 513, 4097];

describe('bench:sort --strategies all (gpu)', () => {
  it('exits 0 with a verified row for every registry strategy and the baseline at n = 1, 513, 4097', () => {
    const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'splat-bench-sort-')), 'rows.json');
    const args = ['--strategies', 'all', '--sizes', sizes.join(','), '--bits', '32,13', '--runs', '2', '--warmup', '1', '--json', json];
    const r = spawnSync(process.execPath, ['scripts/run.mjs', 'bench/sort.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 170_000 });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).not.toMatch(/RangeError|VERIFY FAILED|NOT VERIFIED/);

    const rows = JSON.parse(fs.readFileSync(json, 'utf8')) as Record<string, unknown>[];
    expect(Array.isArray(rows)).toBe(true);
    const expected = [...sorterFactories.map((f) => f.name), 'book-radix4'];
    for (const name of expected) {
      for (const n of sizes) {
        for (const bits of [32, 13]) {
          const row = rows.find((x) => x.strategy === name && x.n === n && x.bits === bits);
          expect(row, `${name} n=${n} bits=${bits}`).toBeDefined();
          expect(out).toMatch(new RegExp(`^${name}\\s+n=\\s*${n} bits=${String(bits).padStart(2)}\\s.*verified$`, 'm'));
        }
      }
    }
    // Exactly those strategies, each row sane.
    expect(new Set(rows.map((x) => x.strategy))).toEqual(new Set(expected));
    expect(rows).toHaveLength(expected.length * sizes.length * 2);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['bits', 'gkeysPerSec', 'medianMs', 'minMs', 'n', 'strategy', 'verified']);
      expect(row.verified, JSON.stringify(row)).toBe(true);
      for (const k of ['medianMs', 'minMs', 'gkeysPerSec'] as const) {
        expect(Number.isFinite(row[k]), `${k} of ${JSON.stringify(row)}`).toBe(true);
        expect(row[k] as number).toBeGreaterThanOrEqual(0);
      }
      expect(row.minMs as number).toBeLessThanOrEqual(row.medianMs as number);
    }
  });

  it('a strategy the adapter cannot run is skipped with one line, not a crash', () => {
    // onesweep with 18 keys a thread needs 36,420 bytes of workgroup memory; lavapipe and
    // SwiftShader give 32,768.
    const r = spawnSync(process.execPath, ['scripts/run.mjs', 'bench/sort.ts', '--strategies', 'radix4,onesweep-k18', '--sizes', '513', '--runs', '2', '--warmup', '1'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toMatch(/^skip: onesweep-k18 n=513: .*workgroup memory.*$/m);
    expect(out.match(/onesweep-k18/g)).toHaveLength(1);
    expect(out).toMatch(/^radix4\s+n=\s*513 .*verified$/m);
  });
});
