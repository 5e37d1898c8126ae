import { describe, expect, it } from 'vitest';
import { type BenchmarkInput, type BenchmarkRow, buildRows, CSV_COLUMNS, csvField, formatTable, outOfOrderFraction, toCsv, toJson } from './benchmark-report';

// radix4: medians over 4 frames (even count: mean of the middle two), p95 = rank ceil(3.8) = 4 = max.
//   project 1 3 2 4 -> 2.5 / 4; sort 4 2 3 1 -> 2.5 / 4; draw 10 12 11 13 -> 11.5 / 13; total 15.5 17.5 16.5 18.5 -> 17 / 18.5
const input: BenchmarkInput = {
  scene: 'garden.ply',
  splats: 5_834_784,
  visible: 4_102_334,
  rasterFloorMs: 9.25,
  runs: [
    {
      strategy: 'radix4',
      outOfOrderFraction: 0,
      samples: [
        { cpuMs: 0.5, frameMs: 16, project: 1, sort: 4, draw: 10, total: 15.5 },
        { cpuMs: 0.5, frameMs: 16, project: 3, sort: 2, draw: 12, total: 17.5 },
        { cpuMs: 0.5, frameMs: 16, project: 2, sort: 3, draw: 11, total: 16.5 },
        { cpuMs: 0.5, frameMs: 16, project: 4, sort: 1, draw: 13, total: 18.5 },
      ],
    },
    {
      // No timestamp-query: CPU timings only.
      strategy: 'cpu',
      outOfOrderFraction: 0.0125,
      rasterFloorMs: null,
      samples: [
        { cpuMs: 3, frameMs: 17 },
        { cpuMs: 4, frameMs: 18 },
        { cpuMs: 5, frameMs: 19 },
      ],
    },
    {
      // Draw measured in one frame of three (odd count: the middle value).
      strategy: 'bitonic',
      outOfOrderFraction: 0.00001,
      samples: [
        { cpuMs: 1, frameMs: 16, project: 3, total: 3 },
        { cpuMs: 1, frameMs: 16, project: 1, total: 7, draw: 5 },
        { cpuMs: 1, frameMs: 16, project: 2, total: 5 },
      ],
    },
  ],
};

const tileNulls = { blend: null };
const nulls = { project: null, sort: null, draw: null, total: null, ...tileNulls };

describe('buildRows', () => {
  it('medians and nearest-rank p95 per stage, null where no frame measured a stage', () => {
    const rows = buildRows(input);
    expect(rows).toEqual<BenchmarkRow[]>([
      {
        strategy: 'radix4',
        scene: 'garden.ply',
        splats: 5_834_784,
        visible: 4_102_334,
        frames: 4,
        stages: { project: 2.5, sort: 2.5, draw: 11.5, total: 17, ...tileNulls },
        p95: { project: 4, sort: 4, draw: 13, total: 18.5, ...tileNulls },
        rasterFloorMs: 9.25,
        outOfOrderFraction: 0,
      },
      {
        strategy: 'cpu',
        scene: 'garden.ply',
        splats: 5_834_784,
        visible: 4_102_334,
        frames: 3,
        stages: nulls,
        p95: nulls,
        rasterFloorMs: null,
        outOfOrderFraction: 0.0125,
      },
      {
        strategy: 'bitonic',
        scene: 'garden.ply',
        splats: 5_834_784,
        visible: 4_102_334,
        frames: 3,
        stages: { project: 2, sort: null, draw: 5, total: 5, ...tileNulls },
        p95: { project: 3, sort: null, draw: 5, total: 7, ...tileNulls },
        rasterFloorMs: 9.25,
        outOfOrderFraction: 0.00001,
      },
    ]);
  });

  it('keys come in the documented order; rasterFloorMs is absent when not measured', () => {
    const [row] = buildRows({ ...input, rasterFloorMs: undefined, runs: [input.runs[0]] });
    expect(Object.keys(row)).toEqual(['strategy', 'scene', 'splats', 'visible', 'frames', 'stages', 'p95', 'outOfOrderFraction']);
    expect(Object.keys(buildRows(input)[0])).toEqual(['strategy', 'scene', 'splats', 'visible', 'frames', 'stages', 'p95', 'rasterFloorMs', 'outOfOrderFraction']);
  });

  it('a run with no frames gives a row of nulls and 0 frames', () => {
    const [row] = buildRows({ scene: 's', splats: 1, visible: 0, runs: [{ strategy: 'x', samples: [], outOfOrderFraction: 0 }] });
    expect(row).toMatchObject({ frames: 0, stages: nulls, p95: nulls });
  });
});

describe('outOfOrderFraction', () => {
  it('0 for back to front, equal depths are in order', () => {
    expect(outOfOrderFraction([5, 4, 3, 2, 1], 5)).toBe(0);
    expect(outOfOrderFraction([2, 2, 2], 3)).toBe(0);
  });

  it('counts pairs where the later-drawn splat is farther', () => {
    expect(outOfOrderFraction([1, 2, 3], 3)).toBe(1); // front to back: every pair
    // (5,5) ok, (5,4) ok, (4,6) farther, (6,3) ok -> 1 of 4
    expect(outOfOrderFraction(new Float32Array([5, 5, 4, 6, 3]), 5)).toBe(0.25);
  });

  it('looks only at the first `count` depths', () => {
    expect(outOfOrderFraction([3, 2, 9, 10], 2)).toBe(0);
    expect(outOfOrderFraction([3, 2, 9, 10], 3)).toBe(0.5);
  });

  it('fewer than two splats have no pairs: 0', () => {
    expect(outOfOrderFraction([], 0)).toBe(0);
    expect(outOfOrderFraction([7], 1)).toBe(0);
  });

  it('NaN depths compare as in order', () => {
    expect(outOfOrderFraction([1, NaN, 2], 3)).toBe(0);
  });

  it('rejects a count outside the array', () => {
    expect(() => outOfOrderFraction([1, 2], 3)).toThrow(RangeError);
    expect(() => outOfOrderFraction([1, 2], -1)).toThrow(RangeError);
    expect(() => outOfOrderFraction([1, 2], 1.5)).toThrow(RangeError);
  });
});

describe('toCsv', () => {
  it('a header and one flat line per strategy; missing figures are empty fields', () => {
    expect(toCsv(buildRows(input))).toBe(
      [
        'strategy,draw,scene,splats,visible,frames,project_median_ms,project_p95_ms,sort_median_ms,sort_p95_ms,blend_median_ms,blend_p95_ms,draw_median_ms,draw_p95_ms,total_median_ms,total_p95_ms,raster_floor_ms,out_of_order_fraction,key_bits,resolution,adapter,date',
        'radix4,,garden.ply,5834784,4102334,4,2.5,4,2.5,4,,,11.5,13,17,18.5,9.25,0,,,,',
        'cpu,,garden.ply,5834784,4102334,3,,,,,,,,,,,,0.0125,,,,',
        'bitonic,,garden.ply,5834784,4102334,3,2,3,,,,,5,5,5,7,9.25,0.00001,,,,',
        '',
      ].join('\n'),
    );
    expect(CSV_COLUMNS).toHaveLength(22);
  });

  it('quotes fields with commas, quotes, line breaks or edge spaces', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('my, "garden".ply')).toBe('"my, ""garden"".ply"');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField(' padded')).toBe('" padded"');
    const [row] = buildRows({ scene: 'a,b', splats: 2, visible: 2, runs: [{ strategy: 'say "hi"', samples: [], outOfOrderFraction: 0 }] });
    expect(toCsv([row]).split('\n')[1]).toBe('"say ""hi""",,"a,b",2,2,0,,,,,,,,,,,,0,,,,');
  });

  it('numbers carry 6 significant digits', () => {
    const [row] = buildRows({
      scene: 's',
      splats: 1,
      visible: 1,
      runs: [{ strategy: 'x', samples: [{ cpuMs: 0, frameMs: 0, total: 1 / 3 }], outOfOrderFraction: 2 / 3 }],
    });
    expect(toCsv([row]).split('\n')[1]).toBe('x,,s,1,1,1,,,,,,,,,0.333333,0.333333,,0.666667,,,,');
  });
  it("with the run's meta and a measured floor, every column of a measured strategy is filled", () => {
    const meta = { keyBits: 32, resolution: '1280x800', adapter: 'google / swiftshader', date: '2026-11-24T17:10:00.000Z' };
    const sample = { cpuMs: 1, frameMs: 16, project: 1, sort: 2, draw: 3, total: 6 };
    const rows = buildRows({ scene: 'g.ply', splats: 10, visible: 9, rasterFloorMs: 2.5, meta, runs: [{ strategy: 'radix4', samples: [sample], outOfOrderFraction: 0 }] });
    expect(rows[0]).toMatchObject(meta);
    const line = toCsv(rows).split('\n')[1];
    expect(line).toBe('radix4,,g.ply,10,9,1,1,1,2,2,,,3,3,6,6,2.5,0,32,1280x800,google / swiftshader,2026-11-24T17:10:00.000Z');
    // Every column of the quad draw's stages is filled (the draw name and tile stages belong to tiles rows).
    const cells = line.split(',');
    for (const col of ['project_median_ms', 'sort_median_ms', 'draw_median_ms', 'total_median_ms', 'raster_floor_ms', 'key_bits', 'resolution', 'adapter', 'date']) expect(cells[CSV_COLUMNS.indexOf(col)]).not.toBe('');
    expect(formatTable(rows, meta.adapter)).toContain('resolution: 1280x800, key bits: 32, date: 2026-11-24T17:10:00.000Z');
  });
});

describe('toJson', () => {
  it('writes exactly the rows, nulls included', () => {
    const rows = buildRows(input);
    const text = toJson(rows);
    expect(text.endsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(rows);
    expect(text).toContain('"sort": null');
  });
});

describe('formatTable', () => {
  it('aligns columns; shared scene facts go into a heading line', () => {
    expect(formatTable(buildRows(input), 'nvidia / hopper')).toBe(
      [
        'adapter: nvidia / hopper',
        'scene: garden.ply, 5,834,784 splats, 4,102,334 visible',
        'strategy  frames  project ms med / p95  sort ms med / p95  draw ms med / p95  total ms med / p95  raster floor ms  out of order',
        'radix4         4         2.500 / 4.000      2.500 / 4.000    11.500 / 13.000     17.000 / 18.500            9.250             0',
        'cpu            3                 - / -              - / -              - / -               - / -                -         1.25%',
        'bitonic        3         2.000 / 3.000              - / -      5.000 / 5.000       5.000 / 7.000            9.250        <0.01%',
        '',
      ].join('\n'),
    );
  });

  it('puts scene, splats and visible into columns when rows differ; no floor column when none measured', () => {
    const rows = [
      ...buildRows({ scene: 'a.ply', splats: 1000, visible: 900, runs: [{ strategy: 'radix4', samples: [{ cpuMs: 1, frameMs: 1, total: 1.5 }], outOfOrderFraction: 0 }] }),
      ...buildRows({ scene: 'bb.ply', splats: 20, visible: 20, runs: [{ strategy: 'cpu', samples: [], outOfOrderFraction: 1 }] }),
    ];
    expect(formatTable(rows)).toBe(
      [
        'strategy  scene   splats  visible  frames  project ms med / p95  sort ms med / p95  draw ms med / p95  total ms med / p95  out of order',
        'radix4    a.ply    1,000      900       1                 - / -              - / -              - / -       1.500 / 1.500             0',
        'cpu       bb.ply      20       20       0                 - / -              - / -              - / -               - / -       100.00%',
        '',
      ].join('\n'),
    );
  });

  it('a draw column, the tiles stages and pairs appear when rows have them', () => {
    const rows = buildRows({
      scene: 's.ply',
      splats: 10,
      visible: 10,
      runs: [
        { strategy: 'onesweep', draw: 'quads', samples: [{ cpuMs: 1, frameMs: 1, project: 1, sort: 2, draw: 3, total: 6 }], outOfOrderFraction: 0 },
        {
          strategy: 'onesweep',
          draw: 'tiles',
          visible: 9,
          tilePairs: 12345,
          samples: [{ cpuMs: 1, frameMs: 1, project: 1.5, sort: 2, blend: 1.25, total: 4.75 }],
          outOfOrderFraction: NaN,
        },
      ],
    });
    expect(rows[1]).toMatchObject({ draw: 'tiles', visible: 9, tilePairs: 12345, stages: { project: 1.5, blend: 1.25, draw: null } });
    const table = formatTable(rows);
    expect(table.split('\n')[0].split(/  +/)).toEqual([
      'strategy', 'draw', 'scene', 'splats', 'visible', 'frames', 'project ms med / p95', 'sort ms med / p95',
      'blend ms med / p95', 'draw ms med / p95', 'total ms med / p95', 'out of order', 'tile pairs',
    ]);
    expect(table).toContain('12,345');
    expect(JSON.parse(toJson(rows))[1].outOfOrderFraction).toBeNull();
  });

  it('a geometry column and the covered / contributing pixels appear when quads rows have them', () => {
    const rows = buildRows({
      scene: 's.ply',
      splats: 10,
      visible: 10,
      rasterFloorMs: 2,
      runs: [
        { strategy: 'onesweep', draw: 'quads', geometry: 'tri', coveredPixels: 2_500_000, contributingPixels: 1_250_000, samples: [{ cpuMs: 1, frameMs: 1, project: 1, sort: 2, draw: 3, total: 6 }], outOfOrderFraction: 0 },
        { strategy: 'onesweep', draw: 'quads', geometry: 'oct+cut', samples: [{ cpuMs: 1, frameMs: 1, project: 1, sort: 2, draw: 2.5, total: 5.5 }], outOfOrderFraction: 0 },
      ],
    });
    expect(rows[0]).toMatchObject({ draw: 'quads', geometry: 'tri', coveredPixels: 2_500_000, contributingPixels: 1_250_000 });
    expect(Object.keys(rows[0]).slice(0, 3)).toEqual(['strategy', 'draw', 'geometry']);
    expect(rows[1]).not.toHaveProperty('coveredPixels');
    const [head, first, second] = formatTable(rows).split('\n').slice(1);
    expect(head.split(/  +/)).toEqual([
      'strategy', 'draw', 'geometry', 'frames', 'project ms med / p95', 'sort ms med / p95', 'draw ms med / p95', 'total ms med / p95',
      'raster floor ms', 'covered Mpx', 'contributing Mpx', 'out of order',
    ]);
    expect(first).toMatch(/tri .* 2\.50 +1\.25 /);
    expect(second).toMatch(/oct\+cut .* - +- /);
  });

  it('names a fixed camera in a heading line and in each row; rows without one carry no key', () => {
    const camera = 'eye=0,0,-3 target=0,0,0 up=0,-1,0 fovy=60';
    const rows = buildRows({ ...input, camera });
    expect(rows.every((r) => r.camera === camera)).toBe(true);
    expect(Object.keys(rows[0]).slice(0, 4)).toEqual(['strategy', 'scene', 'splats', 'camera']);
    expect(formatTable(rows).split('\n')[1]).toBe(`camera: ${camera}`);
    expect('camera' in buildRows(input)[0]).toBe(false);
    expect(formatTable(buildRows(input))).not.toContain('camera:');
  });

  it('an empty result says so', () => {
    expect(formatTable([])).toContain('(no results)');
  });
});

describe('outOfOrderFraction tolerance', () => {
  it('ignores neighbours closer than the relative tolerance, counts larger inversions', () => {
    // 10 -> 10.00001 is an inversion of 1e-6 relative: ignored at 1e-5, counted at 0.
    expect(outOfOrderFraction([10, 10.00001, 5], 3, 1e-5)).toBe(0);
    expect(outOfOrderFraction([10, 10.00001, 5], 3)).toBe(0.5);
    expect(outOfOrderFraction([10, 10.1, 5], 3, 1e-5)).toBe(0.5);
  });
});
