/**
 * A seeded 400-case subset (13 to 30 a family) of `npm run fuzz` (bench/fuzz.ts): mutated real,
 * generated and hand-made scene files must give a consistent cloud or a
 * typed error - no garbage, no untyped error, no hang (the program's
 * watchdog decides hangs). The full 10,000-case run is in docs/ROBUSTNESS.md.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

describe('fuzz (400 seeded cases)', () => {
  it('zero garbage, zero untyped errors, zero hangs; every family exercised', () => {
    const r = spawnSync(process.execPath, ['scripts/run.mjs', 'bench/fuzz.ts', '--cases', '400', '--seed', '20261124', '--json'], {
      cwd: root, encoding: 'utf8', timeout: 170_000, maxBuffer: 1 << 24,
    });
    expect(r.error, String(r.error)).toBeUndefined();
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      cases: number;
      totals: Record<string, number>;
      families: Record<string, Record<string, number>>;
      failures: { outcome: string; index: number; family: string; what: string; detail: string }[];
    };
    expect(out.failures, JSON.stringify(out.failures.slice(0, 5))).toEqual([]);
    expect(out.cases).toBe(400);
    expect(out.totals).toMatchObject({ garbage: 0, untyped: 0, hang: 0 });
    expect(out.totals['consistent']).toBeGreaterThan(100);
    expect(out.totals['typed']).toBeGreaterThan(100);
    for (const [family, row] of Object.entries(out.families)) expect(Object.values(row).reduce((a, b) => a + b, 0), family).toBeGreaterThan(10);
    expect(r.status).toBe(0);
  }, 180_000);
});
