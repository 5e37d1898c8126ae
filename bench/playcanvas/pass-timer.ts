/**
 * GPU times of every render and compute pass a third-party renderer encodes,
 * without its cooperation: GPUCommandEncoder.beginRenderPass/beginComputePass
 * are wrapped (on the prototype Dawn gives every encoder) to add timestampWrites
 * at the pass's begin and end into our own query set. After a frame is
 * submitted, collect() resolves and reads the timestamps back.
 *
 * A pass that already carries timestampWrites (the renderer's own profiler) is
 * left alone and not timed: turn such profilers off.
 */

export type PassKind = 'render' | 'compute';

export interface PassTime {
  kind: PassKind;
  /** The pass encoder's label when the renderer set one, else its descriptor's label, else ''. */
  label: string;
  ms: number;
  beginNs: bigint;
  endNs: bigint;
}

export interface FramePasses {
  passes: PassTime[];
  /** Sum of render-pass times. */
  renderMs: number;
  /** Sum of compute-pass times. */
  computeMs: number;
  /** First pass begin to last pass end (the frame's GPU span, gaps included). */
  spanMs: number;
}

interface Pending {
  kind: PassKind;
  encoder: { label: string };
  descriptorLabel: string;
}

type BeginRender = (this: GPUCommandEncoder, d: GPURenderPassDescriptor) => GPURenderPassEncoder;
type BeginCompute = (this: GPUCommandEncoder, d?: GPUComputePassDescriptor) => GPUComputePassEncoder;

export class PassTimer {
  private readonly querySet: GPUQuerySet;
  private readonly resolveBuffer: GPUBuffer;
  private readonly readBuffer: GPUBuffer;
  private pending: Pending[] = [];
  private untimed = 0;
  /** Only passes begun while active are timed (not the bench's own copies and readbacks). */
  active = false;
  /** A name for the next compute pass, when the renderer names passes only in its own code. */
  nextComputeLabel = '';

  constructor(
    private readonly device: GPUDevice,
    readonly capacity = 512,
  ) {
    if (!device.features.has('timestamp-query')) {
      throw new Error('PassTimer: the device has no timestamp-query feature (the adapter must offer it and the device must request it)');
    }
    this.querySet = device.createQuerySet({ label: 'passTimer.queries', type: 'timestamp', count: capacity * 2 });
    this.resolveBuffer = device.createBuffer({ label: 'passTimer.resolve', size: capacity * 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readBuffer = device.createBuffer({ label: 'passTimer.read', size: capacity * 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    this.wrapEncoderPrototype();
  }

  private restore: (() => void) | null = null;

  private wrapEncoderPrototype(): void {
    const probe = this.device.createCommandEncoder({ label: 'passTimer.probe' });
    const proto = Object.getPrototypeOf(probe) as GPUCommandEncoder & { __passTimer?: PassTimer };
    probe.finish();
    if (proto.__passTimer) throw new Error('PassTimer: GPUCommandEncoder is already wrapped by another PassTimer');
    Object.defineProperty(proto, '__passTimer', { value: this, configurable: true });
    const timer = this;
    const beginRender = proto.beginRenderPass as BeginRender;
    const beginCompute = proto.beginComputePass as BeginCompute;
    this.restore = () => {
      proto.beginRenderPass = beginRender;
      proto.beginComputePass = beginCompute;
      delete proto.__passTimer;
    };
    proto.beginRenderPass = function (this: GPUCommandEncoder, d: GPURenderPassDescriptor) {
      const writes = timer.writesFor('render', d);
      const pass = beginRender.call(this, writes ? { ...d, timestampWrites: writes } : d);
      timer.track(pass);
      return pass;
    };
    proto.beginComputePass = function (this: GPUCommandEncoder, d?: GPUComputePassDescriptor) {
      const writes = timer.writesFor('compute', d);
      const pass = beginCompute.call(this, writes ? { ...(d ?? {}), timestampWrites: writes } : d);
      timer.track(pass);
      return pass;
    };
  }

  private slot: Pending | null = null;

  private writesFor(kind: PassKind, d: GPURenderPassDescriptor | GPUComputePassDescriptor | undefined): GPURenderPassTimestampWrites | null {
    this.slot = null;
    if (!this.active) return null;
    if (d?.timestampWrites) {
      this.untimed++;
      return null;
    }
    const i = this.pending.length;
    if (i >= this.capacity) throw new Error(`PassTimer: more than ${this.capacity} passes in one frame`);
    const label = kind === 'compute' && this.nextComputeLabel ? this.nextComputeLabel : (d?.label ?? '');
    this.nextComputeLabel = '';
    this.slot = { kind, encoder: { label: '' }, descriptorLabel: label };
    this.pending.push(this.slot);
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 };
  }

  private track(pass: GPURenderPassEncoder | GPUComputePassEncoder): void {
    if (this.slot) this.slot.encoder = pass;
    this.slot = null;
  }

  /** Puts the encoder's methods back (passes begun afterwards are not timed) and frees the query set. */
  uninstall(): void {
    this.restore?.();
    this.restore = null;
    this.active = false;
    this.querySet.destroy();
    this.resolveBuffer.destroy();
    this.readBuffer.destroy();
  }

  /** Passes begun since the last collect() that could not be timed (they had their own timestampWrites). */
  get untimedPasses(): number {
    return this.untimed;
  }

  /** Resolves the timestamps of the passes begun since the last call; call after the frame's submits. */
  async collect(): Promise<FramePasses> {
    const pending = this.pending;
    this.pending = [];
    this.untimed = 0;
    const n = pending.length;
    if (n === 0) return { passes: [], renderMs: 0, computeMs: 0, spanMs: 0 };
    const wasActive = this.active;
    this.active = false;
    const enc = this.device.createCommandEncoder({ label: 'passTimer.resolve' });
    enc.resolveQuerySet(this.querySet, 0, 2 * n, this.resolveBuffer, 0);
    enc.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, 16 * n);
    this.device.queue.submit([enc.finish()]);
    this.active = wasActive;
    await this.readBuffer.mapAsync(GPUMapMode.READ, 0, 16 * n);
    const ts = new BigUint64Array(this.readBuffer.getMappedRange(0, 16 * n).slice(0));
    this.readBuffer.unmap();
    const passes: PassTime[] = pending.map((p, i) => {
      const beginNs = ts[2 * i];
      const endNs = ts[2 * i + 1];
      return { kind: p.kind, label: p.encoder.label || p.descriptorLabel, beginNs, endNs, ms: endNs >= beginNs ? Number(endNs - beginNs) / 1e6 : 0 };
    });
    let renderMs = 0;
    let computeMs = 0;
    let first = passes[0].beginNs;
    let last = passes[0].endNs;
    for (const p of passes) {
      if (p.kind === 'render') renderMs += p.ms;
      else computeMs += p.ms;
      if (p.beginNs < first) first = p.beginNs;
      if (p.endNs > last) last = p.endNs;
    }
    return { passes, renderMs, computeMs, spanMs: last >= first ? Number(last - first) / 1e6 : 0 };
  }
}
