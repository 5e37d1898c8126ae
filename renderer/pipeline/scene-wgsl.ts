import sceneCommonWgsl from '../../shaders/scene_common.wgsl?raw';
import sceneFullWgsl from '../../shaders/scene_full.wgsl?raw';
import sceneCompactWgsl from '../../shaders/scene_compact.wgsl?raw';
import type { ScenePrecision } from './scene-precision';

/**
 * The WGSL that reads a splat from the scene's buffers (splatPosition, splatOpacity,
 * splatCov, splatMaxScale, shCoeff) for a precision, after scene_common.wgsl (the
 * SplatCov both return): every pass that reads the scene prepends it after
 * splat_common.wgsl, and builds one pipeline per precision.
 */
export function sceneWgsl(precision: ScenePrecision): string {
  return `${sceneCommonWgsl}\n${precision === 'full' ? sceneFullWgsl : sceneCompactWgsl}`;
}
