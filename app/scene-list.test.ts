import { describe, expect, it } from 'vitest';
import { SceneList, sceneIdOf } from './scene-list';

const file = (name: string) => Object.assign(new Blob(['x']), { name });

describe('SceneList: the scenes of the visit', () => {
  it('keeps every scene opened, after the generated ones, in order', () => {
    const list = new SceneList(['default', 'synthetic:100000']);
    list.add({ kind: 'file', file: file('garden.ply') });
    list.add({ kind: 'url', url: 'https://x.org/scenes/bike%20shed.ply?v=2' });
    list.add({ kind: 'file', file: file('room.ply') });
    expect(Object.keys(list.options())).toEqual(['default', 'synthetic:100000', 'garden.ply', 'bike shed.ply', 'room.ply']);
    expect(Object.values(list.options())).toEqual(['default', 'synthetic:100000', 'file:garden.ply', 'https://x.org/scenes/bike%20shed.ply?v=2', 'file:room.ply']);
  });

  it('opening the same file again keeps one entry and the newer handle', () => {
    const list = new SceneList([]);
    const a = file('a.ply');
    const b = file('a.ply');
    list.add({ kind: 'file', file: a });
    list.add({ kind: 'file', file: b });
    expect(list.all()).toHaveLength(1);
    const src = list.get('file:a.ply')!.source;
    expect(src.kind === 'file' && src.file).toBe(b);
  });

  it('gives same-named scenes from different places distinct labels', () => {
    const list = new SceneList([]);
    list.add({ kind: 'file', file: file('a.ply') });
    list.add({ kind: 'url', url: '/scenes/a.ply' });
    expect(Object.keys(list.options())).toEqual(['a.ply', 'a.ply (2)']);
  });

  it('identities: generated spec, URL as given, file:NAME', () => {
    expect(sceneIdOf({ kind: 'generated', spec: 'default:3000' })).toBe('default:3000');
    expect(sceneIdOf({ kind: 'url', url: '/a.ply' })).toBe('/a.ply');
    expect(sceneIdOf({ kind: 'file', file: file('x.ply') })).toBe('file:x.ply');
  });
});
