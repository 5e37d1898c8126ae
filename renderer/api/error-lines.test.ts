import { describe, expect, it } from 'vitest';
import { SceneLoadError, TruncatedError } from '../../scenes/errors';
import { loadScene } from '../../scenes/load';
import { checkDeclaredSize, leastPlyBytes, loadErrorLine } from './error-lines';

const enc = (s: string) => new TextEncoder().encode(s);

/** The loader's own error for `bytes` named `name`. */
async function loadError(name: string, bytes: Uint8Array): Promise<SceneLoadError> {
  try {
    await loadScene(bytes, name);
  } catch (e) {
    if (e instanceof SceneLoadError) return e;
    throw e;
  }
  throw new Error(`${name} loaded`);
}

/** A GLB whose only buffer is a separate file (scene.bin). */
function glbWithExternalBuffer(): Uint8Array {
  const json = enc(JSON.stringify({ asset: { version: '2.0' }, extensionsUsed: ['KHR_gaussian_splatting'], buffers: [{ uri: 'scene.bin', byteLength: 100 }] }));
  const pad = (4 - (json.length % 4)) % 4;
  const glb = new Uint8Array(20 + json.length + pad);
  const v = new DataView(glb.buffer);
  v.setUint32(0, 0x46546c67, true);
  v.setUint32(4, 2, true);
  v.setUint32(8, glb.length, true);
  v.setUint32(12, json.length + pad, true);
  v.setUint32(16, 0x4e4f534a, true);
  glb.set(json, 20);
  glb.fill(0x20, 20 + json.length);
  return glb;
}

describe('loadErrorLine: one line a page user can act on, the long form as details (issue 34)', () => {
  it('a file of no scene format: "not a splat scene: it starts like X", the signatures in the details', async () => {
    const jpeg = loadErrorLine(await loadError('photo.jpg', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49])));
    expect(jpeg.text).toBe('photo.jpg: not a splat scene: it starts like a JPEG image');
    expect(jpeg.details).toMatch(/^photo\.jpg: unknown-format: not a scene file we read: no PLY/);
    expect(jpeg.details).toMatch(/Formats read/);
    expect(loadErrorLine(await loadError('notes.txt', enc('hello world, this is text\n'))).text).toBe('notes.txt: not a splat scene: it starts like text ("hello wo…")');
    expect(loadErrorLine(await loadError('404.ply', enc('<!doctype html><title>Not found</title>'))).text).toMatch(/^404\.ply: not a splat scene: it starts like HTML or XML text \("<!doctyp…": a web page where a file was expected\?\)$/);
    expect(loadErrorLine(await loadError('empty.bin', new Uint8Array(0))).text).toBe('empty.bin: not a splat scene: the file is empty (0 bytes)');
  });

  it('a .glb or .gltf whose data is a separate file: open the .gltf together with its .bin (no loadGltfFiles)', async () => {
    const glb = loadErrorLine(await loadError('scene.glb', glbWithExternalBuffer()));
    expect(glb.text).toMatch(/^scene\.glb: .*open the \.gltf together with its \.bin \(choose both files at once, or drop their folder\)$/);
    expect(glb.text).not.toMatch(/loadGltfFiles/);
    expect(glb.details).toMatch(/loadGltfFiles/);
    const json = enc(JSON.stringify({ asset: { version: '2.0' }, extensionsUsed: ['KHR_gaussian_splatting'], buffers: [{ uri: 'scene.bin', byteLength: 100 }] }));
    const gltf = loadErrorLine(await loadError('scene.gltf', json));
    expect(gltf.text).toBe('scene.gltf: its data is in a separate file: open the .gltf together with its .bin (choose both files at once, or drop their folder)');
  });

  it('other errors keep their one-line message, with no details', async () => {
    const e = new TruncatedError('cut.ply', 'header declares 5000 vertices');
    expect(loadErrorLine(e)).toEqual({ text: 'cut.ply: truncated: header declares 5000 vertices', details: null });
    expect(loadErrorLine(new Error('a\nb'))).toEqual({ text: 'a b', details: null });
  });
});

describe('checkDeclaredSize: a header claiming more splats than the file holds is a short file (issue 34)', () => {
  it('2e9 splats in 5.9 KB: truncated, with the numbers, before any GPU budget', () => {
    let err: unknown;
    try {
      checkDeclaredSize('big.ply', { splats: 2e9, shDegree: 0 }, 5900);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TruncatedError);
    expect((err as Error).message).toBe('big.ply: truncated: the header declares 2,000,000,000 splats, at least 28 GB, but the file is 5.9 KB: it is cut short, or its header is wrong');
    expect(loadErrorLine(err).text).toBe((err as Error).message);
  });

  it('a file that can hold its rows passes; an unknown size is not checked', () => {
    expect(leastPlyBytes(1000, 3)).toBe(1000 * 59);
    expect(() => checkDeclaredSize('ok.ply', { splats: 1000, shDegree: 3 }, 1000 * 59)).not.toThrow();
    expect(() => checkDeclaredSize('ok.ply', { splats: 1000, shDegree: 3 }, 1000 * 59 - 1)).toThrow(TruncatedError);
    expect(() => checkDeclaredSize('url.ply', { splats: 2e9, shDegree: 3 }, undefined)).not.toThrow();
    // A real 3DGS row (62 floats at SH3) is far above the least: never refused by this check.
    expect(leastPlyBytes(1, 3)).toBeLessThan(62 * 4);
  });
});

describe('reviveLoadError: the typed error again after the worker (comlink carries name and message only)', () => {
  it('a plain Error named like a loader error becomes that class, file and code read back; the page words it', async () => {
    const { reviveLoadError } = await import('./scene-load-protocol');
    const { UnknownFormatError, UnsupportedError } = await import('../../scenes/errors');
    const original = await loadError('photo.jpg', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49]));
    const wire = Object.assign(new Error(original.message), { name: original.name });
    const back = reviveLoadError(wire) as SceneLoadError;
    expect(back).toBeInstanceOf(UnknownFormatError);
    expect([back.file, back.code, back.message]).toEqual(['photo.jpg', 'unknown-format', original.message]);
    expect(loadErrorLine(back).text).toBe('photo.jpg: not a splat scene: it starts like a JPEG image');
    const glb = await loadError('scene.glb', glbWithExternalBuffer());
    const glbBack = reviveLoadError(Object.assign(new Error(glb.message), { name: glb.name }));
    expect(glbBack).toBeInstanceOf(UnsupportedError);
    expect(loadErrorLine(glbBack).text).toMatch(/open the \.gltf together with its \.bin/);
    const base = reviveLoadError(Object.assign(new Error('x.ply: bad-data: a value'), { name: 'SceneLoadError' })) as SceneLoadError;
    expect([base.constructor, base.code, base.message]).toEqual([SceneLoadError, 'bad-data', 'x.ply: bad-data: a value']);
    // Other errors pass as they are.
    const other = new Error('the scene loader\'s worker failed');
    expect(reviveLoadError(other)).toBe(other);
  });
});
