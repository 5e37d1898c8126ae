/**
 * Issue 33: every file a scene names (glTF buffers and images, SOG textures,
 * lod-meta.json chunks) follows one rule (scenes/references.ts), in Node
 * (scenes/references-node.ts) and in the page (renderer/api/scene-files.ts): a
 * relative path inside the scene's folder, nothing else. Each refused form is
 * refused before anything is opened or fetched, with a file outside the folder
 * under that name that would load.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BadReferenceError, ReadFailedError, SceneLoadError } from './errors';
import { generateSynthetic } from './generate';
import { loadScene } from './load';
import { loadLodFinest } from './lod-meta';
import { checkReference, referenceProblem, resolveReferenceUrl } from './references';
import { nodeSceneFileGetter } from './references-node';
import { loadSogFiles } from './sog';
import { loadSceneStream } from './stream';
import { sceneFileUrl } from '../renderer/api/scene-files';
import { fileGetter } from '../renderer/api/scene-load-job';
import { tinyGltf as gltf } from '../test/support/tiny-gltf';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function* once(b: Uint8Array): AsyncGenerator<Uint8Array> {
  yield b;
}

/** Forms a scene may not name (each a file name that would be found outside the folder, or by scheme). */
const REFUSED = [
  '../scene.bin', '../../../../etc/passwd', '../../../../dev/zero', '../../../../dev/stdin', 'a/../../scene.bin', 'a/..',
  '%2e%2e/scene.bin', '%2E%2E%2Fscene.bin', '.%2e/scene.bin', '%252e%252e/scene.bin', '%25252e%25252e/scene.bin',
  '/etc/passwd', '//evil.example/scene.bin', 'file:///etc/passwd', 'https://evil.example/scene.bin', 'data:text/plain,hi',
  'C:\\scene.bin', 'C:/scene.bin', 'a\\..\\..\\scene.bin', 'dir//scene.bin', 'dir/', '.', '', 'scene.bin\u0000.png', 'x'.repeat(1100),
];
/** Forms that stay inside (each is found beside the scene, or in a folder below it). */
const ACCEPTED = ['scene.bin', './scene.bin', 'dir/scene.bin', 'my scene.bin', '100%.bin', 'a#b.bin'];

/** A getter that serves `files` by name and records every name asked for. */
function spy(files: Record<string, Uint8Array>): { get: (n: string) => Promise<Uint8Array>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get: async (n) => {
      asked.push(n);
      const f = files[n];
      if (f === undefined) throw new Error(`no file ${n}`);
      return f;
    },
  };
}

async function refusal(p: Promise<unknown>): Promise<BadReferenceError> {
  let err: unknown = null;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(BadReferenceError);
  const e = err as BadReferenceError;
  expect(e.code).toBe('bad-reference');
  expect(e.message).toMatch(/^\S+: bad-reference: /);
  expect(e.message).not.toMatch(/[\r\n]/);
  return e;
}

const cloud = generateSynthetic(50, 3);

describe('the rule', () => {
  it.each(REFUSED)('refuses %j (as a file name and as a glTF URI)', (ref) => {
    expect(referenceProblem(ref, false)).not.toBeNull();
    // '100%'-style names aside, a URI is decoded first: every refused name is refused as a URI too.
    expect(referenceProblem(ref, true)).not.toBeNull();
    const e = (() => {
      try {
        checkReference('scene.gltf', ref, 'buffers[0].uri', true);
      } catch (x) {
        return x as SceneLoadError;
      }
      return null;
    })();
    expect(e).toBeInstanceOf(BadReferenceError);
    expect(e!.property).toBe('buffers[0].uri');
    expect(e!.element).toBe(ref);
  });

  it.each(ACCEPTED)('accepts %j', (ref) => {
    expect(referenceProblem(ref, false)).toBeNull();
    expect(checkReference('meta.json', ref, 'means.files[0]')).toBe(ref.replace(/^\.\//, ''));
  });

  it('a glTF URI is percent-decoded once to give the file name', () => {
    expect(checkReference('s.gltf', 'my%20scene.bin', 'buffers[0].uri', true)).toBe('my scene.bin');
    expect(referenceProblem('a%ZZ.bin', true)).toMatch(/percent-encoding/);
    expect(referenceProblem('a.bin?x=1', true)).toMatch(/query/);
  });

  it('URLs: resolved against the scene and checked to stay under its folder', () => {
    expect(resolveReferenceUrl('m.json', 'https://h/s/room/meta.json?v=1', 'tex/a.webp')).toBe('https://h/s/room/tex/a.webp');
    expect(resolveReferenceUrl('m.json', 'https://h/s/room/meta.json', 'a#b.webp')).toBe('https://h/s/room/a%23b.webp');
    for (const bad of REFUSED) expect(() => resolveReferenceUrl('m.json', 'https://h/s/room/meta.json', bad), bad).toThrow(BadReferenceError);
    expect(() => resolveReferenceUrl('m.json', 'blob:abc', 'a.webp')).toThrow(BadReferenceError);
  });
});

describe('loaders refuse before anything is fetched (a file that would load is there under the name)', () => {
  const { bin } = gltf(cloud, 'scene.bin');

  it('the .gltf loads with its buffer beside it, and with the same buffer named by every accepted form', async () => {
    for (const ref of ['scene.bin', './scene.bin', 'dir/scene.bin', 'my%20scene.bin']) {
      const name = decodeURIComponent(ref).replace(/^\.\//, '');
      const s = spy({ [name]: bin });
      const c = await loadScene(gltf(cloud, ref).json, 'scene.gltf', {}, s.get);
      expect(c.count).toBe(cloud.count);
      expect(s.asked).toEqual([name]);
    }
  });

  it.each(REFUSED.filter((r) => !r.startsWith('data:')))('.gltf buffers[0].uri %j: BadReferenceError, nothing fetched', async (ref) => {
    let decoded = ref;
    try {
      decoded = decodeURIComponent(ref);
    } catch {
      // kept
    }
    const s = spy({ [ref]: bin, [decoded]: bin, 'scene.bin': bin });
    const e = await refusal(loadScene(gltf(cloud, ref).json, 'scene.gltf', {}, s.get));
    expect(e.property).toBe('buffers[0].uri');
    expect(s.asked).toEqual([]);
    // The stream loader too.
    await refusal(loadSceneStream('scene.gltf', once(gltf(cloud, ref).json), { getFile: s.get }));
    expect(s.asked).toEqual([]);
  });

  it('.gltf images[].uri follows the rule too, before the buffers are fetched', async () => {
    const s = spy({ 'scene.bin': bin });
    const e = await refusal(loadScene(gltf(cloud, 'scene.bin', { images: [{ uri: '../../../../etc/passwd' }] }).json, 'scene.gltf', {}, s.get));
    expect(e.property).toBe('images[0].uri');
    expect(s.asked).toEqual([]);
  });

  it('SOG meta.json: every texture name checked before the first is fetched', async () => {
    const meta = {
      version: 2, count: 4,
      means: { mins: [0, 0, 0], maxs: [1, 1, 1], files: ['means_l.webp', 'means_u.webp'] },
      scales: { codebook: new Array(256).fill(0), files: ['scales.webp'] },
      quats: { files: ['quats.webp'] },
      sh0: { codebook: new Array(256).fill(0), files: ['../sh0.webp'] },
    };
    const s = spy({ 'means_l.webp': new Uint8Array(64), '../sh0.webp': new Uint8Array(64) });
    const e = await refusal(loadSogFiles(enc(JSON.stringify(meta)), s.get, 'meta.json'));
    expect(e.property).toBe('meta.json sh0.files[0]');
    expect(e.element).toBe('../sh0.webp');
    expect(s.asked).toEqual([]);
  });

  it('lod-meta.json: chunk files and the environment checked before any is fetched', async () => {
    const manifest = (filenames: string[], environment?: string) => enc(JSON.stringify({
      version: 1, count: 10, counts: [10], lodLevels: 1, filenames, ...(environment ? { environment } : {}),
      tree: { bound: { min: [0, 0, 0], max: [1, 1, 1] }, lods: { 0: { file: 0, offset: 0, count: 10 } } },
    }));
    for (const [names, env] of [[['../other/meta.json']], [['%2e%2e/other/meta.json']], [['0/meta.json'], '../env/meta.json']] as [string[], string?][]) {
      const s = spy({});
      await refusal(loadLodFinest(manifest(names, env), s.get, 'lod-meta.json'));
      expect(s.asked).toEqual([]);
    }
  });
});

describe('Node: files from the scene\'s folder only, regular files only', () => {
  let root: string;
  let inner: string;
  const { bin } = gltf(cloud, 'scene.bin');

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-refs-'));
    inner = path.join(root, 'scene');
    fs.mkdirSync(path.join(inner, 'dir'), { recursive: true });
    // The .bin outside the scene's folder would load: the .gltf beside it proves it.
    fs.writeFileSync(path.join(root, 'scene.bin'), bin);
    fs.writeFileSync(path.join(root, 'outside.gltf'), gltf(cloud, 'scene.bin').json);
    fs.writeFileSync(path.join(inner, 'dir', 'scene.bin'), bin);
    fs.symlinkSync(path.join(root, 'scene.bin'), path.join(inner, 'link.bin'));
    fs.symlinkSync('/dev/zero', path.join(inner, 'zero.bin'));
    fs.symlinkSync(path.join(inner, 'dir', 'scene.bin'), path.join(inner, 'inside-link.bin'));
    spawnSync('mkfifo', [path.join(inner, 'fifo.bin')]);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  const load = (file: string) => loadScene(fs.readFileSync(file), path.basename(file), {}, nodeSceneFileGetter(file));

  it('the file outside loads from its own folder; inside, by a name below the folder or a link that stays inside', async () => {
    expect((await load(path.join(root, 'outside.gltf'))).count).toBe(cloud.count);
    for (const ref of ['dir/scene.bin', 'inside-link.bin']) {
      fs.writeFileSync(path.join(inner, 'ok.gltf'), gltf(cloud, ref).json);
      expect((await load(path.join(inner, 'ok.gltf'))).count).toBe(cloud.count);
    }
  });

  it.each(['../scene.bin', '%2e%2e/scene.bin', '../../../../etc/passwd', '../../../../dev/zero', '../../../../dev/stdin', 'file:///etc/passwd'])(
    '%j is refused by the loader, before the getter is asked', async (ref) => {
      const getter = vi.fn(nodeSceneFileGetter(path.join(inner, 'x.gltf')));
      fs.writeFileSync(path.join(inner, 'x.gltf'), gltf(cloud, ref).json);
      await refusal(loadScene(fs.readFileSync(path.join(inner, 'x.gltf')), 'x.gltf', {}, getter));
      expect(getter).not.toHaveBeenCalled();
    },
  );

  it('the getter itself: a link out of the folder, a device, a FIFO, a folder are refused before open; a missing file is a ReadFailedError', async () => {
    const get = nodeSceneFileGetter(path.join(inner, 'x.gltf'));
    const open = vi.spyOn(fs.promises, 'open');
    for (const [name, why] of [['link.bin', /link to .*outside/], ['zero.bin', /link to \/dev\/zero|outside/], ['fifo.bin', /FIFO/], ['dir', /folder/], ['../scene.bin', /'\.\.'/]] as const) {
      await expect(get(name), name).rejects.toThrow(BadReferenceError);
      await expect(get(name), name).rejects.toThrow(why);
    }
    expect(open).not.toHaveBeenCalled();
    open.mockRestore();
    expect(await get('dir/scene.bin')).toEqual(bin);
    fs.writeFileSync(path.join(inner, 'missing.gltf'), gltf(cloud, 'missing.bin').json);
    const e = await load(path.join(inner, 'missing.gltf')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ReadFailedError);
    expect((e as Error).message).toContain("'missing.bin'");
  });

  it('npm run info: a .gltf naming ../../../../etc/passwd is one typed line, exit 1, nothing read', () => {
    fs.writeFileSync(path.join(inner, 'passwd.gltf'), gltf(cloud, '../../../../etc/passwd').json);
    const r = spawnSync(process.execPath, ['scripts/run.mjs', 'bench/info.ts', path.join(inner, 'passwd.gltf')], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^passwd\.gltf: bad-reference: buffers\[0\]\.uri "\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd" is refused/);
  });
});

describe('the page: URLs and files opened together', () => {
  it('sceneFileUrl and companionPath refuse what leaves the folder', () => {
    expect(sceneFileUrl('https://h/a/scene.gltf', 'scene.bin')).toBe('https://h/a/scene.bin');
    for (const ref of REFUSED) expect(() => sceneFileUrl('https://h/a/b/scene.gltf', ref), ref).toThrow(BadReferenceError);
  });

  it('a scene loaded by URL: a refused reference is never fetched', async () => {
    const { json, bin } = gltf(cloud, '../scene.bin');
    const fetched: string[] = [];
    const fetchStub = vi.fn(async (url: string) => {
      fetched.push(String(url));
      return new Response(new Uint8Array(bin).buffer as ArrayBuffer);
    });
    vi.stubGlobal('fetch', fetchStub);
    try {
      const getFile = fileGetter({ kind: 'url', name: 'scene.gltf', url: 'https://h/a/b/scene.gltf' });
      await refusal(loadScene(json, 'scene.gltf', {}, getFile));
      const ok = gltf(cloud, 'scene.bin').json;
      expect((await loadScene(ok, 'scene.gltf', {}, getFile)).count).toBe(cloud.count);
      expect(fetched).toEqual(['https://h/a/b/scene.bin']);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
