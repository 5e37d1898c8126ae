/**
 * bench/playcanvas/pass-timer.ts on a real adapter (lavapipe here): it times
 * passes that someone else's code encodes by wrapping GPUCommandEncoder. Every
 * pass begun while active gets a begin/end timestamp pair, in order, with its
 * kind and label; passes begun while inactive or carrying their own timestamp
 * writes are not timed; too many passes fail loudly; uninstall() restores the
 * encoder. Validation errors (e.g. a bad query index) fail the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeGpu, type NodeGpu } from '../../renderer/gpu/node-gpu';
import { PassTimer } from '../../bench/playcanvas/pass-timer';
import { withValidation } from '../support/gpu';

// Enough arithmetic per invocation that a pass takes measurable time on a CPU driver.
const KERNEL = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
  var x = data[id.x] + id.x;
  for (var i = 0u; i < 256u; i++) { x = x * 1664525u + 1013904223u; }
  data[id.x] = x;
}`;
const ELEMENTS = 64 * 256;

let gpu: NodeGpu;
let timer: PassTimer;

beforeAll(async () => {
  gpu = await createNodeGpu({ timestamps: true });
  if (!gpu.device.features.has('timestamp-query')) throw new Error(`adapter ${gpu.description} has no timestamp-query`);
  timer = new PassTimer(gpu.device, 4);
});
afterAll(() => {
  timer?.uninstall();
  gpu?.device.destroy();
});

describe('PassTimer', () => {
  it('times the render and compute passes begun while active, in order, with kind and label', async () => {
    const { device } = gpu;
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: KERNEL }), entryPoint: 'main' } });
    const data = device.createBuffer({ size: ELEMENTS * 4, usage: GPUBufferUsage.STORAGE });
    const bind = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: data } }] });
    const target = device.createTexture({ size: { width: 64, height: 64 }, format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    const frame = await withValidation(device, async () => {
      const untimed = device.createCommandEncoder();
      untimed.beginComputePass({ label: 'before' }).end();
      device.queue.submit([untimed.finish()]);
      timer.active = true;
      const enc = device.createCommandEncoder();
      const cp = enc.beginComputePass({ label: 'work' });
      cp.setPipeline(pipeline);
      cp.setBindGroup(0, bind);
      cp.dispatchWorkgroups(ELEMENTS / 64);
      cp.end();
      enc.beginRenderPass({ label: 'clear', colorAttachments: [{ view: target.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 1] }] }).end();
      device.queue.submit([enc.finish()]);
      timer.active = false;
      return timer.collect();
    });
    expect(frame.passes.map((p) => [p.kind, p.label])).toEqual([
      ['compute', 'work'],
      ['render', 'clear'],
    ]);
    for (const p of frame.passes) {
      expect(p.endNs).toBeGreaterThanOrEqual(p.beginNs);
      expect(Number.isFinite(p.ms) && p.ms >= 0).toBe(true);
    }
    expect(frame.passes[0].ms).toBeGreaterThan(0);
    expect(frame.passes[1].beginNs).toBeGreaterThanOrEqual(frame.passes[0].endNs);
    expect(frame.computeMs).toBeCloseTo(frame.passes[0].ms, 9);
    expect(frame.renderMs).toBeCloseTo(frame.passes[1].ms, 9);
    expect(frame.spanMs).toBeGreaterThanOrEqual(frame.computeMs + frame.renderMs - 1e-6);
    // Nothing pending after a collect.
    expect((await timer.collect()).passes).toEqual([]);
  });

  it('leaves a pass with its own timestampWrites alone and counts it as untimed', async () => {
    const { device } = gpu;
    const own = device.createQuerySet({ type: 'timestamp', count: 2 });
    const passes = await withValidation(device, async () => {
      timer.active = true;
      const enc = device.createCommandEncoder();
      enc.beginComputePass({ timestampWrites: { querySet: own, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } }).end();
      enc.beginComputePass().end();
      device.queue.submit([enc.finish()]);
      timer.active = false;
      expect(timer.untimedPasses).toBe(1);
      return timer.collect();
    });
    expect(passes.passes.length).toBe(1);
    expect(timer.untimedPasses).toBe(0);
    own.destroy();
  });

  it('fails loudly past its capacity instead of dropping passes', async () => {
    const { device } = gpu;
    timer.active = true;
    const enc = device.createCommandEncoder();
    for (let i = 0; i < timer.capacity; i++) enc.beginComputePass().end();
    expect(() => enc.beginComputePass()).toThrow(/more than 4 passes/);
    timer.active = false;
    device.queue.submit([enc.finish()]);
    expect((await timer.collect()).passes.length).toBe(timer.capacity);
  });

  it('uninstall restores the encoder: a second timer can wrap it again', () => {
    timer.uninstall();
    const again = new PassTimer(gpu.device, 2);
    expect(() => new PassTimer(gpu.device, 2)).toThrow(/already wrapped/);
    again.uninstall();
    timer = new PassTimer(gpu.device, 4);
  });
});
