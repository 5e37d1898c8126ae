import commonWgsl from '../../shaders/stage/splat_common.wgsl?raw';
import { wgslStruct, type WgslStruct } from '../../sort/kernel-kit';

/** The fields of the `DrawArgs` struct of shaders/stage/splat_common.wgsl. */
export interface DrawArgValues {
  vertexCount: number;
  instanceCount: number;
}

let reflected: WgslStruct | undefined;

/** The WGSL struct (kernel-kit's WgslStruct), reflected on first use. */
function drawArgs(): WgslStruct {
  reflected ??= wgslStruct(commonWgsl, 'DrawArgs');
  return reflected;
}

/**
 * The indirect draw arguments as the WGSL declares them (`struct DrawArgs` in
 * shaders/stage/splat_common.wgsl): byte size, where the live splat count sits (the
 * project pass appends into `instanceCount`, the sorters read their count there),
 * and packing / reading them, all from the shader's own layout.
 */
export const DrawArgs = {
  /** Bytes of the struct. */
  get size(): number {
    return drawArgs().size;
  },
  /** Byte offset of `vertexCount`: the vertices of one splat's polygon (draw-pass.ts VERTICES_PER_SPLAT). */
  get vertexCountOffset(): number {
    return drawArgs().fieldOffset('vertexCount');
  },
  /** Byte offset of `instanceCount`: the live (visible, sorted, drawn) splat count. */
  get countOffset(): number {
    return drawArgs().fieldOffset('instanceCount');
  },
  /** The bytes of `vertexCount` vertices a splat times `instanceCount` instances, from the first. */
  pack(values: DrawArgValues): ArrayBuffer {
    return drawArgs().bytes({ vertexCount: values.vertexCount, instanceCount: values.instanceCount, firstVertex: 0, firstInstance: 0 });
  },
  /** The live splat count in bytes read back from a DrawArgs buffer (from its start). */
  count(bytes: ArrayBuffer): number {
    return new Uint32Array(bytes, this.countOffset, 1)[0];
  },
};
