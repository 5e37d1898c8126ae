import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Four projects, all run by `npm test`:
//  unit        pure CPU tests beside their modules and under test/unit
//  gpu         real WGSL in Node on the default Vulkan adapter (lavapipe in CI)
//  swiftshader a few GPU cases again on SwiftShader (subgroup size 4, 256 invocations)
//  e2e         headless Chromium (Debian's chromium, SwiftShader WebGPU) against the built page
export default defineConfig({
  test: {
    // Two test files at a time at least: vitest's default (the CPUs less one) runs one
    // file at a time on a 2-core machine, and most files wait on one thread (JS, or a
    // GPU readback) much of the time: unit, GPU and SwiftShader 314 -> 173 s on a
    // 2-core machine, 2026-11-27 (docs/PERFORMANCE.md). The e2e project runs with
    // --maxWorkers=1 (package.json): its tests measure frames and long tasks in real
    // time, and two Chromiums drawing on SwiftShader starve each other's frames (a
    // 1M-splat load saw no animation frame at all beside another e2e file).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['scenes/**/*.test.ts', 'sort/**/*.test.ts', 'renderer/**/*.test.ts', 'test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'gpu',
          include: ['test/gpu/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'swiftshader',
          include: ['test/swiftshader/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          env: { SPLAT_GPU: 'swiftshader' },
          testTimeout: 300_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 300_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
