/**
 * The interface of a draw strategy: how a frame's ordered splats become pixels
 * (draw-strategies.ts lists them). A draw is an object, as a sort strategy is
 * (order/sort-strategy.ts): SplatRenderer holds one and never asks which.
 *
 *   DrawKind   the strategy itself, one a folder (quads/, tiles/): what it is and
 *              times (info), what it needs of the order stage, what it adds to the
 *              GPU budget, its pipelines compiled ahead, and `create`;
 *   Draw       its state for one scene (its buffers, the sort strategy's state
 *              where it draws in that order): encodes a frame, switches the sort
 *              strategy, settles after a submit, gives its figures; `destroy`
 *              frees it.
 */
import type { GpuScene } from '../gpu-scene/gpu-scene';
import type { FrameTimestamps, StageName } from '../stage/frame-stages';
import type { DrawOrder } from '../stage/draw-settings';
import type { FrameCamera, FrameSettings } from '../stage/frame-uniforms';
import type { SortStrategy, SortTarget } from '../order/sort-strategy';
import type { PairStatus } from './tiles/pair-budget';
import type { TileRasterizerOptions } from './tiles/tile-pairs';

/** A draw strategy as the GUI, the benchmarks and the profiler list it. */
export interface DrawInfo<N extends string = string> {
  name: N;
  description: string;
  /** Sorts keys of its own on the GPU: a host sort strategy cannot serve it (draw-strategies.ts drawRefusal). */
  needsGpuSorter: boolean;
  /** The stages of frame-stages.ts it times (its frames leave the others unwritten). */
  stages: readonly StageName[];
}

/**
 * A host's depth buffer to composite with (docs/API.md "Composing with a host"): splats
 * behind the host's opaque surfaces are hidden. The depth is the host's own, as its
 * perspective projection wrote it: WebGPU NDC z in [0, 1] of a projection with the
 * planes `near` and `far` (view distances along the camera's forward axis, the same
 * camera as the frame's), z = far (d - near) / (d (far - near)) at view depth d, or
 * with `reversed` (reversed-Z) z = near (far - d) / (d (far - near)). `far` may be
 * Infinity (an infinite far plane). The texture is width x height of the target,
 * with TEXTURE_BINDING usage and a depth format (depth16unorm, depth24plus,
 * depth32float, or their stencil forms through a depth-only view aspect).
 * The quads draw tests its polygons against it as a read-only depth attachment: it needs
 * `texture` (RENDER_ATTACHMENT usage; TEXTURE_BINDING is the tiles draw's need).
 */
export interface HostDepth {
  /** A view of its depth aspect (the tiles draw samples it). */
  view: GPUTextureView;
  /** The texture itself: the quads draw attaches it (all its aspects, read-only) and reads its format. */
  texture?: GPUTexture;
  near: number;
  far: number;
  reversed?: boolean;
}

/**
 * A depth for the host, written by the frame (docs/API.md "Composing with a host"): per
 * pixel the depth of the splat at which the accumulated opacity first reaches 0.5, as
 * NDC z in the convention of HostDepth (`near`, `far`, `reversed`: the host's projection),
 * or the far plane's z (1; reversed 0) where it never does. `view`: an r32float texture
 * of the target's size with STORAGE_BINDING usage (a depth format cannot be written by
 * a compute pass: the host copies it into its depth buffer, e.g. a full-screen pass
 * writing frag_depth). The depth is the splat's 16-bit one (1/65535 of the frame's depth
 * range).
 */
export interface OutputDepth {
  view: GPUTextureView;
  near: number;
  far: number;
  reversed?: boolean;
}

/** What an encodeFrame call asks besides the frame's settings. */
export interface EncodeOptions {
  background: readonly [number, number, number];
  /**
   * Re-project and re-sort this frame (default true). False reuses the last order
   * and count: right when neither the camera nor the scene changed.
   */
  sort?: boolean;
  /** Draw the raster-floor variant (same geometry, trivial fragment shader). */
  rasterFloor?: boolean;
  /**
   * The target texture has STORAGE_BINDING usage: the tiles draw writes it directly
   * where its format allows (tiles/tile-pipelines.ts canBlendInto), with no image
   * copied onto it. Default false.
   */
  targetStorage?: boolean;
  /**
   * Composite with a host's depth (HostDepth): the tiles draw stops each pixel's blend
   * at the host's depth (a splat whose depth is behind it there contributes nothing),
   * and draws over the target's colour (the host's picture: colour + T x target; the
   * background setting is not drawn), through its image and a blended copy. Its blend is then a pipeline of its own (one per output format); without it the
   * frame is drawn exactly as before. A tiles fallback frame (its depth-sorted quads)
   * ignores it. The quads draw (it needs HostDepth.texture) draws its polygons back to
   * front over the target's colour, each at its splat centre's depth in the host's
   * convention, against the host's depth as a read-only attachment: the hardware drops
   * the fragments behind the host's surface (a pipeline per depth format; none of this
   * without it).
   */
  hostDepth?: HostDepth;
  /**
   * Write a depth for the host (OutputDepth): the tiles draw, in its blend (a pipeline of
   * its own, as hostDepth's; the two combine). The quads draw refuses it
   * (CompositionRefused); a tiles fallback frame writes the far plane's z.
   */
  outputDepth?: OutputDepth;
}

/** A composition option a draw does not do (the quads draw's outputDepth): the error names the draw that does. */
export class CompositionRefused extends Error {
  override readonly name = 'CompositionRefused';
  constructor(
    readonly option: 'hostDepth' | 'outputDepth',
    readonly draw: string,
    readonly useDraw: string,
    why: string,
  ) {
    super(`${option}: the ${draw} draw ${why}; the ${useDraw} draw does (setDraw('${useDraw}'))`);
  }
}

/** What the renderer lends every draw it makes: the same for all its scenes. */
export interface DrawContext {
  readonly device: GPUDevice;
  /** The format of the targets it draws into. */
  readonly format: GPUTextureFormat;
  /** The frame uniforms (stage/frame-uniforms.ts), written before each encode. */
  readonly frame: GPUBuffer;
  /** The most bytes one binding holds: per-splat arrays are paged under it (paging.ts). */
  readonly bindingBytes: number;
  /** The most bytes a page of sort keys or values holds, when lower than bindingBytes (tests: gpu-budget.ts sortPageBytes). */
  readonly sortPageBytes?: number;
  /** The tiles draw's pair budget (SplatRenderer's tileOptions); other draws ignore it. */
  readonly tileOptions: TileRasterizerOptions;
}

/** One frame as a draw encodes it; the frame uniforms hold its camera and settings already. */
export interface DrawFrame {
  /** A view of a texture of the context's format, camera.width x camera.height. */
  target: GPUTextureView;
  camera: FrameCamera;
  settings: FrameSettings & EncodeOptions;
  timestamps?: FrameTimestamps;
  /** Count the frame's fragments into this buffer (Draw.measureCoverage's frame). */
  coverage?: GPUBuffer;
}

/** The order a frame was drawn in ('auto' resolved), and the depth complexity 'auto' saw. */
export interface DrawnOrder {
  order: Exclude<DrawOrder, 'auto'>;
  layers: number | null;
}

/** Fragments of a frame of the raster floor: those its geometry covers, and those whose alpha passes. */
export interface Coverage {
  covered: number;
  contributing: number;
}

/** What a draw adds to the scene's GPU budget (frame/gpu-budget.ts). */
export interface DrawBudget {
  /** Its per-splat records (paged), by their name in a budget message, and their bytes a splat. */
  readonly records: { readonly name: string; readonly bytes: number };
  /**
   * Storage buffers its fullest shader stage binds, from the pages of the scene's
   * arrays, of its records and of the sort's keys (the sort's merge is counted apart).
   */
  stageBuffers(pages: { scene: number; records: number; sort: number }): number;
}

/** A draw strategy: one folder of renderer/draw/ and one line of draw-strategies.ts. */
export interface DrawKind<N extends string = string> {
  readonly info: DrawInfo<N>;
  /** With info.needsGpuSorter: what it sorts with the sort strategy's GPU sorter, for the refusal ('its (tile, depth) pairs'). */
  readonly gpuSorts?: string;
  readonly budget: DrawBudget;
  /**
   * Its state for `scene`, drawing in the order of `sort` (which it can use: see
   * draw-strategies.ts drawRefusal). `target` is the scene's (key, id) buffers and
   * project pass, the renderer's, for a draw that draws in the sort strategy's order.
   */
  create(ctx: DrawContext, scene: GpuScene, target: SortTarget, sort: SortStrategy): Draw;
  /**
   * Compiles on the side what `create` and its first frames would compile on the spot
   * (into targets that can be storage textures when `targetStorage`); resolves once
   * compiled, at once where there is nothing slow to compile.
   */
  compileAhead(ctx: DrawContext, scene: GpuScene, sort: SortStrategy, targetStorage: boolean): Promise<void>;
}

/** A draw strategy's state for one scene. */
export interface Draw {
  readonly kind: DrawKind;
  /** The sort strategy it draws with. */
  readonly sort: SortStrategy;
  /** Switches the sort strategy (one it can use); the old one's memory is freed, the draw's own buffers stay. */
  setStrategy(sort: SortStrategy): void;
  /** Records one frame into `encoder`, timing the stages of kind.info.stages. */
  encode(encoder: GPUCommandEncoder, frame: DrawFrame): void;
  /**
   * Counts one frame's fragments: `record` records that frame (uniforms written,
   * this draw's encode with `coverage`) into the encoder given; submitted here.
   * @throws for a draw without a fragment count (only quads has one)
   */
  measureCoverage(record: (encoder: GPUCommandEncoder, coverage: GPUBuffer) => void): Promise<Coverage>;
  /** Call after submitting a frame: starts what it reads back (the tiles draw's pair counts). */
  submitted(): void;
  /**
   * Resolves once what the submitted frames left in flight is in (a host sort, read-backs);
   * true when the last frame is not this draw's own picture yet: draw it again for that.
   */
  settle(): Promise<boolean>;
  /** The last sort's wall time in ms where the sort strategy sorts on the host; null otherwise. */
  readonly hostSortMs: number | null;
  /** HUD figures: the tiles draw's pair buffers; null for a draw without pairs. */
  readonly tileStatus: PairStatus | null;
  /** HUD figures: the order the last frame was drawn in; null for a draw with one order only, or before a frame. */
  readonly drawOrder: DrawnOrder | null;
  destroy(): void;
}
