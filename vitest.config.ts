import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Five projects, all run by `npm test`:
//  unit        pure CPU tests beside their modules and under test/unit
//  gpu         real WGSL in Node on the default Vulkan adapter (lavapipe in CI, 4 lanes)
//  gpu-sort    the GPU sorters' tests on the same adapter at its default width (8 lanes)
//  swiftshader a few GPU cases again on SwiftShader (subgroup size 4, 256 invocations)
//  e2e         headless Chromium (Debian's chromium, SwiftShader WebGPU) against the built page

/** The GPU sorters' own tests (test/gpu), run where lavapipe's subgroups are 8 lanes wide. */
const SORT_KERNEL_TESTS = ['test/gpu/sort-radix4.test.ts', 'test/gpu/sort-onesweep.test.ts', 'test/gpu/sort-radix16.test.ts', 'test/gpu/sort-bitonic.test.ts'];

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
    // A worker that dies (a native crash) is named with its file and test: vitest alone
    // says only "Worker exited unexpectedly" (test/support/unfinished-reporter.ts).
    reporters: ['default', './test/support/unfinished-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['scenes/**/*.test.ts', 'sort/**/*.test.ts', 'renderer/**/*.test.ts', 'app/**/*.test.ts', 'test/unit/**/*.test.ts'],
          environment: 'node',
          // Pure CPU tests, no GPU device and no global left changed: one process runs many
          // files, importing the shared modules once (unit alone 58 -> 44 s, its imports
          // 15 -> 6 s, on a 2-core machine, 2026-12-07).
          isolate: false,
        },
      },
      {
        test: {
          name: 'gpu',
          include: ['test/gpu/**/*.test.ts'],
          exclude: SORT_KERNEL_TESTS,
          environment: 'node',
          pool: 'forks',
          // lavapipe at 128-bit vectors (4 lanes, its subgroups of 4) compiles a pipeline
          // in about half the time of its default 256 bits on an AVX2 machine, and these
          // files mostly compile: gpu-budget.test.ts 34 -> 18 s cold, unit + GPU +
          // SwiftShader 188 -> 166 s on a 2-core machine (2026-11-28). Set here, before
          // the worker's Dawn loads the driver; only the test run sees it.
          env: { LP_NATIVE_VECTOR_WIDTH: '128' },
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // The sorters' kernels on lavapipe's default width: subgroups of 8, a size
          // neither SwiftShader (4) nor a GPU (32 or 64) gives them.
          name: 'gpu-sort',
          include: SORT_KERNEL_TESTS,
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
          // One production build of the page for every file that serves it.
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
