import { describe, expect, it } from 'vitest';
import { generateDefaultScene } from './generate';
import { withShDegree } from './load-options';
import { parseSplatPly } from './ply';
import { splatPlyChunks, writeSplatPly } from './write-ply';

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe('splatPlyChunks', () => {
  it.each([1, 7, 1000, 5000])('gives the bytes of writeSplatPly, %i rows a piece', (rows) => {
    const cloud = generateDefaultScene(1000);
    const parts = [...splatPlyChunks(cloud, rows)];
    // The header, then ceil(count / rows) body pieces of whole rows.
    expect(parts.length).toBe(1 + Math.ceil(cloud.count / rows));
    expect(Buffer.from(concat(parts)).equals(Buffer.from(writeSplatPly(cloud)))).toBe(true);
  });

  it('writes lower SH degrees the same way, and a file that parses back', () => {
    const cloud = withShDegree(generateDefaultScene(300), { maxShDegree: 1 });
    const bytes = concat([...splatPlyChunks(cloud, 64)]);
    expect(Buffer.from(bytes).equals(Buffer.from(writeSplatPly(cloud)))).toBe(true);
    const back = parseSplatPly(bytes, 'chunks.ply');
    expect(back.count).toBe(300);
    expect(back.shDegree).toBe(1);
    expect(Array.from(back.positions.subarray(0, 30))).toEqual(Array.from(cloud.positions.subarray(0, 30)));
  });

  it('refuses a piece size below one row', () => {
    expect(() => [...splatPlyChunks(generateDefaultScene(10), 0)]).toThrow(RangeError);
  });
});
