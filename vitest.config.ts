import { defineConfig } from 'vitest/config';

// Four projects, all run by `npm test`:
//  unit        pure CPU tests beside their modules and under test/unit
//  gpu         real WGSL in Node on the default Vulkan adapter (lavapipe in CI)
//  swiftshader a few GPU cases again on SwiftShader (subgroup size 4, 256 invocations)
//  e2e         headless Chromium (Debian's chromium, SwiftShader WebGPU) against the built page
export default defineConfig({
  test: {
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
