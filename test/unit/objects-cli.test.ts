import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { placedAddsArg } from '../../bench/cli';
import { IDENTITY_TRANSFORM } from '../../scenes/transform';

const parse = (args: string[]) =>
  placedAddsArg(parseArgs({ args, tokens: true, options: { scene: { type: 'string' }, add: { type: 'string', multiple: true }, transform: { type: 'string', multiple: true } } }).tokens);

describe('npm run render --add / --transform (bench/cli.ts placedAddsArg)', () => {
  it('places each --add by the --transform after it, in order; none: the identity', () => {
    const adds = parse(['--scene', 'a.ply', '--add', 'b.ply', '--transform', 'translate=1,2,3 scale=2', '--add', 'c.ply', '--add', 'd.ply', '--transform', 'rotate=0,0,0,1']);
    expect(adds.map((a) => a.scene)).toEqual(['b.ply', 'c.ply', 'd.ply']);
    expect(adds[0]!.transform).toEqual({ translation: [1, 2, 3], rotation: [1, 0, 0, 0], scale: 2 });
    expect(adds[1]!.transform).toEqual(IDENTITY_TRANSFORM);
    expect(adds[2]!.transform.rotation).toEqual([0, 0, 0, 1]);
  });

  it('refuses a --transform with no --add before it, two for one --add, and a bad transform', () => {
    expect(() => parse(['--scene', 'a.ply', '--transform', 'scale=2'])).toThrow(/no --add before it/);
    expect(() => parse(['--add', 'b.ply', '--transform', 'scale=2', '--transform', 'scale=3'])).toThrow(/a second --transform/);
    expect(() => parse(['--add', 'b.ply', '--transform', 'scale=0'])).toThrow(/--transform scale=0: transform: scale/);
  });
});
