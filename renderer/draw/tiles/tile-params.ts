import type { StructuredView } from 'webgpu-utils';
import tilesCommonWgsl from '../../../shaders/draw/tiles/tiles_common.wgsl?raw';
import { wgslStruct } from '../../../sort/kernel-kit';

/** Pixels on a side of a screen tile (TILE in shaders/draw/tiles/tiles_common.wgsl; one blend workgroup). */
export const TILE_SIZE = 16;

/** How a frame's (tile, depth) keys are laid out for a viewport. */
export interface TileLayout {
  tilesX: number;
  tilesY: number;
  /** Bits of the tile index (at least 1, so the depth never takes all 32). */
  tileBits: number;
  /** Bits of the quantised depth under the tile index. */
  depthBits: number;
  /** The bits the sort must look at: tileBits + depthBits (<= 32). */
  keyBits: number;
}

/**
 * The key layout for a `width` x `height` viewport: the tile index above the depth,
 * the depth quantised to `requestedDepthBits` (the frame's key-bits setting) or to
 * what is left of 32 bits beside the tile index, whichever is fewer.
 */
export function tileLayout(width: number, height: number, requestedDepthBits: number): TileLayout {
  if (!(width >= 1 && height >= 1)) throw new RangeError(`tileLayout: bad viewport ${width}x${height}`);
  const tilesX = Math.ceil(width / TILE_SIZE);
  const tilesY = Math.ceil(height / TILE_SIZE);
  const tileBits = Math.max(1, Math.ceil(Math.log2(tilesX * tilesY)));
  if (tileBits > 24) throw new RangeError(`tileLayout: ${width}x${height} has too many tiles for 32-bit keys`);
  const depthBits = Math.max(1, Math.min(Math.floor(requestedDepthBits), 32 - tileBits));
  return { tilesX, tilesY, tileBits, depthBits, keyBits: tileBits + depthBits };
}

/** The `Tiles` uniform block of shaders/draw/tiles/tiles_common.wgsl, packed from the WGSL struct (kernel-kit's WgslStruct). */
export class TileParams {
  readonly buffer: GPUBuffer;
  private readonly view: StructuredView;

  constructor(private readonly device: GPUDevice) {
    const block = wgslStruct(tilesCommonWgsl, 'Tiles');
    this.view = block.view();
    this.buffer = device.createBuffer({
      label: 'TileParams.buffer',
      size: block.size,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
  }

  write(layout: TileLayout, p: { capacity: number; slots: number; splatCount: number; width: number; height: number; background: readonly number[] }): void {
    this.view.set({
      tilesX: layout.tilesX,
      tilesY: layout.tilesY,
      tileBits: layout.tileBits,
      depthBits: layout.depthBits,
      capacity: p.capacity,
      slots: p.slots,
      splatCount: p.splatCount,
      width: p.width,
      height: p.height,
      background: [p.background[0], p.background[1], p.background[2]],
    });
    this.device.queue.writeBuffer(this.buffer, 0, this.view.arrayBuffer);
  }

  destroy(): void {
    this.buffer.destroy();
  }
}
