import { SH_C0, SH_C1, SH_C2, SH_C3 } from '../../scenes/sh';

/** A JS number as a WGSL abstract-float literal, to the last digit (String() round-trips). */
function lit(x: number): string {
  const s = String(x);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

const array = (v: readonly number[]) => `array<f32, ${v.length}>(${v.map(lit).join(', ')})`;

/**
 * The SH constants of scenes/sh.ts as a WGSL `const` prelude (SH_C0, SH_C1,
 * SH_C2, SH_C3), prepended to the shaders that evaluate SH: the numbers are
 * written once, in TypeScript.
 */
export const SH_WGSL = [
  '// Generated from scenes/sh.ts by renderer/project/sh-wgsl.ts.',
  `const SH_C0: f32 = ${lit(SH_C0)};`,
  `const SH_C1: f32 = ${lit(SH_C1)};`,
  `const SH_C2 = ${array(SH_C2)};`,
  `const SH_C3 = ${array(SH_C3)};`,
  '',
].join('\n');
