import { makeShaderDataDefinitions, makeStructuredView, type StructuredView } from 'webgpu-utils';
import commonWgsl from '../../shaders/stage/splat_common.wgsl?raw';

/** The fields of the `DrawArgs` struct of shaders/stage/splat_common.wgsl. */
export interface DrawArgValues {
  vertexCount: number;
  instanceCount: number;
}

let reflected: StructuredView | undefined;

/** A view of the WGSL struct, reflected by webgpu-utils on first use. */
function view(): StructuredView {
  reflected ??= makeStructuredView(
    makeShaderDataDefinitions(`${commonWgsl}\n@group(0) @binding(0) var<storage, read_write> drawArgs: DrawArgs;`).storages.drawArgs,
  );
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
    return view().arrayBuffer.byteLength;
  },
  /** Byte offset of `vertexCount`: the vertices of one splat's polygon (draw-pass.ts VERTICES_PER_SPLAT). */
  get vertexCountOffset(): number {
    return view().views.vertexCount.byteOffset;
  },
  /** Byte offset of `instanceCount`: the live (visible, sorted, drawn) splat count. */
  get countOffset(): number {
    return view().views.instanceCount.byteOffset;
  },
  /** The bytes of `vertexCount` vertices a splat times `instanceCount` instances, from the first. */
  pack(values: DrawArgValues): ArrayBuffer {
    const v = view();
    v.set({ vertexCount: values.vertexCount, instanceCount: values.instanceCount, firstVertex: 0, firstInstance: 0 });
    return v.arrayBuffer.slice(0);
  },
  /** The live splat count in bytes read back from a DrawArgs buffer (from its start). */
  count(bytes: ArrayBuffer): number {
    return new Uint32Array(bytes, this.countOffset, 1)[0];
  },
};
