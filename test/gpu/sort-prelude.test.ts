/**
 * The rules that the host and the kernels both follow, run on both sides and compared:
 * `fn grid` of shaders/sort/sort_prelude.wgsl against grid2d (the indirect grids the
 * prepare kernels write against the direct grids the sorters dispatch), and radix16's
 * digitStrideFor against radix16DigitStride (the count layout the prepare kernel
 * chooses for the live count against the one the host sizes the buffers for).
 */
import { describe, expect, it } from 'vitest';
import { useGpu, withValidation } from '../support/gpu';
import { readBuffer } from '../../renderer/gpu/node-gpu';
import { grid2d } from '../../sort/sort-job';
import { sortModule } from '../../sort/kernel-kit';
import { radix16DigitStride, RADIX16_CONSTANTS, RADIX16_RADIX } from '../../sort/radix16-kernels';
import radix16CommonWgsl from '../../shaders/sort/radix16_common.wgsl?raw';

const ctx = useGpu();

/** Runs `fn f(w: u32) -> vec4<u32>` (declared in `code`) over `inputs` on the GPU. */
async function evaluate(code: string, constants: Record<string, number>, inputs: number[]): Promise<number[][]> {
  const device = ctx.gpu.device;
  return withValidation(device, async () => {
    const module = device.createShaderModule({
      code: `${code}
@group(0) @binding(0) var<storage, read> inputs: array<u32>;
@group(0) @binding(1) var<storage, read_write> outputs: array<vec4<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < arrayLength(&inputs)) {
    outputs[id.x] = f(inputs[id.x]);
  }
}`,
    });
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main', constants } });
    const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const input = device.createBuffer({ size: inputs.length * 4, usage: S });
    const output = device.createBuffer({ size: inputs.length * 16, usage: S });
    device.queue.writeBuffer(input, 0, Uint32Array.from(inputs));
    const group = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: input } },
        { binding: 1, resource: { buffer: output } },
      ],
    });
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(Math.ceil(inputs.length / 64));
    pass.end();
    device.queue.submit([enc.finish()]);
    const out = new Uint32Array(await readBuffer(device, output));
    input.destroy();
    output.destroy();
    return inputs.map((_, i) => [...out.subarray(4 * i, 4 * i + 4)]);
  });
}

const sizes = [0, 1, 2, 3, 63, 64, 65, 100, 127, 128, 129, 1000, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536, 65537, 100_000, 1_000_000, 4_194_305];

describe('sort prelude and shared rules (gpu)', () => {
  it('fn grid (the prelude) and grid2d give the same grids', async () => {
    for (const maxPerDim of [ctx.gpu.device.limits.maxComputeWorkgroupsPerDimension, 64, 1000]) {
      const got = await evaluate(sortModule(['fn f(w: u32) -> vec4<u32> { return grid(w); }']), { MAX_WORKGROUPS_PER_DIM: maxPerDim }, sizes);
      const want = sizes.map((w) => {
        const g = grid2d(w, maxPerDim);
        return [g.x, g.y, 1, 0];
      });
      expect(got, `maxPerDim ${maxPerDim}`).toEqual(want);
      // Every grid covers w workgroups, no row too wide.
      for (const [i, w] of sizes.entries()) {
        expect(got[i]![0]! * got[i]![1]!).toBeGreaterThanOrEqual(w);
        expect(got[i]![0]!).toBeLessThanOrEqual(maxPerDim);
      }
    }
  });

  it("radix16's digitStrideFor (WGSL) and radix16DigitStride agree for every tile count", async () => {
    const tiles = [...sizes.filter((t) => t < 2 ** 20), ...Array.from({ length: 200 }, (_, i) => i * 7 + 1)];
    const code = sortModule(
      [
        radix16CommonWgsl,
        // radix16_common's padEntry reads `params`.
        '@group(1) @binding(0) var<uniform> params: Params;',
        'fn f(t: u32) -> vec4<u32> { return vec4<u32>(digitStrideFor(t), 0u, 0u, 0u); }',
      ],
      { RADIX: RADIX16_RADIX, KEYS_PER_THREAD: 8 },
    );
    const got = await evaluate(code, { ...RADIX16_CONSTANTS, MAX_WORKGROUPS_PER_DIM: 65535 }, tiles);
    expect(got.map((v) => v[0])).toEqual(tiles.map((t) => radix16DigitStride(t)));
  });
});
