import { describe, expect, it } from 'vitest';
import { companionPath, groupSceneFiles, normalizePath, sceneFileUrl } from './scene-files';
import { BadReferenceError } from '../../scenes/errors';

describe('sceneFileUrl: the files a scene names, relative to its URL', () => {
  it('beside the scene file or in its folder; never above it (issue 33: BadReferenceError before any fetch)', () => {
    expect(sceneFileUrl('http://h/scenes/room/meta.json', 'means_l.webp')).toBe('http://h/scenes/room/means_l.webp');
    expect(sceneFileUrl('http://h/scenes/room/meta.json?v=2#x', 'means_l.webp')).toBe('http://h/scenes/room/means_l.webp');
    expect(sceneFileUrl('http://h/a/scene.gltf', 'bin/scene.bin')).toBe('http://h/a/bin/scene.bin');
    expect(sceneFileUrl('http://h/a/b/scene.gltf', './x.bin')).toBe('http://h/a/b/x.bin');
    for (const bad of ['../shared.bin', 'a/../../x.bin', '%2e%2e/x.bin', '/etc/passwd', 'https://evil.example/x.bin', 'a\\..\\x', '']) {
      expect(() => sceneFileUrl('http://h/a/b/scene.gltf', bad), bad).toThrow(BadReferenceError);
    }
  });

  it('names are file names, percent-encoded: no query, fragment, scheme or host is read from them', () => {
    expect(sceneFileUrl('http://h/a/scene.gltf', 'my scene.bin')).toBe('http://h/a/my%20scene.bin');
    expect(sceneFileUrl('http://h/a/scene.gltf', 'a#b?c.bin')).toBe('http://h/a/a%23b%3Fc.bin');
    expect(sceneFileUrl('http://h/a/scene.gltf', '100%.bin')).toBe('http://h/a/100%25.bin');
  });
});

describe('files opened together: which is the scene, where its companions are', () => {
  it('normalizePath folds ".", "..", backslashes and a leading "/"', () => {
    expect(normalizePath('/room/./meta.json')).toBe('room/meta.json');
    expect(normalizePath('room\\sub\\..\\x.webp')).toBe('room/x.webp');
    expect(normalizePath('../../x')).toBe('x');
  });

  it('a dropped SOG folder: meta.json is the scene, whatever the order', () => {
    const g = groupSceneFiles(['room/means_l.webp', 'room/means_u.webp', 'room/meta.json', 'room/quats.webp']);
    expect(g).toEqual({ main: 2, paths: ['room/means_l.webp', 'room/means_u.webp', 'room/meta.json', 'room/quats.webp'] });
  });

  it('a .gltf with its .bin; a lone file; the shallowest of two candidates; a name-less fallback', () => {
    expect(groupSceneFiles(['scene.bin', 'scene.gltf'])?.main).toBe(1);
    expect(groupSceneFiles(['x.ply'])).toEqual({ main: 0, paths: ['x.ply'] });
    expect(groupSceneFiles(['/top/sub/meta.json', '/top/meta.json'])?.main).toBe(1);
    expect(groupSceneFiles(['readme.txt', 'room.sog'])?.main).toBe(1);
    expect(groupSceneFiles(['a.bin', 'b.bin'])?.main).toBe(0);
    expect(groupSceneFiles(['room-meta.json', 'means_l.webp'])?.main).toBe(0);
    expect(groupSceneFiles([])).toBeNull();
  });

  it('companionPath: beside the scene file, else the one file of that name, else null', () => {
    const paths = ['room/meta.json', 'room/means_l.webp', 'room/tex/quats.webp', 'other/means_u.webp', 'a/sh0.webp', 'b/sh0.webp'];
    expect(companionPath('room/meta.json', 'means_l.webp', paths)).toBe('room/means_l.webp');
    expect(companionPath('room/meta.json', 'tex/quats.webp', paths)).toBe('room/tex/quats.webp');
    expect(companionPath('room/meta.json', './means_l.webp', paths)).toBe('room/means_l.webp');
    // A multiple selection has no folders: the base name, when only one file has it.
    expect(companionPath('room/meta.json', 'means_u.webp', paths)).toBe('other/means_u.webp');
    expect(companionPath('room/meta.json', 'sh0.webp', paths)).toBeNull();
    expect(companionPath('room/meta.json', 'scales.webp', paths)).toBeNull();
    expect(companionPath('scene.gltf', 'scene.bin', ['scene.gltf', 'scene.bin'])).toBe('scene.bin');
    // A name that leaves the folder is refused, not folded into one that is there.
    expect(() => companionPath('room/meta.json', '../other/means_u.webp', paths)).toThrow(BadReferenceError);
  });
});
