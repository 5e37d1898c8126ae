/**
 * The quads draw as a draw strategy (draw.ts): the sort strategy orders the splats
 * (project pass + GPU sort, or the CPU worker), then DrawPass (quads-draw.ts) draws
 * one polygon per splat in that order, back to front or, by the frame's draw order
 * ('auto': draw-order.ts), front to back.
 */
import type { GpuScene } from '../../gpu-scene/gpu-scene';
import { DrawArgs } from '../../stage/draw-args';
import { stageIndices, stageWrites } from '../../stage/frame-stages';
import type { SortState, SortStrategy, SortTarget } from '../../order/sort-strategy';
import { CompositionRefused, type Coverage, type Draw, type DrawContext, type DrawFrame, type DrawKind, type DrawnOrder } from '../draw';
import { hostNdcZ } from '../host-z';
import { AutoOrder, drawShape } from './draw-order';
import { COVERAGE_BYTES, DEFAULT_LIST, DrawPass, drawsFrontToBack, RECORD_BYTES, VERTICES_PER_SPLAT } from './quads-draw';

/** The quads draw's state for one scene: the sort strategy's, and its prepare + draw passes with their records. */
class QuadsDraw implements Draw {
  private sortState: SortState;
  private readonly pass: DrawPass;
  private readonly autoOrder = new AutoOrder();
  private orderDrawn: DrawnOrder['order'] = 'back-to-front';

  constructor(
    readonly kind: DrawKind,
    private readonly ctx: DrawContext,
    private readonly scene: GpuScene,
    private readonly target: SortTarget,
    public sort: SortStrategy,
  ) {
    this.sortState = sort.create(ctx.device, target);
    this.pass = new DrawPass(ctx.device, ctx.format, { frame: ctx.frame, scene, bindingBytes: ctx.bindingBytes, order: target.values, drawArgs: target.drawArgs }, scene.count);
  }

  setStrategy(sort: SortStrategy): void {
    // The records stay: only the ordering changes hands.
    this.sortState.destroy();
    this.sortState = sort.create(this.ctx.device, this.target);
    this.sort = sort;
  }

  encode(encoder: GPUCommandEncoder, frame: DrawFrame): void {
    const { camera, settings, timestamps, coverage } = frame;
    const host = settings.hostDepth;
    if (settings.outputDepth) throw new CompositionRefused('outputDepth', 'quads', 'tiles', 'does not write a depth for the host');
    if (host && !host.texture) throw new CompositionRefused('hostDepth', 'quads', 'tiles', 'attaches the host depth texture itself: it needs hostDepth.texture');
    const shape = drawShape(settings);
    // Over a host's depth: back to front (the front-to-back draw's own depth mask would take the attachment).
    if (host) shape.frontToBack = false;
    // Front to back draws strips only: a triangle list stays back to front.
    shape.frontToBack ??= !(shape.list ?? DEFAULT_LIST) && this.autoOrder.resolve(this.scene.cloud, camera, settings.splatScale, this.scene.objects) === 'front-to-back';
    this.orderDrawn = drawsFrontToBack(shape, 'splat') ? 'front-to-back' : 'back-to-front';
    this.sortState.encode(encoder, { camera, keyBits: settings.keyBits, sortNow: settings.sort !== false, timestamps });
    // The vertex count follows the shape every frame, also when the order is reused
    // (after the strategy's own writes: the queue applies them in order).
    this.ctx.device.queue.writeBuffer(this.target.drawArgs, DrawArgs.vertexCountOffset, new Uint32Array([VERTICES_PER_SPLAT[shape.geometry]]));
    const writes = stageWrites(timestamps, 'draw');
    const hostPass = host?.texture && { attachment: host.texture.createView(), format: host.texture.format, reversed: host.reversed ?? false, z: hostNdcZ(host) };
    this.pass.encode(encoder, frame.target, camera, settings.background, shape, coverage ? 'count' : settings.rasterFloor ? 'floor' : 'splat', stageIndices(writes), coverage, hostPass);
  }

  async measureCoverage(record: (encoder: GPUCommandEncoder, coverage: GPUBuffer) => void): Promise<Coverage> {
    const device = this.ctx.device;
    const coverage = device.createBuffer({
      label: 'QuadsDraw.coverage',
      size: COVERAGE_BYTES,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    const readback = device.createBuffer({ label: 'QuadsDraw.coverageReadback', size: COVERAGE_BYTES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = device.createCommandEncoder({ label: 'QuadsDraw.measureCoverage' });
    record(encoder, coverage);
    encoder.copyBufferToBuffer(coverage, 0, readback, 0, COVERAGE_BYTES);
    device.queue.submit([encoder.finish()]);
    await this.settle();
    await readback.mapAsync(GPUMapMode.READ);
    const counts = new Uint32Array(readback.getMappedRange().slice(0));
    readback.unmap();
    readback.destroy();
    coverage.destroy();
    let covered = 0;
    let contributing = 0;
    for (let i = 0; i < counts.length; i += 2) {
      covered += counts[i];
      contributing += counts[i + 1];
    }
    return { covered, contributing };
  }

  submitted(): void {}

  settle(): Promise<boolean> {
    return this.sortState.settle();
  }

  get hostSortMs(): number | null {
    return this.sortState.hostSortMs;
  }

  get tileStatus(): null {
    return null;
  }

  get drawOrder(): DrawnOrder {
    return { order: this.orderDrawn, layers: this.autoOrder.lastLayers };
  }

  destroy(): void {
    this.sortState.destroy();
    this.pass.destroy();
  }
}

/** Instanced quads (or polygons) in the sort strategy's order: any sort strategy serves it. */
export const quadsDraw: DrawKind<'quads'> = {
  info: { name: 'quads', description: 'instanced quads, back to front, graphics pipeline', needsGpuSorter: false, stages: ['project', 'sort', 'draw'] },
  budget: {
    records: { name: 'draw records', bytes: RECORD_BYTES },
    // The project pass (project/project-pass.ts): the scene's pages, the keys' and the
    // values' and the draw arguments; the prepare pass (quads-draw.ts): the scene's
    // and the records' pages, the order's (the values') and its control buffer.
    stageBuffers: ({ scene, records, sort }) => Math.max(scene + 2 * sort + 1, scene + records + sort + 1),
  },
  create(ctx, scene, target, sort) {
    return new QuadsDraw(this, ctx, scene, target, sort);
  },
  // Render pipelines, and a compute one: quick to make on the spot.
  compileAhead: async () => {},
};
