/**
 * Comparing two SplatClouds' arrays in tests (a format reader against its source,
 * a writer's round trip): the worst per-element difference, and the worst rotation
 * difference with q and -q the same rotation.
 */
import { expect } from 'vitest';

/** Largest f(a[i], b[i]) (default |a - b|); the arrays must be the same length. */
export function worst(a: Float32Array, b: Float32Array, f: (x: number, y: number) => number = (x, y) => Math.abs(x - y)): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, f(a[i]!, b[i]!));
  return m;
}

/** Largest component error of quaternions (4 floats each), q and -q being the same rotation. */
export function rotationError(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i += 4) {
    let plus = 0, minus = 0;
    for (let k = 0; k < 4; k++) {
      plus = Math.max(plus, Math.abs(a[i + k]! - b[i + k]!));
      minus = Math.max(minus, Math.abs(a[i + k]! + b[i + k]!));
    }
    m = Math.max(m, Math.min(plus, minus));
  }
  return m;
}
