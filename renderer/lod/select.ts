/**
 * The LOD choice of a streamed scene (scenes/lod-meta.ts), pure: per leaf of
 * the tree the level that keeps the image's error smallest within a splat
 * budget, for one view.
 *
 * Error of a leaf at a level: the mean spacing of its splats (the bound's
 * diagonal over the cube root of the count) projected at the distance from
 * the eye to the bound, in pixels. Greedy:
 * 1. every leaf in the view frustum gets its coarsest level, nearest first,
 *    while the budget holds (a leaf that does not fit gets nothing);
 * 2. the leaf with the largest error is refined one level while the budget
 *    holds; one whose refinement does not fit keeps its level and the next is tried;
 * 3. leaves outside the frustum get their coarsest level, nearest first, from
 *    what is left (ready for a turn of the camera).
 * The sum of the chosen counts never exceeds the budget.
 */
import type { Bounds } from '../../scenes/splat-cloud';
import { inverseTransformPoint, isIdentity, multiplyMat4, transformMatrix, type SplatTransform } from '../../scenes/transform';

/** A leaf as the selector sees it: bounds and splats per level (0 where it has none of that level). */
export interface LodLeafCounts {
  bound: Bounds;
  counts: ArrayLike<number>;
}

export interface LodView {
  eye: ArrayLike<number>;
  /** proj * view, column-major, clip z in [0, 1] (WebGPU's); null: everything is in view. */
  viewProj: ArrayLike<number> | null;
  /** Pixels per unit of tan(angle): height / (2 tan(fovy / 2)). */
  focalPx: number;
}

export interface LodSelection {
  /** Per leaf: the chosen level, or -1 for none. */
  levels: Int8Array;
  /** Splats of the chosen levels. */
  splats: number;
  /** Per leaf: the distance from the eye to its bound (0 inside). */
  distance: Float64Array;
  /** Per leaf: whether its bound meets the view frustum. */
  visible: Uint8Array;
}

/** Distance from a point to an axis-aligned box (0 inside). */
export function boxDistance(b: Bounds, p: ArrayLike<number>): number {
  let s = 0;
  for (let a = 0; a < 3; a++) {
    const d = Math.max(b.min[a]! - p[a]!, 0, p[a]! - b.max[a]!);
    s += d * d;
  }
  return Math.sqrt(s);
}

/**
 * Whether a box meets the frustum of a view-projection matrix (left, right,
 * bottom, top and near planes; the far plane is not tested): conservative, a
 * box outside no plane counts as visible.
 */
export function boxInFrustum(b: Bounds, m: ArrayLike<number>): boolean {
  // Rows of the column-major matrix: r_i = (m[i], m[4 + i], m[8 + i], m[12 + i]).
  const row = (i: number) => [m[i]!, m[4 + i]!, m[8 + i]!, m[12 + i]!];
  const r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  const planes = [
    r3.map((v, k) => v + r0[k]!), r3.map((v, k) => v - r0[k]!),
    r3.map((v, k) => v + r1[k]!), r3.map((v, k) => v - r1[k]!),
    r2, // near: z_clip >= 0
  ];
  for (const p of planes) {
    // The box corner farthest along the plane's normal.
    const x = p[0]! >= 0 ? b.max[0] : b.min[0];
    const y = p[1]! >= 0 ? b.max[1] : b.min[1];
    const z = p[2]! >= 0 ? b.max[2] : b.min[2];
    if (p[0]! * x + p[1]! * y + p[2]! * z + p[3]! < 0) return false;
  }
  return true;
}

/** The projected error of a leaf at a level, in pixels. */
export function leafError(leaf: LodLeafCounts, level: number, distance: number, focalPx: number): number {
  const n = leaf.counts[level]!;
  const { min, max } = leaf.bound;
  const size = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  const spacing = size / Math.cbrt(Math.max(1, n));
  // Inside (or at) the bound: as close as a hundredth of its size, so nearer leaves still come first.
  return (spacing * focalPx) / Math.max(distance, size * 0.01, 1e-6);
}

/** The next finer level than `level` the leaf has (-1 when none), and its coarsest (-1 when empty). */
function finer(counts: ArrayLike<number>, level: number): number {
  for (let l = level - 1; l >= 0; l--) if (counts[l]! > 0) return l;
  return -1;
}
function coarsest(counts: ArrayLike<number>): number {
  for (let l = counts.length - 1; l >= 0; l--) if (counts[l]! > 0) return l;
  return -1;
}

/** Chooses a level per leaf for `view` within `budget` splats (see the module comment). */
export function selectLods(leaves: readonly LodLeafCounts[], view: LodView, budget: number): LodSelection {
  const n = leaves.length;
  const levels = new Int8Array(n).fill(-1);
  const distance = new Float64Array(n);
  const visible = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    distance[i] = boxDistance(leaves[i]!.bound, view.eye);
    visible[i] = view.viewProj === null || boxInFrustum(leaves[i]!.bound, view.viewProj) ? 1 : 0;
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => distance[a]! - distance[b]!);
  let splats = 0;
  const placeCoarsest = (wantVisible: number) => {
    for (const i of order) {
      if (visible[i] !== wantVisible) continue;
      const l = coarsest(leaves[i]!.counts);
      if (l < 0) continue;
      const c = leaves[i]!.counts[l]!;
      if (splats + c <= budget) {
        levels[i] = l;
        splats += c;
      }
    }
  };
  placeCoarsest(1);
  // Max-heap of (error, leaf) over visible leaves that can be refined.
  const heap: [number, number][] = [];
  const push = (e: number, i: number) => {
    heap.push([e, i]);
    for (let k = heap.length - 1; k > 0; ) {
      const p = (k - 1) >> 1;
      if (heap[p]![0] >= heap[k]![0]) break;
      [heap[p], heap[k]] = [heap[k]!, heap[p]!];
      k = p;
    }
  };
  const pop = (): [number, number] => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let k = 0; ; ) {
        const a = 2 * k + 1, b = a + 1;
        let m = k;
        if (a < heap.length && heap[a]![0] > heap[m]![0]) m = a;
        if (b < heap.length && heap[b]![0] > heap[m]![0]) m = b;
        if (m === k) break;
        [heap[m], heap[k]] = [heap[k]!, heap[m]!];
        k = m;
      }
    }
    return top;
  };
  for (let i = 0; i < n; i++) {
    if (levels[i]! >= 0 && finer(leaves[i]!.counts, levels[i]!) >= 0) push(leafError(leaves[i]!, levels[i]!, distance[i]!, view.focalPx), i);
  }
  while (heap.length > 0) {
    const [, i] = pop();
    const counts = leaves[i]!.counts;
    const next = finer(counts, levels[i]!);
    const cost = counts[next]! - counts[levels[i]!]!;
    if (splats + cost > budget) continue;
    splats += cost;
    levels[i] = next;
    if (finer(counts, next) >= 0) push(leafError(leaves[i]!, next, distance[i]!, view.focalPx), i);
  }
  placeCoarsest(0);
  return { levels, splats, distance, visible };
}

/**
 * The levels that can be drawn now: per leaf its chosen level when `resident`
 * says that level's data is on the GPU, else the finest resident coarser level
 * (fewer splats, so the budget still holds), else none.
 */
export function drawableLevels(leaves: readonly LodLeafCounts[], chosen: Int8Array, resident: (leaf: number, level: number) => boolean): Int8Array {
  const out = new Int8Array(chosen.length).fill(-1);
  for (let i = 0; i < chosen.length; i++) {
    const want = chosen[i]!;
    if (want < 0) continue;
    const counts = leaves[i]!.counts;
    for (let l = want; l < counts.length; l++) {
      if (counts[l]! > 0 && counts[l]! <= counts[want]! && resident(i, l)) {
        out[i] = l;
        break;
      }
    }
  }
  return out;
}

/**
 * LodView for a camera: eye, proj * view and the focal length in pixels. `placed`: the
 * scene is a placed object (x' = R (s x) + t, scenes/transform.ts): the view in its own
 * frame, where its leaves' bounds are (the eye moved back by the inverse, the frustum's
 * matrix times the object's; the focal length stays: a leaf's error is its spacing over
 * its distance, both scaled alike).
 */
export function lodViewOf(cam: { view: ArrayLike<number>; proj: ArrayLike<number>; eye: ArrayLike<number>; fovyDeg: number; height: number }, placed?: SplatTransform): LodView {
  const vp = new Float64Array(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += cam.proj[k * 4 + r]! * cam.view[c * 4 + k]!;
      vp[c * 4 + r] = s;
    }
  }
  const focalPx = cam.height / (2 * Math.tan((cam.fovyDeg * Math.PI) / 360));
  if (!placed || isIdentity(placed)) return { eye: cam.eye, viewProj: vp, focalPx };
  return { eye: inverseTransformPoint(placed, cam.eye), viewProj: multiplyMat4(vp, transformMatrix(placed)), focalPx };
}
