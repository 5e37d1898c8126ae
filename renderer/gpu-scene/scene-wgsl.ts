import sceneCommonWgsl from '../../shaders/gpu-scene/scene_common.wgsl?raw';
import sceneFullWgsl from '../../shaders/gpu-scene/scene_full.wgsl?raw';
import sceneCompactWgsl from '../../shaders/gpu-scene/scene_compact.wgsl?raw';
import { pagedLayoutEntries, pagedWgsl, pagingKey, type Paging } from './paging';
import { objectsWgsl } from './objects';
import type { ScenePrecision } from './scene-precision';

/** How the scene's three arrays are paged (GpuScene.paging). */
export interface ScenePaging {
  centers: Paging;
  covs: Paging;
  sh: Paging;
}

/** Page 0's binding of each scene array in a pass (group 0), and the object table's (objects.ts, a uniform). */
export interface SceneBindings {
  centers: number;
  covs: number;
  sh: number;
  objects: number;
}

/** Elements a splat of each array, by precision (the WGSL element types: SceneCenter, SceneCov, u32). */
const PER_SPLAT: Record<ScenePrecision, { centers: string; covs: string }> = {
  full: { centers: '1u', covs: '2u' },
  compact: { centers: '1u', covs: '1u' },
};

/**
 * The WGSL that reads a splat from the scene's buffers (splatPosition, splatOpacity,
 * splatCov, splatMaxScale, shCoeff) for a precision, after scene_common.wgsl (the
 * SplatCov both return) and the object table (objects.wgsl: objectOf, the splat's
 * object, whose view, eye and compact ranges the passes and the compact decode read),
 * with the scene's paged bindings at `at` (paging.ts): every pass that reads the scene
 * prepends it after splat_common.wgsl, and builds one pipeline per precision and paging
 * (sceneKey).
 */
export function sceneWgsl(precision: ScenePrecision, paging: ScenePaging, at: SceneBindings): string {
  const per = PER_SPLAT[precision];
  return [
    sceneCommonWgsl,
    objectsWgsl(at.objects),
    pagedWgsl({ name: 'centers', type: 'SceneCenter', perSplat: per.centers, paging: paging.centers, binding: at.centers, access: 'read' }),
    pagedWgsl({ name: 'covs', type: 'SceneCov', perSplat: per.covs, paging: paging.covs, binding: at.covs, access: 'read' }),
    pagedWgsl({ name: 'sh', type: 'u32', perSplat: 'frame.shStride', paging: paging.sh, binding: at.sh, access: 'read' }),
    shSplatWgsl(paging.sh),
    precision === 'full' ? sceneFullWgsl : sceneCompactWgsl,
  ].join('\n');
}

/**
 * shFetch(i) and shWord(i, w): word w of splat i's SH, for evalSH (sh_eval.wgsl), which
 * calls shFetch(i) once before its shWord reads. Unpaged, shFetch does nothing and each
 * word is read where it is used (sh_at: a plain index). Paged, shFetch copies the splat's
 * words out of its page into a private array, under ONE switch over the pages: read
 * through sh_at, every word would be a switch of its own (46 of them for compact SH3,
 * each inlined by the driver), and lavapipe took 8-10 s to compile such a pass where
 * the unpaged one takes ~1.5 s (test/gpu/gpu-budget.test.ts, 2026-11-28).
 */
export function shSplatWgsl(sh: Paging): string {
  if (sh.pages === 1) return 'fn shFetch(i: u32) {}\nfn shWord(i: u32, w: u32) -> u32 {\n  return sh_at(i, w);\n}';
  if (sh.splatBytes % 4 !== 0) throw new RangeError(`SH of ${sh.splatBytes} bytes a splat are not whole words`);
  const words = sh.splatBytes / 4;
  const cases = Array.from({ length: sh.pages }, (_, p) =>
    `    ${p === sh.pages - 1 ? 'default' : `case ${p}u`}: { for (var k = 0u; k < ${words}u; k++) { shSplat[k] = sh_${p}[j + k]; } }`,
  );
  return [
    `var<private> shSplat: array<u32, ${words}>;`,
    'fn shFetch(i: u32) {',
    `  let p = i / ${sh.pageSplats}u;`,
    `  let j = (i - p * ${sh.pageSplats}u) * ${words}u;`,
    '  switch (p) {',
    ...cases,
    '  }',
    '}',
    'fn shWord(i: u32, w: u32) -> u32 {',
    '  return shSplat[w];',
    '}',
  ].join('\n');
}

/** The bind group layout entries of the scene's pages and object table at `at`. */
export function sceneLayoutEntries(paging: ScenePaging, at: SceneBindings, visibility: GPUShaderStageFlags = GPUShaderStage.COMPUTE): GPUBindGroupLayoutEntry[] {
  return [
    ...pagedLayoutEntries(at.centers, paging.centers, visibility, 'read-only-storage'),
    ...pagedLayoutEntries(at.covs, paging.covs, visibility, 'read-only-storage'),
    ...pagedLayoutEntries(at.sh, paging.sh, visibility, 'read-only-storage'),
    { binding: at.objects, visibility, buffer: { type: 'uniform' } },
  ];
}

/**
 * What a draw's pipelines that read the scene are specialised for (both draws: draw-pass.ts,
 * tiles/tile-pipelines.ts): the scene's precision and paging, and the paging of the
 * draw's own per-splat records.
 */
export interface DrawKind {
  scene: { precision: ScenePrecision; paging: ScenePaging };
  records: Paging;
  /** The quads draw's sorted ids (paging.ts sortPagingFor). */
  order?: Paging;
  /** The tiles draw's (tile, depth) keys and splat ids, paged alike (sortPagingFor). */
  pairs?: Paging;
}

/** The pipeline cache key of a DrawKind. */
export function drawKindKey(kind: DrawKind): string {
  return `${sceneKey(kind.scene.precision, kind.scene.paging)}|${pagingKey(kind.records)}${kind.order ? `|order ${pagingKey(kind.order)}` : ''}${kind.pairs ? `|pairs ${pagingKey(kind.pairs)}` : ''}`;
}

/** A pipeline cache key: precision and paging. */
export function sceneKey(precision: ScenePrecision, paging: ScenePaging): string {
  return `${precision}|${pagingKey(paging.centers, paging.covs, paging.sh)}`;
}
