import { defineConfig } from 'vite';

// `npm run build:lib`: the library (renderer/api) as ES modules in dist-lib/:
// index.js (createViewer, Viewer, ...) and element.js (<splat-view>), sharing
// chunks; the scene loader's worker beside them. Dependencies are bundled in, so
// a page can load dist-lib/ as it is. Types: tsconfig.lib.json.
export default defineConfig({
  // Relative asset URLs: the workers are found beside the module that starts them
  // (new URL('assets/…', import.meta.url)) wherever dist-lib/ is copied or served
  // from, not at the site root.
  base: './',
  build: {
    target: 'es2022',
    outDir: 'dist-lib',
    emptyOutDir: true,
    copyPublicDir: false,
    sourcemap: true,
    lib: {
      entry: { index: 'renderer/api/index.ts', element: 'renderer/api/element.ts' },
      formats: ['es'],
    },
  },
  worker: { format: 'es' },
});
