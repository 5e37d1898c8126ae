import { describe, expect, it } from 'vitest';
import { FRAME_STAGES, STAGE_NAMES, stageWrites, TIMESTAMPS_PER_FRAME } from '../../renderer/pipeline/frame-stages';
import { SAMPLE_FIELDS } from '../../renderer/profile/frame-stats';
import { CSV_COLUMNS, REPORT_STAGES } from '../../renderer/profile/benchmark-report';
import { stageTimes } from '../../renderer/profile/profiler';
import { GRAPH_STAGES, STAGE_COLOURS } from '../../renderer/viewer/frame-graph';

describe('the frame-stage table', () => {
  it('is what the statistics, the report, the graph and the profiler read', () => {
    expect(STAGE_NAMES).toEqual(['project', 'tileKeys', 'sort', 'ranges', 'blend', 'draw']);
    expect(TIMESTAMPS_PER_FRAME).toBe(2 * FRAME_STAGES.length);
    expect(SAMPLE_FIELDS).toEqual(['cpuMs', 'frameMs', ...STAGE_NAMES, 'total']);
    expect(REPORT_STAGES).toEqual([...FRAME_STAGES.filter((s) => s.report).map((s) => s.name), 'total']);
    for (const s of REPORT_STAGES) expect(CSV_COLUMNS).toContain(`${s}_median_ms`);
    expect(GRAPH_STAGES).toEqual([...FRAME_STAGES.filter((s) => s.graph).map((s) => s.name), 'other']);
    for (const s of FRAME_STAGES) expect(STAGE_COLOURS[s.name]).toBe(s.colour);
  });

  it('gives each stage its pair of timestamps, in table order', () => {
    const querySet = {} as GPUQuerySet;
    const base = 3 * TIMESTAMPS_PER_FRAME;
    STAGE_NAMES.forEach((name, i) => {
      expect(stageWrites({ querySet, base }, name)).toEqual({ querySet, beginningOfPassWriteIndex: base + 2 * i, endOfPassWriteIndex: base + 2 * i + 1 });
    });
    expect(stageWrites(undefined, 'draw')).toBeUndefined();
    // And the profiler reads them back in the same order.
    const ns = STAGE_NAMES.flatMap((_, i) => [BigInt(1e6 * (10 * i + 1)), BigInt(1e6 * (10 * i + 1 + i + 1))]);
    const reading = stageTimes(ns);
    expect(reading.outcome).toBe('measured');
    if (reading.outcome === 'measured') STAGE_NAMES.forEach((name, i) => expect(reading.times[name]).toBe(i + 1));
  });
});
