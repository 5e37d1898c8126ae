/**
 * The fuzz program's cases and oracle (bench/fuzz.ts runs them in a worker
 * with a watchdog). A case is fully determined by (seed, index): a base file
 * from the corpus and one mutation family. The oracle classifies what
 * loading it gives:
 *  - `consistent`: a cloud whose arrays match its count, with nothing
 *    undrawable in them (no NaN/Inf, values inside the sanitize limits, unit
 *    rotations, bounds that match), whose count plus dropped splats equals
 *    what the file declares, and that the stream loader reproduces exactly;
 *    for edits that do not change the content (CRLF, comments, trailing
 *    bytes...), the same cloud as the unedited file; and whose compact GPU
 *    packing (renderer/gpu-scene/compact-pack.ts packScene, as the loader's worker
 *    packs it) has finite ranges, decodes to
 *    finite values and finds nothing non-finite to replace (checkPacking);
 *  - `typed`: a SceneLoadError with a one-line message "FILE: CODE: ...",
 *    and the same error code from the stream loader;
 *  - `garbage`: a cloud that fails any check above (or a stream/whole mismatch);
 *  - `untyped`: any other error (a bug);
 *  - `hang`: decided by the runner's watchdog.
 */
import * as fflate from 'fflate';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeCompact, packScene } from '../renderer/gpu-scene/compact-pack';
import { sceneLayout } from '../renderer/gpu-scene/scene-precision';
import { SceneLoadError } from '../scenes/errors';
import { cloudBytesPerSplat } from '../scenes/budget';
import type { LoadOptions } from '../scenes/load-options';
import { implausibleScales } from '../scenes/robust';
import { referenceProblem } from '../scenes/references';
import { generateSynthetic } from '../scenes/generate';
import { loadScene } from '../scenes/load';
import { MAX_ABS_POSITION, MAX_ABS_SH, MAX_SCALE } from '../scenes/sanitize';
import { computeBounds, shCoeffCount, type SplatCloud } from '../scenes/splat-cloud';
import { loadSceneStream } from '../scenes/stream';
import { writeSplatPly } from '../scenes/write-ply';
import { writeSplatFile } from '../scenes/write-splat';
import { rawZstdFrame, writeSpz } from '../scenes/write-spz';
import { cat, ngspRle, spzHeader } from '../test/support/spz-bombs';

export type Outcome = 'consistent' | 'typed' | 'garbage' | 'untyped' | 'hang';

export const FAMILIES = [
  'truncation', 'bitflip-header', 'bitflip-body', 'special-floats', 'lying-count', 'property-edit', 'type-swap',
  'benign-edit', 'format-swap', 'extra-element', 'giant-header', 'random-bytes', 'container', 'spz-header', 'chunking', 'sog-glb',
  'lod-meta', 'references', 'bombs', 'declared-size', 'outliers',
] as const;
export type Family = (typeof FAMILIES)[number];

/** mulberry32 */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)]!;
  }
}

/** The family of case `index` (cheap: the runner names hung cases with it). */
export function familyOf(seed: number, index: number): Family {
  return FAMILIES[new Rng(seed * 1_000_003 + index * 7919 + 1).int(FAMILIES.length)]!;
}

export interface BaseFile {
  name: string;
  bytes: Uint8Array;
  kind: 'ply' | 'splat' | 'spz' | 'sog' | 'glb' | 'lod';
  /** The files a lod-meta.json names, by their path relative to it. */
  files?: Record<string, Uint8Array>;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const latin1 = (b: Uint8Array): string => new TextDecoder('latin1').decode(b);


/** A tiny independent PLY writer for hand-made files. */
function plyFile(format: 'ascii' | 'binary_little_endian' | 'binary_big_endian', props: [string, 'float' | 'uchar' | 'double' | 'int'][], rows: number[][], extra = ''): Uint8Array {
  const head = `ply\nformat ${format} 1.0\ncomment fuzz base\nelement vertex ${rows.length}\n${props.map(([n, t]) => `property ${t} ${n}\n`).join('')}${extra}end_header\n`;
  if (format === 'ascii') return enc(head + rows.map((r) => r.join(' ')).join('\n') + '\n');
  const size = { float: 4, uchar: 1, double: 8, int: 4 };
  const stride = props.reduce((a, [, t]) => a + size[t], 0);
  const body = new Uint8Array(rows.length * stride);
  const v = new DataView(body.buffer);
  const le = format === 'binary_little_endian';
  rows.forEach((r, i) => {
    let at = i * stride;
    props.forEach(([, t], j) => {
      const x = r[j]!;
      if (t === 'float') v.setFloat32(at, x, le);
      else if (t === 'double') v.setFloat64(at, x, le);
      else if (t === 'int') v.setInt32(at, x, le);
      else v.setUint8(at, x);
      at += size[t];
    });
  });
  return cat(enc(head), body);
}

function inriaProps(degree: number): [string, 'float'][] {
  const rest = ((degree + 1) ** 2 - 1) * 3;
  return ['x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2', ...Array.from({ length: rest }, (_, j) => `f_rest_${j}`), 'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3'].map((n) => [n, 'float']);
}

/** The corpus: shared real scenes (when present), generated files, hand-made ASCII / big-endian / point clouds / .splat / .spz. */
export function buildCorpus(sharedDir: string | null): BaseFile[] {
  const out: BaseFile[] = [];
  if (sharedDir !== null && fs.existsSync(sharedDir)) {
    for (const f of fs.readdirSync(sharedDir).filter((f) => f.endsWith('.ply')).sort()) {
      out.push({ name: f, bytes: new Uint8Array(fs.readFileSync(path.join(sharedDir, f))), kind: 'ply' });
    }
  }
  const small = generateSynthetic(300, 5);
  out.push({ name: 'gen-sh3.ply', bytes: writeSplatPly(small), kind: 'ply' });
  const sh0 = { ...generateSynthetic(120, 6) };
  const sh0cloud: SplatCloud = { ...sh0, shDegree: 0, sh: sh0.sh.filter((_, i) => i % 48 < 3) };
  out.push({ name: 'gen-sh0.ply', bytes: writeSplatPly(sh0cloud), kind: 'ply' });
  out.push({ name: 'gen.splat', bytes: writeSplatFile(small), kind: 'splat' });
  out.push({ name: 'gen-v2.spz', bytes: writeSpz(small, { version: 2 }), kind: 'spz' });
  out.push({ name: 'gen-v3.spz', bytes: writeSpz(small, { version: 3 }), kind: 'spz' });
  out.push({ name: 'gen-v4.spz', bytes: writeSpz(small, { version: 4 }), kind: 'spz' });
  out.push({ name: 'gen-v4-sh0.spz', bytes: writeSpz(sh0cloud, { version: 4 }), kind: 'spz' });
  const rng = new Rng(99);
  const splatRows = (n: number, degree: number): number[][] =>
    Array.from({ length: n }, () => inriaProps(degree).map(([p]) => (p.startsWith('scale') ? -3 - rng.next() * 2 : p === 'rot_0' ? 1 : Math.round((rng.next() - 0.5) * 2000) / 100)));
  out.push({ name: 'hand-ascii.ply', bytes: plyFile('ascii', inriaProps(1), splatRows(12, 1)), kind: 'ply' });
  out.push({ name: 'hand-be.ply', bytes: plyFile('binary_big_endian', inriaProps(1), splatRows(12, 1)), kind: 'ply' });
  const pts = Array.from({ length: 40 }, (_, i) => [i % 5, (i >> 2) % 3, i / 7, (i * 37) % 256, (i * 91) % 256, (i * 13) % 256]);
  const ptsProps: [string, 'float' | 'uchar'][] = [['x', 'float'], ['y', 'float'], ['z', 'float'], ['red', 'uchar'], ['green', 'uchar'], ['blue', 'uchar']];
  out.push({ name: 'hand-points-le.ply', bytes: plyFile('binary_little_endian', ptsProps, pts), kind: 'ply' });
  out.push({ name: 'hand-points-be.ply', bytes: plyFile('binary_big_endian', ptsProps, pts), kind: 'ply' });
  out.push({ name: 'hand-points-ascii-float.ply', bytes: plyFile('ascii', [['x', 'float'], ['y', 'float'], ['z', 'float'], ['red', 'float'], ['green', 'float'], ['blue', 'float']], pts.map((p) => [...p.slice(0, 3), p[3]! / 255, p[4]! / 255, p[5]! / 255])), kind: 'ply' });
  out.push(...splatTransformSeeds(sharedDir));
  out.push({ name: 'hand-mixed-types.ply', bytes: plyFile('binary_little_endian', inriaProps(0).map(([n], j) => [n, j % 3 === 0 ? 'double' : 'float']), splatRows(9, 0)), kind: 'ply' });
  return out;
}

/**
 * A .sog and a .glb written by splat-transform (the devDependency) from the
 * smallest shared PLY, into a temp dir that is removed at once; none when the
 * shared scenes or the CLI are missing.
 */
function splatTransformSeeds(sharedDir: string | null): BaseFile[] {
  const cli = path.resolve('node_modules', '.bin', 'splat-transform');
  const src = sharedDir === null ? '' : path.join(sharedDir, 'inria_sh3_tile_111.ply');
  if (!fs.existsSync(cli) || !fs.existsSync(src)) return [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-fuzz-'));
  try {
    execFileSync(cli, ['-q', '-w', '-g', 'cpu', src, 'seed.sog'], { cwd: dir, stdio: 'pipe' });
    execFileSync(cli, ['-q', '-w', '-g', 'cpu', src, 'seed.glb'], { cwd: dir, stdio: 'pipe' });
    // A streamed LOD scene: levels 0 (the tile), 1 and 2 (decimated), 64-splat leaves.
    execFileSync(cli, ['-q', '-w', src, '-d', '40%', 'l1.ply'], { cwd: dir, stdio: 'pipe' });
    execFileSync(cli, ['-q', '-w', src, '-d', '10%', 'l2.ply'], { cwd: dir, stdio: 'pipe' });
    execFileSync(cli, ['-q', '-w', '-g', 'cpu', '-i', '1', src, '-l', '0', 'l1.ply', '-l', '1', 'l2.ply', '-l', '2', '--lod-chunk-count', '1', '--lod-chunk-extent', '1', '--lod-chunk-min', '1', 'lod/lod-meta.json'], { cwd: dir, stdio: 'pipe' });
    const files: Record<string, Uint8Array> = {};
    const lodDir = path.join(dir, 'lod');
    for (const f of fs.readdirSync(lodDir, { recursive: true }) as string[]) {
      const full = path.join(lodDir, f);
      if (fs.statSync(full).isFile() && f !== 'lod-meta.json') files[f.split(path.sep).join('/')] = new Uint8Array(fs.readFileSync(full));
    }
    return [
      { name: 'st-sh3.sog', bytes: new Uint8Array(fs.readFileSync(path.join(dir, 'seed.sog'))), kind: 'sog' },
      { name: 'st-sh3.glb', bytes: new Uint8Array(fs.readFileSync(path.join(dir, 'seed.glb'))), kind: 'glb' },
      { name: 'st-lod-meta.json', bytes: new Uint8Array(fs.readFileSync(path.join(lodDir, 'lod-meta.json'))), kind: 'lod', files },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A value to put in a JSON field: right and wrong types, huge and negative sizes. */
const JSON_VALUES: unknown[] = [null, 0, 1, -1, 2, 3, 7, 255, 256, 65536, 2 ** 31, 2 ** 32 + 5, 2 ** 53, 1e300, 1.5, '', 'x', 'meta.json', [], [0, 1], {}, true];

/** Every path to a leaf or container in a JSON value (arrays: a few entries). */
function jsonPaths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.slice(0, 4).forEach((x, i) => jsonPaths(x, [...at, i], out));
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) jsonPaths(x, [...at, k], out);
  return out;
}

/** One edit of a JSON document: a field deleted, retyped or resized. */
function editJson(doc: unknown, rng: Rng): string {
  const paths = jsonPaths(doc).filter((p) => p.length > 0);
  const p = rng.pick(paths);
  let parent = doc as Record<string | number, unknown>;
  for (const k of p.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const key = p[p.length - 1]!;
  if (rng.next() < 0.3) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
    return `deleted ${p.join('.')}`;
  }
  const value = rng.pick(JSON_VALUES);
  parent[key] = structuredClone(value);
  return `${p.join('.')} = ${JSON.stringify(value)}`;
}

/** Where a PLY's body starts by a plain search (the mutator's own reading, not the loader's). */
function plyBodyStart(b: Uint8Array): number {
  const t = latin1(b.subarray(0, Math.min(b.length, 1 << 16)));
  const i = t.indexOf('end_header\n');
  return i < 0 ? -1 : i + 11;
}

/** A header as lines, plus the body, for text edits. */
function splitPly(b: Uint8Array): { lines: string[]; body: Uint8Array } | null {
  const start = plyBodyStart(b);
  if (start < 0) return null;
  return { lines: latin1(b.subarray(0, start - 1)).split('\n'), body: b.subarray(start) };
}
const joinPly = (lines: string[], body: Uint8Array, eol = '\n'): Uint8Array => cat(Uint8Array.from(lines.join(eol) + eol, (c) => c.charCodeAt(0) & 0xff), body);

export interface FuzzCase {
  index: number;
  family: Family;
  base: string;
  what: string;
  bytes: Uint8Array;
  /** Set for edits that do not change the content: the result must equal the base's. */
  sameAs?: Uint8Array;
  /** Chunk sizes for the stream loader. */
  chunks: number[];
  /** Files beside it (a lod-meta.json's SOG files), fetched by the loader by relative path. */
  files?: Record<string, Uint8Array>;
  /** Options both loads take (e.g. a small memory budget). */
  options?: LoadOptions;
  /** The error codes the case must end in (a cloud, or another code, is garbage). */
  expect?: string[];
  /** Outliers injected: the cloud must hold no implausible scale and pack with unstretched ranges. */
  outliers?: boolean;
}

const SPECIAL = [NaN, Infinity, -Infinity, 3.4e38, -3.4e38, 1e30, 89, 100, -0, 1e-45, 5e15];

/** Builds case `index` for `seed` from the corpus. */
export function makeCase(seed: number, index: number, corpus: BaseFile[]): FuzzCase {
  const family = familyOf(seed, index);
  const rng = new Rng(seed * 7_777_777 + index * 104_729 + 3);
  const plys = corpus.filter((c) => c.kind === 'ply');
  let base = rng.pick(corpus);
  const chunks = [1 + rng.int(rng.next() < 0.5 ? 64 : 200_000), 1 + rng.int(5000)];
  let files: Record<string, Uint8Array> | undefined;
  const c = (what: string, bytes: Uint8Array, sameAs?: Uint8Array): FuzzCase => {
    files ??= base.files;
    return { index, family, base: base.name, what, bytes, chunks, ...(sameAs ? { sameAs } : {}), ...(files ? { files } : {}) };
  };
  const b = base.bytes;
  if (family === 'references' || family === 'bombs' || family === 'declared-size' || family === 'outliers') {
    const made = hostileCase(family, rng, corpus);
    base = { name: made.base, bytes: made.bytes, kind: 'ply' };
    files = made.files;
    return { ...c(made.what, made.bytes), ...(made.options ? { options: made.options } : {}), ...(made.expect ? { expect: made.expect } : {}), ...(made.outliers ? { outliers: true } : {}) };
  }
  switch (family) {
    case 'truncation': {
      const start = base.kind === 'ply' ? plyBodyStart(b) : 16;
      const at = rng.next() < 0.3 ? rng.int(Math.max(1, start)) : rng.next() < 0.5 ? b.length - 1 - rng.int(Math.min(b.length, 300)) : rng.int(b.length);
      return c(`cut at ${at} of ${b.length}`, b.slice(0, Math.max(0, at)));
    }
    case 'bitflip-header':
    case 'bitflip-body': {
      const out = b.slice();
      const start = base.kind === 'ply' ? plyBodyStart(b) : base.kind === 'spz' ? 0 : 0;
      const lo = family === 'bitflip-header' ? 0 : Math.max(0, start);
      const hi = family === 'bitflip-header' ? Math.max(1, base.kind === 'ply' ? start : Math.min(b.length, 40)) : b.length;
      const flips = 1 + rng.int(6);
      const where: number[] = [];
      for (let k = 0; k < flips; k++) {
        const at = lo + rng.int(Math.max(1, hi - lo));
        if (at < out.length) out[at]! ^= 1 << rng.int(8);
        where.push(at);
      }
      return c(`flip bits at ${where.join(',')}`, out);
    }
    case 'special-floats': {
      base = rng.pick(plys.filter((p) => !p.name.includes('compressed') && !p.name.includes('ascii'))) ?? base;
      const out = base.bytes.slice();
      const start = plyBodyStart(out);
      const v = new DataView(out.buffer);
      const n = 1 + rng.int(20);
      const le = !latin1(out.subarray(0, 200)).includes('big_endian');
      for (let k = 0; k < n; k++) {
        const at = start + 4 * rng.int(Math.floor((out.length - start) / 4));
        if (at + 4 <= out.length) v.setFloat32(at, rng.pick(SPECIAL), le);
      }
      return c(`${n} special floats`, out);
    }
    case 'lying-count':
    case 'property-edit':
    case 'type-swap':
    case 'format-swap':
    case 'extra-element':
    case 'benign-edit': {
      base = rng.pick(plys);
      const sp = splitPly(base.bytes);
      if (sp === null) return c('unparsable base', base.bytes);
      const { lines, body } = sp;
      const elementLines = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('element '));
      const propLines = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('property '));
      if (family === 'lying-count') {
        const [l, i] = rng.pick(elementLines);
        const [, name, count] = l.split(' ');
        const n = Number(count);
        const lie = rng.pick([0, 1, n - 1, n + 1, n * 2, n + 256, 2 ** 32 + 5, 2 ** 53 - 1, 2 ** 53, 2 ** 31, -1]);
        lines[i] = `element ${name} ${lie}`;
        return c(`element ${name} ${n} -> ${lie}`, joinPly(lines, body));
      }
      if (family === 'property-edit') {
        const [l, i] = rng.pick(propLines);
        const op = rng.int(5);
        const words = l.split(' ');
        if (op === 0) lines.splice(i, 1);
        else if (op === 1) lines.splice(i, 0, l);
        else if (op === 2) lines[i] = [...words.slice(0, -1), rng.pick(['hasOwnProperty', '__proto__', 'constructor', 'toString', 'x', 'f_rest_99', 'opacity', 'packed_position', 'red', 'vertex_indices', 'é'])].join(' ');
        else if (op === 3) lines.splice(i, 0, `property ${rng.pick(['float', 'uchar', 'double', 'list uchar int'])} ${rng.pick(['hasOwnProperty', 'extra', 'nx', '__proto__'])}`);
        else lines.splice(i, 1, ...Array.from({ length: 1 + rng.int(3) }, () => l));
        return c(`property edit ${op} at line ${i}`, joinPly(lines, body));
      }
      if (family === 'type-swap') {
        const [l, i] = rng.pick(propLines);
        const words = l.split(' ');
        const t = rng.pick(['float', 'double', 'uchar', 'char', 'short', 'ushort', 'int', 'uint', 'float32', 'uint8', 'float64', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'float128', 'list uchar float', 'list float int']);
        words.splice(1, words.length - 2, t);
        lines[i] = words.join(' ');
        return c(`${l} -> ${lines[i]}`, joinPly(lines, body));
      }
      if (family === 'format-swap') {
        const i = lines.findIndex((x) => x.startsWith('format '));
        const f = rng.pick(['ascii', 'binary_big_endian', 'binary_little_endian', 'binary_middle_endian']);
        lines[i] = `format ${f} 1.0`;
        return c(`format -> ${f}`, joinPly(lines, body));
      }
      if (family === 'extra-element') {
        const op = rng.int(4);
        const vi = lines.findIndex((x) => x.startsWith('element vertex'));
        const count = rng.pick([0, 1, 3, 2 ** 53 - 1, 2 ** 32 + 5]);
        const decl = op === 0 ? [`element empty ${count}`] : op === 1 ? [`element extra ${count}`, 'property float a'] : op === 2 ? [`element face ${count}`, 'property list uchar int vertex_indices'] : [`element vertex ${count}`, 'property float x'];
        const at = rng.next() < 0.5 ? vi : lines.length;
        lines.splice(at, 0, ...decl);
        const pad = rng.next() < 0.5 ? new Uint8Array(rng.int(64)).map(() => rng.int(256)) : new Uint8Array(0);
        return c(`element '${decl[0]}' at line ${at}, ${pad.length} bytes appended`, joinPly(lines, cat(body, pad)));
      }
      // benign-edit: the content stays the same.
      const op = rng.int(6);
      const original = base.bytes;
      if (op === 0) return c('CRLF header', joinPly(lines, body, '\r\n'), original);
      if (op === 1) {
        lines.splice(1 + rng.int(lines.length - 1), 0, 'comment end_header');
        return c('comment end_header line', joinPly(lines, body), original);
      }
      if (op === 2) {
        lines.splice(2, 0, 'comment caf\u00c3\u00a9 \u00e2\u0080\u0094 \u00f0\u009f\u0098\u0080 multi-byte UTF-8 as bytes');
        return c('multi-byte UTF-8 comment', joinPly(lines, body), original);
      }
      if (op === 3) {
        lines.splice(2, 0, 'obj_info made by fuzz');
        return c('obj_info line', joinPly(lines, body), original);
      }
      if (op === 4) {
        const ascii = latin1(original.subarray(0, 200)).includes('format ascii');
        if (ascii) return c('trailing blank lines in ASCII body', cat(original, enc('\n\n')), original);
        return c('trailing bytes holding end_header', cat(original, enc('\nend_header\nend_header \r\n')), original);
      }
      lines[lines.length - 1] = 'end_header \t';
      return c('trailing blanks after end_header', joinPly(lines, body), original);
    }
    case 'giant-header': {
      const op = rng.int(4);
      if (op === 3) return c('a 500,000-digit ASCII value', enc(`ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n${'7'.repeat(500_000)}${rng.pick(['x', '', '.5', 'e'])} 2 3\n`));
      if (op === 0) {
        const props = Array.from({ length: 45_000 }, (_, j) => `property float p${j}`).join('\n');
        return c('45,000 properties (a header just under 1 MB)', enc(`ply\nformat binary_little_endian 1.0\nelement vertex 1\n${props}\nend_header\n`));
      }
      if (op === 1) return c('2 MB of comments, no end_header', enc(`ply\nformat ascii 1.0\n${'comment xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'.repeat(60_000)}`));
      return c('a 900 KB comment line', enc(`ply\nformat ascii 1.0\ncomment ${'y'.repeat(900_000)}\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n`));
    }
    case 'random-bytes': {
      const n = rng.pick([0, 1, 3, 4, 31, 32, 64, 96, 320, 1000, 4096, 32 * rng.int(200)]);
      const out = new Uint8Array(n).map(() => rng.int(256));
      const prefix = rng.pick(['', 'ply\n', 'ply\r\n', 'NGSP', '\x1f\x8b']);
      return c(`${n} random bytes after "${prefix.replace(/[^\x20-\x7e]/g, '?')}"`, cat(Uint8Array.from(prefix, (ch) => ch.charCodeAt(0)), out));
    }
    case 'container': {
      const op = rng.int(5);
      if (op === 0) return c('gzip-wrapped PLY', fflate.gzipSync(rng.pick(plys).bytes.subarray(0, 200_000)));
      if (op === 1) return c('gzip of random bytes', fflate.gzipSync(new Uint8Array(rng.int(5000)).map(() => rng.int(256))));
      if (op === 2) {
        const h = new Uint8Array(32);
        h.set(enc('NGSP'));
        new DataView(h.buffer).setUint32(4, 4, true);
        new DataView(h.buffer).setUint32(8, rng.pick([1, 10, 1 << 20, 0xffffffff]), true);
        h[15] = rng.int(8);
        new DataView(h.buffer).setUint32(16, 32, true);
        return c('NGSP header and random tail', cat(h, new Uint8Array(rng.int(400)).map(() => rng.int(256))));
      }
      if (op === 3) return c('zip local header', cat(enc('PK\x03\x04'), new Uint8Array(60)));
      const frame = rawZstdFrame(new Uint8Array(rng.int(3000)).map(() => rng.int(256)));
      frame[4 + rng.int(frame.length - 4)]! ^= 1 << rng.int(8);
      const h = new Uint8Array(32 + 16);
      h.set(enc('NGSP'));
      const v = new DataView(h.buffer);
      v.setUint32(4, 4, true);
      v.setUint32(8, 1, true);
      h[15] = 1;
      v.setUint32(16, 32, true);
      v.setUint32(32, frame.length, true);
      v.setUint32(40, 9, true);
      return c('NGSP with a corrupt ZSTD frame', cat(h, frame));
    }
    case 'spz-header': {
      base = rng.pick(corpus.filter((x) => x.kind === 'spz'));
      const v4 = base.name.includes('v4');
      const raw = v4 ? base.bytes.slice() : fflate.gunzipSync(base.bytes);
      const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
      const field = rng.pick(v4 ? [4, 8, 12, 13, 14, 15, 16, 32, 40] : [4, 8, 12, 13, 14]);
      const value = rng.pick([0, 1, 2, 3, 4, 5, 9, 255, 299, 301, 600, 0xffffffff]);
      if (field === 12 || field === 13 || field === 14 || field === 15) raw[field] = value & 0xff;
      else v.setUint32(field, value >>> 0, true);
      return c(`spz field at ${field} = ${value}`, v4 ? raw : fflate.gzipSync(raw));
    }
    case 'chunking':
      return c(`stream chunks ${chunks.join('/')}`, b, b);
    case 'lod-meta': {
      // A streamed LOD manifest edited, or one of its SOG files broken or missing.
      const seed = corpus.find((x) => x.kind === 'lod');
      if (!seed) return c('no splat-transform LOD seed', b);
      base = seed;
      const names = Object.keys(seed.files!);
      const op = rng.int(4);
      if (op === 0) {
        const meta = JSON.parse(new TextDecoder().decode(seed.bytes));
        const what = editJson(meta, rng);
        return c(`lod-meta.json ${what}`, enc(JSON.stringify(meta)));
      }
      const target = rng.pick(names);
      const bytes = seed.files![target]!.slice();
      if (op === 1) {
        const n = 1 + rng.int(6);
        for (let k = 0; k < n; k++) bytes[rng.int(bytes.length)]! ^= 1 << rng.int(8);
        files = { ...seed.files!, [target]: bytes };
        return c(`${n} bit flips in ${target}`, seed.bytes);
      }
      if (op === 2) {
        if (target.endsWith('meta.json')) {
          const meta = JSON.parse(new TextDecoder().decode(bytes));
          const what = editJson(meta, rng);
          files = { ...seed.files!, [target]: enc(JSON.stringify(meta)) };
          return c(`${target} ${what}`, seed.bytes);
        }
        files = { ...seed.files!, [target]: bytes.subarray(0, rng.int(bytes.length)) };
        return c(`${target} cut`, seed.bytes);
      }
      const other = rng.pick(names);
      files = { ...seed.files!, [target]: seed.files![other]! };
      if (rng.next() < 0.4) delete files[target];
      return c(`${target} replaced by ${other} or removed`, seed.bytes);
    }
    case 'sog-glb': {
      // Structured edits that keep the container valid, so they reach the readers' checks.
      const seeds = corpus.filter((x) => x.kind === 'sog' || x.kind === 'glb');
      if (seeds.length === 0) return c('no splat-transform seeds', b);
      base = rng.pick(seeds);
      if (base.kind === 'sog') {
        const files = fflate.unzipSync(base.bytes);
        const op = rng.int(4);
        if (op === 0) {
          const meta = JSON.parse(new TextDecoder().decode(files['meta.json']));
          const what = editJson(meta, rng);
          return c(`meta.json ${what}`, fflate.zipSync({ ...files, 'meta.json': enc(JSON.stringify(meta)) }, { level: rng.int(2) === 0 ? 0 : 6 }));
        }
        const names = Object.keys(files).filter((n) => n.endsWith('.webp'));
        const target = rng.pick(names);
        const img = files[target]!.slice();
        if (op === 1) {
          const n = 1 + rng.int(6);
          for (let k = 0; k < n; k++) img[rng.int(img.length)]! ^= 1 << rng.int(8);
          return c(`${n} bit flips in ${target}`, fflate.zipSync({ ...files, [target]: img }, { level: 0 }));
        }
        if (op === 2) return c(`${target} cut`, fflate.zipSync({ ...files, [target]: img.subarray(0, rng.int(img.length)) }, { level: 0 }));
        // The other entry, or nothing, under the name.
        const other = rng.pick(names);
        const edited: Record<string, Uint8Array> = { ...files, [target]: files[other]! };
        if (rng.next() < 0.3) delete edited[target];
        return c(`${target} replaced by ${other} or removed`, fflate.zipSync(edited, { level: 0 }));
      }
      const v = new DataView(base.bytes.buffer, base.bytes.byteOffset);
      const jl = v.getUint32(12, true);
      const json = JSON.parse(new TextDecoder().decode(base.bytes.subarray(20, 20 + jl)));
      const bin = base.bytes.subarray(28 + jl);
      const what = editJson(json, rng);
      const j = enc(JSON.stringify(json));
      const jp = (j.length + 3) & ~3;
      const out = new Uint8Array(20 + jp + 8 + bin.length);
      const ov = new DataView(out.buffer);
      ov.setUint32(0, 0x46546c67, true);
      ov.setUint32(4, 2, true);
      ov.setUint32(8, out.length, true);
      ov.setUint32(12, jp, true);
      ov.setUint32(16, 0x4e4f534a, true);
      out.fill(0x20, 20, 20 + jp);
      out.set(j, 20);
      ov.setUint32(20 + jp, bin.length, true);
      ov.setUint32(24 + jp, 0x004e4942, true);
      out.set(bin, 28 + jp);
      return c(`glb JSON ${what}`, out);
    }
  }
}

/** What hostileCase makes: the file, the files beside it, options and the outcome it must have. */
interface HostileCase {
  base: string;
  what: string;
  bytes: Uint8Array;
  files?: Record<string, Uint8Array>;
  options?: LoadOptions;
  expect?: string[];
  outliers?: boolean;
}

/**
 * References that leave the folder (every one must be refused before it is
 * fetched: the files under those names are there and would load), the issue-33
 * bombs built small in memory (gzip of zeros, SPZ headers declaring 2^32 - 1 points,
 * ZSTD run-length frames, a zip entry declaring a gigabyte), declared sizes past
 * a memory budget, and scenes with 10% absurd splats.
 */
const HOSTILE_REFERENCES = [
  '../scene.bin', '../../../../etc/passwd', '../../../../dev/zero', '%2e%2e/scene.bin', '%2E%2E%2Fscene.bin', '%252e%252e/scene.bin', '.%2e/scene.bin',
  '/etc/passwd', '//evil.example/scene.bin', 'file:///etc/passwd', 'https://evil.example/scene.bin', 'C:\\scene.bin', 'C:/scene.bin',
  'a\\..\\..\\scene.bin', 'dir/../../scene.bin', 'dir//scene.bin', '', 'scene.bin\u0000.png',
];
const BENIGN_REFERENCES = ['scene.bin', './scene.bin', 'dir/scene.bin'];

/** A small .gltf (JSON and one .bin) with KHR_gaussian_splatting, SH degree 0. */
function tinyGltf(cloud: SplatCloud, primitives = 1): { json: Record<string, any>; bin: Uint8Array } {
  const n = cloud.count;
  const cols: [string, string, number, (i: number, c: number) => number][] = [
    ['POSITION', 'VEC3', 3, (i, c) => (c < 2 ? -1 : 1) * cloud.positions[i * 3 + c]!],
    ['KHR_gaussian_splatting:ROTATION', 'VEC4', 4, (i, c) => cloud.rotations[i * 4 + (c + 1) % 4]!],
    ['KHR_gaussian_splatting:SCALE', 'VEC3', 3, (i, c) => cloud.scales[i * 3 + c]!],
    ['KHR_gaussian_splatting:OPACITY', 'SCALAR', 1, (i) => cloud.opacities[i]!],
    ['KHR_gaussian_splatting:SH_DEGREE_0_COEF_0', 'VEC3', 3, (i, c) => cloud.sh[i * shCoeffCount(cloud.shDegree) * 3 + c]!],
  ];
  const total = cols.reduce((a, [, , k]) => a + k, 0) * n * 4;
  const bin = new Uint8Array(total);
  const f = new Float32Array(bin.buffer);
  const json: Record<string, any> = { asset: { version: '2.0' }, extensionsUsed: ['KHR_gaussian_splatting'], buffers: [{ uri: 'scene.bin', byteLength: total }], bufferViews: [], accessors: [], meshes: [{ primitives: [] }] };
  let at = 0;
  const attributes: Record<string, number> = {};
  cols.forEach(([key, type, k, get], a) => {
    for (let i = 0; i < n; i++) for (let c = 0; c < k; c++) f[at / 4 + i * k + c] = get(i, c);
    json.bufferViews.push({ buffer: 0, byteOffset: at, byteLength: n * k * 4 });
    json.accessors.push({ bufferView: a, componentType: 5126, count: n, type });
    attributes[key] = a;
    at += n * k * 4;
  });
  for (let p = 0; p < primitives; p++) json.meshes[0].primitives.push({ mode: 0, attributes, extensions: { KHR_gaussian_splatting: {} } });
  return { json, bin };
}



/** Built once per worker: gzip of zeros (costly to make, cheap to reuse). */
const gzipped = new Map<string, Uint8Array>();
function gzipOnce(key: string, make: () => Uint8Array): Uint8Array {
  let g = gzipped.get(key);
  if (!g) gzipped.set(key, (g = fflate.gzipSync(make(), { level: 9 })));
  return g;
}

function hostileCase(family: 'references' | 'bombs' | 'declared-size' | 'outliers', rng: Rng, corpus: BaseFile[]): HostileCase {
  const small = generateSynthetic(120, 7);
  if (family === 'references') {
    const op = rng.int(4);
    const benign = op === 3;
    const ref = benign ? rng.pick(BENIGN_REFERENCES) : rng.pick(HOSTILE_REFERENCES);
    const lod = corpus.find((x) => x.kind === 'lod');
    if ((op === 1 || op === 2) && lod) {
      const names = Object.keys(lod.files!);
      if (op === 1) {
        // An unbundled SOG (one of the LOD seed's chunk files) naming a texture outside its folder.
        const metaName = rng.pick(names.filter((n) => n.endsWith('meta.json')));
        const dir = metaName.slice(0, metaName.lastIndexOf('/') + 1);
        const meta = JSON.parse(new TextDecoder().decode(lod.files![metaName]));
        const field = rng.pick(['means', 'scales', 'quats', 'sh0']);
        const k = rng.int(meta[field].files.length);
        const real = meta[field].files[k];
        meta[field].files[k] = ref.replace('scene.bin', real);
        const files: Record<string, Uint8Array> = {};
        for (const n of names) if (n.startsWith(dir)) files[n.slice(dir.length)] = lod.files![n]!;
        files[meta[field].files[k]] = lod.files![dir + real]!;
        return { base: metaName, what: `meta.json ${field}.files[${k}] = ${JSON.stringify(meta[field].files[k])}`, bytes: enc(JSON.stringify(meta)), files, expect: ref === '' ? ['bad-sog'] : ['bad-reference'] };
      }
      // A lod-meta.json naming a chunk outside its folder.
      const meta = JSON.parse(new TextDecoder().decode(lod.bytes));
      const k = rng.int(meta.filenames.length);
      const real = meta.filenames[k];
      meta.filenames[k] = ref.replace('scene.bin', real);
      const files = { ...lod.files! };
      const dir = meta.filenames[k].slice(0, meta.filenames[k].lastIndexOf('/') + 1);
      for (const n of Object.keys(lod.files!)) if (n.startsWith(real.slice(0, real.lastIndexOf('/') + 1))) files[dir + n.slice(real.lastIndexOf('/') + 1)] = lod.files![n]!;
      files[meta.filenames[k]] = lod.files![real]!;
      return { base: lod.name, what: `lod-meta.json filenames[${k}] = ${JSON.stringify(meta.filenames[k])}`, bytes: enc(JSON.stringify(meta)), files, expect: ['bad-reference'] };
    }
    // A .gltf whose buffer (or image) URI is the reference; the .bin is there under that name too.
    const { json, bin } = tinyGltf(small);
    const image = !benign && rng.next() < 0.25;
    if (image) json.images = [{ uri: ref.replace('scene.bin', 'texture.png') }];
    else json.buffers[0].uri = ref;
    const files: Record<string, Uint8Array> = { 'scene.bin': bin, 'dir/scene.bin': bin };
    if (!image) {
      let decoded = ref;
      try {
        decoded = decodeURIComponent(ref);
      } catch {
        // kept as written
      }
      files[decoded] = bin;
    }
    return {
      base: 'tiny.gltf', what: `${image ? 'images[0]' : 'buffers[0]'}.uri = ${JSON.stringify(ref)}`, bytes: enc(JSON.stringify(json)), files,
      ...(benign ? {} : { expect: ['bad-reference'] }),
    };
  }
  if (family === 'bombs') {
    const op = rng.int(6);
    if (op === 0) {
      const mb = rng.pick([1, 4, 16]);
      return { base: 'zeros.spz', what: `gzip of ${mb} MB of zeros`, bytes: gzipOnce(`zeros${mb}`, () => new Uint8Array(mb << 20)), expect: ['bad-spz', 'bomb'] };
    }
    if (op === 1) {
      const n = rng.pick([0xffffffff, 2 ** 31, 1e9, 5e7]);
      return { base: 'huge.spz', what: `SPZ v3 header declaring ${n} points, then 64 KB of zeros`, bytes: gzipOnce(`v3-${n}`, () => cat(spzHeader(n), new Uint8Array(1 << 16))), expect: ['too-large', 'bomb'] };
    }
    if (op === 2) {
      // 400,000 points (8 MB of attributes) in an 8 KB gzip file: a bomb by its declared size.
      return { base: 'zeros-400k.spz', what: 'SPZ v3 header declaring 400000 points over 8 MB of zeros', bytes: gzipOnce('v3-400k', () => cat(spzHeader(400_000), new Uint8Array(8_000_000))), expect: ['bomb'] };
    }
    if (op === 3) {
      const n = rng.pick([1e6, 5e7, 0xffffffff]);
      return { base: 'rle.spz', what: `NGSP declaring ${n} points in ZSTD run-length frames`, bytes: ngspRle(n, 255), expect: ['bomb', 'too-large'] };
    }
    if (op === 4) {
      // A .sog whose meta.json entry declares a gigabyte from a few hundred bytes.
      const z = fflate.zipSync({ 'meta.json': enc('{"version": 2}'.padEnd(4000, ' ')) }, { level: 9 });
      const v = new DataView(z.buffer);
      let cd = z.length - 22;
      while (v.getUint32(cd, true) !== 0x06054b50) cd--;
      const first = v.getUint32(cd + 16, true);
      const size = rng.pick([1e9, 2 ** 32 - 2, 5e7]);
      v.setUint32(first + 24, size, true);
      return { base: 'bomb.sog', what: `zip entry meta.json declaring ${size} bytes`, bytes: z, expect: ['bomb'] };
    }
    // A .sog whose meta.json declares a count past the budget.
    const sog = corpus.find((x) => x.kind === 'sog');
    if (!sog) return { base: 'zeros.spz', what: 'gzip of 1 MB of zeros', bytes: gzipOnce('zeros1', () => new Uint8Array(1 << 20)), expect: ['bad-spz', 'bomb'] };
    const parts = fflate.unzipSync(sog.bytes);
    const meta = JSON.parse(new TextDecoder().decode(parts['meta.json']));
    meta.count = rng.pick([16383 * 16383, 1e8, 5e7]);
    return { base: sog.name, what: `meta.json count = ${meta.count}`, bytes: fflate.zipSync({ ...parts, 'meta.json': enc(JSON.stringify(meta)) }, { level: 0 }), expect: ['too-large', 'bad-image'] };
  }
  if (family === 'declared-size') {
    // Declared sizes past a (small) memory budget, in every format: refused in one line, before the arrays.
    const op = rng.int(4);
    const budget = (cloud: { count: number; shDegree: number }): LoadOptions => ({ memoryBudget: Math.max(1, Math.floor((cloud.count * cloudBytesPerSplat(cloud.shDegree)) / rng.pick([4, 8, 64]))) });
    if (op === 0) {
      const base = rng.pick(corpus.filter((x) => x.kind === 'ply' || x.kind === 'splat' || x.kind === 'spz'));
      // The count it declares, read independently (a budget a fraction of what that many splats of SH degree 0 need).
      const declared = base.kind === 'splat' ? base.bytes.length / 32
        : base.kind === 'spz' ? new DataView((base.name.includes('v4') ? base.bytes : fflate.gunzipSync(base.bytes)).slice(0, 16).buffer).getUint32(8, true)
        : Number(/\nelement vertex (\d+)/.exec(latin1(base.bytes.subarray(0, 4096)))?.[1] ?? 1);
      return { base: base.name, what: 'a memory budget below its declared splats', bytes: base.bytes, options: budget({ count: declared, shDegree: 0 }), expect: ['too-large'] };
    }
    if (op === 1) {
      // A .gltf with many primitives sharing one set of accessors: the count is not bounded by the buffer.
      const prims = 2 + rng.int(40);
      const { json, bin } = tinyGltf(small, prims);
      json.buffers[0].uri = `data:application/octet-stream;base64,${Buffer.from(bin).toString('base64')}`;
      return { base: 'shared-accessors.gltf', what: `${prims} primitives sharing one accessor set`, bytes: enc(JSON.stringify(json)), options: budget({ count: small.count * prims, shDegree: 0 }), expect: ['too-large'] };
    }
    if (op === 2) {
      const lod = corpus.find((x) => x.kind === 'lod');
      if (lod) return { base: lod.name, what: 'a memory budget below its finest level', bytes: lod.bytes, files: lod.files!, options: { memoryBudget: 1000 }, expect: ['too-large'] };
    }
    // SPZ headers declaring more points than the budget (and the file) hold.
    const spz = rng.pick(corpus.filter((x) => x.kind === 'spz'));
    const raw = spz.name.includes('v4') ? spz.bytes.slice() : fflate.gunzipSync(spz.bytes);
    new DataView(raw.buffer, raw.byteOffset).setUint32(8, rng.pick([0xffffffff, 2 ** 28, 2 ** 24]), true);
    return { base: spz.name, what: 'SPZ header declaring a huge point count', bytes: spz.name.includes('v4') ? raw : fflate.gzipSync(raw), expect: ['too-large', 'bomb', 'bad-spz', 'truncated'] };
  }
  // outliers: 10% (or one) absurd splats in a clean scene, written as PLY or .splat.
  const cloud = generateSynthetic(200 + rng.int(400), 11 + rng.int(5));
  const kind = rng.pick(['scale-inf', 'scale-1e38', 'log-scale-20', 'dc-1e30', 'sh-1e30', 'one-huge', 'mixed']);
  const every = kind === 'one-huge' ? cloud.count + 1 : rng.pick([10, 5, 20]);
  const K3 = shCoeffCount(cloud.shDegree) * 3;
  for (let i = 0; i < cloud.count; i++) {
    if (kind === 'one-huge' ? i !== 7 : i % every !== 3) continue;
    const k = kind === 'mixed' ? rng.pick(['scale-inf', 'scale-1e38', 'dc-1e30', 'sh-1e30']) : kind;
    if (k === 'scale-inf') cloud.scales[i * 3 + rng.int(3)] = Infinity;
    else if (k === 'scale-1e38') cloud.scales.fill(1e38, i * 3, i * 3 + 3);
    else if (k === 'log-scale-20' || k === 'one-huge') cloud.scales.fill(Math.exp(20), i * 3, i * 3 + 3);
    else if (k === 'dc-1e30') cloud.sh[i * K3 + rng.int(3)] = rng.pick([1e30, -1e30]);
    else cloud.sh[i * K3 + 3 + rng.int(K3 - 3)] = rng.pick([1e30, -1e30]);
  }
  const splat = rng.next() < 0.3 && !kind.startsWith('dc') && !kind.startsWith('sh');
  return { base: `outliers.${splat ? 'splat' : 'ply'}`, what: `${kind} in every ${every}th splat`, bytes: splat ? writeSplatFile(cloud) : writeSplatPly(cloud), outliers: true };
}

export interface CaseResult {
  index: number;
  family: Family;
  outcome: Outcome;
  base: string;
  what: string;
  detail: string;
}

/** Loads a case whole and as a stream and classifies it (an error of the oracle itself is `untyped`). */
export async function runCase(k: FuzzCase): Promise<CaseResult> {
  try {
    return await classify(k);
  } catch (e) {
    return { index: k.index, family: k.family, outcome: 'untyped', base: k.base, what: k.what, detail: `error outside the loader's calls: ${e instanceof Error ? e.message : String(e)}` };
  }
}

async function classify(k: FuzzCase): Promise<CaseResult> {
  const name = `case-${k.index}`;
  const r = (outcome: Outcome, detail: string): CaseResult => ({ index: k.index, family: k.family, outcome, base: k.base, what: k.what, detail });
  let cloud: SplatCloud;
  // Every name the loaders ask for is recorded: one that breaks the reference rule must never be fetched.
  const asked: string[] = [];
  const refused = (): string | null => {
    const bad = asked.find((n) => referenceProblem(n, false) !== null);
    return bad === undefined ? null : `the loader fetched ${JSON.stringify(bad)}, a reference the rule refuses`;
  };
  try {
    cloud = await loadScene(k.bytes, name, k.options, getterOf(k, asked));
  } catch (e) {
    if (!(e instanceof SceneLoadError)) return r('untyped', e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    if (refused()) return r('garbage', refused()!);
    if (k.expect && !k.expect.includes(e.code)) return r('garbage', `expected ${k.expect.join(' or ')}, got ${e.message}`);
    if (!e.message.startsWith(`${name}: ${e.code}: `) || /[\r\n]/.test(e.message)) return r('untyped', `badly formed message: ${e.message}`);
    // Every number a message prints comes from a checked value (issue 33).
    if (/\bNaN\b|\bundefined\b/.test(e.message)) return r('garbage', `a message prints an unchecked value: ${e.message}`);
    const s = await streamResult(k, name, asked);
    if (refused()) return r('garbage', `stream: ${refused()!}`);
    if (!(s instanceof SceneLoadError)) return r('garbage', `whole file: ${e.code}, stream: ${s instanceof Error ? s.message : 'a cloud'}`);
    if (s.code !== e.code) return r('garbage', `whole file: ${e.message} / stream: ${s.message}`);
    if (k.sameAs) {
      const expected = await wholeResult(k.sameAs, name, k.files);
      if (!(expected instanceof SceneLoadError) || expected.code !== e.code) return r('garbage', `an edit that keeps the content changed the result: ${e.message}`);
    }
    return r('typed', e.message);
  }
  if (refused()) return r('garbage', refused()!);
  if (k.expect) return r('garbage', `expected ${k.expect.join(' or ')}, got a cloud of ${cloud.count} splats`);
  const bad = checkCloud(cloud, k.bytes) ?? checkPacking(cloud) ?? (k.outliers ? checkOutliers(cloud) : null);
  if (bad !== null) return r('garbage', bad);
  const s = await streamResult(k, name, asked);
  if (refused()) return r('garbage', `stream: ${refused()!}`);
  if (!(s instanceof Object) || s instanceof Error) return r('garbage', `stream failed where the whole file loaded: ${s instanceof Error ? s.message : String(s)}`);
  const diff = compareClouds(cloud, s);
  if (diff !== null) return r('garbage', `stream differs: ${diff}`);
  if (k.sameAs) {
    const expected = await wholeResult(k.sameAs, name, k.files);
    if (expected instanceof Error) return r('garbage', `an edit made a bad file load: ${expected.message}`);
    const d = compareClouds(cloud, expected, true);
    if (d !== null) return r('garbage', `an edit that keeps the content changed the cloud: ${d}`);
  }
  return r('consistent', `${cloud.source.format} ${cloud.count} splats, dropped ${cloud.sanitized?.dropped}, clamped ${cloud.sanitized?.clamped}`);
}

/** The loader's way to the case's files beside it (none: undefined, as for a lone file). */
function getterOf(k: { files?: Record<string, Uint8Array> }, asked?: string[]): ((p: string) => Promise<Uint8Array>) | undefined {
  const files = k.files;
  if (!files) return undefined;
  return async (p) => {
    asked?.push(p);
    const f = Object.prototype.hasOwnProperty.call(files, p) ? files[p] : undefined;
    if (f === undefined) throw new Error(`no file '${p}'`);
    return f;
  };
}

async function wholeResult(bytes: Uint8Array, name: string, files?: Record<string, Uint8Array>): Promise<SplatCloud | Error> {
  try {
    return await loadScene(bytes, name, undefined, getterOf({ ...(files ? { files } : {}) }));
  } catch (e) {
    return e as Error;
  }
}

async function streamResult(k: FuzzCase, name: string, asked?: string[]): Promise<SplatCloud | Error> {
  async function* src(): AsyncGenerator<Uint8Array> {
    let at = 0;
    for (let i = 0; at < k.bytes.length; i++) {
      const n = k.chunks[i % k.chunks.length]!;
      yield k.bytes.slice(at, at + n);
      at += n;
    }
  }
  try {
    const getFile = getterOf(k, asked);
    return await loadSceneStream(name, src(), { totalBytes: k.bytes.length, ...(getFile ? { getFile } : {}), ...(k.options ?? {}) });
  } catch (e) {
    return e as Error;
  }
}

/** Null when the cloud is drawable and self-consistent, else what is wrong. */
export function checkCloud(c: SplatCloud, bytes: Uint8Array): string | null {
  const n = c.count;
  if (!(Number.isSafeInteger(n) && n > 0)) return `count ${n}`;
  const K3 = shCoeffCount(c.shDegree) * 3;
  const lengths: [string, Float32Array, number][] = [['positions', c.positions, 3], ['scales', c.scales, 3], ['rotations', c.rotations, 4], ['opacities', c.opacities, 1], ['sh', c.sh, K3]];
  for (const [k, a, per] of lengths) if (a.length !== n * per) return `${k}.length ${a.length} for ${n} splats`;
  for (let i = 0; i < n * 3; i++) {
    const p = c.positions[i]!;
    if (!(Math.abs(p) <= MAX_ABS_POSITION)) return `position[${i}] = ${p}`;
    const s = c.scales[i]!;
    if (!(s >= 0 && s <= MAX_SCALE)) return `scale[${i}] = ${s}`;
  }
  for (let i = 0; i < n; i++) {
    const o = c.opacities[i]!;
    if (!(o >= 0 && o <= 1)) return `opacity[${i}] = ${o}`;
    const r = c.rotations;
    const len = Math.hypot(r[i * 4]!, r[i * 4 + 1]!, r[i * 4 + 2]!, r[i * 4 + 3]!);
    if (!(Math.abs(len - 1) < 1e-5)) return `rotation ${i} has length ${len}`;
  }
  for (let i = 0; i < c.sh.length; i++) if (!(Math.abs(c.sh[i]!) <= MAX_ABS_SH)) return `sh[${i}] = ${c.sh[i]}`;
  const b = computeBounds(c.positions);
  if (JSON.stringify(b) !== JSON.stringify(c.bounds)) return `bounds ${JSON.stringify(c.bounds)} != ${JSON.stringify(b)}`;
  if (c.sanitized === undefined) return 'no sanitize report';
  const declared = declaredCount(c, bytes);
  if (declared !== null && declared !== n + c.sanitized.dropped) return `declared ${declared} splats, got ${n} + ${c.sanitized.dropped} dropped`;
  return null;
}

/**
 * Null when the cloud's compact GPU packing is clean: its ranges finite, every
 * value the GPU would decode finite, the positions kept exactly, and nothing the
 * packer had to replace as non-finite (a loaded cloud has none; a zero scale below
 * the log-scale range is a legitimate clamp).
 */
export function checkPacking(c: SplatCloud): string | null {
  // As the viewer's loader worker packs it (renderer/api/scene-load-job.ts).
  const packed = packScene(c);
  const d = packed.decode;
  if (![...d.dcMin, ...d.dcStep, ...d.lsRange, ...d.shRange].every(Number.isFinite)) return `compact ranges not finite: ${JSON.stringify(d)}`;
  const stride = sceneLayout(c.shDegree, 'compact').shStride;
  if (packed.shStride !== stride) return `packed with ${packed.shStride} SH words a splat, the GPU reads ${stride}`;
  const back = decodeCompact(packed, d, c, stride);
  const report = packed.report;
  const nonFinite = Object.keys(report.reasons).filter((k) => k !== 'scale under range');
  if (report.dropped > 0 || nonFinite.length > 0) return `compact packing replaced values: ${JSON.stringify(report)}`;
  for (const k of ['positions', 'scales', 'rotations', 'opacities', 'sh'] as const) {
    const i = back[k].findIndex((v) => !Number.isFinite(v));
    if (i >= 0) return `compact packing decodes ${k}[${i}] = ${back[k][i]}`;
  }
  if (!Buffer.from(back.positions.buffer).equals(Buffer.from(c.positions.buffer, c.positions.byteOffset, c.positions.byteLength))) return 'compact packing changed positions';
  return null;
}

/**
 * Null when a scene with absurd splats injected came out contained: no splat
 * larger than its own robust extent makes plausible, and compact ranges that the
 * outliers did not stretch (DC within 200 units, SH within 100).
 */
function checkOutliers(c: SplatCloud): string | null {
  const n = implausibleScales(c, 4);
  if (n > 0) return `${n} splats keep a scale past 4x the plausible limit`;
  const d = packScene(c).decode;
  for (let ch = 0; ch < 3; ch++) if (!(d.dcStep[ch]! * (ch < 2 ? 2047 : 1023) < 200)) return `compact DC range of channel ${ch} stretched to ${d.dcStep[ch]! * 2047}`;
  const most = Math.max(0, ...d.shRange);
  if (!(most < 100)) return `compact SH range stretched to ${most}`;
  return null;
}

/** What the file says its splat count is, read independently where the format makes it easy. */
function declaredCount(c: SplatCloud, bytes: Uint8Array): number | null {
  const f = c.source.format;
  if (f === 'splat') return bytes.length / 32;
  if (f === 'spz-v4') return new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  if (f.startsWith('spz')) return new DataView(fflate.gunzipSync(bytes).buffer).getUint32(8, true);
  if (f.startsWith('ply') || f === 'compressed-ply') {
    const m = /\nelement vertex (\d+)\r?\n/.exec(latin1(bytes.subarray(0, Math.min(bytes.length, 1 << 20))));
    return m ? Number(m[1]) : null;
  }
  return null;
}

function compareClouds(a: SplatCloud, b: SplatCloud, ignoreName = false): string | null {
  if (a.count !== b.count) return `count ${a.count} vs ${b.count}`;
  if (a.shDegree !== b.shDegree) return `SH degree ${a.shDegree} vs ${b.shDegree}`;
  if (a.source.format !== b.source.format) return `format ${a.source.format} vs ${b.source.format}`;
  if (!ignoreName && a.source.name !== b.source.name) return 'name';
  if (JSON.stringify(a.sanitized) !== JSON.stringify(b.sanitized)) return `sanitized ${JSON.stringify(a.sanitized)} vs ${JSON.stringify(b.sanitized)}`;
  for (const k of ['positions', 'scales', 'rotations', 'opacities', 'sh'] as const) {
    const x = a[k], y = b[k];
    const bx = Buffer.from(x.buffer, x.byteOffset, x.byteLength), by = Buffer.from(y.buffer, y.byteOffset, y.byteLength);
    if (!bx.equals(by)) return `${k} differ`;
  }
  return null;
}
