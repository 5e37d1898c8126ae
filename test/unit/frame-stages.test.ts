import { describe, expect, it } from 'vitest';
import { FRAME_STAGES, STAGE_NAMES, stageWrites, TIMESTAMPS_PER_FRAME, writtenOnly } from '../../renderer/stage/frame-stages';
import { SAMPLE_FIELDS } from '../../renderer/profile/frame-stats';
import { CSV_COLUMNS, REPORT_STAGES } from '../../renderer/profile/benchmark-report';
import { stageTimes } from '../../renderer/profile/profiler';
import { GRAPH_STAGES, STAGE_COLOURS } from '../../app/frame-graph';

describe('the frame-stage table', () => {
  it('is what the statistics, the report, the graph and the profiler read', () => {
    expect(STAGE_NAMES).toEqual(['project', 'sort', 'blend', 'draw']);
    expect(TIMESTAMPS_PER_FRAME).toBe(1 + FRAME_STAGES.length);
    expect(SAMPLE_FIELDS).toEqual(['cpuMs', 'frameMs', ...STAGE_NAMES, 'total']);
    expect(REPORT_STAGES).toEqual([...FRAME_STAGES.filter((s) => s.report).map((s) => s.name), 'total']);
    for (const s of REPORT_STAGES) expect(CSV_COLUMNS).toContain(`${s}_median_ms`);
    expect(GRAPH_STAGES).toEqual([...FRAME_STAGES.filter((s) => s.graph).map((s) => s.name), 'other']);
    for (const s of FRAME_STAGES) expect(STAGE_COLOURS[s.name]).toBe(s.colour);
  });

  it("gives each stage its end timestamp and the frame's first pass the frame's start; the profiler reads the stages back to back", () => {
    const querySet = {} as GPUQuerySet;
    const base = 3 * TIMESTAMPS_PER_FRAME;
    const ts: { querySet: GPUQuerySet; base: number; written?: number } = { querySet, base };
    // A tiles frame: project first (with the start), then sort and blend.
    expect(stageWrites(ts, 'project')).toEqual({ querySet, beginningOfPassWriteIndex: base, endOfPassWriteIndex: base + 1 });
    expect(stageWrites(ts, 'sort')).toEqual({ querySet, endOfPassWriteIndex: base + 2 });
    expect(stageWrites(ts, 'blend')).toEqual({ querySet, endOfPassWriteIndex: base + 3 });
    expect(ts.written).toBe(0b1111);
    expect(stageWrites(undefined, 'draw')).toBeUndefined();
    // A frame whose first timed pass is its draw (the CPU sort): the draw writes the start.
    const cpu: { querySet: GPUQuerySet; base: number; written?: number } = { querySet, base: 0 };
    expect(stageWrites(cpu, 'draw')).toEqual({ querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 4 });
    expect(cpu.written).toBe(0b10001);
    // The slots a frame did not write read 0, whatever an older frame left there.
    expect(writtenOnly([5n, 6n, 7n, 8n, 9n], 0b10001)).toEqual([5n, 0n, 0n, 0n, 9n]);
    // And the profiler reads them back in the same order: each stage from the end of the one before.
    const reading = stageTimes(writtenOnly([1_000_000n, 3_000_000n, 3_500_000n, 7_000_000n, 99n], ts.written!));
    expect(reading).toEqual({ outcome: 'measured', times: { project: 2, sort: 0.5, blend: 3.5, total: 6 } });
  });
});
