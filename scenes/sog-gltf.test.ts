/**
 * SOG and glTF (KHR_gaussian_splatting) against files splat-transform writes
 * at test time from a shared PLY (never committed): counts and SH degrees
 * as `splat-transform FILE --info json` reports them, values against the
 * source PLY, and typed errors for malformed variants.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GltfFormatError, ImageDecodeError, MissingElementError, MissingPropertyError, CompressionBombError, SceneLoadError, SogFormatError, TooLargeError, TruncatedError, UnsupportedError,
} from './errors';
import { loadGltfFiles } from './gltf';
import { loadScene, loadSceneSync } from './load';
import { loadSogFiles } from './sog';
import type { SplatCloud } from './splat-cloud';
import { loadSceneStream } from './stream';
import { rotationError, worst } from '../test/support/cloud-compare';

const SOURCE = path.resolve('..', 'shared', 'scenes', 'inria_sh3_tile_1971.ply');
const CLI = path.resolve('node_modules', '.bin', 'splat-transform');
const have = fs.existsSync(SOURCE) && fs.existsSync(CLI);

let dir = '';
const file = (name: string): Uint8Array => new Uint8Array(fs.readFileSync(path.join(dir, name)));
const info = (name: string): { numGaussians: number; shBands: number } => JSON.parse(execFileSync(CLI, ['-q', path.resolve(dir, name), '--info', 'json', 'null'], { encoding: 'utf8' }));
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function rejects(p: Promise<unknown> | (() => unknown), cls: new (...a: never[]) => SceneLoadError): Promise<SceneLoadError> {
  let err: unknown = null;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(cls);
  const e = err as SceneLoadError;
  expect(e.message).toMatch(/^\S+: [a-z-]+: /);
  return e;
}

/** A byte source of one chunk. */
async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** A GLB rebuilt from its JSON (edited) and BIN chunk. */
function glb(json: unknown, bin: Uint8Array): Uint8Array {
  const j = enc(JSON.stringify(json));
  const jl = (j.length + 3) & ~3, bl = (bin.length + 3) & ~3;
  const out = new Uint8Array(12 + 8 + jl + 8 + bl);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x46546c67, true);
  v.setUint32(4, 2, true);
  v.setUint32(8, out.length, true);
  v.setUint32(12, jl, true);
  v.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jl);
  out.set(j, 20);
  v.setUint32(20 + jl, bl, true);
  v.setUint32(24 + jl, 0x004e4942, true);
  out.set(bin, 28 + jl);
  return out;
}

function splitGlb(b: Uint8Array): { json: Record<string, any>; bin: Uint8Array } {
  const v = new DataView(b.buffer, b.byteOffset);
  const jl = v.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(b.subarray(20, 20 + jl)));
  const bl = v.getUint32(20 + jl, true);
  return { json, bin: b.slice(28 + jl, 28 + jl + bl) };
}

describe.skipIf(!have)('SOG and glTF from splat-transform', () => {
  let ply: SplatCloud;
  let sogInfo: { numGaussians: number; shBands: number };
  let glbInfo: { numGaussians: number; shBands: number };
  const sogFiles: Record<string, Uint8Array> = {};

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-sog-'));
    const run = (...args: string[]): void => void execFileSync(CLI, ['-q', '-w', '-g', 'cpu', ...args], { cwd: dir, stdio: 'pipe' });
    run(SOURCE, 'out.sog');
    run(SOURCE, 'out.glb');
    fs.mkdirSync(path.join(dir, 'unbundled'));
    run(SOURCE, path.join('unbundled', 'meta.json'));
    // splat-transform's own decode of the SOG, in the same order: the lossy values to compare with.
    run(path.join(dir, 'out.sog'), 'back.ply');
    sogInfo = info('out.sog');
    // splat-transform reads no .glb (it only writes one): its --info of the PLY the .glb was written from stands in.
    glbInfo = info(SOURCE);
    ply = await loadScene(new Uint8Array(fs.readFileSync(SOURCE)), 'src.ply');
    Object.assign(sogFiles, unzipSync(file('out.sog')));
  }, 120_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('SOG', () => {
    it('count and SH degree as splat-transform --info reports them', async () => {
      const c = await loadScene(file('out.sog'), 'out.sog');
      expect(c.source.format).toBe('sog');
      expect(c.count).toBe(sogInfo.numGaussians);
      expect(c.shDegree).toBe(sogInfo.shBands);
      expect(c.count).toBe(ply.count);
    });

    it('values: as splat-transform decodes them, and the positions within the 16-bit quantisation of the source', async () => {
      const c = await loadScene(file('out.sog'), 'out.sog');
      const back = await loadScene(file('back.ply'), 'back.ply');
      expect(worst(c.positions, back.positions)).toBeLessThan(1e-5);
      expect(worst(c.scales, back.scales, (x, y) => Math.abs(x / y - 1))).toBeLessThan(1e-5);
      expect(rotationError(c.rotations, back.rotations)).toBeLessThan(1e-5);
      // back.ply stores the opacity logit of a byte (clamped off 0 and 1 by 1e-6).
      expect(worst(c.opacities, back.opacities)).toBeLessThan(2e-6);
      expect(worst(c.sh, back.sh)).toBeLessThan(1e-5);
      // Against the source: the file is reordered, so each splat is matched by its nearest source position.
      const extent = Math.max(...[0, 1, 2].map((a) => ply.bounds.max[a]! - ply.bounds.min[a]!));
      let worstPos = 0, worstColour = 0;
      for (let i = 0; i < c.count; i++) {
        let best = Infinity, bj = -1;
        for (let j = 0; j < ply.count; j++) {
          const d = Math.hypot(c.positions[i * 3]! - ply.positions[j * 3]!, c.positions[i * 3 + 1]! - ply.positions[j * 3 + 1]!, c.positions[i * 3 + 2]! - ply.positions[j * 3 + 2]!);
          if (d < best) [best, bj] = [d, j];
        }
        worstPos = Math.max(worstPos, best);
        for (let k = 0; k < 3; k++) worstColour = Math.max(worstColour, 0.28209479 * Math.abs(c.sh[i * 48 + k]! - ply.sh[bj * 48 + k]!));
      }
      expect(worstPos).toBeLessThan(extent * 1e-3);
      // DC colour through a 256-entry codebook: a few hundredths of the 0..1 colour at worst.
      expect(worstColour).toBeLessThan(0.05);
    });

    it('unbundled: meta.json and its files read with loadSogFiles give the same cloud as the bundled .sog', async () => {
      const udir = path.join(dir, 'unbundled');
      const u = await loadSogFiles(new Uint8Array(fs.readFileSync(path.join(udir, 'meta.json'))), async (n) => new Uint8Array(fs.readFileSync(path.join(udir, n))), 'meta.json');
      const b = await loadScene(file('out.sog'), 'out.sog');
      expect(u.count).toBe(b.count);
      expect(u.shDegree).toBe(b.shDegree);
      // SOG's k-means may differ between two runs of the writer; the positions do not.
      expect(worst(u.positions, b.positions)).toBe(0);
      // The stream loader (the page's worker) with a getFile reads the same; without one, or with a file missing, a typed line naming it.
      const meta = new Uint8Array(fs.readFileSync(path.join(udir, 'meta.json')));
      const get = async (n: string): Promise<Uint8Array> => new Uint8Array(fs.readFileSync(path.join(udir, n)));
      expect(await loadSceneStream('meta.json', once(meta), { getFile: get })).toEqual(u);
      expect((await rejects(loadScene(meta, 'meta.json'), UnsupportedError)).message).toMatch(/meta\.json: unsupported: a SOG meta\.json whose WebP files/);
      const missing = await rejects(loadScene(meta, 'meta.json', {}, (n) => (n === 'quats.webp' ? Promise.reject(new Error('not among the files opened')) : get(n))), SceneLoadError);
      expect(missing.message).toMatch(/'quats\.webp'.*not among the files opened/);
    });

    it('maxShDegree, and the stream loader reads it whole to the same cloud', async () => {
      const one = await loadScene(file('out.sog'), 'out.sog', { maxShDegree: 1 });
      const full = await loadScene(file('out.sog'), 'out.sog');
      expect(one.shDegree).toBe(1);
      for (let i = 0; i < full.count; i++) expect(Array.from(one.sh.subarray(i * 12, i * 12 + 12))).toEqual(Array.from(full.sh.subarray(i * 48, i * 48 + 12)));
      const bytes = file('out.sog');
      async function* chunks(): AsyncGenerator<Uint8Array> {
        for (let at = 0; at < bytes.length; at += 1000) yield bytes.slice(at, at + 1000);
      }
      const s = await loadSceneStream('out.sog', chunks());
      expect(s).toEqual(full);
      expect(() => loadSceneSync(bytes, 'out.sog')).toThrow(UnsupportedError);
    });

    const withMeta = (edit: (m: Record<string, any>) => void, files: Record<string, Uint8Array> = {}): Uint8Array => {
      const meta = JSON.parse(new TextDecoder().decode(sogFiles['meta.json']));
      edit(meta);
      return zipSync({ ...sogFiles, ...files, 'meta.json': enc(JSON.stringify(meta)) }, { level: 0 });
    };

    it('missing and mistyped meta.json fields name the field', async () => {
      for (const key of ['count', 'means', 'scales', 'quats', 'sh0']) {
        const e = await rejects(loadScene(withMeta((m) => delete m[key]), 'x.sog'), MissingPropertyError);
        expect(e.property).toBe(key);
      }
      expect((await rejects(loadScene(withMeta((m) => delete m.means.files), 'x.sog'), MissingPropertyError)).property).toBe('means.files');
      expect((await rejects(loadScene(withMeta((m) => (m.count = 'many')), 'x.sog'), SogFormatError)).property).toBe('count');
      expect((await rejects(loadScene(withMeta((m) => (m.means.mins = [0, 1])), 'x.sog'), SogFormatError)).property).toBe('means.mins');
      expect((await rejects(loadScene(withMeta((m) => (m.scales.codebook = m.scales.codebook.slice(1))), 'x.sog'), SogFormatError)).property).toBe('scales.codebook');
      expect((await rejects(loadScene(withMeta((m) => (m.shN.bands = 7)), 'x.sog'), SogFormatError)).property).toBe('shN.bands');
      await rejects(loadScene(withMeta((m) => delete m.version), 'x.sog'), UnsupportedError);
      await rejects(loadScene(withMeta((m) => (m.quats.files = ['nothere.webp'])), 'x.sog'), MissingElementError);
      await rejects(loadScene(zipSync({ 'a.txt': enc('hi') }), 'x.sog'), SceneLoadError);
      await rejects(loadSogFiles(enc('{"version": 2, '), async () => new Uint8Array(0), 'meta.json'), SogFormatError);
    });

    it('a huge declared count is refused by the memory budget or the texture headers, before anything that size is allocated', async () => {
      const big = await rejects(loadScene(withMeta((m) => (m.count = 16383 * 16383)), 'x.sog'), TooLargeError);
      expect(big.message).toMatch(/meta.json: 268402689 splats of SH degree \d need .* more than the memory budget of 4 GB/);
      const e = await rejects(loadScene(withMeta((m) => (m.count = 10_000_000)), 'x.sog'), ImageDecodeError);
      expect(e.message).toContain('fewer pixels');
      await rejects(loadScene(withMeta((m) => (m.count = 1e12)), 'x.sog'), SogFormatError);
    });

    it('bad WebP, truncated and corrupt zips', async () => {
      const bad = sogFiles['quats.webp']!.slice();
      bad.fill(0x55, 30);
      expect((await rejects(loadScene(withMeta(() => undefined, { 'quats.webp': bad }), 'x.sog'), ImageDecodeError)).property).toBe('quats.files[0]');
      await rejects(loadScene(withMeta(() => undefined, { 'quats.webp': enc('RIFF....WEBPVP8L') }), 'x.sog'), ImageDecodeError);
      const whole = file('out.sog');
      for (const cut of [10, 100, whole.length >> 1, whole.length - 30]) await rejects(loadScene(whole.slice(0, cut), 'x.sog'), SceneLoadError);
      const flipped = whole.slice();
      flipped[200]! ^= 0xff;
      await rejects(loadScene(flipped, 'x.sog'), SceneLoadError);
      // A deflated entry claiming far more than deflate can give.
      const z = zipSync({ ...sogFiles }, { level: 6 });
      const v = new DataView(z.buffer);
      let cd = z.length - 22;
      while (v.getUint32(cd, true) !== 0x06054b50) cd--;
      const first = v.getUint32(cd + 16, true);
      v.setUint32(first + 24, 0xfffffff0, true);
      // A declared size past 1,000x its compressed bytes: refused as a bomb before the output is allocated (issue 33).
      await rejects(loadScene(z, 'x.sog'), CompressionBombError);
    });
  });

  describe('glTF KHR_gaussian_splatting', () => {
    it('count and SH degree as splat-transform --info reports them for the PLY it was written from', async () => {
      const c = await loadScene(file('out.glb'), 'out.glb');
      expect(c.source.format).toBe('glb');
      expect(c.count).toBe(glbInfo.numGaussians);
      expect(c.shDegree).toBe(glbInfo.shBands);
    });

    it('values: the source PLY after the frame is turned back (positions exact, the rest to float rounding)', async () => {
      const c = await loadScene(file('out.glb'), 'out.glb');
      expect(c.count).toBe(ply.count);
      expect(worst(c.positions, ply.positions)).toBeLessThan(1e-6);
      expect(worst(c.scales, ply.scales, (x, y) => Math.abs(x / y - 1))).toBeLessThan(1e-5);
      expect(rotationError(c.rotations, ply.rotations)).toBeLessThan(1e-6);
      expect(worst(c.opacities, ply.opacities)).toBeLessThan(1e-6);
      expect(worst(c.sh, ply.sh)).toBeLessThan(1e-5);
    });

    it('.gltf: the JSON with its buffer as a file (loadGltfFiles) or a data: URI (loadScene) is the same cloud', async () => {
      const { json, bin } = splitGlb(file('out.glb'));
      const full = await loadScene(file('out.glb'), 'out.glb');
      json.buffers[0].uri = 'scene.bin';
      const c = await loadGltfFiles(enc(JSON.stringify(json)), async (uri) => (uri === 'scene.bin' ? bin : Promise.reject(new Error('no such file'))), 'scene.gltf');
      expect(c.source.format).toBe('gltf');
      expect(c.positions).toEqual(full.positions);
      expect(c.sh).toEqual(full.sh);
      json.buffers[0].uri = 'scene%20data.bin';
      const viaStream = await loadSceneStream('scene.gltf', once(enc(JSON.stringify(json))), { getFile: async (uri) => (uri === 'scene data.bin' ? bin : Promise.reject(new Error('not found'))) });
      expect(viaStream.positions).toEqual(full.positions);
      expect((await rejects(loadScene(enc(JSON.stringify(json)), 'scene.gltf', {}, () => Promise.reject(new Error('HTTP 404'))), SceneLoadError)).message).toMatch(/'scene%20data\.bin'.*HTTP 404/);
      json.buffers[0].uri = `data:application/octet-stream;base64,${Buffer.from(bin).toString('base64')}`;
      const d = await loadScene(enc(JSON.stringify(json)), 'inline.gltf');
      expect(d.source.format).toBe('gltf');
      expect(d.rotations).toEqual(full.rotations);
    });

    it('maxShDegree, and the stream loader gives the same cloud', async () => {
      const bytes = file('out.glb');
      const full = await loadScene(bytes, 'out.glb');
      const zero = await loadScene(bytes, 'out.glb', { maxShDegree: 0 });
      expect(zero.shDegree).toBe(0);
      expect(zero.sh.length).toBe(full.count * 3);
      async function* chunks(): AsyncGenerator<Uint8Array> {
        for (let at = 0; at < bytes.length; at += 777) yield bytes.slice(at, at + 777);
      }
      expect(await loadSceneStream('out.glb', chunks())).toEqual(full);
    });

    it('missing and mistyped fields, truncation and huge counts are typed errors', async () => {
      const { json, bin } = splitGlb(file('out.glb'));
      const edit = (f: (j: Record<string, any>) => void): Uint8Array => {
        const j = structuredClone(json);
        f(j);
        return glb(j, bin);
      };
      const attrs = (j: Record<string, any>): Record<string, number> => j.meshes[0].primitives[0].attributes;
      for (const key of ['POSITION', 'KHR_gaussian_splatting:ROTATION', 'KHR_gaussian_splatting:SCALE', 'KHR_gaussian_splatting:OPACITY', 'KHR_gaussian_splatting:SH_DEGREE_0_COEF_0']) {
        const e = await rejects(() => loadSceneSync(edit((j) => delete attrs(j)[key]), 'x.glb'), MissingPropertyError);
        expect(e.property).toContain(key);
      }
      await rejects(() => loadSceneSync(edit((j) => delete attrs(j)['KHR_gaussian_splatting:SH_DEGREE_2_COEF_3']), 'x.glb'), SceneLoadError);
      const rot = (j: Record<string, any>): Record<string, any> => j.accessors[attrs(j)['KHR_gaussian_splatting:ROTATION']!];
      expect((await rejects(() => loadSceneSync(edit((j) => (rot(j).type = 'VEC3')), 'x.glb'), GltfFormatError)).property).toMatch(/accessors\[\d+\]\.type/);
      await rejects(() => loadSceneSync(edit((j) => (rot(j).componentType = 5121)), 'x.glb'), UnsupportedError);
      await rejects(() => loadSceneSync(edit((j) => (rot(j).bufferView = 999)), 'x.glb'), GltfFormatError);
      await rejects(() => loadSceneSync(edit((j) => (j.meshes[0].primitives[0].mode = 4)), 'x.glb'), GltfFormatError);
      await rejects(() => loadSceneSync(edit((j) => (j.meshes = [])), 'x.glb'), MissingElementError);
      // Huge declared counts: refused against the buffer view's bytes, nothing allocated for them.
      for (const count of [2 ** 31, 2 ** 52]) {
        const e = await rejects(() => loadSceneSync(edit((j) => (j.accessors[attrs(j)['POSITION']!].count = count)), 'x.glb'), TruncatedError);
        expect(e.byteOffset).toBeTypeOf('number');
      }
      await rejects(() => loadSceneSync(edit((j) => (j.bufferViews[0].byteLength = 2 ** 40)), 'x.glb'), TruncatedError);
      const whole = file('out.glb');
      for (const cut of [3, 16, 100, whole.length >> 1, whole.length - 1]) await rejects(() => loadSceneSync(whole.slice(0, cut), 'x.glb'), SceneLoadError);
      const badJson = whole.slice();
      badJson[20] = 0x78; // "x" for the opening brace
      await rejects(() => loadSceneSync(badJson, 'x.glb'), GltfFormatError);
      const v1 = whole.slice();
      v1[4] = 1;
      await rejects(() => loadSceneSync(v1, 'x.glb'), UnsupportedError);
      json.buffers[0].uri = 'missing.bin';
      await rejects(loadGltfFiles(enc(JSON.stringify(json)), async () => Promise.reject(new Error('404')), 'x.gltf'), SceneLoadError);
    });
  });
});
