/**
 * The object table (issue 32: several objects in one world): the drawn scene's splats
 * are runs, one a placed object, back to back in the scene's buffers, each in its
 * object's own frame; this small uniform block (shaders/gpu-scene/objects.wgsl) says
 * where each run starts and how its object is placed (a similarity x' = R (s x) + t,
 * scenes/transform.ts), so that every pass reads a splat through its object:
 *
 * - per splat, objectOf(i) finds the run (a branch-free binary search over at most
 *   MAX_OBJECTS firsts in the uniform block: log2 of the object count steps, none for one);
 * - per object, written here once a frame (writeView, from FrameUniforms.write): `view`,
 *   the frame's view times the model matrix, which the passes use where they used the
 *   frame's view (the centre, and the EWA projection's W, which turns the covariance into
 *   s^2 R Sigma R^T), and the eye in the object's frame (the SH view direction there);
 * - per object, its crop box in its own frame (scenes/crop.ts; setCrop: the table only),
 *   which the project passes of both draws test each splat's centre against (objectKeeps);
 * - per object, set when the runs change: its SH degree (the drawn buffers hold the
 *   largest object's stride, a smaller object's higher bands are never read) and its
 *   compact ranges (each object keeps its own GpuScene's: assembling objects repacks
 *   nothing).
 *
 * A plain scene is one object at the identity (GpuScene.objects): the same numbers as the
 * Frame block's view and eye, the same picture. Moving an object rewrites its entry
 * here, nothing of the scene's buffers.
 */
import objectsWgslText from '../../shaders/gpu-scene/objects.wgsl?raw';
import { lazy, wgslStruct } from '../../sort/kernel-kit';
import { inverseTransformPoint, isIdentity, multiplyMat4, transformMatrix, type SplatTransform } from '../../scenes/transform';
import type { SplatCrop } from '../../scenes/crop';
import type { CompactDecode } from './compact-pack';

/** Objects one drawn scene holds at most (the WGSL's array sizes: objects.wgsl). */
export const MAX_OBJECTS = 64;

/** One object's run of the drawn scene's splats. */
export interface ObjectRun {
  /** Its first splat in the drawn scene. */
  first: number;
  count: number;
  transform: SplatTransform;
  /** The SH degree its splats hold. */
  shDegree: number;
  /** Its compact ranges (its own GpuScene's decode); null for a full scene. */
  decode: CompactDecode | null;
  /** Its crop box in its own frame (scenes/crop.ts): splats whose centre is outside are not drawn; none: every splat. */
  crop?: SplatCrop | null;
}

/** The box written for no crop: the largest finite one (objects.wgsl compares against it; no infinities on the GPU). */
const NO_CROP = 3.4e38;

/** The block's layout, reflected from objects.wgsl (kernel-kit's WgslStruct) on first use: after the GPU globals exist. */
const layout = lazy(() => {
  const table = wgslStruct(objectsWgslText, 'ObjectTable');
  const entry = wgslStruct(objectsWgslText, 'SplatObject');
  const l = {
    bytes: table.size,
    firsts: table.fieldOffset('firsts'),
    entries: table.fieldOffset('entries'),
    entryBytes: entry.size,
    view: entry.fieldOffset('view'),
    eye: entry.fieldOffset('eye'),
    info: entry.fieldOffset('info'),
    cropMin: entry.fieldOffset('cropMin'),
    cropMax: entry.fieldOffset('cropMax'),
    dcMin: entry.fieldOffset('dcMin'),
    dcStep: entry.fieldOffset('dcStep'),
    lsRange: entry.fieldOffset('lsRange'),
    shRange: entry.fieldOffset('shRange'),
  };
  if (table.fieldWords('firsts') !== MAX_OBJECTS || (l.bytes - l.entries) / l.entryBytes !== MAX_OBJECTS) {
    throw new Error(`objects.wgsl's arrays do not hold MAX_OBJECTS (${MAX_OBJECTS}) objects`);
  }
  return l;
});

/** The object table's WGSL (its structs, objectOf and accessors) with its binding at `binding` (group 0). */
export function objectsWgsl(binding: number): string {
  return `${objectsWgslText}\n@group(0) @binding(${binding}) var<uniform> objectTable: ObjectTable;`;
}

/** The composed matrix and object-frame eye of a run, on the CPU (the CPU sort, the depth-complexity estimate). */
export function objectView(view: ArrayLike<number>, transform: SplatTransform): ArrayLike<number> {
  return isIdentity(transform) ? view : multiplyMat4(view, transformMatrix(transform));
}

/**
 * The object table of a drawn scene: a uniform buffer of MAX_OBJECTS entries, the runs
 * (set when the drawn set changes), their transforms (setTransform: no GPU work until the
 * next frame's writeView), and the per-frame part written by writeView.
 */
export class ObjectTable {
  readonly buffer: GPUBuffer;
  private list: ObjectRun[] = [];
  private readonly bytes = new ArrayBuffer(layout().bytes);
  private readonly f32 = new Float32Array(this.bytes);
  private readonly u32 = new Uint32Array(this.bytes);
  /** The view and eye the buffer was last written for; null: to be written. */
  private written: { view: Float32Array; eye: Float32Array } | null = null;
  /** Bumped whenever a run or a transform changes (a key for what the CPU estimates from them). */
  version = 0;

  constructor(
    private readonly device: GPUDevice,
    runs: readonly ObjectRun[],
  ) {
    this.buffer = device.createBuffer({ label: 'ObjectTable.buffer', size: this.bytes.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.setRuns(runs);
  }

  /** The runs, in splat order. */
  get runs(): readonly ObjectRun[] {
    return this.list;
  }

  /**
   * The drawn scene's runs: back to back from splat 0, in order, 1 .. MAX_OBJECTS of them.
   * @throws RangeError otherwise
   */
  setRuns(runs: readonly ObjectRun[]): void {
    if (runs.length < 1 || runs.length > MAX_OBJECTS) throw new RangeError(`ObjectTable: ${runs.length} objects (1 .. ${MAX_OBJECTS} a drawn scene)`);
    let next = 0;
    for (const r of runs) {
      if (r.first !== next || !(r.count >= 0)) throw new RangeError(`ObjectTable: runs must be back to back from splat 0 (one starts at ${r.first}, expected ${next})`);
      next += r.count;
    }
    this.list = runs.map((r) => ({ ...r }));
    const L = layout();
    const n = runs.length;
    this.u32[0] = n;
    this.u32[1] = n > 1 ? 2 ** Math.floor(Math.log2(n - 1)) : 0;
    for (let k = 0; k < MAX_OBJECTS; k++) this.u32[L.firsts / 4 + k] = k < n ? runs[k]!.first : 0xffffffff;
    for (const [k, r] of runs.entries()) {
      const at = (L.entries + k * L.entryBytes) / 4;
      this.u32.fill(0, at + L.info / 4, at + L.info / 4 + 4);
      this.u32[at + L.info / 4] = r.shDegree;
      this.writeCrop(k, r.crop ?? null);
      const d = r.decode;
      this.f32.fill(0, at + L.dcMin / 4, at + L.entryBytes / 4);
      if (d) {
        this.f32.set(d.dcMin, at + L.dcMin / 4);
        this.f32.set(d.dcStep, at + L.dcStep / 4);
        this.f32.set(d.lsRange, at + L.lsRange / 4);
        this.f32.set(d.shRange.subarray(0, 48), at + L.shRange / 4);
      }
    }
    this.written = null;
    this.version++;
  }

  /** Moves run `k`'s object: written with the next frame's view (no scene buffer changes). */
  setTransform(k: number, transform: SplatTransform): void {
    const r = this.list[k];
    if (!r) throw new RangeError(`ObjectTable: no object ${k}`);
    r.transform = transform;
    this.written = null;
    this.version++;
  }

  /**
   * Crops run `k`'s object to `crop` (its own frame; null: none): written with the next
   * frame, the table only (no scene buffer changes).
   */
  setCrop(k: number, crop: SplatCrop | null): void {
    const r = this.list[k];
    if (!r) throw new RangeError(`ObjectTable: no object ${k}`);
    r.crop = crop;
    this.writeCrop(k, crop);
    this.written = null;
    this.version++;
  }

  /** Run `k`'s crop box into the block's bytes (sent by the next writeView). */
  private writeCrop(k: number, crop: SplatCrop | null): void {
    const L = layout();
    const at = (L.entries + k * L.entryBytes) / 4;
    for (let a = 0; a < 3; a++) {
      this.f32[at + L.cropMin / 4 + a] = Math.max(-NO_CROP, crop ? crop.min[a]! : -NO_CROP);
      this.f32[at + L.cropMax / 4 + a] = Math.min(NO_CROP, crop ? crop.max[a]! : NO_CROP);
    }
    this.f32[at + L.cropMin / 4 + 3] = 0;
    this.f32[at + L.cropMax / 4 + 3] = 0;
  }

  /**
   * Writes each object's view (the frame's `view` times its model matrix) and eye in
   * its frame, with the rest of the block, unless the buffer holds them already (the
   * same view and eye, nothing moved).
   */
  writeView(view: ArrayLike<number>, eye: ArrayLike<number>): void {
    const w = this.written;
    if (w && sameValues(w.view, view, 16) && sameValues(w.eye, eye, 3)) return;
    const L = layout();
    for (const [k, r] of this.list.entries()) {
      const at = (L.entries + k * L.entryBytes) / 4;
      const m = objectView(view, r.transform);
      for (let i = 0; i < 16; i++) this.f32[at + L.view / 4 + i] = m[i]!;
      const e = isIdentity(r.transform) ? eye : inverseTransformPoint(r.transform, eye);
      this.f32[at + L.eye / 4] = e[0]!;
      this.f32[at + L.eye / 4 + 1] = e[1]!;
      this.f32[at + L.eye / 4 + 2] = e[2]!;
      this.f32[at + L.eye / 4 + 3] = r.transform.scale;
    }
    this.device.queue.writeBuffer(this.buffer, 0, this.bytes, 0, L.entries + this.list.length * L.entryBytes);
    this.written = { view: Float32Array.from({ length: 16 }, (_, i) => view[i]!), eye: Float32Array.of(eye[0]!, eye[1]!, eye[2]!) };
  }

  destroy(): void {
    this.buffer.destroy();
  }
}

function sameValues(a: Float32Array, b: ArrayLike<number>, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[i] !== Math.fround(b[i]!)) return false;
  return true;
}
