/**
 * `npm run bench:sort-compile -- [--capacity N] [--runs R]`: what each GPU sort costs
 * on this adapter before its first sort and after: every compute pipeline's compile
 * (createComputePipeline, timed around the call, which compiles synchronously in Dawn)
 * the first sort's time (less the compiles it makes) and the sort's median over R
 * runs of N random 32-bit keys. `SPLAT_GPU=swiftshader`
 * runs it on SwiftShader, where compiles stall a page (docs/PERFORMANCE.md,
 * "SwiftShader's compiles").
 */
import { parseArgs } from 'node:util';
import { createNodeGpu } from '../renderer/gpu/node-gpu';
import { sorterFactories } from '../sort/registry';

const { values: args } = parseArgs({ options: { capacity: { type: 'string', default: '10000' }, runs: { type: 'string', default: '7' } } });
const capacity = Number(args.capacity);
const runs = Number(args.runs);
if (!Number.isInteger(capacity) || capacity < 1 || !Number.isInteger(runs) || runs < 1) {
  console.error('bench:sort-compile: --capacity and --runs take positive integers');
  process.exit(2);
}

const gpu = await createNodeGpu();
const { device } = gpu;
console.log(`${gpu.description}; ${capacity.toLocaleString('en-US')} keys, median of ${runs} sorts`);
const compiles: { label: string; ms: number }[] = [];
const create = device.createComputePipeline.bind(device);
device.createComputePipeline = (d: GPUComputePipelineDescriptor) => {
  const t = performance.now();
  const p = create(d);
  compiles.push({ label: d.label ?? '?', ms: performance.now() - t });
  return p;
};

const keys = device.createBuffer({ size: 4 * capacity, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
const values = device.createBuffer({ size: 4 * capacity, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
const count = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
const random = new Uint32Array(capacity);
for (let i = 0; i < capacity; i++) random[i] = (Math.random() * 2 ** 32) >>> 0;

for (const factory of sorterFactories) {
  if (!factory.supported(device)) {
    console.log(`${factory.name}: not supported here`);
    continue;
  }
  const before = compiles.length;
  const sorter = factory.create(device, capacity);
  const times: number[] = [];
  let first = 0;
  for (let r = 0; r <= runs; r++) {
    const compiled = compiles.length;
    device.queue.writeBuffer(keys, 0, random);
    device.queue.writeBuffer(count, 0, new Uint32Array([capacity, 0, 0, 0]));
    await device.queue.onSubmittedWorkDone();
    const t = performance.now();
    const encoder = device.createCommandEncoder();
    sorter.encode(encoder, { keys, values, count, keyBits: 32 });
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    const ms = performance.now() - t;
    // The first sort compiles lazy pipelines (counted as compiles, not as its time).
    if (r > 0) times.push(ms);
    else first = ms - compiles.slice(compiled).reduce((sum, c) => sum + c.ms, 0);
  }
  sorter.destroy();
  times.sort((a, b) => a - b);
  const mine = compiles.slice(before);
  const total = mine.reduce((s, c) => s + c.ms, 0);
  const worst = mine.reduce((w, c) => (c.ms > w.ms ? c : w), { label: '-', ms: 0 });
  console.log(`${factory.name.padEnd(9)} sort ${times[times.length >> 1].toFixed(1).padStart(8)} ms (first ${first.toFixed(1).padStart(7)} ms)   compile ${total.toFixed(0).padStart(5)} ms in ${mine.length} pipelines, longest ${worst.ms.toFixed(0)} ms (${worst.label})`);
}
process.exit(0);
