/** The indirect draw arguments as reflected from shaders/stage/splat_common.wgsl (drawIndirect's layout). */
import { describe, expect, it } from 'vitest';
import { DrawArgs } from './draw-args';

// webgpu-utils' reflection names shader stages by the WebGPU constants (a browser global).
(globalThis as { GPUShaderStage?: unknown }).GPUShaderStage ??= { VERTEX: 1, FRAGMENT: 2, COMPUTE: 4 };

describe('DrawArgs', () => {
  it("has drawIndirect's layout: vertexCount, instanceCount, firstVertex, firstInstance", () => {
    expect(DrawArgs.size).toBe(16);
    expect(DrawArgs.vertexCountOffset).toBe(0);
    expect(DrawArgs.countOffset).toBe(4);
  });

  it('packs the arguments and reads the count back', () => {
    const bytes = DrawArgs.pack({ vertexCount: 6, instanceCount: 1234 });
    expect([...new Uint32Array(bytes)]).toEqual([6, 1234, 0, 0]);
    expect(DrawArgs.count(bytes)).toBe(1234);
  });
});
