/** Draw shapes as text (bench:frame --geometry, render --geometry/--cut): parsing, printing, errors. */
import { describe, expect, it } from 'vitest';
import { drawShapesFromArg } from '../../bench/cli';
import { DRAW_GEOMETRIES, formatDrawShape, parseDrawShape, triangleVertices, VERTICES_PER_SPLAT } from '../../renderer/draw/quads/quads-draw';

describe('draw shapes', () => {
  it('parses a geometry, auto\'s area, the cut and the primitive mode', () => {
    expect(parseDrawShape('tri')).toEqual({ geometry: 'tri', sigmaCut: false });
    expect(parseDrawShape('auto:128+cut@list')).toEqual({ geometry: 'auto', sigmaCut: true, autoArea: 128, list: true });
    expect(parseDrawShape('rect@strip', true)).toEqual({ geometry: 'rect', sigmaCut: true, list: false });
    for (const text of ['quad', 'oct+cut', 'auto:64', 'hex@list', 'auto:1024+cut@strip']) expect(formatDrawShape(parseDrawShape(text))).toBe(text);
  });

  it('names the problem for a bad shape', () => {
    expect(() => parseDrawShape('circle')).toThrow(/draw shape "circle": expected GEOMETRY/);
    expect(() => parseDrawShape('rect:64')).toThrow(/an area is for 'auto' only/);
    expect(() => parseDrawShape('tri+cut+cut')).toThrow(/expected GEOMETRY/);
    expect(() => drawShapesFromArg('tri,,', false)).not.toThrow();
    expect(() => drawShapesFromArg(',', false)).toThrow(/--geometry ",": no draw shape given/);
    expect(() => drawShapesFromArg('tri,blob', false)).toThrow(/^--geometry: draw shape "blob"/);
  });

  it('--cut puts the cut on every shape of the list', () => {
    expect(drawShapesFromArg('tri,rect', true).map(formatDrawShape)).toEqual(['tri+cut', 'rect+cut']);
  });

  it('vertex counts: a strip of n vertices is n - 2 triangles', () => {
    for (const g of DRAW_GEOMETRIES) expect(triangleVertices(g)).toBe(3 * (VERTICES_PER_SPLAT[g] - 2));
    expect(VERTICES_PER_SPLAT.tri).toBe(3);
    expect(VERTICES_PER_SPLAT.oct).toBe(8);
  });
});
