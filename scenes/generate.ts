/**
 * Generated scenes: the built-in default scene (what a user sees first: the
 * product ships no third-party data) and synthetic scenes with the statistics
 * of trained 3DGS scenes (for benchmarks at any size).
 *
 * Both are deterministic (a seeded PRNG of our own, no Math.random) and are
 * written in the COLMAP frame (y down, z forward) like trained scenes, so the
 * viewer's default "turn COLMAP upright" shows them upright.
 *
 * This module is their one entry: default-scene.ts, synthetic-scene.ts, and what both
 * are built from, generate-kit.ts.
 */
import type { SplatCloud } from './splat-cloud';
import { generateDefaultScene } from './default-scene';
import { generateSynthetic } from './synthetic-scene';

export { generateDefaultScene } from './default-scene';
export { generateSynthetic } from './synthetic-scene';
export { rotateX180 } from './generate-kit';

/**
 * A generated scene by its spec: 'default' (60,000 splats), 'default:N',
 * 'synthetic:N'; named by the spec ('default:3000' is not 'default').
 */
export function generatedScene(spec: string): SplatCloud {
  const [kind, n] = spec.split(':');
  const cloud = kind === 'synthetic' ? generateSynthetic(Number(n)) : generateDefaultScene(n ? Number(n) : undefined);
  cloud.source = { ...cloud.source, name: spec };
  return cloud;
}
