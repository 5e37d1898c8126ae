import { afterAll, beforeAll } from 'vitest';
import { createNodeGpu, readBuffer, type NodeGpu } from '../../renderer/gpu/node-gpu';

/**
 * One device per test file, created before the tests. No adapter is a failure
 * (NoAdapterError propagates), never a skip: CI must run these on a real adapter.
 */
export function useGpu(): { readonly gpu: NodeGpu } {
  const holder = {} as { gpu: NodeGpu };
  beforeAll(async () => {
    holder.gpu = await createNodeGpu();
    console.log(`adapter: ${holder.gpu.description}`);
  });
  afterAll(async () => {
    const device = holder.gpu?.device;
    if (!device) return;
    // Destroyed with its queue idle: a test may leave a frame or a read-back submitted
    // and not awaited, and Dawn's teardown with work in flight is the least-trodden path
    // of a native library that takes the whole test process down when it fails (one CI
    // run lost a worker mid-file, 2026-12-07; not reproduced here in 10 runs).
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([device.queue.onSubmittedWorkDone(), new Promise((r) => (timer = setTimeout(r, 10_000)))]);
    clearTimeout(timer);
    device.destroy();
  });
  return holder;
}

/** Runs `fn` inside a validation error scope and fails on any validation error. */
/** The first `count` u32s of an array in pages of `pageSize` (paging.ts), read back in order. */
export async function readPagesU32(device: GPUDevice, pages: readonly GPUBuffer[], pageSize: number, count: number): Promise<Uint32Array> {
  const out = new Uint32Array(count);
  for (const [p, page] of pages.entries()) {
    out.set(new Uint32Array(await readBuffer(device, page)).subarray(0, Math.min(pageSize, count - p * pageSize)), p * pageSize);
  }
  return out;
}

export async function withValidation<T>(device: GPUDevice, fn: () => Promise<T> | T): Promise<T> {
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  let result: T;
  try {
    result = await fn();
  } finally {
    const oom = await device.popErrorScope();
    const val = await device.popErrorScope();
    if (val) throw new Error(`WebGPU validation error: ${val.message}`);
    if (oom) throw new Error(`WebGPU out-of-memory error: ${oom.message}`);
  }
  return result;
}
