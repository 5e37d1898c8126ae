/**
 * GpuProfiler on a real adapter (lavapipe here): frames of three timed compute
 * passes standing in for project / sort / draw. Measurements must arrive, be
 * finite and non-negative, come in submission order, and the ring must never
 * hand out a slot whose readback is still in flight (a submit touching a
 * mapping buffer would be a validation error, caught by the error scope).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeGpu, type NodeGpu } from '../../renderer/gpu/node-gpu';
import type { FrameSample } from '../../renderer/profile/frame-stats';
import { type FrameMeta, GpuProfiler, TIMESTAMPS_PER_FRAME } from '../../renderer/profile/profiler';
import type { FrameTimestamps } from '../../renderer/frame/splat-renderer';
import { withValidation } from '../support/gpu';
import { stageWrites, type StageName } from '../../renderer/stage/frame-stages';

/** The quad draw's stages, written at their rows of the stage table. */
const QUAD_STAGES: readonly StageName[] = ['project', 'sort', 'draw'];

// A little arithmetic per invocation so that each pass takes measurable time even on a CPU driver.
const KERNEL = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
  var x = data[id.x] + id.x;
  for (var i = 0u; i < 64u; i++) { x = x * 1664525u + 1013904223u; }
  data[id.x] = x;
}`;
const ELEMENTS = 64 * 256;

let gpu: NodeGpu;
beforeAll(async () => {
  gpu = await createNodeGpu({ timestamps: true });
  console.log(`adapter: ${gpu.description}`);
});
afterAll(() => gpu?.device.destroy());

/** The stand-in frame: three compute passes, each ending a stage of the quads draw (stageWrites: the first also writes the frame's start). */
function makeFrame(device: GPUDevice) {
  const module = device.createShaderModule({ label: 'profilerTest.module', code: KERNEL });
  const pipeline = device.createComputePipeline({ label: 'profilerTest.pipeline', layout: 'auto', compute: { module, entryPoint: 'main' } });
  const data = device.createBuffer({ label: 'profilerTest.data', size: ELEMENTS * 4, usage: GPUBufferUsage.STORAGE });
  const bindGroup = device.createBindGroup({ label: 'profilerTest.bindGroup', layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: data } }] });
  const encode = (encoder: GPUCommandEncoder, ts: FrameTimestamps | undefined) => {
    for (const name of QUAD_STAGES) {
      const pass = encoder.beginComputePass({ label: `profilerTest.${name}`, timestampWrites: stageWrites(ts, name) });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(ELEMENTS / 64);
      pass.end();
    }
  };
  return { encode, destroy: () => data.destroy() };
}

/** Waits (without stalling anything the profiler does) until `done()` or a timeout. */
async function until(device: GPUDevice, done: () => boolean, ms = 30_000): Promise<void> {
  const t0 = performance.now();
  while (!done()) {
    if (performance.now() - t0 > ms) throw new Error('timed out waiting for profiler readbacks');
    await device.queue.onSubmittedWorkDone();
    await new Promise((r) => setTimeout(r, 1));
  }
}

describe('GpuProfiler on a real adapter', () => {
  it('measures frames, never hands out a busy slot, reports in order', async () => {
    const { device } = gpu;
    expect(device.features.has('timestamp-query'), 'this adapter should offer timestamp-query').toBe(true);
    await withValidation(device, async () => {
      const reports: Array<{ sample: FrameSample; meta: FrameMeta }> = [];
      const profiler = new GpuProfiler(device, {
        slots: 4,
        onFrame: (sample, meta) => reports.push({ sample, meta }),
      });
      expect(profiler.supported).toBe(true);
      expect(profiler.reason).toBeUndefined();
      const frame = makeFrame(device);
      let submitted = 0;
      const handedOut: Array<number | undefined> = [];
      const runFrame = () => {
        // A slot is busy from begin() until its readback settles (which may be before the
        // frame is reported, when an older frame is still waiting).
        const busy = [...Array(profiler.slots).keys()].filter((i) => profiler.slotState(i) !== 'free');
        const ts = profiler.begin();
        if (ts) {
          expect(ts.base % TIMESTAMPS_PER_FRAME).toBe(0);
          const slot = ts.base / TIMESTAMPS_PER_FRAME;
          expect(busy.includes(slot), `slot ${slot} handed out while in flight`).toBe(false);
          expect(profiler.slotState(slot)).toBe('recording');
        }
        handedOut.push(ts && ts.base / TIMESTAMPS_PER_FRAME);
        const encoder = device.createCommandEncoder({ label: 'profilerTest.encoder' });
        frame.encode(encoder, ts);
        profiler.end(encoder);
        device.queue.submit([encoder.finish()]);
        profiler.submitted();
        submitted++;
      };

      // A burst with no waiting: the ring fills up and later frames go unmeasured.
      for (let i = 0; i < 10; i++) runFrame();
      expect(handedOut.slice(0, 4)).toEqual([0, 1, 2, 3]);
      expect(handedOut.slice(4).every((s) => s === undefined)).toBe(true);
      expect(profiler.inFlight).toBe(4);
      await until(device, () => reports.length === submitted);

      // Then frames paced by the GPU, as with a display: slots come back in time.
      for (let i = 0; i < 12; i++) {
        runFrame();
        await until(device, () => profiler.inFlight < profiler.slots);
      }
      await until(device, () => reports.length === submitted);
      expect(profiler.inFlight).toBe(0);
      frame.destroy();
      profiler.destroy();

      expect(reports.map((r) => r.meta.frame)).toEqual([...Array(submitted).keys()]);
      const measured = reports.filter((r) => r.meta.gpu === 'measured');
      expect(measured.length).toBeGreaterThanOrEqual(4 + 12);
      for (const { sample } of measured) {
        for (const v of [sample.project, sample.sort, sample.draw, sample.total]) {
          expect(Number.isFinite(v)).toBe(true);
          expect(v!).toBeGreaterThanOrEqual(0);
        }
        // Stages run one after the other inside the span from the first begin to the last end.
        expect(sample.project! + sample.sort! + sample.draw!).toBeLessThanOrEqual(sample.total! + 1e-9);
        expect(sample.total!).toBeGreaterThan(0);
        expect(sample.cpuMs).toBeGreaterThanOrEqual(0);
      }
      // Everything not measured was a frame that found the ring full.
      expect(reports.filter((r) => r.meta.gpu !== 'measured').every((r) => r.meta.gpu === 'unmeasured')).toBe(true);
      const s = profiler.stats.summary();
      expect(s.total!.count).toBe(measured.length);
      expect(s.cpuMs!.count).toBe(submitted);
      console.log(`profiler: ${measured.length}/${submitted} frames measured; total median ${s.total!.median.toFixed(3)} ms, project ${s.project!.median.toFixed(3)}, sort ${s.sort!.median.toFixed(3)}, draw ${s.draw!.median.toFixed(3)}`);
    });
  });

  it('a frame that writes no timestamps reads as unwritten, not as 0 ms', async () => {
    const { device } = gpu;
    await withValidation(device, async () => {
      const metas: FrameMeta[] = [];
      const profiler = new GpuProfiler(device, { slots: 2, onFrame: (_s, m) => metas.push(m) });
      expect(profiler.begin()).toBeDefined();
      const encoder = device.createCommandEncoder({ label: 'profilerTest.emptyEncoder' });
      profiler.end(encoder);
      device.queue.submit([encoder.finish()]);
      profiler.submitted();
      await until(device, () => metas.length === 1);
      expect(metas[0].gpu).toBe('unwritten');
      expect(profiler.stats.latest()!.total).toBeUndefined();
      profiler.destroy();
    });
  });

  it('destroy() with readbacks in flight drops them silently', async () => {
    const { device } = gpu;
    await withValidation(device, async () => {
      const metas: FrameMeta[] = [];
      const profiler = new GpuProfiler(device, { slots: 3, onFrame: (_s, m) => metas.push(m) });
      const frame = makeFrame(device);
      for (let i = 0; i < 3; i++) {
        const ts = profiler.begin();
        const encoder = device.createCommandEncoder({ label: 'profilerTest.encoder' });
        frame.encode(encoder, ts);
        profiler.end(encoder);
        device.queue.submit([encoder.finish()]);
        profiler.submitted();
      }
      expect(profiler.inFlight).toBe(3);
      profiler.destroy();
      await device.queue.onSubmittedWorkDone();
      await new Promise((r) => setTimeout(r, 20));
      expect(metas).toEqual([]);
      expect(profiler.begin()).toBeUndefined();
      frame.destroy();
    });
  });
});
