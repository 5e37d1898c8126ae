/**
 * The import arrows (.dependency-cruiser.cjs) and the DOM rule (tsconfig.core.json)
 * must hold on the project, and must fail on a tree that breaks them: each rule
 * is run over a small fixture tree with one violation per rule.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(ROOT, 'test-output', 'architecture-fixture');
const BIN = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

function write(rel: string, text: string): void {
  const file = path.join(FIXTURE, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function run(bin: string, args: string[], cwd: string): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync(BIN(bin), args, { cwd, encoding: 'utf8', stdio: 'pipe', maxBuffer: 256 << 20 }) };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, out: `${err.stdout}${err.stderr}` };
  }
}

function violatedRules(cwd: string, config: string, dirs: string[]): string[] {
  const { out } = run('depcruise', [...dirs, '--config', config, '--output-type', 'json'], cwd);
  const result = JSON.parse(out) as { summary: { violations: { rule: { name: string } }[] } };
  return [...new Set(result.summary.violations.map((v) => v.rule.name))].sort();
}

describe('architecture rules', () => {
  beforeAll(() => {
    fs.rmSync(FIXTURE, { recursive: true, force: true });
    write('sort/sorter.ts', "import { cloud } from '../scenes/cloud';\nexport const s = cloud;\n");
    write('scenes/cloud.ts', "import { pass } from '../renderer/draw/pass';\nexport const cloud = pass;\n");
    write('renderer/draw/pass.ts', "import { oracle } from '../../test/oracle';\nexport const pass = oracle;\n");
    write('renderer/draw/dom.ts', 'export const title: string = document.title;\n');
    write('renderer/profile/stats.ts', "import { app } from '../../app/app';\nexport const stats = app;\n");
    write('renderer/gpu/device.ts', "import { s } from '../../sort/sorter';\nexport const d = s;\n");
    write('renderer/project/pass.ts', "import { frame } from '../frame/frame';\nexport const p = frame;\n");
    write('renderer/frame/frame.ts', 'export const frame = 1;\n');
    write('app/app.ts', "import { pass } from '../renderer/draw/pass';\nexport const app = [document.title, pass];\n");
    write('test/oracle.ts', 'export const oracle = 1;\n');
    write('cycle/a.ts', "import { b } from './b';\nexport const a = b;\n");
    write('cycle/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
    write(
      '.dependency-cruiser.cjs',
      `const base = require(${JSON.stringify(path.join(ROOT, '.dependency-cruiser.cjs'))});\n` +
        'module.exports = { ...base, options: { ...base.options, tsConfig: undefined } };\n',
    );
    write(
      'tsconfig.core.json',
      JSON.stringify({
        extends: path.join(ROOT, 'tsconfig.core.json'),
        include: ['renderer', 'sort', 'scenes'],
      }),
    );
  });
  afterAll(() => fs.rmSync(FIXTURE, { recursive: true, force: true }));

  it('hold on the project', () => {
    const violated = violatedRules(ROOT, '.dependency-cruiser.cjs', ['app', 'renderer', 'sort', 'scenes', 'shaders', 'bench', 'test']);
    expect(violated).toEqual([]);
  });

  it('fail on a tree that breaks every import rule', () => {
    const violated = violatedRules(FIXTURE, '.dependency-cruiser.cjs', ['sort', 'scenes', 'renderer', 'app', 'test', 'cycle']);
    expect(violated).toEqual([
      'gpu-room-is-a-leaf',
      'no-cycles',
      'page-uses-only-the-public-api',
      'product-does-not-import-bench-or-test',
      'renderer-project-uses-only-rooms-below',
      'scenes-have-no-gpu',
      'sort-is-generic',
      'the-page-is-the-top',
    ]);
  });

  it('type-check only app/ and renderer/api with the DOM', () => {
    const { code, out } = run('tsc', ['--noEmit', '-p', 'tsconfig.core.json'], FIXTURE);
    expect(code).not.toBe(0);
    expect(out).toContain("renderer/draw/dom.ts");
    expect(out).toContain("Cannot find name 'document'");
  });
}, 120_000);
