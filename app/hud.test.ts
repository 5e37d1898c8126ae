import { describe, expect, it } from 'vitest';
import { hudText, type HudFigures } from './hud';

const base: HudFigures = {
  notice: null,
  loading: null,
  scene: 'garden.ply',
  splats: 1_234_567,
  visible: 600_000,
  fps: 0.1818,
  strategy: 'onesweep',
  auto: true,
  stages: [
    { name: 'project', ms: 1.5 },
    { name: 'sort', ms: 249 },
    { name: 'draw', ms: 3000.4 },
  ],
  total: 3250,
  gpuNote: null,
};

describe('hudText', () => {
  it('names the scene, counts, true FPS, the strategy and who chose it, the stage times', () => {
    expect(hudText(base)).toBe(
      'garden.ply  1,234,567 splats (600,000 visible)\n0.18 fps (5.5 s a frame)  sort onesweep (auto)\ngpu 3250 ms (project 1.50 / sort 249 / draw 3000)',
    );
  });

  it('shows "-" for every figure not yet measured for this scene', () => {
    const t = hudText({ ...base, visible: null, fps: null, stages: base.stages.map((x) => ({ ...x, ms: null })), total: null, auto: false });
    expect(t).toBe('garden.ply  1,234,567 splats (- visible)\n- fps  sort onesweep\ngpu -');
  });

  it('says why GPU stage times are missing, and warns first on a software adapter', () => {
    const t = hudText({ ...base, total: null, gpuNote: 'unavailable on this adapter', notice: 'Software GPU (SwiftShader): expect slow frames.' });
    const lines = t.split('\n');
    expect(lines[0]).toMatch(/^Software GPU/);
    expect(lines[3]).toBe('gpu stage times: unavailable on this adapter');
  });

  it('under the tiles draw, its own stages and its visible splats', () => {
    const t = hudText({
      ...base,
      drawName: 'tiles (auto)',
      visible: 152_605,
      stages: [
        { name: 'project', ms: 0.071 },
        { name: 'sort', ms: 0.081 },
        { name: 'blend', ms: 0.44 },
      ],
      total: 0.592,
    });
    expect(t.split('\n').slice(0, 3)).toEqual([
      'garden.ply  1,234,567 splats (152,605 visible)',
      '0.18 fps (5.5 s a frame)  draw tiles (auto)  sort onesweep (auto)',
      'gpu 0.592 ms (project 0.071 / sort 0.081 / blend 0.440)',
    ]);
  });

  it('a host sort (the cpu worker) is named apart from the GPU stages, which add up to the GPU total (issue 34)', () => {
    const t = hudText({
      ...base,
      fps: 1.5,
      strategy: 'cpu',
      auto: false,
      stages: [
        { name: 'project', ms: null },
        { name: 'draw', ms: 662 },
      ],
      total: 662,
      hostSortMs: 11.2,
    });
    expect(t.split('\n').slice(1)).toEqual(['1.5 fps  sort cpu', 'gpu 662 ms (project - / draw 662)  · sort (CPU worker) 11.2 ms']);
  });

  it('shows the loading line while a scene loads', () => {
    expect(hudText({ ...base, scene: null, splats: null, visible: null, loading: 'loading a.ply… 1.0 / 4.0 MB' }).split('\n').slice(0, 2)).toEqual([
      'loading a.ply… 1.0 / 4.0 MB',
      '-  - splats (- visible)',
    ]);
  });
});
