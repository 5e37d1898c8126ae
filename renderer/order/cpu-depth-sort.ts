import { createCpuSortClient, type CpuSortClient } from '../../sort/cpu-sort';
import { objectView, type ObjectRun } from '../gpu-scene/objects';
import type { SortStrategy } from './sort-strategy';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * The CPU mirror of shaders/stage/splat_common.wgsl depthKey(): 32 bits: complemented
 * float32 bits of the depth; fewer: depth quantised between near and far. Splats
 * behind the eye get the largest key (drawn last; the vertex shader drops them).
 */
export function cpuDepthKey(depth: number, keyBits: number, near: number, far: number): number {
  if (!(depth > 0)) return keyBits >= 32 ? 0xffffffff : (2 ** keyBits - 1);
  if (keyBits >= 32) {
    f32[0] = depth;
    return ~u32[0] >>> 0;
  }
  const t = Math.min(1, Math.max(0, (depth - near) / (far - near)));
  const maxKey = 2 ** keyBits - 1;
  return maxKey - Math.round(t * maxKey);
}

/**
 * The `cpu` strategy, as the WebGL viewers do it: every splat's view depth on the
 * CPU, a radix sort off the main thread (a Web Worker in the browser, inline in
 * Node), and the order uploaded for a LATER frame: the drawn order lags the camera
 * by at least one frame, which the benchmark's out-of-order fraction shows.
 * No culling: all splats are drawn (the vertex shader drops those behind the eye).
 */
export class CpuDepthSort {
  private readonly client: CpuSortClient;
  private inFlight = false;
  private ready: { order: Uint32Array; ms: number } | null = null;
  private destroyed = false;
  /** Wall time of the last completed depth + sort (ms), from the request to the result. */
  lastSortMs = 0;

  /**
   * @param runs - the placed objects the splats are runs of, read at each request (an
   *   object moved since is sorted where it is now); default one object at the identity
   */
  constructor(
    private readonly positions: Float32Array,
    readonly count: number,
    private readonly runs: () => readonly Pick<ObjectRun, 'first' | 'count' | 'transform'>[] | null = () => null,
  ) {
    this.client = createCpuSortClient();
  }

  /** Starts a sort for `view` unless one is running. Returns whether one started. */
  request(view: ArrayLike<number>, keyBits: number, near: number, far: number): boolean {
    if (this.inFlight || this.destroyed) return false;
    this.inFlight = true;
    const t0 = performance.now();
    const n = this.count;
    const p = this.positions;
    const keys = new Uint32Array(n);
    const depths = new Float32Array(keys.buffer);
    // depth = -(row 2 of the view matrix . [p, 1]); gl-matrix is column-major. Each
    // object's run with its own: the view times its model matrix (objects.ts objectView).
    for (const r of this.runs() ?? [{ first: 0, count: n, transform: null }]) {
      const m = r.transform ? objectView(view, r.transform) : view;
      const m2 = m[2]!, m6 = m[6]!, m10 = m[10]!, m14 = m[14]!;
      for (let i = r.first, end = Math.min(n, r.first + r.count); i < end; i++) depths[i] = -(m2 * p[3 * i] + m6 * p[3 * i + 1] + m10 * p[3 * i + 2] + m14);
    }
    if (keyBits >= 32) {
      // In place: the same bytes read as float depth, written as the complemented bits.
      for (let i = 0; i < n; i++) keys[i] = depths[i] > 0 ? ~keys[i] >>> 0 : 0xffffffff;
    } else {
      for (let i = 0; i < n; i++) keys[i] = cpuDepthKey(depths[i], keyBits, near, far);
    }
    void this.client.sort(keys, n, keyBits).then((order) => {
      this.inFlight = false;
      if (this.destroyed) return;
      this.ready = { order, ms: performance.now() - t0 };
    });
    return true;
  }

  /** Takes the newest finished order, if any (to upload before a frame's draw). */
  take(): Uint32Array | null {
    const r = this.ready;
    if (!r) return null;
    this.ready = null;
    this.lastSortMs = r.ms;
    return r.order;
  }

  /**
   * Resolves once the sort in flight (if any) has finished (one-shot renders, Node
   * benchmarks, tests); true when a finished order waits for {@link take}.
   */
  async settle(): Promise<boolean> {
    while (this.inFlight) await new Promise((r) => setTimeout(r, 0));
    return this.ready !== null;
  }

  destroy(): void {
    this.destroyed = true;
    this.client.destroy();
  }
}

/**
 * The CPU worker as a sort strategy: each frame uploads the newest finished order
 * (with its count) and asks for the next one; the GPU does no project or sort work,
 * so those stages are absent from its GPU timings and the sort's host time stands for
 * the `sort` stage. Until the first order arrives the draw keeps what the buffers
 * hold (the last strategy's order, or nothing for a new scene).
 */
export const cpuWorkerStrategy: SortStrategy = {
  info: {
    name: 'cpu',
    description: 'depths and a radix sort on the CPU (a Web Worker), uploaded for a later frame, no culling: what WebGL viewers do',
    stable: true,
    lagsCamera: true,
  },
  supported: () => true,
  create(device, target) {
    const sort = new CpuDepthSort(target.cloud.positions, target.cloud.count, () => target.objects?.runs ?? null);
    return {
      get hostSortMs() {
        return sort.lastSortMs;
      },
      encode(_encoder, frame) {
        const order = sort.take();
        if (order) {
          target.values.write(device.queue, 0, order);
          target.writeCount(order.length);
        }
        const cam = frame.camera;
        // No GPU pass: the frame's project and sort stages are absent from its GPU timings.
        if (frame.sortNow) sort.request(cam.view, frame.keyBits, cam.near, cam.far);
      },
      settle: () => sort.settle(),
      destroy: () => sort.destroy(),
    };
  },
};
