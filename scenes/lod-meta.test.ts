/**
 * lod-meta.json (streamed LOD manifest): a minimal valid manifest in
 * splat-transform's layout read right, and every malformed case refused with
 * a typed error naming the JSON path. (Manifests splat-transform writes are
 * read in test/gpu/lod.test.ts, which makes them at test time.)
 */
import { describe, expect, it } from 'vitest';
import { BadReferenceError, LodFormatError, SceneLoadError, UnsupportedError } from './errors';
import { loadLodFile, looksLikeLodMeta, parseLodMeta } from './lod-meta';

const enc = (v: unknown): Uint8Array => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
const box = (lo: number, hi: number) => ({ min: [lo, lo, lo], max: [hi, hi, hi] });

/** Two leaves, two levels, three files, as splat-transform lays it out. */
function manifest(): Record<string, any> {
  return {
    version: 1,
    asset: { generator: 'test' },
    count: 130,
    counts: [100, 30],
    lodLevels: 2,
    lodErrors: false,
    filenames: ['0_0/meta.json', '1_0/meta.json', '0_1/meta.json'],
    tree: {
      bound: box(0, 2),
      children: [
        { bound: box(0, 1), lods: { 0: { file: 0, offset: 0, count: 60 }, 1: { file: 1, offset: 0, count: 20 } } },
        { bound: box(1, 2), lods: { 0: { file: 2, offset: 0, count: 40 }, 1: { file: 1, offset: 20, count: 10 } } },
      ],
    },
  };
}

function refused(m: unknown, cls: new (...a: never[]) => SceneLoadError = LodFormatError): SceneLoadError {
  let err: unknown = null;
  try {
    parseLodMeta(enc(m), 'lod-meta.json');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(cls);
  expect((err as Error).message).toMatch(/^lod-meta\.json: [a-z-]+: /);
  return err as SceneLoadError;
}

describe('lod-meta.json', () => {
  it('reads the leaves, their ranges per level, the files and the bound', () => {
    const m = parseLodMeta(enc(manifest()), 'lod-meta.json');
    expect(m.levels).toBe(2);
    expect(m.counts).toEqual([100, 30]);
    expect(m.leaves).toHaveLength(2);
    expect(m.leaves[1]!.lods).toEqual([{ file: 2, offset: 0, count: 40 }, { file: 1, offset: 20, count: 10 }]);
    expect(m.files).toEqual([{ level: 0, splats: 60 }, { level: 1, splats: 30 }, { level: 0, splats: 40 }]);
    expect(m.bound).toEqual(box(0, 2));
    expect(m.environment).toBeNull();
    expect(looksLikeLodMeta(enc(manifest()))).toBe(true);
    expect(looksLikeLodMeta(enc({ means: {}, quats: {} }))).toBe(false);
  });

  it('reads a leaf without some level, and the environment', () => {
    const m0 = manifest();
    m0.counts = [100, 20];
    delete m0.tree.children[1].lods[1];
    m0.environment = 'env/meta.json';
    const m = parseLodMeta(enc(m0), 'lod-meta.json');
    expect(m.leaves[1]!.lods[1]).toBeNull();
    expect(m.environment).toBe('env/meta.json');
  });

  const cases: [string, (m: Record<string, any>) => unknown, string][] = [
    ['not JSON', () => '{"version": 1,', ''],
    ['not an object', () => [1, 2], ''],
    ['lodLevels missing', (m) => { delete m.lodLevels; return m; }, 'lodLevels'],
    ['lodLevels 0', (m) => { m.lodLevels = 0; return m; }, 'lodLevels'],
    ['lodLevels huge', (m) => { m.lodLevels = 1e9; return m; }, 'lodLevels'],
    ['counts of the wrong length', (m) => { m.counts = [100]; return m; }, 'counts'],
    ['a count negative', (m) => { m.counts = [100, -30]; return m; }, 'counts[1]'],
    ['counts that disagree with the leaves', (m) => { m.counts = [100, 31]; return m; }, 'counts[1]'],
    ['filenames empty', (m) => { m.filenames = []; return m; }, 'filenames'],
    ['environment not a string', (m) => { m.environment = 3; return m; }, 'environment'],
    ['tree missing', (m) => { delete m.tree; return m; }, 'tree'],
    ['bound missing', (m) => { delete m.tree.children[0].bound; return m; }, 'tree.children[0].bound'],
    ['bound min of 2 numbers', (m) => { m.tree.bound.min = [0, 0]; return m; }, 'tree.bound.min'],
    ['bound with NaN (null)', (m) => { m.tree.bound.max = [1, null, 1]; return m; }, 'tree.bound.max'],
    ['bound min past max', (m) => { m.tree.children[0].bound = box(1, 0); return m; }, 'tree.children[0].bound.min'],
    ['children empty', (m) => { m.tree.children = []; return m; }, 'tree.children'],
    ['a leaf without lods', (m) => { delete m.tree.children[1].lods; return m; }, 'tree.children[1].lods'],
    ['a leaf with no level', (m) => { m.tree.children[1].lods = {}; m.counts = [60, 20]; return m; }, 'tree.children[1].lods'],
    ['a level key past lodLevels', (m) => { m.tree.children[0].lods['2'] = { file: 0, offset: 60, count: 1 }; return m; }, 'tree.children[0].lods.2'],
    ['a level key not a number', (m) => { m.tree.children[0].lods.x = { file: 0, offset: 60, count: 1 }; return m; }, 'tree.children[0].lods.x'],
    ['a file index past filenames', (m) => { m.tree.children[0].lods[0].file = 3; return m; }, 'tree.children[0].lods.0.file'],
    ['an offset negative', (m) => { m.tree.children[0].lods[0].offset = -1; return m; }, 'tree.children[0].lods.0.offset'],
    ['a count of 0', (m) => { m.tree.children[0].lods[1].count = 0; return m; }, 'tree.children[0].lods.1.count'],
    ['a count fractional', (m) => { m.tree.children[0].lods[1].count = 2.5; return m; }, 'tree.children[0].lods.1.count'],
    ['a count huge', (m) => { m.tree.children[0].lods[1].count = 2 ** 40; return m; }, 'tree.children[0].lods.1.count'],
    ['overlapping ranges in a file', (m) => { m.tree.children[1].lods[1].offset = 15; return m; }, 'tree.children[1].lods.1.offset'],
    ['one file holding two levels', (m) => { m.tree.children[1].lods[1].file = 0; m.tree.children[1].lods[1].offset = 60; return m; }, 'tree.children[1].lods.1.file'],
    ['a node that is not an object', (m) => { m.tree.children[0] = 7; return m; }, 'tree.children[0]'],
  ];
  for (const [what, edit, property] of cases) {
    it(`refuses ${what} (LodFormatError naming '${property}')`, () => {
      const e = refused(edit(manifest()));
      if (property) expect(e.property).toBe(property);
    });
  }

  // Issue 33: references that leave the folder are BadReferenceErrors (scenes/references.ts), naming the reference.
  const references: [string, (m: Record<string, any>) => unknown, string, string][] = [
    ['a filename climbing out', (m) => { m.filenames[1] = '../../etc/meta.json'; return m; }, 'lod-meta.json filenames[1]', '../../etc/meta.json'],
    ['a percent-encoded climb', (m) => { m.filenames[1] = '%2e%2e/%2e%2e/etc/meta.json'; return m; }, 'lod-meta.json filenames[1]', '%2e%2e/%2e%2e/etc/meta.json'],
    ['an absolute filename', (m) => { m.filenames[0] = '/meta.json'; return m; }, 'lod-meta.json filenames[0]', '/meta.json'],
    ['a URL filename', (m) => { m.filenames[0] = 'https://x.test/meta.json'; return m; }, 'lod-meta.json filenames[0]', 'https://x.test/meta.json'],
    ['an environment climbing out', (m) => { m.environment = 'env/../../meta.json'; return m; }, 'lod-meta.json environment', 'env/../../meta.json'],
  ];
  for (const [what, edit, property, ref] of references) {
    it(`refuses ${what} (BadReferenceError naming '${property}')`, () => {
      const e = refused(edit(manifest()), BadReferenceError);
      expect(e.property).toBe(property);
      expect(e.element).toBe(ref);
      expect(e.message).toContain(JSON.stringify(ref));
    });
  }

  it('refuses a tree deeper than 64 levels', () => {
    const m = manifest();
    let node: Record<string, unknown> = m.tree.children[0];
    for (let i = 0; i < 70; i++) {
      const inner = { bound: box(0, 1), lods: node['lods'] };
      delete node['lods'];
      node['children'] = [inner];
      node = inner;
    }
    refused(m);
  });

  it('refuses a version other than 1 as unsupported', () => {
    const m = manifest();
    m.version = 2;
    expect(refused(m, UnsupportedError).property).toBe('version');
    delete m.version;
    refused(m, UnsupportedError);
  });

  it('a chunk file that is missing is a typed read error naming it', async () => {
    const meta = parseLodMeta(enc(manifest()), 'lod-meta.json');
    const err = await loadLodFile(meta, 1, async (p) => { throw new Error(`no file ${p}`); }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SceneLoadError);
    expect((err as SceneLoadError).code).toBe('read-failed');
    expect((err as Error).message).toMatch(/^lod-meta\.json: read-failed: chunk '1_0\/meta\.json': /);
  });

  it('a chunk file that is no SOG meta.json is a typed error naming it', async () => {
    const meta = parseLodMeta(enc(manifest()), 'lod-meta.json');
    const err = await loadLodFile(meta, 0, async () => enc('{"nope": 1}')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SceneLoadError);
    expect((err as Error).message).toMatch(/^lod-meta\.json: [a-z-]+: chunk '0_0\/meta\.json': /);
  });
});
